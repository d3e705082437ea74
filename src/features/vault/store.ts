// The vault's content files in the data folder (spec Part 3 §4.7; docs/decisions.md §69).
//
// Content is addressed by its SHA-256: vault/<user id>/<sha256 hex>. The names on disk never come
// from what a client sent (the filename lives only in SQLite), so no path a client writes can
// reach outside the folder. A file is written atomically: a temporary file (a dot name, which
// backups skip), fsync, rename onto its final name, fsync of the folder; a crash leaves either no
// file or the whole one. A content file that exists is never rewritten (same name, same bytes).
import { existsSync, readFileSync } from "node:fs";
import { mkdir, open, rename, rm, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";

export const VAULT_FOLDER = "vault";

export const sha256Hex = (bytes: Uint8Array): string => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

export const userFolder = (dataDir: string, userId: string): string => join(dataDir, VAULT_FOLDER, userId);
export const contentPath = (dataDir: string, userId: string, sha: string): string => join(userFolder(dataDir, userId), sha);

/** Per folder: its open handle, the fsync under way, and the one that will follow it for renames made meanwhile. */
interface FolderSync {
  handle: Promise<FileHandle> | null;
  running: Promise<void> | null;
  next: Promise<void> | null;
}
const folderSyncs = new Map<string, FolderSync>();
/** Closes of folder handles under way (they run off the thread). */
const closing = new Set<Promise<void>>();
const closeHandle = (handle: Promise<FileHandle>) => {
  const closed = handle.then((h) => h.close()).catch(() => {});
  closing.add(closed);
  void closed.then(() => closing.delete(closed));
};

/** Resolves once every folder handle whose close has begun is closed. */
export async function folderClosesSettled(): Promise<void> {
  await Promise.all([...closing]);
}

/**
 * Makes the renames done in `dir` before this call durable. Writes landing together share an
 * fsync: one that starts after the caller's rename covers it, so a caller joins the next fsync
 * when one is already under way (it may have started before the rename) and that next fsync is
 * shared by every caller that arrives while the first runs. The folder stays open while fsyncs
 * follow one another (one trip off the thread each, instead of open, fsync and close) and is
 * closed once none is under way or waiting.
 */
export function syncFolder(dir: string): Promise<void> {
  let s = folderSyncs.get(dir);
  if (!s) folderSyncs.set(dir, (s = { handle: null, running: null, next: null }));
  const state = s;
  const start = (): Promise<void> => {
    const handle = (state.handle ??= open(dir, "r"));
    const run = handle.then((h) => h.sync());
    state.running = run;
    // Before any caller queued behind this fsync goes on (their continuations are added later).
    const settle = (failed: boolean) => {
      if (state.running === run) state.running = null;
      // A handle that failed to open or to sync is not reused.
      if (failed && state.handle === handle) {
        state.handle = null;
        closeHandle(handle);
      }
      if (!state.running && !state.next) {
        folderSyncs.delete(dir);
        if (state.handle) closeHandle(state.handle);
        state.handle = null;
      }
    };
    run.then(
      () => settle(false),
      () => settle(true),
    );
    return run;
  };
  if (!state.running) return start();
  if (!state.next) {
    state.next = state.running
      .catch(() => {})
      .then(() => {
        state.next = null;
        return start();
      });
  }
  return state.next;
}

/**
 * Makes the content file for `bytes` durable (a no-op when it is already there); returns its hash.
 * Asynchronous file I/O: the writes and fsyncs run off the request thread, so requests go on
 * while the disk catches up (docs/decisions.md §130). Three steps, each one trip off the
 * thread: the temporary file written and fsynced (`flush`), the rename, and the folder's fsync,
 * which concurrent writes to the folder share (syncFolder).
 */
export async function putContent(dataDir: string, userId: string, bytes: Uint8Array, sha = sha256Hex(bytes)): Promise<string> {
  const dir = userFolder(dataDir, userId);
  const target = join(dir, sha);
  if (existsSync(target)) return sha;
  if (!existsSync(dir)) {
    await mkdir(dir, { recursive: true });
    await syncFolder(join(dataDir, VAULT_FOLDER));
  }
  const tmp = join(dir, `.${sha}.${process.pid}.${Math.random().toString(36).slice(2)}`);
  try {
    await writeFile(tmp, bytes, { mode: 0o600, flag: "wx", flush: true });
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await rename(tmp, target);
  await syncFolder(dir);
  return sha;
}

/** The content of a file, as stored. */
export function readContent(dataDir: string, userId: string, sha: string): Buffer {
  return readFileSync(contentPath(dataDir, userId, sha));
}

/** Removes a content file no row names any more (already gone is fine), off the request thread. */
export function dropContent(dataDir: string, userId: string, sha: string): Promise<void> {
  return rm(contentPath(dataDir, userId, sha), { force: true });
}
