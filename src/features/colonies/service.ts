// Colonies and their membership (spec Part 2 §2.1-2.4, §3, §4.1; docs/decisions.md §14, §19): names,
// visibility, joining and leaving, settings, the roster and member approval. Other features ask
// the questions of this file (membershipOf, canRead, assertCanParticipate …) instead of reading
// the colony tables.
import { and, asc, count, desc, eq, inArray, isNull, ne, notInArray, or, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Ctx } from "../../core/context";
import { prepared, rowMapper, rowsByIds } from "../../db/statements";
import { ApiError, conflict, forbidden, invalid, notFound } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import type { Db, Tx } from "../../db/client";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import * as users from "../users/service";
import * as handles from "../handles/service";
import type { UserRow } from "../users/service";
import { recordModAction } from "./audit";
import { moderatorExited } from "./moderator-exits";
import {
  colonies,
  colonyBans,
  colonyMembers,
  type ColonyRole,
  type ColonySettings,
  type CommunityType,
} from "./tables";

export type ColonyRow = typeof colonies.$inferSelect;
export type MemberRow = typeof colonyMembers.$inferSelect;

export interface Membership {
  role: ColonyRole;
  approved: boolean;
  joinedAt: number;
}

/** Who is asking: the fields of the authenticated caller that colony rules look at. */
export interface Actor {
  id: string;
  isAdmin: boolean;
}


/** Roles that moderate (the last-moderator guard counts all of them). */
export const MODERATOR_ROLES: readonly ColonyRole[] = ["moderator", "founder_moderator", "admin"];
const isModeratorRole = (role: ColonyRole) => MODERATOR_ROLES.includes(role);

// ---------------------------------------------------------------------------------------------
// Names

/** Names that would shadow routes or pose as the platform. They are valid but never available. */
const RESERVED_COLONY_NAMES = new Set([
  ...users.RESERVED_HANDLES,
  "all", "popular", "new", "top", "hot", "create", "random", "mod-invites", "ownership-transfers",
  "check-name", "by-name", "members", "moderation", "feed", "search", "c",
]);

const NAME_MIN = 3;
const NAME_MAX = 50;
const NAME_RE = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;

/** Lookups strip and lower-case a name (spec Part 2 §2.1). */
const normaliseName = (raw: string) => raw.trim().toLowerCase();

/** Why a (normalised) name is not a well-formed slug, or null. Format only. */
function nameProblem(name: string): string | null {
  if (!name) return "Colony name must not be empty";
  if (name.length < NAME_MIN) return `Colony name must be at least ${NAME_MIN} characters`;
  if (name.length > NAME_MAX) return `Colony name must be at most ${NAME_MAX} characters`;
  if (!/^[a-z0-9_-]+$/.test(name)) return "Colony name may contain only lower-case letters, digits, hyphens and underscores";
  if (!NAME_RE.test(name)) return "Colony name must start and end with a letter or digit";
  // A name shaped like an id would make every id-or-name lookup ambiguous.
  if (isUuid(name)) return "Colony name must not look like an id";
  return null;
}

/**
 * Why a well-formed name cannot be taken, or null. A soft-deleted colony keeps its name; the
 * handle space is shared with usernames and organisation slugs (docs/decisions.md §1, §57).
 */
function nameUnavailableReason(ctx: Ctx, name: string): string | null {
  if (RESERVED_COLONY_NAMES.has(name)) return "Colony name is reserved";
  return handles.holderOf(ctx, name) ? "Colony name is already taken" : null;
}

/** Whether a handle is held by a colony (for features that share the handle space, docs/decisions.md §1). */
export const colonyNameTaken = (ctx: Ctx, handle: string) => !!ctx.db.select({ id: colonies.id }).from(colonies).where(eq(colonies.name, normaliseName(handle))).get();

export function checkName(ctx: Ctx, raw: string) {
  const name = normaliseName(raw);
  const problem = nameProblem(name);
  if (problem) return { name, valid: false, available: false, reason: problem };
  const reason = nameUnavailableReason(ctx, name);
  return { name, valid: true, available: reason === null, reason };
}

// ---------------------------------------------------------------------------------------------
// Lookups and the questions other features ask

/** A colony by id, deleted or not. */
export function findColony(ctx: Ctx, id: string): ColonyRow | null {
  if (!isUuid(id)) return null;
  // Asked for every post rendered alone and every event checked for visibility: prepared once.
  const stmt = prepared(ctx.db, "colonies.byId", () => ctx.db.select().from(colonies).where(eq(colonies.id, sql.placeholder("id"))).prepare());
  return stmt.get({ id: id.toLowerCase() }) ?? null;
}

/** Colonies by id in one query (views of a page of posts), deleted or not. */
export function findColonies(ctx: Ctx, ids: readonly string[]): Map<string, ColonyRow> {
  return rowsByIds<ColonyRow>(ctx.db, colonies, "colonies", ids.filter(isUuid).map((id) => id.toLowerCase()));
}

/** How many colonies exist (not deleted), private ones included: a count along colonies_popular_idx. */
export function liveColonyCount(ctx: Ctx): number {
  const stmt = prepared(ctx.db, "colonies.liveCount", () => ctx.db.$client.prepare<{ n: number }, []>("select count(*) as n from colonies where deleted_at is null"));
  return stmt.get()!.n;
}

/** A colony by name (normalised), deleted or not. */
export function findColonyByName(ctx: Ctx, name: string): ColonyRow | null {
  return ctx.db.select().from(colonies).where(eq(colonies.name, normaliseName(name))).get() ?? null;
}

export interface ColonyLabel {
  name: string;
  displayName: string;
}

/**
 * Names and display names of colonies by id (deleted ones included), for views of other features:
 * posts carry colony_name and colony_display_name. Two columns through one prepared statement,
 * not whole rows: a page of posts asks on every render.
 */
export function colonyLabels(ctx: Ctx, ids: readonly string[]): Map<string, ColonyLabel> {
  const unique = [...new Set(ids)].filter(isUuid).map((id) => id.toLowerCase());
  if (!unique.length) return new Map();
  const stmt = prepared(ctx.db, "colonies.labels", () => ctx.db.$client.prepare<{ id: string; name: string; display_name: string }, [string]>(`select id, name, display_name from colonies where id in (select value from json_each(?))`));
  return new Map(stmt.all(JSON.stringify(unique)).map((r) => [r.id, { name: r.name, displayName: r.display_name }]));
}

const mapMember = rowMapper<MemberRow>(colonyMembers);
const mapBan = rowMapper<typeof colonyBans.$inferSelect>(colonyBans);

/** One membership row, through a statement prepared once (every post, comment and vote asks). */
export function memberRow(ctx: Ctx, colonyId: string, userId: string): MemberRow | null {
  const stmt = prepared(ctx.db, "colonies.member", () => ctx.db.$client.prepare<Record<string, unknown>, [string, string]>("select * from colony_members where colony_id = ? and user_id = ?"));
  const raw = stmt.get(colonyId, userId);
  return raw ? mapMember(raw) : null;
}

export function membershipOf(ctx: Ctx, colonyId: string, userId: string): Membership | null {
  const m = memberRow(ctx, colonyId, userId);
  return m ? { role: m.role, approved: m.approved, joinedAt: m.joinedAt } : null;
}

/** An approved member holding a moderating role (moderator, founder_moderator or admin). */
export function isModerator(ctx: Ctx, colonyId: string, userId: string): boolean {
  const m = membershipOf(ctx, colonyId, userId);
  return !!m && m.approved && isModeratorRole(m.role);
}

/** Colony moderators, colony admins, the founder, and site admins (who act as moderators everywhere). */
export function canModerate(ctx: Ctx, colony: ColonyRow, caller: Actor): boolean {
  return caller.isAdmin || isModerator(ctx, colony.id, caller.id);
}

/**
 * Whether the caller may read the colony and its content. Deleted colonies are unreadable;
 * private ones need an approved membership (a pending join, which anyone knowing the name can
 * file, grants nothing) or a site admin.
 */
export function canRead(ctx: Ctx, colony: ColonyRow, caller: Actor | null): boolean {
  if (colony.deletedAt !== null) return false;
  if (colony.communityType !== "private") return true;
  if (!caller) return false;
  if (caller.isAdmin) return true;
  return !!membershipOf(ctx, colony.id, caller.id)?.approved;
}

/** A colony by id or name that the caller may read, else 404 NOT_FOUND. */
export function getReadableColony(ctx: Ctx, caller: Actor | null, idOrName: string): ColonyRow {
  const colony = isUuid(idOrName) ? findColony(ctx, idOrName) : findColonyByName(ctx, idOrName);
  if (!colony || !canRead(ctx, colony, caller)) throw colonyNotFound();
  return colony;
}

/** A colony by name (never by id) that the caller may read, else 404 NOT_FOUND. */
export function getReadableColonyByName(ctx: Ctx, caller: Actor | null, name: string): ColonyRow {
  const colony = findColonyByName(ctx, name);
  if (!colony || !canRead(ctx, colony, caller)) throw colonyNotFound();
  return colony;
}

const colonyNotFound = () => notFound("Colony not found");

/** The caller's colony ban if one is in force (a ban past its expiry no longer applies). */
export function activeBan(ctx: Ctx, colonyId: string, userId: string) {
  const stmt = prepared(ctx.db, "colonies.ban", () => ctx.db.$client.prepare<Record<string, unknown>, [string, string]>("select * from colony_bans where colony_id = ? and user_id = ?"));
  const raw = stmt.get(colonyId, userId);
  if (!raw) return null;
  const ban = mapBan(raw);
  if (ban.expiresAt !== null && ban.expiresAt <= ctx.clock.now()) return null;
  return ban;
}

/**
 * The write check for posting, commenting and voting in a colony. Deleted or unreadable colonies
 * are 404; a banned caller is 403 FORBIDDEN; public colonies need no membership; restricted and
 * private ones need an approved membership, else 403 FORBIDDEN (docs/decisions.md §14). Site admins pass.
 */
export function assertCanParticipate(ctx: Ctx, colony: ColonyRow, caller: Actor): void {
  if (!canRead(ctx, colony, caller)) throw colonyNotFound();
  if (caller.isAdmin) return;
  if (activeBan(ctx, colony.id, caller.id)) throw forbidden("You are banned from this colony");
  if (colony.communityType === "public") return;
  const m = membershipOf(ctx, colony.id, caller.id);
  if (!m) throw forbidden(`Only approved members can take part in this ${colony.communityType} colony: join it first`);
  if (!m.approved) throw forbidden("Your membership of this colony is awaiting moderator approval");
}

/** Moves the public post counter (the posts feature calls this inside its write transaction). */
/** Moves a colony's post count (never below zero); on the connection of the caller's transaction. */
export function adjustPostCount(ctx: Ctx, colonyId: string, delta: number): void {
  if (!delta) return;
  prepared(ctx.db, "colonies.adjustPostCount", () => ctx.db.$client.prepare<unknown, [number, string]>("update colonies set post_count = max(0, post_count + ?) where id = ?")).run(delta, colonyId);
}

/** Colonies the user is an approved member of (pending joins excluded), deleted ones included. */
export function approvedMemberColonyIds(ctx: Ctx, userId: string): string[] {
  return ctx.db
    .select({ id: colonyMembers.colonyId })
    .from(colonyMembers)
    .where(and(eq(colonyMembers.userId, userId), eq(colonyMembers.approved, true)))
    .all()
    .map((r) => r.id);
}

/**
 * The private colonies the caller may read beyond the public ones: null for site admins (every
 * colony), else the live private colonies the caller is an approved member of.
 */
export function readablePrivateColonyIds(ctx: Ctx, caller: Actor | null): string[] | null {
  if (!caller) return [];
  if (caller.isAdmin) return null;
  const stmt = prepared(ctx.db, "colonies.readablePrivate", () =>
    ctx.db
      .select({ id: colonies.id })
      .from(colonyMembers)
      .innerJoin(colonies, eq(colonies.id, colonyMembers.colonyId))
      .where(and(eq(colonyMembers.userId, sql.placeholder("user")), eq(colonyMembers.approved, true), eq(colonies.communityType, "private"), isNull(colonies.deletedAt)))
      .prepare(),
  );
  return stmt.all({ user: caller.id }).map((r) => r.id);
}

const approvedMembershipsOf = (ctx: Ctx, userId: string) =>
  ctx.db
    .select({ id: colonyMembers.colonyId })
    .from(colonyMembers)
    .where(and(eq(colonyMembers.userId, userId), eq(colonyMembers.approved, true)));

/**
 * A WHERE condition for list queries of other features: true where `colonyIdColumn` names a
 * live colony the caller may read (the same rule as canRead), or is null (content outside every
 * colony). Example: `.where(and(eq(posts.status, "published"), readableColonyFilter(ctx, caller, posts.colonyId)))`.
 */
export function readableColonyFilter(ctx: Ctx, caller: Actor | null, colonyIdColumn: SQLiteColumn | SQL): SQL {
  const live = isNull(colonies.deletedAt);
  let visible: SQL | undefined;
  if (!caller) visible = and(live, ne(colonies.communityType, "private"));
  else if (caller.isAdmin) visible = live;
  else visible = and(live, or(ne(colonies.communityType, "private"), inArray(colonies.id, approvedMembershipsOf(ctx, caller.id))));
  const readable = ctx.db.select({ id: colonies.id }).from(colonies).where(visible);
  // inArray's overloads take a column or an expression separately; both render the same.
  return or(isNull(colonyIdColumn), inArray(colonyIdColumn as SQLiteColumn, readable))!;
}

// ---------------------------------------------------------------------------------------------
// Listing

interface ListColoniesInput {
  name?: string;
  /** Case-insensitive substring of the name or the display name (the MCP tool's `query`). */
  q?: string;
  memberColonies?: boolean;
}

/** GET /colonies: live colonies the caller may see, busiest first (ties: oldest, then by name). */
export function listColonies(ctx: Ctx, caller: Actor | null, input: ListColoniesInput, page: Page): { items: ColonyRow[]; total: number } {
  const q = listColoniesQueries(ctx, caller, input, page);
  return { items: q.items.all(), total: q.total.get()?.n ?? 0 };
}

/** The directory's queries, unexecuted (their plans are checked in service.test.ts). */
export function listColoniesQueries(ctx: Ctx, caller: Actor | null, input: ListColoniesInput, page: Page) {
  if (input.memberColonies !== undefined && !caller) {
    throw new ApiError(401, "AUTH_INVALID_TOKEN", "member_colonies filters by your memberships: send Authorization: Bearer <access_token>");
  }
  const conds: (SQL | undefined)[] = [isNull(colonies.deletedAt)];
  // An empty filter does not bind (docs/decisions.md §13).
  const name = input.name !== undefined ? normaliseName(input.name) : "";
  if (name) conds.push(eq(colonies.name, name));
  const q = input.q?.trim().toLowerCase();
  if (q) {
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conds.push(or(sql`lower(${colonies.name}) like ${like} escape '\\'`, sql`lower(${colonies.displayName}) like ${like} escape '\\'`));
  }
  if (!caller) conds.push(ne(colonies.communityType, "private"));
  else if (!caller.isAdmin) conds.push(or(ne(colonies.communityType, "private"), inArray(colonies.id, approvedMembershipsOf(ctx, caller.id))));
  if (caller && input.memberColonies === true) conds.push(inArray(colonies.id, approvedMembershipsOf(ctx, caller.id)));
  if (caller && input.memberColonies === false) conds.push(notInArray(colonies.id, approvedMembershipsOf(ctx, caller.id)));
  const where = and(...conds);
  return {
    total: ctx.db.select({ n: count() }).from(colonies).where(where),
    items: ctx.db
      .select()
      .from(colonies)
      .where(where)
      .orderBy(desc(colonies.memberCount), asc(colonies.createdAt), asc(colonies.name))
      .limit(page.limit)
      .offset(page.offset),
  };
}

// ---------------------------------------------------------------------------------------------
// Creating

interface CreateColonyInput {
  name: string;
  display_name: string;
  description?: string | null;
  community_type?: CommunityType | null;
}

/** The caller founds a colony: it becomes its founder_moderator, approved, and its first member. */
export function createColony(ctx: Ctx, caller: Actor, input: CreateColonyInput): ColonyRow {
  const name = normaliseName(input.name);
  const problem = nameProblem(name);
  if (problem) throw invalid(problem);
  const reason = nameUnavailableReason(ctx, name);
  if (reason) throw conflict(reason);
  const displayName = input.display_name.trim();
  if (!displayName) throw invalid("display_name must not be empty");
  const now = ctx.clock.now();
  const communityType = input.community_type ?? "public";
  try {
    return ctx.db.transaction((tx) => {
      const id = uuidv7(now);
      // The claim in this transaction is what two concurrent creations of the name race for.
      handles.claimHandle(ctx, tx, name, { kind: "colony", id });
      const colony = tx
        .insert(colonies)
        .values({
          id,
          name,
          displayName,
          description: input.description?.trim() || null,
          communityType,
          memberCount: 1,
          createdBy: caller.id,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .get();
      tx.insert(colonyMembers)
        .values({ colonyId: colony.id, userId: caller.id, role: "founder_moderator", approved: true, joinedAt: now, approvedAt: now, updatedAt: now })
        .run();
      ctx.events.emit(tx, {
        type: "colony_created",
        actorId: caller.id,
        subject: { type: "colony", id: colony.id },
        payload: { colony_id: colony.id, colony_name: colony.name, community_type: communityType, founder_id: caller.id },
        activity: true,
      });
      return colony;
    });
  } catch (err) {
    if (err instanceof handles.HandleTaken || isUniqueViolation(err)) throw conflict("Colony name is already taken");
    throw err;
  }
}

/** A uniqueness or primary-key clash: a concurrent writer took the name or membership first. */
const isUniqueViolation = (err: unknown) =>
  ["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"].includes(String((err as { code?: string })?.code)) || /UNIQUE constraint failed/.test(String(err));

// ---------------------------------------------------------------------------------------------
// Joining and leaving

/** How a membership route names its colony: by id (private stays invisible) or by name (docs/decisions.md §19). */
type ColonyRef = { id: string } | { name: string };

/**
 * The colony a membership route addresses. Deleted or missing is 404. A private colony addressed
 * by id is 404 to a caller who holds no membership of it (pending included) and is no site admin;
 * by name it resolves, so anyone told its name can ask to join.
 */
function colonyForMembership(ctx: Ctx, caller: Actor, ref: ColonyRef): ColonyRow {
  const colony = "id" in ref ? findColony(ctx, ref.id) : findColonyByName(ctx, ref.name);
  if (!colony || colony.deletedAt !== null) throw colonyNotFound();
  if ("id" in ref && colony.communityType === "private" && !caller.isAdmin && !memberRow(ctx, colony.id, caller.id)) throw colonyNotFound();
  return colony;
}

export function recountMembers(tx: Tx, colonyId: string, now: number): void {
  tx.update(colonies)
    .set({
      memberCount: sql`(select count(*) from ${colonyMembers} where ${colonyMembers.colonyId} = ${colonyId})`,
      updatedAt: now,
    })
    .where(eq(colonies.id, colonyId))
    .run();
}

/**
 * Joins the caller to a colony: approved at once in a public colony, pending (approved=false)
 * in a restricted or private one. 409 CONFLICT when archived or already a member, 403 FORBIDDEN
 * under a colony ban.
 */
export function joinColony(ctx: Ctx, caller: Caller, ref: ColonyRef): { colony: ColonyRow; approved: boolean } {
  const colony = colonyForMembership(ctx, caller, ref);
  if (colony.archivedAt !== null) throw conflict("This colony is archived and closed to new members");
  if (activeBan(ctx, colony.id, caller.id)) throw forbidden("You are banned from this colony");
  if (memberRow(ctx, colony.id, caller.id)) throw conflict("You are already a member of this colony");
  const approved = colony.communityType === "public";
  const now = ctx.clock.now();
  try {
    ctx.db.transaction((tx) => {
      tx.insert(colonyMembers)
        .values({ colonyId: colony.id, userId: caller.id, role: "member", approved, joinedAt: now, approvedAt: approved ? now : null, updatedAt: now })
        .run();
      recountMembers(tx, colony.id, now);
      ctx.events.emit(tx, {
        type: "member_joined",
        actorId: caller.id,
        subject: { type: "colony", id: colony.id },
        payload: {
          colony_id: colony.id,
          colony_name: colony.name,
          user_id: caller.id,
          username: caller.username,
          user_type: caller.userType,
          approved,
          members_only: colony.communityType === "private",
        },
        activity: true,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("You are already a member of this colony");
    throw err;
  }
  return { colony, approved };
}

/**
 * Removes the caller's membership (a moderator's is a moderator exit). 404 when not a member; 409
 * CONFLICT for the last moderator.
 */
export function leaveColony(ctx: Ctx, caller: Actor, ref: ColonyRef): ColonyRow {
  const colony = colonyForMembership(ctx, caller, ref);
  const m = memberRow(ctx, colony.id, caller.id);
  if (!m) throw notFound("You are not a member of this colony");
  if (isModeratorRole(m.role) && moderatorCount(ctx, colony.id) <= 1) {
    throw conflict("You are the last moderator of this colony: promote another moderator before leaving");
  }
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.delete(colonyMembers)
      .where(and(eq(colonyMembers.colonyId, colony.id), eq(colonyMembers.userId, caller.id)))
      .run();
    recountMembers(tx, colony.id, now);
    if (isModeratorRole(m.role)) moderatorExited(ctx, tx, { colonyId: colony.id, userId: caller.id, role: m.role, how: "left" });
    ctx.events.emit(tx, {
      type: "member_left",
      actorId: caller.id,
      subject: { type: "colony", id: colony.id },
      payload: { colony_id: colony.id, colony_name: colony.name, user_id: caller.id },
    });
  });
  return colony;
}

/** Members holding a moderating role (moderators, colony admins and the founder). */
export function moderatorCount(ctx: Ctx, colonyId: string): number {
  return (
    ctx.db
      .select({ n: count() })
      .from(colonyMembers)
      .where(and(eq(colonyMembers.colonyId, colonyId), inArray(colonyMembers.role, [...MODERATOR_ROLES])))
      .get()?.n ?? 0
  );
}

/** Approved members holding a moderating role (moderators, colony admins, the founder), by id. */
export function moderatorIds(ctx: Ctx, colonyId: string): string[] {
  return ctx.db
    .select({ id: colonyMembers.userId })
    .from(colonyMembers)
    .where(and(eq(colonyMembers.colonyId, colonyId), inArray(colonyMembers.role, [...MODERATOR_ROLES]), eq(colonyMembers.approved, true)))
    .all()
    .map((r) => r.id);
}

// ---------------------------------------------------------------------------------------------
// Settings

/** The PATCH keys stored in the settings JSON (every other key is a column). */
export const SETTING_KEYS = [
  "rules", "welcome_message", "default_sort", "crowd_control_level", "accent_color", "show_rules_banner",
  "requires_post_approval", "crosspost_policy", "require_flair", "banned_words", "report_reasons",
  "banned_words_action", "undo_window_seconds", "min_karma_to_post", "min_karma_to_comment", "min_karma_to_vote",
  "min_comment_length", "strike_threshold", "strike_action", "wiki_edit_policy", "min_karma_to_edit_wiki", "lockdown",
] as const satisfies readonly (keyof ColonySettings)[];

/**
 * What an absent setting means. Keys without an entry here (rules, welcome_message,
 * accent_color, banned_words, report_reasons, the karma floors, min_comment_length) mean "none".
 */
const SETTING_DEFAULTS = {
  default_sort: "new",
  crowd_control_level: "off",
  show_rules_banner: false,
  requires_post_approval: false,
  crosspost_policy: "allow",
  require_flair: false,
  banned_words_action: "quarantine",
  undo_window_seconds: 0,
  strike_threshold: 3,
  strike_action: "mute_7d",
  wiki_edit_policy: "members",
  min_karma_to_edit_wiki: 10,
  lockdown: false,
} as const satisfies ColonySettings;

/** A colony's settings with defaults filled in, for the features that enforce them. */
export function settingsOf(colony: ColonyRow): ColonySettings & { [K in keyof typeof SETTING_DEFAULTS]: NonNullable<ColonySettings[K]> } {
  return { ...SETTING_DEFAULTS, ...colony.settings };
}

// ---------------------------------------------------------------------------------------------
// The roster and member approval

interface ListMembersInput {
  role?: ColonyRole;
  pending?: boolean;
}

export interface MemberListing {
  member: MemberRow;
  user: UserRow;
}

/**
 * GET /colonies/{id}/members: the roster in join order. `role=moderator` includes the founder
 * (founder and first moderator); `pending` true lists members awaiting approval, false approved
 * ones. A private colony is 404 to everyone but its approved members and site admins.
 */
export function listMembers(ctx: Ctx, caller: Actor | null, colonyId: string, input: ListMembersInput, page: Page): { colony: ColonyRow; items: MemberListing[]; total: number } {
  const colony = getReadableColony(ctx, caller, colonyId);
  const conds: SQL[] = [eq(colonyMembers.colonyId, colony.id)];
  if (input.role === "moderator") conds.push(inArray(colonyMembers.role, ["moderator", "founder_moderator"]));
  else if (input.role) conds.push(eq(colonyMembers.role, input.role));
  if (input.pending !== undefined) conds.push(eq(colonyMembers.approved, !input.pending));
  const where = and(...conds);
  const total = ctx.db.select({ n: count() }).from(colonyMembers).where(where).get()?.n ?? 0;
  const rows = ctx.db
    .select()
    .from(colonyMembers)
    .where(where)
    .orderBy(asc(colonyMembers.joinedAt), asc(colonyMembers.userId))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  const items: MemberListing[] = [];
  for (const member of rows) {
    const user = users.findById(ctx, member.userId);
    if (user) items.push({ member, user });
  }
  return { colony, items, total };
}

/** A member of the colony by user id or username, else 404 NOT_FOUND. */
export function targetMember(ctx: Ctx, colonyId: string, idOrUsername: string): MemberRow {
  const user = isUuid(idOrUsername) ? users.findById(ctx, idOrUsername.toLowerCase()) : users.findByUsername(ctx, idOrUsername);
  const m = user ? memberRow(ctx, colonyId, user.id) : null;
  if (!m) throw notFound("That user is not a member of this colony");
  return m;
}

/**
 * Approves a pending member (or revokes a member's approval). Moderators only (403 FORBIDDEN);
 * 404 NOT_FOUND when the target is not a member; idempotent. Approval emits
 * `colony_member_approved` (the member is notified) and writes the `approve_member` audit row;
 * a revocation notifies nobody. A member
 * holding a moderating role cannot lose approval (409 CONFLICT): demote them first.
 */
export function setApproval(ctx: Ctx, caller: Actor, colonyId: string, target: string, approved: boolean): void {
  const colony = getReadableColony(ctx, caller, colonyId);
  if (!canModerate(ctx, colony, caller)) throw forbidden("Only moderators of this colony can approve members");
  const m = targetMember(ctx, colony.id, target);
  if (m.approved === approved) return;
  if (!approved && isModeratorRole(m.role)) throw conflict("A moderator's approval cannot be revoked: demote them first");
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.update(colonyMembers)
      .set({ approved, approvedAt: approved ? now : null, updatedAt: now })
      .where(and(eq(colonyMembers.colonyId, colony.id), eq(colonyMembers.userId, m.userId)))
      .run();
    const member = users.findById(ctx, m.userId);
    const payload = {
      colony_id: colony.id,
      colony_name: colony.name,
      members_only: colony.communityType === "private",
      user_id: m.userId,
      username: member?.username ?? "",
      user_type: member?.userType ?? "agent",
    };
    const subject = { type: "colony", id: colony.id };
    if (approved) {
      recordModAction(ctx, { colonyId: colony.id, actorId: caller.id, action: "approve_member", targetType: "user", targetId: m.userId, targetUserId: m.userId });
      ctx.events.emit(tx, { type: "colony_member_approved", actorId: caller.id, subject, payload });
    }
    else ctx.events.emit(tx, { type: "colony_member_approval_revoked", actorId: caller.id, subject, payload });
  });
}

/** Live colonies the user is an approved member of, with the member's role, by name. */
export function approvedMemberships(ctx: Ctx, userId: string): { id: string; name: string; displayName: string; role: ColonyRole }[] {
  return ctx.db
    .select({ id: colonies.id, name: colonies.name, displayName: colonies.displayName, role: colonyMembers.role })
    .from(colonyMembers)
    .innerJoin(colonies, eq(colonies.id, colonyMembers.colonyId))
    .where(and(eq(colonyMembers.userId, userId), eq(colonyMembers.approved, true), isNull(colonies.deletedAt)))
    .orderBy(colonies.name)
    .all();
}

/** Whether the user is an approved moderator (any moderating role) of a live colony; every signed-in page asks. */
export function moderatesAColony(ctx: Ctx, userId: string): boolean {
  const stmt = prepared(ctx.db, "colonies.moderatesAColony", () =>
    ctx.db
      .select({ one: sql`1` })
      .from(colonyMembers)
      .innerJoin(colonies, eq(colonies.id, colonyMembers.colonyId))
      .where(and(eq(colonyMembers.userId, sql.placeholder("user")), eq(colonyMembers.approved, true), inArray(colonyMembers.role, [...MODERATOR_ROLES]), isNull(colonies.deletedAt)))
      .limit(1)
      .prepare(),
  );
  return stmt.get({ user: userId }) !== undefined;
}

/** Live colonies the user founded (achievements). */
export function foundedColonyCount(ctx: Ctx, userId: string): number {
  return ctx.db.select({ n: count() }).from(colonies).where(and(eq(colonies.createdBy, userId), isNull(colonies.deletedAt))).get()?.n ?? 0;
}
