// Where the rate limiter (core/limits.ts) keeps its sliding windows: a log of the instants charged
// to each key. One process keeps them in memory; several processes serving one instance share a
// SQLite file of their own in the data folder, so that a limit holds whichever process a request
// lands on. The store knows nothing of the rules: the limiter hands it each window's key, length
// and ceiling, and the instant to use (from its Clock).
import { Database, type Statement } from "bun:sqlite";
import { chmodSync } from "node:fs";

/** The SQLite store's file in the data folder (with its -wal and -shm); not backed up: windows are not precious. */
export const LIMITS_FILE = "limits.db";

/** A charge that can be refunded when the request it paid for fails. */
export interface Charge {
  key: string;
  at: number;
}

/** One window as the limiter asks for it: its key, its length and its ceiling for this caller. */
export interface WindowSpec {
  key: string;
  windowMs: number;
  max: number;
}

/** What a window holds at an instant. */
export interface WindowState {
  /** Charges inside the window (those after now - windowMs). */
  count: number;
  /**
   * When the window is full (count >= max): the instant of the oldest charge that keeps it full;
   * a slot frees when that charge slides out. Null while there is room.
   */
  pivot: number | null;
}

export interface LimitStore {
  /** The window of `spec` at `now`. Charges nothing. */
  read(spec: WindowSpec, now: number): WindowState;
  /**
   * Charges `now` to every window when each has room, and answers null; otherwise charges none
   * and answers the first full window (its index in `specs`) and its state. Atomic: no other
   * charge to these keys, from any process, comes between the checks and the charges.
   */
  charge(specs: readonly WindowSpec[], now: number): { full: number; state: WindowState } | null;
  /** Removes each charge once (by key and instant); charges that are gone are ignored. */
  refund(charges: readonly Charge[]): void;
  /** Deletes every charge at or before `before` (older than any window); answers how many. */
  sweep(before: number): number;
  /** Forgets every charge. */
  reset(): void;
  close(): void;
}

/** The windows of one process: key -> the instants charged, oldest first. */
export class MemoryLimitStore implements LimitStore {
  private log = new Map<string, number[]>();

  /** The key's charges inside the window, after dropping those that slid out. */
  private window(key: string, windowMs: number, now: number): number[] {
    const list = this.log.get(key);
    if (!list) return [];
    let i = 0;
    while (i < list.length && list[i] <= now - windowMs) i++;
    if (i) list.splice(0, i);
    if (!list.length) this.log.delete(key);
    return list;
  }

  private stateOf(list: readonly number[], max: number): WindowState {
    return { count: list.length, pivot: list.length >= max ? (list[list.length - max] ?? list[0]) : null };
  }

  read(spec: WindowSpec, now: number): WindowState {
    return this.stateOf(this.window(spec.key, spec.windowMs, now), spec.max);
  }

  charge(specs: readonly WindowSpec[], now: number): { full: number; state: WindowState } | null {
    for (let i = 0; i < specs.length; i++) {
      const list = this.window(specs[i].key, specs[i].windowMs, now);
      if (list.length >= specs[i].max) return { full: i, state: this.stateOf(list, specs[i].max) };
    }
    for (const { key } of specs) {
      const list = this.log.get(key) ?? [];
      list.push(now);
      this.log.set(key, list);
    }
    return null;
  }

  refund(charges: readonly Charge[]): void {
    for (const c of charges) {
      const list = this.log.get(c.key);
      if (!list) continue;
      const i = list.lastIndexOf(c.at);
      if (i >= 0) list.splice(i, 1);
    }
  }

  sweep(before: number): number {
    let removed = 0;
    for (const [key, list] of this.log) {
      let i = 0;
      while (i < list.length && list[i] <= before) i++;
      removed += i;
      if (i === list.length) this.log.delete(key);
      else if (i) list.splice(0, i);
    }
    return removed;
  }

  reset(): void {
    this.log.clear();
  }

  close(): void {}
}

/**
 * The windows of several processes, in one SQLite file (`<dataDir>/limits.db`, apart from the
 * main database so that the charges of every request never contend with its writes). One row per
 * charge; a charge is one transaction that checks every window and then inserts all its rows or
 * none, under the write lock (BEGIN IMMEDIATE), so two processes cannot both take a window's last
 * slot. Each key's expired rows are deleted when it is charged, and `sweep` deletes the rows of
 * keys that are not charged again.
 */
export class SqliteLimitStore implements LimitStore {
  private db: Database;
  private begin: Statement;
  private commit: Statement;
  private rollback: Statement;
  private prune: Statement<unknown, [string, number]>;
  private state: Statement<{ n: number; pivot: number | null }, [string, number, number]>;
  private insert: Statement<unknown, [string, number]>;
  private remove: Statement<unknown, [string, number]>;
  private sweepBefore: Statement<unknown, [number]>;
  private clear: Statement;

  constructor(path: string) {
    const db = new Database(path, { create: true, strict: true });
    try {
      // The keys hold user ids and client addresses: owner-only, whatever the umask.
      if (path !== ":memory:") chmodSync(path, 0o600);
      // busy_timeout first, so the WAL switch and every transaction wait for another process's lock.
      db.run("PRAGMA busy_timeout = 5000");
      if (path !== ":memory:") db.run("PRAGMA journal_mode = WAL");
      // In WAL mode NORMAL syncs only at checkpoints, not at each commit: a power cut may lose the
      // last charges (windows are not precious) but cannot corrupt the file.
      db.run("PRAGMA synchronous = NORMAL");
      db.run("CREATE TABLE IF NOT EXISTS charges (key TEXT NOT NULL, at INTEGER NOT NULL)");
      db.run("CREATE INDEX IF NOT EXISTS charges_key_at ON charges (key, at)");
    } catch (err) {
      db.close();
      throw err;
    }
    this.db = db;
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    this.prune = db.prepare("DELETE FROM charges WHERE key = ? AND at <= ?");
    // The pivot is the max-th newest charge of the window (the oldest that keeps it full): one
    // statement, so it reads the window as of one instant even outside a transaction.
    this.state = db.prepare(
      "SELECT (SELECT count(*) FROM charges WHERE key = ?1 AND at > ?2) AS n, " +
        "(SELECT at FROM charges WHERE key = ?1 AND at > ?2 ORDER BY at DESC LIMIT 1 OFFSET ?3 - 1) AS pivot",
    );
    this.insert = db.prepare("INSERT INTO charges (key, at) VALUES (?, ?)");
    this.remove = db.prepare("DELETE FROM charges WHERE rowid = (SELECT rowid FROM charges WHERE key = ? AND at = ? LIMIT 1)");
    this.sweepBefore = db.prepare("DELETE FROM charges WHERE at <= ?");
    this.clear = db.prepare("DELETE FROM charges");
  }

  /** The window's state from its rows after `from` (now - windowMs). */
  private stateOf(spec: WindowSpec, from: number): WindowState {
    const row = this.state.get(spec.key, from, spec.max)!;
    return { count: row.n, pivot: row.pivot };
  }

  read(spec: WindowSpec, now: number): WindowState {
    return this.stateOf(spec, now - spec.windowMs);
  }

  charge(specs: readonly WindowSpec[], now: number): { full: number; state: WindowState } | null {
    return this.immediate(() => {
      for (let i = 0; i < specs.length; i++) {
        const from = now - specs[i].windowMs;
        this.prune.run(specs[i].key, from);
        const state = this.stateOf(specs[i], from);
        // Refused: nothing is charged (the pruning commits: it drops only rows no window counts).
        if (state.count >= specs[i].max) return { full: i, state };
      }
      for (const { key } of specs) this.insert.run(key, now);
      return null;
    });
  }

  refund(charges: readonly Charge[]): void {
    if (charges.length) this.immediate(() => charges.forEach((c) => this.remove.run(c.key, c.at)));
  }

  sweep(before: number): number {
    return this.sweepBefore.run(before).changes;
  }

  reset(): void {
    this.clear.run();
  }

  /** Finalizes the statements first: a connection with live statements would stay open after close. */
  close(): void {
    for (const st of [this.begin, this.commit, this.rollback, this.prune, this.state, this.insert, this.remove, this.sweepBefore, this.clear]) st.finalize();
    this.db.close();
  }

  /** Runs `fn` holding the write lock (waiting for it up to busy_timeout); commits what it did. */
  private immediate<T>(fn: () => T): T {
    this.begin.run();
    try {
      const out = fn();
      this.commit.run();
      return out;
    } catch (err) {
      if (this.db.inTransaction) this.rollback.run();
      throw err;
    }
  }
}
