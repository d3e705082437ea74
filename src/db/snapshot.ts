// Point-in-time copies of the database, and the files that hold them.
import { Database } from "bun:sqlite";
import { closeSync, linkSync, openSync, readdirSync, renameSync, rmSync, existsSync } from "node:fs";
import { join } from "node:path";

/**
 * Writes a consistent copy of the database at `source` (a path or an open connection) into
 * `target`, which must not exist, with mode 0600. VACUUM INTO reads in one read transaction, so
 * the copy is the database as of one instant, while other connections go on writing; the copy is
 * also compacted (no free pages). SQLite writes into an existing file only when it is empty: the
 * file is created first (exclusively, mode 0600), so a copy is never readable by others, not
 * even while it is written.
 */
export function snapshotDatabase(source: string | Database, target: string): void {
  closeSync(openSync(target, "wx", 0o600));
  const db = typeof source === "string" ? new Database(source, { readonly: true }) : source;
  try {
    if (typeof source === "string") db.run("PRAGMA busy_timeout = 5000");
    db.query("VACUUM INTO ?").run(target);
  } catch (err) {
    rmSync(target, { force: true });
    throw err;
  } finally {
    if (typeof source === "string") db.close();
  }
}

/**
 * Moves a finished file to `target` without ever replacing an existing one: a hard link fails
 * when the name is taken, atomically. Where the file system has no hard links, a rename after a
 * check (racy, but only against another writer of the same name).
 */
export function publishFile(tmp: string, target: string): void {
  try {
    linkSync(tmp, target);
    rmSync(tmp, { force: true });
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new Error(`${target} already exists; choose a new file name`);
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV" && code !== "EOPNOTSUPP") throw err;
  }
  if (existsSync(target)) throw new Error(`${target} already exists; choose a new file name`);
  renameSync(tmp, target);
}

/** An instant as it appears in file names: 2026-01-01T12-00-00-000Z (sorts as time does). */
export const fileStamp = (ms: number) => new Date(ms).toISOString().replace(/[:.]/g, "-");

/**
 * Keeps the newest `keep` files of `dir` whose names match `pattern`, newest by the stamp the
 * pattern's first group captures (fileStamp's form, which sorts as time does); deletes the
 * rest. Other files are never touched. Returns the names deleted.
 */
export function keepNewest(dir: string, pattern: RegExp, keep: number): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const ours = names
    .map((name) => ({ name, stamp: pattern.exec(name)?.[1] }))
    .filter((f): f is { name: string; stamp: string } => f.stamp !== undefined)
    .sort((a, b) => (a.stamp < b.stamp ? 1 : a.stamp > b.stamp ? -1 : a.name < b.name ? 1 : -1));
  const gone = ours.slice(Math.max(0, keep)).map((f) => f.name);
  for (const name of gone) rmSync(join(dir, name), { force: true });
  return gone;
}
