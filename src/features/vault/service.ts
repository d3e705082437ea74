// The vault (spec Part 3 §4.7): a private file store per agent. Metadata and quota accounting in
// SQLite (tables.ts), content in the data folder (store.ts). Decisions: docs/decisions.md §69-§71.
//
// A write of content (PUT, append) checks, makes its content file durable off the request thread,
// then checks again and commits synchronously: other requests run while the file is written, so
// the checks that depend on the vault's state (preconditions, quota, count) run before the file is
// written (a refused write writes nothing) and again with the commit (another write may have
// landed meanwhile). Writes under one name run one at a time (an append reads what it extends).
// Move, copy and delete write no content and run synchronously. The content file is made durable
// before the row that names it commits, and removed only after the last row naming it is gone,
// and never while a write that made it is still on its way to the commit: a crash leaves at worst
// an unnamed content file, never a row without one.
import { and, asc, count, eq, sql } from "drizzle-orm";
import { rm } from "node:fs/promises";
import type { Ctx } from "../../core/context";
import { ApiError, forbidden, invalid, notFound } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import { exclusive } from "../../core/exclusive";
import { inGroupCommit, inTransaction, type Db } from "../../db/client";
import { prepared, rowMapper } from "../../db/statements";
import { requireAgent, type Caller } from "../auth/caller";
import { scheduleIndexing } from "./fts";
import { dropContent, putContent, readContent, sha256Hex, userFolder } from "./store";
import { vaultActivity, vaultFiles } from "./tables";

export type VaultFileRow = typeof vaultFiles.$inferSelect;

/** 10 MB and 1 MB, where MB means MiB (docs/decisions.md §12). */
export const QUOTA_BYTES = 10 * 1024 * 1024;
export const MAX_FILE_BYTES = 1024 * 1024;
/** The file-count cap the spec names without a figure (docs/decisions.md §70). */
export const MAX_FILES = 1000;
const MIN_KARMA_TO_WRITE = 0;
const MAX_FILENAME_CHARS = 255;
export const ALLOWED_EXTENSIONS = [".cfg", ".conf", ".csv", ".env", ".html", ".ini", ".json", ".log", ".md", ".py", ".toml", ".txt", ".xml", ".yaml", ".yml"] as const;

const utf8 = new TextEncoder();

export function agent(caller: Caller): void {
  requireAgent(caller, "The vault is for agent accounts only");
}

/**
 * The filename as stored: NFC, relative, `/`-separated, confined. Refused with 400 INVALID_INPUT:
 * empty, over 255 characters, control characters (NUL included), a backslash, an absolute path
 * (leading `/` or a drive letter), and empty, `.` or `..` segments (docs/decisions.md §69).
 */
export function normaliseFilename(raw: string): string {
  const name = raw.normalize("NFC");
  if (name.length === 0) throw invalid("The filename is empty");
  if ([...name].length > MAX_FILENAME_CHARS) throw invalid(`The filename is longer than ${MAX_FILENAME_CHARS} characters`);
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) throw invalid("The filename contains control characters");
  if (name.includes("\\")) throw invalid("The filename contains a backslash; folders are separated by /");
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) throw invalid("The filename must be a relative path");
  for (const seg of name.split("/")) {
    if (seg === "" || seg === "." || seg === "..") throw invalid("The filename has an empty, '.' or '..' segment");
  }
  return name;
}

export function checkExtension(name: string): void {
  const base = name.slice(name.lastIndexOf("/") + 1).toLowerCase();
  if (!ALLOWED_EXTENSIONS.some((ext) => base.endsWith(ext))) {
    throw invalid(`The file extension is not allowed; allowed: ${ALLOWED_EXTENSIONS.join(" ")}`);
  }
}

/** 403 KARMA_TOO_LOW below the vault's write floor (reads and deletes are ungated). */
export function requireKarma(caller: Caller): void {
  if (caller.karma < MIN_KARMA_TO_WRITE) {
    throw forbidden(`Writing to the vault needs at least ${MIN_KARMA_TO_WRITE} karma (you have ${caller.karma})`, "KARMA_TOO_LOW");
  }
}

/** 400 QUOTA_EXCEEDED or LIMIT_EXCEEDED when a write of `size` bytes under a name (replacing `existing`) does not fit. */
export function checkRoom(ctx: Ctx, userId: string, size: number, existing: VaultFileRow | undefined): void {
  if (size > MAX_FILE_BYTES) throw new ApiError(400, "QUOTA_EXCEEDED", `A vault file holds at most ${MAX_FILE_BYTES} bytes (this one is ${size})`);
  const { used, files } = usage(ctx, userId);
  const after = used - (existing?.size ?? 0) + size;
  if (after > QUOTA_BYTES) throw new ApiError(400, "QUOTA_EXCEEDED", `The vault quota is ${QUOTA_BYTES} bytes; this write would use ${after}`);
  if (!existing && files + 1 > MAX_FILES) throw new ApiError(400, "LIMIT_EXCEEDED", `A vault holds at most ${MAX_FILES} files`);
}

const etagOf = (sha: string) => `"${sha}"`;

/** The strong ETag of a row: the quoted SHA-256 hex of its content. */
export function etag(row: Pick<VaultFileRow, "sha256">): string {
  return etagOf(row.sha256);
}

const mapFile = rowMapper<VaultFileRow>(vaultFiles);

/** The statements of every read and write (cached per database: db/statements.ts). */
const statements = (db: Db) =>
  prepared(db, "vault:files", () => ({
    find: db.$client.prepare<Record<string, unknown>, [string, string]>("select * from vault_files where user_id = ? and filename = ?"),
    usage: db.$client.prepare<{ used: number; files: number }, [string]>("select coalesce(sum(size), 0) as used, count(*) as files from vault_files where user_id = ?"),
    names: db.$client.prepare<{ one: number }, [string, string]>("select 1 as one from vault_files where user_id = ? and sha256 = ? limit 1"),
    replace: db.$client.prepare<Record<string, unknown>, [string, number, number, string]>("update vault_files set sha256 = ?, size = ?, updated_at = ? where id = ? returning *"),
    create: db.$client.prepare<Record<string, unknown>, [string, string, string, string, number, number, number]>(
      "insert into vault_files (id, user_id, filename, sha256, size, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?) returning *",
    ),
  }));

export function findFile(ctx: Ctx, userId: string, filename: string): VaultFileRow | undefined {
  const raw = statements(ctx.db).find.get(userId, filename);
  return raw ? mapFile(raw) : undefined;
}

export function usage(ctx: Ctx, userId: string): { used: number; files: number } {
  return statements(ctx.db).usage.get(userId)!;
}

/** Content files written by writes not yet committed (or failed), by `<user id>/<sha256>`: dropIfUnused leaves them. */
const inFlight = new Map<string, number>();
/** Removals of content files under way (off the request thread), by the same key: a write of that content waits for its removal first. */
const removals = new Map<string, Promise<void>>();

/** Resolves once the removals under way have ended (they never reject). */
export const removalsSettled = (): Promise<unknown> => Promise.all(removals.values());

/**
 * Removes the content file when no row of the agent names it any more and no write in flight made
 * it, off the request thread; resolves once it is gone (callers answer after that). Never rejects:
 * a file that cannot be removed is logged and left to start-up reconciliation.
 */
export function dropIfUnused(ctx: Ctx, userId: string, sha: string): Promise<void> {
  const key = `${userId}/${sha}`;
  const under = removals.get(key);
  if (under) return under;
  if (inFlight.has(key) || statements(ctx.db).names.get(userId, sha)) return Promise.resolve();
  const removal = dropContent(ctx.config.dataDir, userId, sha)
    .catch((err) => ctx.log.warn("vault: could not remove a content file no file names (start-up reconciliation will)", { user_id: userId, sha256: sha, error: String(err) }))
    .finally(() => removals.delete(key));
  removals.set(key, removal);
  return removal;
}

interface VaultStatus {
  quota_bytes: number;
  used_bytes: number;
  available_bytes: number;
  file_count: number;
}

export function status(ctx: Ctx, caller: Caller): VaultStatus {
  agent(caller);
  const { used, files } = usage(ctx, caller.id);
  return { quota_bytes: QUOTA_BYTES, used_bytes: used, available_bytes: Math.max(0, QUOTA_BYTES - used), file_count: files };
}

/** Escapes LIKE's metacharacters (and the escape itself) for `LIKE ? ESCAPE '\'`. */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The agent's files, alphabetical; `prefix` is a literal, case-sensitive "starts with". */
export function list(ctx: Ctx, caller: Caller, prefix?: string | null): VaultFileRow[] {
  agent(caller);
  return filesOf(ctx, caller.id, prefix);
}

/** An agent's files, alphabetical, optionally under a literal prefix (list, export, the operator's list). */
export function filesOf(ctx: Ctx, userId: string, prefix?: string | null): VaultFileRow[] {
  const where = prefix
    ? and(
        eq(vaultFiles.userId, userId),
        sql`${vaultFiles.filename} LIKE ${`${escapeLike(prefix)}%`} ESCAPE '\\'`,
        // LIKE ignores ASCII case; the prefix is literal.
        sql`substr(${vaultFiles.filename}, 1, ${[...prefix].length}) = ${prefix}`,
      )
    : eq(vaultFiles.userId, userId);
  return ctx.db.select().from(vaultFiles).where(where).orderBy(asc(vaultFiles.filename)).all();
}

/** The sentinel folder of files whose name has no slash. */
const ROOT_FOLDER = "(root)";

/** The agent's top-level folders with their file counts, by folder name; files without a slash under `(root)`. */
export function folders(ctx: Ctx, caller: Caller): { folder: string; file_count: number }[] {
  agent(caller);
  const folder = sql<string>`case when instr(${vaultFiles.filename}, '/') > 0 then substr(${vaultFiles.filename}, 1, instr(${vaultFiles.filename}, '/') - 1) else ${ROOT_FOLDER} end`;
  return ctx.db
    .select({ folder, file_count: count() })
    .from(vaultFiles)
    .where(eq(vaultFiles.userId, caller.id))
    .groupBy(folder)
    .orderBy(folder)
    .all();
}

/** One file's row; 404 NOT_FOUND when the agent has none of that name. Its content: `content`. */
export function readRow(ctx: Ctx, caller: Caller, rawName: string): VaultFileRow {
  agent(caller);
  const row = findFile(ctx, caller.id, normaliseFilename(rawName));
  if (!row) throw notFound("No such file in your vault");
  return row;
}

/** A file's content, read from the data folder. */
export const content = (ctx: Ctx, row: VaultFileRow): string => readContent(ctx.config.dataDir, row.userId, row.sha256).toString("utf8");


interface Preconditions {
  ifMatch?: string | null;
  ifNoneMatch?: string | null;
}

/** Whether an If-Match list names the current ETag (strong comparison; `*` matches any file). */
function matches(header: string, current: string): boolean {
  return header
    .split(",")
    .map((s) => s.trim())
    .some((tag) => tag === "*" || tag === current || tag === current.slice(1, -1));
}

const preconditionFailed = (message: string) => new ApiError(412, "PRECONDITION_FAILED", message);

/**
 * PUT: creates or replaces a file. Gates in the reference's order: karma (403 KARMA_TOO_LOW),
 * the name and its extension (400 INVALID_INPUT), the file size (400 QUOTA_EXCEEDED), the
 * preconditions (412 PRECONDITION_FAILED), the total quota (400 QUOTA_EXCEEDED, a replaced file's
 * bytes not counted) and, on create, the file count (400 LIMIT_EXCEEDED).
 */
export function put(ctx: Ctx, caller: Caller, rawName: string, content: string, pre: Preconditions = {}): Promise<VaultFileRow> {
  agent(caller);
  requireKarma(caller);
  const filename = normaliseFilename(rawName);
  checkExtension(filename);
  return exclusive(`vault:${caller.id}:${filename}`, () => write(ctx, caller.id, filename, () => content, pre));
}

/** The gates that depend on the vault's state, in the reference's order; returns the file the write replaces. */
function checkWrite(ctx: Ctx, userId: string, filename: string, size: number, pre: Preconditions): VaultFileRow | undefined {
  if (size > MAX_FILE_BYTES) throw new ApiError(400, "QUOTA_EXCEEDED", `A vault file holds at most ${MAX_FILE_BYTES} bytes (this one is ${size})`);
  const existing = findFile(ctx, userId, filename);
  if (pre.ifMatch != null && (!existing || !matches(pre.ifMatch, etag(existing)))) {
    throw preconditionFailed(existing ? "The file has changed since the ETag you sent" : "If-Match names a file that does not exist");
  }
  if (pre.ifNoneMatch != null && existing && (pre.ifNoneMatch.trim() === "*" || matches(pre.ifNoneMatch, etag(existing)))) {
    throw preconditionFailed("The file already exists");
  }
  checkRoom(ctx, userId, size, existing);
  return existing;
}

/**
 * Writes a checked name's content (`content` is asked for under the name's lock, so an append
 * reads what it extends): the checks, the content file made durable, the checks again and the
 * commit. Callers hold exclusive(`vault:<user id>:<filename>`).
 */
export async function write(ctx: Ctx, userId: string, filename: string, content: () => string, pre: Preconditions = {}): Promise<VaultFileRow> {
  const bytes = utf8.encode(content());
  checkWrite(ctx, userId, filename, bytes.length, pre);
  const sha = sha256Hex(bytes);
  const key = `${userId}/${sha}`;
  inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
  let row: VaultFileRow;
  let replaced: VaultFileRow | undefined;
  try {
    // A content file on its way out is gone before this write looks for it.
    await removals.get(key);
    await putContent(ctx.config.dataDir, userId, bytes, sha);
    // Committed with the other writes of this turn (db/client.ts inGroupCommit, docs/decisions.md §165).
    row = await inGroupCommit(ctx.db, () => {
      replaced = checkWrite(ctx, userId, filename, bytes.length, pre);
      const now = ctx.clock.now();
      const s = statements(ctx.db);
      // The row's triggers queue the file for the search index (fts.ts).
      return mapFile(replaced ? s.replace.get(sha, bytes.length, now, replaced.id)! : s.create.get(uuidv7(now), userId, filename, sha, bytes.length, now, now)!);
    });
  } catch (err) {
    release(key);
    await dropIfUnused(ctx, userId, sha);
    throw err;
  }
  release(key);
  // The content it replaces goes after the answer: the write is durable already, a later write of
  // those bytes waits for the removal (`removals`), and start-up reconciliation removes what a crash left.
  if (replaced && replaced.sha256 !== sha) void dropIfUnused(ctx, userId, replaced.sha256);
  scheduleIndexing(ctx);
  return row;
}

function release(key: string): void {
  const n = (inFlight.get(key) ?? 1) - 1;
  if (n > 0) inFlight.set(key, n);
  else inFlight.delete(key);
}

/** DELETE: removes the row (its trigger queues the index entry's removal), then the content file if no other file of the agent shares it. Ungated. */
export function remove(ctx: Ctx, caller: Caller, rawName: string): Promise<void> {
  agent(caller);
  const row = findFile(ctx, caller.id, normaliseFilename(rawName));
  if (!row) throw notFound("No such file in your vault");
  ctx.db.delete(vaultFiles).where(eq(vaultFiles.id, row.id)).run();
  scheduleIndexing(ctx);
  return dropIfUnused(ctx, caller.id, row.sha256);
}

/** After an account is deleted: its files' rows (their index entries queued for removal) and its vault's activity. */
export function purgeUserRows(ctx: Ctx, userId: string): void {
  inTransaction(ctx.db, (tx) => {
    tx.delete(vaultFiles).where(eq(vaultFiles.userId, userId)).run();
    tx.delete(vaultActivity).where(eq(vaultActivity.agentId, userId)).run();
  });
  scheduleIndexing(ctx);
}

/** After an account is deleted and its rows are gone: its content files (start-up reconciliation would remove them too). */
export async function purgeUserFiles(ctx: Ctx, userId: string): Promise<void> {
  if (isUuid(userId)) await rm(userFolder(ctx.config.dataDir, userId), { recursive: true, force: true });
}
