// Opens the SQLite database with the pragmas every connection needs, and wraps it in drizzle.
import { Database, type Statement } from "bun:sqlite";
import { chmodSync } from "node:fs";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";

/**
 * drizzle without its relational query API (`db.query.<table>`), which nothing uses: given the
 * schema, drizzle walks every table's relations when the connection opens, at every start.
 */
export type Db = BunSQLiteDatabase & { $client: Database };

/** What a write inside a transaction uses: the database or a drizzle transaction of it. */
export type Tx = Pick<Db, "insert" | "select" | "update" | "delete">;

/** SQLite 3.51.3 fixed a WAL-reset bug that can corrupt a database under concurrent checkpoints. */
export const MIN_SQLITE = "3.51.3";

export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return Math.sign(d);
  }
  return 0;
}

/**
 * Opens the database at `path` (":memory:" for one in memory). `image`, with ":memory:" only: the
 * bytes of a serialized database to start from instead of an empty one (tests clone one migrated
 * database this way instead of migrating each of theirs).
 */
export function openDatabase(path: string, image?: Uint8Array): Db {
  if (image && path !== ":memory:") throw new Error("openDatabase: an image opens in memory only");
  const sqlite = image ? Database.deserialize(image, { strict: true }) : new Database(path, { create: true, strict: true });
  // The database holds key hashes and private messages: owner-only, whatever the umask.
  if (path !== ":memory:") chmodSync(path, 0o600);
  // busy_timeout first, so every later statement (including the WAL switch) waits for locks.
  sqlite.run("PRAGMA busy_timeout = 5000");
  const version = (sqlite.query("select sqlite_version() as v").get() as { v: string }).v;
  if (compareVersions(version, MIN_SQLITE) < 0) {
    sqlite.close();
    throw new Error(`SQLite ${version} is too old: Colony needs ${MIN_SQLITE} or newer (WAL-reset fix)`);
  }
  if (path !== ":memory:") sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA foreign_keys = ON");
  sqlite.run("PRAGMA temp_store = MEMORY");
  sqlite.run("PRAGMA cache_size = -32000");
  settleGroupsFirst(sqlite);
  return drizzle({ client: sqlite }) as Db;
}

const txStatements = new WeakMap<Database, Record<"begin" | "commit" | "rollback" | "savepoint" | "release" | "rollbackTo", Statement>>();

/**
 * Runs `fn` in a transaction of the connection, or under a savepoint when one is already open,
 * and hands it the database itself as the transaction: statements run on the one connection are
 * part of whatever transaction it has open. For the hottest writes: drizzle's `db.transaction()`
 * builds a transaction object (with a query builder per table) on every call, and
 * bun:sqlite's wraps the function anew each time. Commits when `fn` returns, rolls back (to the
 * savepoint) when it throws; `fn` must be synchronous.
 */
export function inTransaction<T>(db: Db, fn: (tx: Db) => T): T {
  const client = db.$client;
  settleGroup(client);
  let s = txStatements.get(client);
  if (!s) {
    const prep = (q: string) => client.prepare(q);
    s = { begin: prep("BEGIN IMMEDIATE"), commit: prep("COMMIT"), rollback: prep("ROLLBACK"), savepoint: prep("SAVEPOINT colony_tx"), release: prep("RELEASE colony_tx"), rollbackTo: prep("ROLLBACK TO colony_tx") };
    txStatements.set(client, s);
  }
  const nested = client.inTransaction;
  (nested ? s.savepoint : s.begin).run();
  try {
    const result = fn(db);
    if (result instanceof Promise) throw new Error("inTransaction: the function must be synchronous");
    (nested ? s.release : s.commit).run();
    return result;
  } catch (err) {
    if (nested) {
      s.rollbackTo.run();
      s.release.run();
    } else if (client.inTransaction) s.rollback.run();
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Group commit
//
// A write's COMMIT appends every page it dirtied to the write-ahead log: for a published post about
// forty pages (the row and its indexes, tags, the event, the notification, the colony's count),
// the largest single cost of creating one. Writes that arrive together dirty mostly the same pages
// (the right edges of the same indexes), so committing them together writes each page once
// (docs/decisions.md §165). inGroupCommit runs a write at once, under its own savepoint of a
// transaction it shares with the writes of the same turn of the event loop, and resolves when
// that transaction has committed (setImmediate, after the turn's requests): a caller answers only
// then, so an acknowledged write is committed as with inTransaction. Meanwhile the open transaction is seen by reads on this connection (never by the
// reader threads' connections); a COMMIT that fails rejects every write of the group.
//
// Any other transaction settles the open group first (inTransaction, bun:sqlite's and drizzle's
// `transaction()`), so what they commit is committed when they return, as before
// (docs/decisions.md §165).

interface Group {
  /** Writes of the open group waiting for its COMMIT. */
  waiters: { resolve: () => void; reject: (err: unknown) => void }[];
  /** Run when the group settles (committed or not), before its writes are answered (e.g. read-cache versions). */
  settled: (() => void)[];
  /** Depth of grouped writes running now: transactions inside them nest as savepoints. */
  running: number;
}

const groups = new WeakMap<Database, Group>();

/** Commits the open group of the connection, if any, and settles its writes. */
function settleGroup(client: Database): void {
  const g = groups.get(client);
  if (!g || g.running > 0) return;
  groups.delete(client);
  let failure: unknown = null;
  try {
    if (client.inTransaction) client.run("COMMIT");
    else failure = new Error("group commit: the transaction was rolled back before its COMMIT");
  } catch (err) {
    failure = err;
    try {
      if (client.inTransaction) client.run("ROLLBACK");
    } catch {
      // The connection is closed or failing: its open transaction is gone with it.
    }
  }
  for (const fn of g.settled) fn();
  for (const w of g.waiters) failure === null ? w.resolve() : w.reject(failure);
}

/**
 * bun:sqlite's `transaction()` (which drizzle's `db.transaction()` calls) and `close()` settle the
 * open group first.
 *
 * Every transaction begins IMMEDIATE (here, in inTransaction and in group commits), a deferred one
 * included: when several processes share the database, a deferred transaction that has read and
 * then writes after another process committed fails at once with SQLITE_BUSY ("database is
 * locked"; WAL cannot upgrade an outdated snapshot, and the busy timeout does not apply). Taking
 * the write lock at BEGIN waits for it under busy_timeout instead.
 */
function settleGroupsFirst(client: Database): void {
  const close = client.close.bind(client);
  client.close = ((...args: Parameters<Database["close"]>) => (settleGroup(client), close(...args))) as Database["close"];
  const native = client.transaction.bind(client);
  client.transaction = ((fn: (...args: never[]) => unknown) => {
    const tx = native(fn);
    const settled = ((...args: never[]) => (settleGroup(client), tx.immediate(...args))) as typeof tx;
    for (const kind of ["deferred", "immediate", "exclusive"] as const) {
      const begin = kind === "deferred" ? "immediate" : kind;
      settled[kind] = ((...args: never[]) => (settleGroup(client), tx[begin](...args))) as (typeof tx)[typeof kind];
    }
    return settled;
  }) as typeof client.transaction;
}

/** Commits the connection's open group now (before closing it, or where a caller must see it committed). */
export function settleGroupCommit(db: Db): void {
  settleGroup(db.$client);
}

/**
 * Runs `fn` (synchronous) now, in the group transaction of this turn of the event loop, under its
 * own savepoint: a throw rolls back `fn`'s writes alone and is thrown here. Resolves with `fn`'s
 * result once the group has committed. Inside another transaction it simply nests, as
 * inTransaction does.
 */
export function inGroupCommit<T>(db: Db, fn: (tx: Db) => T): Promise<T> {
  const client = db.$client;
  if (ungrouped.has(client)) return Promise.resolve(inTransaction(db, fn));
  let g = groups.get(client);
  if (!g && client.inTransaction) return Promise.resolve(inTransaction(db, fn));
  if (!g) {
    client.run("BEGIN IMMEDIATE");
    g = { waiters: [], settled: [], running: 0 };
    groups.set(client, g);
    setImmediate(() => settleGroup(client));
  }
  g.running++;
  let result: T;
  try {
    result = inTransaction(db, fn);
  } finally {
    g.running--;
  }
  return new Promise<T>((resolve, reject) => g.waiters.push({ resolve: () => resolve(result), reject }));
}

/** Connections whose writes each commit alone (see commitAlone). */
const ungrouped = new WeakSet<Database>();

/**
 * Makes every inGroupCommit of the connection an inTransaction of its own, for a process that
 * shares the database with others: a group holds SQLite's write lock for a whole turn of the event
 * loop, which the other processes' writes wait for, and a write made outside any transaction
 * during that turn joins the group, so its request could be answered before it commits and
 * another process would not see it yet.
 */
export function commitAlone(db: Db): void {
  ungrouped.add(db.$client);
}

/**
 * When a group is open on the connection, has `fn` run when it settles (right after its COMMIT, or
 * its failure) and returns true; otherwise returns false and does nothing.
 */
export function onGroupSettled(db: Db, fn: () => void): boolean {
  const g = groups.get(db.$client);
  if (g) g.settled.push(fn);
  return g !== undefined;
}

/**
 * When a group is open on the connection, a promise that resolves once it has settled (committed
 * or not); otherwise null. A server waits on it before answering a request whose statements may
 * have joined the group outside any transaction of their own (http/serve-options.ts), so that
 * nothing is acknowledged before it is committed.
 */
export function groupSettling(db: Db): Promise<void> | null {
  return groups.has(db.$client) ? new Promise<void>((resolve) => onGroupSettled(db, resolve)) : null;
}

/** Rows changed by a drizzle `.run()` (bun:sqlite returns them; drizzle's types say void). */
export const changes = (result: unknown): number => (result as { changes: number }).changes;

export function sqliteVersion(db: Db): string {
  return (db.$client.query("select sqlite_version() as v").get() as { v: string }).v;
}

/** Whether a write failed on a UNIQUE or PRIMARY KEY constraint (a concurrent duplicate). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") return true;
  return /UNIQUE constraint failed/.test(String(err));
}
