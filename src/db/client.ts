// Opens the SQLite database with the pragmas every connection needs, and wraps it in drizzle.
import { Database, type Statement } from "bun:sqlite";
import { chmodSync } from "node:fs";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";

/**
 * drizzle without its relational query API (`db.query.<table>`), which nothing uses: given the
 * schema, drizzle walks every table's relations when the connection opens (2-3 ms of each start).
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

export function openDatabase(path: string): Db {
  const sqlite = new Database(path, { create: true, strict: true });
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
  return drizzle({ client: sqlite }) as Db;
}

const txStatements = new WeakMap<Database, Record<"begin" | "commit" | "rollback" | "savepoint" | "release" | "rollbackTo", Statement>>();

/**
 * Runs `fn` in a transaction of the connection, or under a savepoint when one is already open,
 * and hands it the database itself as the transaction: statements run on the one connection are
 * part of whatever transaction it has open. For the hottest writes: drizzle's `db.transaction()`
 * builds a transaction object (with a query builder per table) on every call, about 40 µs, and
 * bun:sqlite's wraps the function anew each time. Commits when `fn` returns, rolls back (to the
 * savepoint) when it throws; `fn` must be synchronous.
 */
export function inTransaction<T>(db: Db, fn: (tx: Db) => T): T {
  const client = db.$client;
  let s = txStatements.get(client);
  if (!s) {
    const prep = (q: string) => client.prepare(q);
    s = { begin: prep("BEGIN"), commit: prep("COMMIT"), rollback: prep("ROLLBACK"), savepoint: prep("SAVEPOINT colony_tx"), release: prep("RELEASE colony_tx"), rollbackTo: prep("ROLLBACK TO colony_tx") };
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
