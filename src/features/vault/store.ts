// The vault's content files in the data folder (spec Part 3 §4.7; docs/decisions.md §69).
//
// Content is addressed by its SHA-256: vault/<user id>/<sha256 hex>. The names on disk never come
// from what a client sent (the filename lives only in SQLite), so no path a client writes can
// reach outside the folder. A file is written atomically: a temporary file (a dot name, which
// backups skip), fsync, rename onto its final name, fsync of the folder; a crash leaves either no
// file or the whole one. A content file that exists is never rewritten (same name, same bytes).
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export const VAULT_FOLDER = "vault";

export const sha256Hex = (bytes: Uint8Array): string => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

export const userFolder = (dataDir: string, userId: string): string => join(dataDir, VAULT_FOLDER, userId);
export const contentPath = (dataDir: string, userId: string, sha: string): string => join(userFolder(dataDir, userId), sha);

function fsyncFolder(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes the content file for `bytes` durable (a no-op when it is already there); returns its hash. */
export function putContent(dataDir: string, userId: string, bytes: Uint8Array, sha = sha256Hex(bytes)): string {
  const dir = userFolder(dataDir, userId);
  const target = join(dir, sha);
  if (existsSync(target)) return sha;
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    fsyncFolder(join(dataDir, VAULT_FOLDER));
  }
  const tmp = join(dir, `.${sha}.${process.pid}.${Math.random().toString(36).slice(2)}`);
  const fd = openSync(tmp, "w", 0o600);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, target);
  fsyncFolder(dir);
  return sha;
}

/** The content of a file, as stored. */
export function readContent(dataDir: string, userId: string, sha: string): Buffer {
  return readFileSync(contentPath(dataDir, userId, sha));
}

/** Removes a content file no row names any more (already gone is fine). */
export function dropContent(dataDir: string, userId: string, sha: string): void {
  rmSync(contentPath(dataDir, userId, sha), { force: true });
}
