// Backup archives: one gzip-compressed tar holding a snapshot of the database, every folder of
// core/data-folders.ts and, last, a manifest that describes and vouches for the rest.
//
//   colony.db                  the database as of one instant (VACUUM INTO)
//   secrets/…  avatars/…  …    the data folders, as found just after that instant
//   manifest.json              format, versions, counts, sizes, the snapshot's sha256
//
// The manifest comes last because it counts what was actually written (a file removed between
// the listing and its reading is left out and counted as vanished), and so an archive cut short
// has none and is refused. Entries are written with node-tar's Header (ustar, PAX for what does
// not fit) from files this module opens itself, so a file that disappears is skipped cleanly
// and a file is always read from the one inode it was opened as. Reading goes through node-tar's
// Parser (gzip detection, checksums, PAX) with this module's own checks on every entry.
import { createHash } from "node:crypto";
import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
  type Dirent,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { once } from "node:events";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { Database } from "bun:sqlite";
import { Header, Parser, Pax, type ReadEntry } from "tar";
import { DATA_FOLDER_NAMES } from "../core/data-folders";
import { migrationStatus } from "../db/migrate";
import { publishFile, snapshotDatabase } from "../db/snapshot";
import { API_VERSION } from "../core/version";

const ARCHIVE_FORMAT = "colony-backup";
const ARCHIVE_FORMAT_VERSION = 1;
const DB_ENTRY = "colony.db";
const MANIFEST_ENTRY = "manifest.json";

interface FolderCount {
  files: number;
  bytes: number;
}

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  format_version: number;
  colony_version: string;
  created_at: string;
  /** Migrations applied in the snapshot. */
  migrations: number;
  database: { entry: typeof DB_ENTRY; bytes: number; sha256: string };
  /** Every data folder this build knows, with what the archive holds of it. */
  folders: Record<string, FolderCount>;
  /** Files listed after the snapshot that were removed before they could be read. */
  vanished: number;
}

export type Print = (line: string) => void;

const MiB = 1024 * 1024;
const CHUNK = MiB;
const BLOCK = 512;
/** A progress line for every this many bytes of one large file (the snapshot). */
const PROGRESS_EVERY = 256 * MiB;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < MiB) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * MiB) return `${(n / MiB).toFixed(1)} MiB`;
  return `${(n / 1024 / MiB).toFixed(2)} GiB`;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// --- writing -------------------------------------------------------------------------------

/** A tar stream, gzip-compressed into a file. */
class TarGzWriter {
  private gz = createGzip({ level: 6 });
  private out;
  private done: Promise<void>;

  constructor(path: string) {
    this.out = createWriteStream(path, { flags: "wx", mode: 0o600 });
    this.done = pipeline(this.gz, this.out);
    // pipeline reports the error; keep an early one from going unhandled before finish() awaits it.
    this.done.catch(() => {});
  }

  /** Bytes of tar written into the compressor so far. */
  tarBytes = 0;

  /** Compressed bytes on disk so far. */
  get bytesWritten(): number {
    return this.out.bytesWritten;
  }

  /** "2.1 MiB of data, 640.0 KiB on disk" */
  progress(): string {
    return `${formatBytes(this.tarBytes)} of data, ${formatBytes(this.bytesWritten)} compressed on disk`;
  }

  private async put(chunk: Buffer): Promise<void> {
    this.tarBytes += chunk.length;
    if (!this.gz.write(chunk)) await Promise.race([once(this.gz, "drain"), this.done]);
  }

  private header(path: string, size: number, mode: number, mtime: Date): Buffer[] {
    const fields = { path, mode: mode & 0o7777, size, mtime, uid: 0, gid: 0, type: "File" as const };
    const block = Buffer.alloc(BLOCK);
    const needPax = new Header(fields).encode(block, 0);
    return needPax ? [new Pax(fields).encode(), block] : [block];
  }

  /**
   * Adds the file open at `fd` as `path`, reading exactly the size it has now; `onChunk` sees
   * every chunk (to hash it). The file must not change size while it is read (files of the data
   * folder are replaced by rename, never rewritten in place, so an open one never does).
   */
  async addFd(path: string, fd: number, onChunk?: (chunk: Buffer) => void, onProgress?: (done: number, size: number) => void): Promise<number> {
    const st = fstatSync(fd);
    let next = PROGRESS_EVERY;
    for (const b of this.header(path, st.size, st.mode, st.mtime)) await this.put(b);
    let left = st.size;
    while (left > 0) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, left));
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) throw new Error(`${path} shrank while it was being read`);
      const chunk = n === buf.length ? buf : buf.subarray(0, n);
      onChunk?.(chunk);
      await this.put(chunk);
      left -= n;
      if (onProgress && st.size - left >= next && left > 0) {
        onProgress(st.size - left, st.size);
        next += PROGRESS_EVERY;
      }
    }
    const pad = (BLOCK - (st.size % BLOCK)) % BLOCK;
    if (pad) await this.put(Buffer.alloc(pad));
    return st.size;
  }

  async addBuffer(path: string, data: Buffer, mode = 0o600, mtime = new Date()): Promise<void> {
    for (const b of this.header(path, data.length, mode, mtime)) await this.put(b);
    await this.put(data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad) await this.put(Buffer.alloc(pad));
  }

  /** Ends the archive (two zero blocks), flushes the compressor and closes the file. */
  async finish(): Promise<void> {
    this.gz.end(Buffer.alloc(2 * BLOCK));
    await this.done;
  }

  abort(): void {
    this.gz.destroy();
    this.out.destroy();
  }
}

/**
 * The files of one data folder, as relative paths with "/" separators: regular files only
 * (links and anything else are not followed), names starting with a dot skipped, a folder that
 * disappears while it is walked taken as empty.
 */
function listFolder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name.startsWith(".")) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(dir, e.name), r);
      else if (e.isFile()) out.push(r);
    }
  };
  let st;
  try {
    st = lstatSync(root);
  } catch {
    return out;
  }
  if (st.isDirectory()) walk(root, "");
  return out;
}

/** Opens a file to archive it, or null when it is gone (or no longer a plain file). */
function openForArchive(path: string): number | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    return null;
  }
  return fd;
}

export interface WriteArchiveOptions {
  dataDir: string;
  /** The archive's file: must not exist; written under a temporary name beside it first. */
  target: string;
  /** The instant recorded as created_at. */
  now: number;
  print?: Print;
}

interface WriteArchiveResult {
  path: string;
  /** Size of the archive file. */
  bytes: number;
  manifest: Manifest;
}

/**
 * Writes a backup archive of the data folder: the database snapshot first, then the data
 * folders as they are just after it, then the manifest. Everything goes to a private work folder
 * beside the target (mode 0700; the archive itself 0600), and the finished archive is linked
 * into place under its name (never replacing a file) only when complete.
 */
export async function writeArchive(opts: WriteArchiveOptions): Promise<WriteArchiveResult> {
  const print = opts.print ?? (() => {});
  const out = resolve(opts.target);
  if (existsSync(out)) throw new Error(`${out} already exists; choose a new file name`);
  const dbPath = join(opts.dataDir, DB_ENTRY);
  if (!existsSync(dbPath)) throw new Error(`no database at ${dbPath}`);
  mkdirSync(dirname(out), { recursive: true, mode: 0o700 });
  const work = mkdtempSync(join(dirname(out), `.${basename(out)}.partial-`));
  let writer: TarGzWriter | null = null;
  try {
    // 1. The database as of one instant.
    print(`snapshot of ${dbPath} …`);
    let started = performance.now();
    const snapshot = join(work, DB_ENTRY);
    snapshotDatabase(dbPath, snapshot);
    const snap = new Database(snapshot, { readonly: true });
    let migrations: number;
    try {
      migrations = migrationStatus(snap).applied;
    } finally {
      snap.close();
    }
    const dbBytes = statSync(snapshot).size;
    print(`snapshot taken: ${formatBytes(dbBytes)}, ${migrations} migration(s), in ${seconds(performance.now() - started)}`);
    // The files, listed right after the snapshot: every file a row of it refers to was written
    // before that row committed, so it is listed (README, "What an archive guarantees").
    const listing = DATA_FOLDER_NAMES.map((name) => [name, listFolder(join(opts.dataDir, name))] as const);
    print(`${listing.reduce((n, [, files]) => n + files.length, 0)} file(s) listed in ${DATA_FOLDER_NAMES.map((f) => `${f}/`).join(", ")}`);

    // 2. The archive: the snapshot, then the files as listed.
    const tmp = join(work, "archive.tar.gz");
    writer = new TarGzWriter(tmp);
    started = performance.now();
    const hash = createHash("sha256");
    const fd = openSync(snapshot, "r");
    try {
      await writer.addFd(
        DB_ENTRY,
        fd,
        (chunk) => hash.update(chunk),
        (done, size) => print(`${DB_ENTRY}: ${formatBytes(done)} of ${formatBytes(size)} (archive: ${writer!.progress()})`),
      );
    } finally {
      closeSync(fd);
    }
    rmSync(snapshot, { force: true });
    const sha256 = hash.digest("hex");
    print(`${DB_ENTRY}: ${formatBytes(dbBytes)} (archive: ${writer.progress()})`);

    const folders: Record<string, FolderCount> = {};
    let vanished = 0;
    for (const [name, files] of listing) {
      const count: FolderCount = { files: 0, bytes: 0 };
      for (const rel of files) {
        const fd = openForArchive(join(opts.dataDir, name, rel));
        if (fd === null) {
          vanished++;
          continue;
        }
        try {
          count.bytes += await writer.addFd(`${name}/${rel}`, fd);
          count.files++;
        } finally {
          closeSync(fd);
        }
      }
      folders[name] = count;
      print(`${name}/: ${count.files} file(s), ${formatBytes(count.bytes)} (archive: ${writer.progress()})`);
    }
    if (vanished) print(`${vanished} file(s) removed while the backup ran were left out`);

    // 3. The manifest, last.
    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      format_version: ARCHIVE_FORMAT_VERSION,
      colony_version: API_VERSION,
      created_at: new Date(opts.now).toISOString(),
      migrations,
      database: { entry: DB_ENTRY, bytes: dbBytes, sha256 },
      folders,
      vanished,
    };
    await writer.addBuffer(MANIFEST_ENTRY, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), 0o600, new Date(opts.now));
    await writer.finish();
    writer = null;
    const sync = openSync(tmp, "r");
    try {
      fsyncSync(sync);
    } finally {
      closeSync(sync);
    }
    const bytes = statSync(tmp).size;
    publishFile(tmp, out);
    print(`archive written: ${formatBytes(bytes)} in ${seconds(performance.now() - started)}`);
    return { path: out, bytes, manifest };
  } finally {
    writer?.abort();
    rmSync(work, { recursive: true, force: true });
  }
}

// --- reading -------------------------------------------------------------------------------

/** An archive that is not a sound colony backup: refused before anything is changed. */
class ArchiveError extends Error {}

/**
 * Why an entry's path is not acceptable, or null. Accepted: colony.db and manifest.json, and
 * paths inside a known data folder; never absolute, never with "..", "." or empty segments,
 * never with a backslash or NUL.
 */
function entryPathProblem(path: string, type: string): string | null {
  if (path.includes("\0") || path.includes("\\")) return "holds a backslash or NUL";
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "is absolute";
  const p = type === "Directory" ? path.replace(/\/+$/, "") : path;
  const parts = p.split("/");
  if (parts.some((s) => s === "..")) return "leaves the data folder (..)";
  if (parts.some((s) => s === "" || s === ".")) return "is not a plain relative path";
  const top = parts[0];
  if (type === "Directory") return DATA_FOLDER_NAMES.includes(top) ? null : `is a folder this build does not restore`;
  if (parts.length === 1) return top === DB_ENTRY || top === MANIFEST_ENTRY ? null : "is not a file of a colony backup";
  if (!DATA_FOLDER_NAMES.includes(top)) return `is in ${top}/, a folder this build does not know (an archive from a newer colony?)`;
  return null;
}

interface ExtractResult {
  manifest: Manifest;
  /** The staged database. */
  database: string;
  /** The data folders the archive holds, staged under the staging folder. */
  folders: string[];
}

/**
 * Reads a backup archive into `staging` (a new, private folder) and verifies it: every entry's
 * path and type, the manifest's format, the snapshot's size and sha256, and each folder's file
 * count and size against the manifest. Throws ArchiveError (and leaves `staging` to the caller
 * to remove) when anything does not hold. Reads only the archive; writes only under `staging`.
 */
export async function extractArchive(file: string, staging: string, print: Print = () => {}): Promise<ExtractResult> {
  mkdirSync(staging, { recursive: false, mode: 0o700 });
  const seen = new Set<string>();
  const counts: Record<string, FolderCount> = {};
  const hash = createHash("sha256");
  let dbBytes = -1;
  let manifestText: string | null = null;

  await new Promise<void>((resolveDone, reject) => {
    const input = createReadStream(file);
    const parser = new Parser({ strict: true });
    let failed = false;
    const open = new Set<number>();
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      input.destroy();
      for (const fd of open) closeSync(fd);
      open.clear();
      reject(err instanceof ArchiveError ? err : new ArchiveError(`${file} is not a readable backup archive: ${err instanceof Error ? err.message : String(err)}`));
    };
    parser.on("entry", (entry: ReadEntry) => {
      if (failed) return void entry.resume();
      try {
        onEntry(entry);
      } catch (err) {
        entry.resume();
        fail(err);
      }
    });
    parser.on("error", fail);
    parser.on("end", () => {
      if (!failed) resolveDone();
    });
    input.on("error", fail);
    input.pipe(parser as unknown as NodeJS.WritableStream);

    function onEntry(entry: ReadEntry) {
      const path = entry.path;
      const type = entry.type;
      if (type !== "File" && type !== "OldFile" && type !== "ContiguousFile" && type !== "Directory") {
        throw new ArchiveError(`${file}: entry ${JSON.stringify(path)} is a ${type}; a colony backup holds only files and folders`);
      }
      const problem = entryPathProblem(path, type);
      if (problem) throw new ArchiveError(`${file}: entry ${JSON.stringify(path)} ${problem}; refused`);
      if (type === "Directory") {
        mkdirSync(join(staging, path), { recursive: true, mode: 0o700 });
        entry.resume();
        return;
      }
      if (seen.has(path)) throw new ArchiveError(`${file}: entry ${JSON.stringify(path)} appears twice; refused`);
      seen.add(path);
      if (path === MANIFEST_ENTRY) {
        if (entry.size > MiB) throw new ArchiveError(`${file}: the manifest is too large`);
        const parts: Buffer[] = [];
        entry.on("data", (c: Buffer) => parts.push(c));
        entry.on("end", () => (manifestText = Buffer.concat(parts).toString("utf8")));
        return;
      }
      const dest = join(staging, path);
      mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
      const mode = ((entry.mode ?? 0o600) & 0o755) | 0o600;
      const fd = openSync(dest, "wx", mode);
      open.add(fd);
      const isDb = path === DB_ENTRY;
      const top = path.split("/")[0];
      let written = 0;
      entry.on("data", (chunk: Buffer) => {
        if (failed) return;
        try {
          writeSync(fd, chunk);
          written += chunk.length;
          if (isDb) hash.update(chunk);
        } catch (err) {
          fail(err);
        }
      });
      entry.on("end", () => {
        if (!open.delete(fd)) return;
        closeSync(fd);
        if (isDb) {
          dbBytes = written;
          print(`${DB_ENTRY}: ${formatBytes(written)} read`);
        } else {
          const c = (counts[top] ??= { files: 0, bytes: 0 });
          c.files++;
          c.bytes += written;
        }
      });
    }
  });

  if (manifestText === null) throw new ArchiveError(`${file} has no manifest: not a colony backup archive, or cut short`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(manifestText) as Manifest;
  } catch {
    throw new ArchiveError(`${file}: the manifest is not valid JSON`);
  }
  if (manifest?.format !== ARCHIVE_FORMAT) throw new ArchiveError(`${file}: the manifest is not a colony backup's`);
  if (manifest.format_version !== ARCHIVE_FORMAT_VERSION) {
    throw new ArchiveError(`${file} is a colony backup of format ${manifest.format_version}; this build reads format ${ARCHIVE_FORMAT_VERSION} (written by colony ${manifest.colony_version})`);
  }
  if (dbBytes < 0) throw new ArchiveError(`${file} holds no ${DB_ENTRY}`);
  const sha256 = hash.digest("hex");
  if (manifest.database?.sha256 !== sha256 || manifest.database?.bytes !== dbBytes) {
    throw new ArchiveError(`${file}: the database snapshot does not match its manifest (sha256 ${sha256}, manifest ${manifest.database?.sha256}); the archive was altered or damaged`);
  }
  for (const name of new Set([...Object.keys(manifest.folders ?? {}), ...Object.keys(counts)])) {
    if (!DATA_FOLDER_NAMES.includes(name)) throw new ArchiveError(`${file}: the manifest lists ${name}/, a folder this build does not know`);
    const want = manifest.folders?.[name] ?? { files: 0, bytes: 0 };
    const got = counts[name] ?? { files: 0, bytes: 0 };
    if (want.files !== got.files || want.bytes !== got.bytes) {
      throw new ArchiveError(`${file}: ${name}/ holds ${got.files} file(s), ${got.bytes} bytes; the manifest says ${want.files}, ${want.bytes}; the archive was altered or damaged`);
    }
    print(`${name}/: ${got.files} file(s), ${formatBytes(got.bytes)}`);
  }
  print(`archive verified: written by colony ${manifest.colony_version} at ${manifest.created_at}, ${manifest.migrations} migration(s), database sha256 ${sha256.slice(0, 16)}…`);
  return { manifest, database: join(staging, DB_ENTRY), folders: Object.keys(counts) };
}
