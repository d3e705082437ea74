// The data folder's lock: one process at a time may serve, migrate or restore a data folder.
//
// An exclusive flock(2) on <data dir>/colony.lock, held for the holder's lifetime. The kernel
// drops it when the holder exits, however it exits (kill -9 included), so nothing stale is ever
// left to clean up and no other process can be mistaken for the holder. While holding the lock,
// the holder writes who it is into the file (pid, command, address, start time) so that a
// refused process can name it; the content is informational only, the lock is the flock.
import { dlopen, FFIType } from "bun:ffi";
import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;

export const LOCK_FILE = "colony.lock";

/** Who holds (or last held) the lock, as written into the lock file. */
interface LockHolder {
  pid: number;
  command: string;
  host: string;
  started_at: string;
  /** Where a server holder listens, once it does. */
  url?: string;
  /** How many worker processes a supervisor runs (`colony reload` needs several). */
  workers?: number;
}

/**
 * Set by a lock holder for a child it runs on its data folder (the supervisor's `colony migrate`
 * during a reload): the number of the child's file descriptor that shares the holder's open lock
 * file. The child holds the lock through it and never unlocks it, only closes its descriptor.
 */
export const INHERITED_LOCK_FD_ENV = "COLONY_INHERITED_LOCK_FD";

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
  ) {
    super(`${dataDir} is in use by ${describeHolder(holder)}; stop it first`);
  }
}

export function describeHolder(h: LockHolder | null): string {
  if (!h) return "another colony process";
  const where = h.url ? ` serving ${h.url}` : "";
  return `colony ${h.command} (pid ${h.pid} on ${h.host}${where}, since ${h.started_at})`;
}

type Flock = (fd: number, op: number) => number;
let flockFn: Flock | null = null;

/** libc's flock, loaded on first use (Linux with glibc or musl, macOS). */
function flock(): Flock {
  if (flockFn) return flockFn;
  const candidates =
    process.platform === "darwin" ? ["libc.dylib", "/usr/lib/libSystem.B.dylib"] : ["libc.so.6", `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`];
  const errors: string[] = [];
  for (const name of candidates) {
    try {
      const lib = dlopen(name, { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } });
      const fn = lib.symbols.flock as unknown as Flock;
      flockFn = fn;
      return fn;
    } catch (err) {
      errors.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  throw new Error(`cannot lock the data folder on this platform (flock not found: ${errors.join("; ")})`);
}

/** A held lock on a data folder. */
export interface DataLock {
  readonly path: string;
  /** Records more about the holder (e.g. the URL once listening). */
  update(extra: Partial<LockHolder>): void;
  /** Releases the lock (idempotent). The lock file stays; its content is only informational. */
  release(): void;
  /** The open lock file: a child given it (as INHERITED_LOCK_FD_ENV says) shares the lock. */
  readonly fd: number;
}

function readHolder(path: string): LockHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as LockHolder;
    return typeof parsed?.pid === "number" ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Takes the data folder's lock for `command`, or throws DataDirLockedError naming the process
 * that holds it. Creates the folder (mode 0700) when it does not exist.
 */
export function acquireDataLock(dataDir: string, command: string): DataLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE);
  const inherited = inheritedLock(path);
  if (inherited) return inherited;
  const fd = openSync(path, "a+", 0o600);
  if (flock()(fd, LOCK_EX | LOCK_NB) !== 0) {
    closeSync(fd);
    throw new DataDirLockedError(dataDir, readHolder(path));
  }
  let holder: LockHolder = { pid: process.pid, command, host: hostname(), started_at: new Date().toISOString() };
  const write = () => {
    ftruncateSync(fd, 0);
    writeSync(fd, `${JSON.stringify(holder)}\n`, 0);
  };
  write();
  let held = true;
  return {
    path,
    fd,
    update(extra) {
      if (!held) return;
      holder = { ...holder, ...extra };
      write();
    },
    release() {
      if (!held) return;
      held = false;
      flock()(fd, LOCK_UN);
      closeSync(fd);
    },
  };
}

/**
 * Whether the data folder's lock is held right now and, when it is, by whom (null when the
 * holder has not written its name yet). Never holds the lock longer than the probe, and never
 * creates anything.
 */
export function lockState(dataDir: string): { held: false } | { held: true; holder: LockHolder | null } {
  const path = join(dataDir, LOCK_FILE);
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return { held: false };
  }
  try {
    if (flock()(fd, LOCK_EX | LOCK_NB) === 0) {
      flock()(fd, LOCK_UN);
      return { held: false };
    }
    return { held: true, holder: readHolder(path) };
  } finally {
    closeSync(fd);
  }
}

/**
 * The lock a holder handed to this process (INHERITED_LOCK_FD_ENV), when the descriptor is this
 * data folder's lock file and its lock is held: flock on a shared open file description succeeds.
 * Releasing closes the descriptor only, so the holder keeps its lock.
 */
function inheritedLock(path: string): DataLock | null {
  const given = process.env[INHERITED_LOCK_FD_ENV];
  if (!given) return null;
  const fd = Number(given);
  try {
    if (!Number.isInteger(fd) || fstatSync(fd).ino !== statSync(path).ino) return null;
  } catch {
    return null;
  }
  if (flock()(fd, LOCK_EX | LOCK_NB) !== 0) return null;
  let held = true;
  return {
    path,
    fd,
    update() {},
    release() {
      if (!held) return;
      held = false;
      closeSync(fd);
    },
  };
}
