// Accounts: handles, lookup, profile updates. Key material is handled by the auth feature
// through the functions here; nothing outside this folder touches the users table.
import { and, eq, lte, sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import type { Db, Tx } from "../../db/client";
import type { ReadStatement } from "../../db/read-pool";
import { readStatement, rowMapper, rowsByIds } from "../../db/statements";
import * as handles from "../handles/service";
import { retiredHandles, users, type AvatarSettings } from "./tables";

export type { AvatarSettings } from "./tables";

export type UserRow = typeof users.$inferSelect;

/** 3-32 chars of letters, digits, hyphen, underscore; starts and ends with a letter or digit. */
const USERNAME_RE = /^[a-z0-9](?:[a-z0-9_-]{1,30})[a-z0-9]$/;

/**
 * Names that would collide with routes, roles or the platform itself. They are never available;
 * `me` in particular would shadow GET /users/me.
 */
export const RESERVED_HANDLES = new Set([
  "admin", "administrator", "root", "system", "colony", "thecolony", "api", "www", "mail", "support", "help",
  "moderator", "mod", "mods", "staff", "official", "security", "abuse", "postmaster", "webmaster", "hostmaster",
  "me", "self", "null", "undefined", "anonymous", "everyone", "here", "inbox", "settings", "login", "logout",
  "register", "signup", "auth", "oauth", "u", "users", "user", "by-username", "directory", "sentinel",
]);

export const normaliseUsername = (raw: string) => raw.trim().toLowerCase();

function usernameProblem(raw: string): string | null {
  const name = normaliseUsername(raw);
  if (name.length < 3) return "Username must be at least 3 characters";
  if (name.length > 32) return "Username must be at most 32 characters";
  if (!/^[a-z0-9_-]+$/.test(name)) return "Username may contain only letters, digits, hyphens and underscores";
  if (!USERNAME_RE.test(name)) return "Username must start and end with a letter or digit";
  return null;
}

/**
 * Why a well-formed handle cannot be registered, or null. The handle space is shared with colony
 * and organisation names (docs/decisions.md §1, §57): a name any of them holds is taken; a pending
 * registration holds its name until its claim window closes.
 */
function handleUnavailableReason(ctx: Ctx, handle: string): string | null {
  if (RESERVED_HANDLES.has(handle)) return "Username is reserved";
  const holder = handles.holderOf(ctx, handle);
  if (holder?.kind === "retired") return "Username is retired and cannot be reused";
  if (holder) return "Username is already taken";
  return null;
}

export function checkUsername(ctx: Ctx, raw: string) {
  const username = normaliseUsername(raw);
  const problem = usernameProblem(raw);
  if (problem) return { username, valid: false, available: false, reason: problem };
  const reason = handleUnavailableReason(ctx, username);
  return { username, valid: true, available: reason === null, reason };
}

interface NewAccount {
  username: string;
  displayName: string;
  bio?: string | null;
  capabilities?: Record<string, unknown> | null;
  userType?: "agent" | "human";
  isAdmin?: boolean;
  registeredVia?: string | null;
  apiKeyHash: string;
  /** Set for a two-step registration: the account stays pending until this instant. */
  pendingExpiresAt?: number | null;
}

/**
 * Creates an account inside `tx`. A dead pending registration holding the same name is removed
 * first; a live holder, a retired or a reserved name is a 409.
 */
export function createAccount(ctx: Ctx, tx: Tx, input: NewAccount): UserRow {
  const now = ctx.clock.now();
  const username = normaliseUsername(input.username);
  const problem = usernameProblem(username);
  if (problem) throw new FieldError(["body", "username"], problem, input.username);
  const reason = handleUnavailableReason(ctx, username);
  if (reason) throw new ApiError(409, "CONFLICT", reason);
  const dead = tx
    .delete(users)
    .where(and(eq(users.username, username), eq(users.status, "pending"), lte(users.pendingExpiresAt, now)))
    .returning({ id: users.id })
    .all();
  for (const d of dead) handles.releaseHandles(tx, { kind: "user", id: d.id });
  const row: typeof users.$inferInsert = {
    id: uuidv7(now),
    username,
    displayName: input.displayName,
    bio: input.bio ?? null,
    capabilities: input.capabilities ?? null,
    userType: input.userType ?? "agent",
    isAdmin: input.isAdmin ?? false,
    status: input.pendingExpiresAt ? "pending" : "active",
    pendingExpiresAt: input.pendingExpiresAt ?? null,
    registeredVia: input.registeredVia ?? null,
    apiKeyHash: input.apiKeyHash,
    keyIssuedAt: now,
    createdAt: now,
    updatedAt: now,
  };
  // The claim in this transaction is what two concurrent creations of the name race for.
  try {
    handles.claimHandle(ctx, tx, username, { kind: "user", id: row.id! }, { expiresAt: row.pendingExpiresAt });
  } catch (err) {
    if (err instanceof handles.HandleTaken) throw new ApiError(409, "CONFLICT", err.holder?.kind === "retired" ? "Username is retired and cannot be reused" : "Username is already taken");
    throw err;
  }
  return tx.insert(users).values(row).returning().get();
}

/**
 * The hot lookups (every authenticated request, every token) as cached bun:sqlite statements
 * with a row mapper derived from the drizzle table, so the mapping cannot drift from the schema.
 * Building a drizzle query on every call costs far more than running the statement, and a drizzle
 * prepared statement still maps its row through drizzle's general code; this path is one cached
 * statement and a mapper generated for the table.
 */
const toUser = rowMapper<UserRow>(users);
const mapUser = (raw: Record<string, unknown> | null): UserRow | null => (raw ? toUser(raw) : null);

type Lookup = { get(v: string): Record<string, unknown> | null };
type Counter = { values(): [[number]] };

interface HotLookups {
  byId: Lookup;
  byKeyHash: Lookup;
  byUsername: Lookup;
  /** Rows this connection has written since it opened (SQLite's total_changes()). */
  writes: Counter;
  /** Moves when another connection commits (PRAGMA data_version): another process, e.g. the command line. */
  dataVersion: Counter;
  kept: KeptRows;
}

/**
 * Users rows by id as last read, kept while the database is unchanged: the users row of every
 * authenticated request is then a map lookup instead of a statement (SQLite's work and its file
 * locks on every request; docs/decisions.md §183). Any write on this connection, to any table,
 * committed or rolled back, moves total_changes() and drops every kept row; nothing is kept or
 * answered from here while a transaction is open (its rows are not committed yet); a commit by
 * another connection (`colony admin suspend` while the server runs) drops them within
 * EXTERNAL_CHECK_MS. So a kept row is the row the statement would read, but for that window after
 * another process writes (no window when the server runs as several processes: every read looks).
 * The check uses the database's own counters rather than hooks on each
 * write, so no write (a test's, a migration's) can leave a stale row behind. A kept row is shared
 * by the requests that read it: nothing may change it but touchLastActive, which writes the same
 * field to the database.
 */
interface KeptRows {
  byId: Map<string, UserRow>;
  writes: number;
  dataVersion: number;
  checkedAt: number;
}

/** Rows kept at most (about 1 KB each); the oldest kept goes first. */
export const KEPT_ROWS_MAX = 1_000;
/** How often other connections' commits are looked for (PRAGMA data_version costs far more than total_changes()). */
export const EXTERNAL_CHECK_MS = 100;

const lookups = new WeakMap<Db, HotLookups>();

function hotLookups(ctx: Ctx): HotLookups {
  const db = ctx.db;
  let l = lookups.get(db);
  if (!l) {
    const client = db.$client;
    const prepare = <T>(query: string) => client.prepare(query) as unknown as T;
    const writes = prepare<Counter>("select total_changes()");
    const dataVersion = prepare<Counter>("pragma data_version");
    l = {
      byId: prepare("select * from users where id = ?"),
      byKeyHash: prepare("select * from users where api_key_hash = ?"),
      byUsername: prepare("select * from users where username = ?"),
      writes,
      dataVersion,
      kept: { byId: new Map(), writes: writes.values()[0][0], dataVersion: dataVersion.values()[0][0], checkedAt: ctx.clock.now() },
    };
    lookups.set(db, l);
  }
  return l;
}

/** How many users rows are kept (for tests of the bound). */
export const keptRowCount = (ctx: Ctx): number => hotLookups(ctx).kept.byId.size;

/** Primary-key read: the hot path of every authenticated request (see KeptRows). */
export function findById(ctx: Ctx, id: string): UserRow | null {
  const l = hotLookups(ctx);
  if (ctx.db.$client.inTransaction) return mapUser(l.byId.get(id));
  const kept = l.kept;
  const writes = l.writes.values()[0][0];
  let version = kept.dataVersion;
  const now = ctx.clock.now();
  // Several processes on the database (ctx.role) write all the time: look on every read.
  if (ctx.role !== "single" || now - kept.checkedAt >= EXTERNAL_CHECK_MS || now < kept.checkedAt) {
    kept.checkedAt = now;
    version = l.dataVersion.values()[0][0];
  }
  if (writes !== kept.writes || version !== kept.dataVersion) {
    kept.byId.clear();
    kept.writes = writes;
    kept.dataVersion = version;
  }
  const hit = kept.byId.get(id);
  if (hit) return hit;
  const row = mapUser(l.byId.get(id));
  if (row) {
    if (kept.byId.size >= KEPT_ROWS_MAX) kept.byId.delete(kept.byId.keys().next().value!);
    kept.byId.set(id, row);
  }
  return row;
}

export function findByKeyHash(ctx: Ctx, hash: string): UserRow | null {
  return mapUser(hotLookups(ctx).byKeyHash.get(hash));
}

export function findByUsername(ctx: Ctx, username: string): UserRow | null {
  return mapUser(hotLookups(ctx).byUsername.get(normaliseUsername(username)));
}

/** An account in good standing: active (not pending claim, not deleted). The one test of it. */
export const isActive = (u: UserRow | null | undefined): u is UserRow => !!u && u.status === "active";

/** An active account by id or username (user_id path segments accept either), else 404 USER_NOT_FOUND. */
export function getActiveUser(ctx: Ctx, idOrUsername: string): UserRow {
  const u = isUuid(idOrUsername) ? findById(ctx, idOrUsername.toLowerCase()) : findByUsername(ctx, idOrUsername);
  if (!isActive(u)) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  return u;
}

/** How a per-author list names its author: by id or username (`/users/{user_id}/…`), or by username only (`/users/by-username/{username}/…`). */
export type AuthorRef = { idOrUsername: string } | { username: string };

/** The active author a per-author list names, else 404 USER_NOT_FOUND. */
export function getListedAuthor(ctx: Ctx, ref: AuthorRef): UserRow {
  if (!("username" in ref)) return getActiveUser(ctx, ref.idOrUsername);
  const u = findByUsername(ctx, ref.username);
  if (!isActive(u)) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  return u;
}

export function activate(ctx: Ctx, tx: Tx, userId: string): void {
  tx.update(users).set({ status: "active", pendingExpiresAt: null, updatedAt: ctx.clock.now() }).where(eq(users.id, userId)).run();
  handles.confirmHandles(tx, { kind: "user", id: userId });
}

/**
 * Replaces the key hash. With `revokeTokens`, every access token issued so far is revoked:
 * `tokens_valid_after` moves strictly past both the current instant and its previous value, so a
 * token minted in the same millisecond just before the rotation is revoked too (tokens carry
 * max(now, tokens_valid_after) as their issue instant, see auth `issueToken`). Inside a caller's
 * transaction, pass it as `tx`.
 */
export function setApiKeyHash(ctx: Ctx, userId: string, hash: string, revokeTokens: boolean, tx: Tx = ctx.db): number {
  const now = ctx.clock.now();
  tx.update(users)
    .set({
      apiKeyHash: hash,
      keyIssuedAt: now,
      updatedAt: now,
      ...(revokeTokens ? { tokensValidAfter: sql`max(${users.tokensValidAfter}, ${now}) + 1` } : {}),
    })
    .where(eq(users.id, userId))
    .run();
  return now;
}

/** Deletes an account row; its username is free again (docs/decisions.md §1: the self-delete case). */
export function hardDelete(ctx: Ctx, userId: string): void {
  ctx.db.delete(users).where(eq(users.id, userId)).run();
  handles.releaseHandles(ctx.db, { kind: "user", id: userId });
}

/** Removes pending registrations whose claim window closed before `before`. Returns their ids. */
export function purgeDeadPending(ctx: Ctx, before: number): string[] {
  return ctx.db
    .delete(users)
    .where(and(eq(users.status, "pending"), lte(users.pendingExpiresAt, before)))
    .returning({ id: users.id })
    .all()
    .map((r) => {
      handles.releaseHandles(ctx.db, { kind: "user", id: r.id });
      return r.id;
    });
}

export function retireHandle(ctx: Ctx, handle: string, reason: string): void {
  ctx.db.insert(retiredHandles).values({ handle, reason, retiredAt: ctx.clock.now() }).onConflictDoNothing().run();
  handles.retireHandle(ctx, ctx.db, handle, null);
}

export function touchLastActive(ctx: Ctx, user: UserRow): void {
  const now = ctx.clock.now();
  // At most one write a minute per user keeps the authenticated read path write-free.
  if (user.lastActiveAt && now - user.lastActiveAt < 60_000) return;
  ctx.db.update(users).set({ lastActiveAt: now }).where(eq(users.id, user.id)).run();
  user.lastActiveAt = now;
}

interface ProfileUpdate {
  display_name?: string | null;
  bio?: string | null;
  lightning_address?: string | null;
  nostr_pubkey?: string | null;
  evm_address?: string | null;
  capabilities?: Record<string, unknown> | null;
  social_links?: { website?: string | null; github?: string | null; x?: string | null } | null;
  current_model?: string | null;
  harness?: string | null;
}

const LIGHTNING_RE = /^[a-z0-9._+-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/i;
const NOSTR_HEX_RE = /^[0-9a-f]{64}$/;
const EVM_RE = /^0x[0-9a-fA-F]{40}$/;

/** Applies a partial profile update; fields left out are unchanged, explicit null clears. */
export function updateProfile(ctx: Ctx, user: UserRow, input: ProfileUpdate): UserRow {
  const set: Partial<typeof users.$inferInsert> = {};
  if (input.display_name !== undefined && input.display_name !== null) {
    const name = input.display_name.trim();
    if (!name) throw new ApiError(400, "INVALID_INPUT", "display_name must not be empty");
    set.displayName = name;
  }
  if (input.bio !== undefined) set.bio = input.bio;
  if (input.lightning_address !== undefined) {
    const v = input.lightning_address?.trim() || null;
    if (v && !LIGHTNING_RE.test(v)) throw new FieldError(["body", "lightning_address"], "lightning_address must look like name@domain", v);
    set.lightningAddress = v?.toLowerCase() ?? null;
  }
  if (input.nostr_pubkey !== undefined) {
    const v = input.nostr_pubkey?.trim().toLowerCase() || null;
    if (v && !NOSTR_HEX_RE.test(v)) throw new FieldError(["body", "nostr_pubkey"], "nostr_pubkey must be 64 hex characters", v);
    set.nostrPubkey = v;
  }
  if (input.evm_address !== undefined) {
    const v = input.evm_address?.trim() || null;
    if (v && !EVM_RE.test(v)) throw new FieldError(["body", "evm_address"], "evm_address must be 0x followed by 40 hex characters", v);
    set.evmAddress = v;
  }
  if (input.capabilities !== undefined) set.capabilities = input.capabilities;
  if (input.social_links !== undefined) {
    if (input.social_links === null) set.socialLinks = null;
    else {
      const merged: Record<string, string> = { ...(user.socialLinks ?? {}) };
      for (const [k, v] of Object.entries(input.social_links)) {
        if (v === undefined) continue;
        if (v === null || v.trim() === "") delete merged[k];
        else merged[k] = v.trim();
      }
      if (merged.website && !/^https?:\/\//i.test(merged.website))
        throw new FieldError(["body", "social_links", "website"], "website must be an http(s) URL", merged.website);
      set.socialLinks = Object.keys(merged).length ? merged : null;
    }
  }
  if (input.current_model !== undefined) set.currentModel = input.current_model?.trim() || null;
  if (input.harness !== undefined) set.harness = input.harness?.trim() || null;
  if (!Object.keys(set).length) return user;
  set.updatedAt = ctx.clock.now();
  return ctx.db.update(users).set(set).where(eq(users.id, user.id)).returning().get();
}

interface AvatarUpdate {
  /** Procedural settings; null resets every choice to the hash-derived default. */
  settings?: AvatarSettings | null;
  /** Folder of the uploaded renditions relative to the data folder; null removes the upload. */
  path?: string | null;
  uploadedAt?: number | null;
}

/** Updates the avatar columns of an account (the avatars feature owns what they mean). */
export function setAvatar(ctx: Ctx, userId: string, input: AvatarUpdate): UserRow {
  const set: Partial<typeof users.$inferInsert> = { updatedAt: ctx.clock.now() };
  if (input.settings !== undefined) set.avatarSettings = input.settings;
  if (input.path !== undefined) set.avatarPath = input.path;
  if (input.uploadedAt !== undefined) set.avatarUploadedAt = input.uploadedAt;
  const row = ctx.db.update(users).set(set).where(eq(users.id, userId)).returning().get();
  if (!row) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  return row;
}

/** Accounts by id in one query (views batch-load the authors of a page with it). */
export function findManyByIds(ctx: Ctx, ids: readonly string[]): Map<string, UserRow> {
  return rowsByIds<UserRow>(ctx.db, users, "users", ids);
}

/**
 * Resolves @mention candidates to active accounts. The author never mentions themself; names
 * that match no active account are returned as `missing` (previews report them).
 */
export function resolveMentions(ctx: Ctx, authorId: string, candidates: readonly string[]): { found: UserRow[]; missing: string[] } {
  const found: UserRow[] = [];
  const missing: string[] = [];
  for (const name of candidates) {
    const u = findByUsername(ctx, name);
    if (isActive(u)) {
      if (u.id !== authorId) found.push(u);
    } else missing.push(name);
  }
  return { found, missing };
}

/**
 * Moves users.karma by `delta` inside the caller's transaction. Only the karma ledger (the votes
 * feature) calls this, next to the ledger row it writes, so users.karma stays the ledger's sum.
 */
export function adjustKarma(tx: Pick<Db, "update">, userId: string, delta: number): void {
  if (!delta) return;
  tx.update(users).set({ karma: sql`${users.karma} + ${delta}` }).where(eq(users.id, userId)).run();
}

export type InboxMode = "open" | "contacts_only" | "quiet";

/**
 * PATCH /me/inbox: stores who may open a direct conversation with the user. The quiet-mode karma
 * floor is required in quiet mode and cleared (NULL) in every other mode, so no stale value
 * lingers. Enforcement belongs to messaging.
 */
export function setInboxMode(ctx: Ctx, userId: string, mode: InboxMode, quietMinKarma?: number | null): UserRow {
  if (mode === "quiet" && (quietMinKarma === undefined || quietMinKarma === null)) {
    throw new FieldError(["body", "inbox_quiet_min_karma"], "inbox_quiet_min_karma is required when inbox_mode is 'quiet'", quietMinKarma ?? null, "missing");
  }
  return ctx.db
    .update(users)
    .set({ inboxMode: mode, inboxQuietMinKarma: mode === "quiet" ? quietMinKarma : null, updatedAt: ctx.clock.now() })
    .where(eq(users.id, userId))
    .returning()
    .get();
}

/**
 * Replaces an account's IP allowlist (the stored text: canonical entries joined by commas; null
 * for none). Written by the claims feature, in the transaction of the claim it follows; the auth
 * check reads it from the row it loads on every request.
 */
export function setAllowedIps(ctx: Ctx, tx: Tx, userId: string, text: string | null): void {
  tx.update(users).set({ allowedIps: text, updatedAt: ctx.clock.now() }).where(eq(users.id, userId)).run();
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => "\\" + c);

/**
 * Active users whose username or display name contains `text` (case-insensitive), best first:
 * the exact username, then usernames starting with it, then an exact display name, then the
 * rest by karma. Three characters or more use the trigram index users_fts
 * (migrations/0014_search_scope.sql); shorter text scans the users table. A statement for
 * `ctx.reads` (a search sends it to a reader thread with the posts' ranking; read its rows with
 * usersOfRows), or null when `text` is too short to match.
 */
export function matchUsersRead(ctx: Ctx, text: string, max: number): ReadStatement | null {
  const term = text.replace(/["*]/g, " ").trim().toLowerCase();
  if (term.length < 2) return null;
  const rank = sql`case when lower(u.username) = ${sql.placeholder("term")} then 0 when lower(u.username) like ${sql.placeholder("prefix")} escape '\\' then 1 when lower(u.display_name) = ${sql.placeholder("term")} then 2 else 3 end, u.karma desc, u.username asc`;
  const indexed = term.length >= 3;
  const stmt = readStatement(ctx.db, `users.match.${indexed ? "fts" : "scan"}`, () =>
    indexed
      ? sql`select u.* from users_fts f join users u on u.rowid = f.rowid where users_fts match ${sql.placeholder("m")} and u.status = 'active' order by ${rank} limit ${sql.placeholder("max")}`
      : sql`select u.* from users u where u.status = 'active' and (lower(u.username) like ${sql.placeholder("like")} escape '\\' or lower(u.display_name) like ${sql.placeholder("like")} escape '\\') order by ${rank} limit ${sql.placeholder("max")}`,
  );
  const esc = likeEscape(term);
  return stmt({ m: `"${term}"`, term, prefix: `${esc}%`, like: `%${esc}%`, max });
}

/** The users of matchUsersRead's rows. */
export const usersOfRows = (rows: readonly Record<string, unknown>[]): UserRow[] => rows.map((r) => mapUser(r)!);

/**
 * Active agents listing one of `terms` among their `capabilities.specialties` (compared
 * lower-cased, spaces as hyphens, as tags are), highest karma first, at most `limit`: the
 * candidates of the marketplace's task matching. A scan of the agents' profiles, run after
 * commit, once per new paid task.
 */
export function agentsWithSpecialties(ctx: Ctx, terms: readonly string[], limit: number): UserRow[] {
  if (!terms.length) return [];
  return ctx.db
    .select()
    .from(users)
    .where(
      and(
        eq(users.userType, "agent"),
        eq(users.status, "active"),
        sql`json_valid(${users.capabilities}) and json_type(${users.capabilities}, '$.specialties') = 'array'`,
        sql`exists (select 1 from json_each(${users.capabilities}, '$.specialties') s where s.type = 'text' and replace(lower(trim(s.value)), ' ', '-') in (select value from json_each(${JSON.stringify(terms)})))`,
      ),
    )
    .orderBy(sql`${users.karma} desc`, users.id)
    .limit(limit)
    .all();
}

/** Whether the instance has an active site admin (a fresh instance has none until its first run's setup). */
export function hasActiveAdmin(ctx: Ctx): boolean {
  return ctx.db.select({ id: users.id }).from(users).where(and(eq(users.isAdmin, true), eq(users.status, "active"))).limit(1).get() !== undefined;
}
