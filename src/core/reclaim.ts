// Gives memory back once a burst of work is over. Under load the JavaScript heap grows between
// collections, SQLite's page caches fill (up to 32 MB on the main connection and on each reader
// thread) and JavaScriptCore compiles the hot code; when the load stops, JavaScriptCore collects
// on its own timers, seconds later, and SQLite keeps its pages until the connection closes.
//
// A burst is an interval in which the process used at least BUSY_SHARE of a core (all its threads
// together); an idle interval is one below IDLE_SHARE. After a burst, at the first idle interval,
// the server collects its heap and has SQLite release the cache pages it holds but is not using
// (PRAGMA shrink_memory), on the main connection and on each reader thread: the next burst reads
// those pages again from the operating system's cache, at no measurable cost. If it then stays
// idle for SHRINK_AFTER_IDLE_MS, it also drops its compiled code (Bun.shrink(), JavaScriptCore's
// shrinkFootprintWhenIdle) on every thread, which gives back more at a price: the next burst
// starts slower, with a longer tail, while its code is compiled again, hence the wait. The
// server's start counts as a burst. Nothing happens while the server is busy, nor in one that
// stays idle or lightly used after that.
import type { ReleaseLevel } from "../db/workers";
import type { Ctx } from "./context";

export const RECLAIM_INTERVAL_MS = 500;
/** Share of one core (all threads together) over an interval that counts as a burst of work. */
export const BUSY_SHARE = 0.2;
/**
 * Share of one core below which an interval counts as idle. An idle server's own ticks (the WAL
 * checkpointer's, the schedules) stay well below it.
 */
export const IDLE_SHARE = 0.05;
/** How long a server stays idle after a burst before it drops its compiled code as well. */
export const SHRINK_AFTER_IDLE_MS = 10_000;

/** What is given back: caches (heap and SQLite pages), or caches and compiled code. */
export type { ReleaseLevel };

export interface ReclaimerSources {
  /** CPU time the process has used (user + system, every thread), in microseconds. */
  cpuMicros(): number;
  /** A monotonic clock in milliseconds. */
  nowMs(): number;
  /** Gives memory back. */
  release(level: ReleaseLevel): void;
}

/** Decides, once per interval, whether to give memory back (see the top of the file). */
export class Reclaimer {
  private cpu: number;
  private at: number;
  /**
   * The start is a burst of its own: building the app leaves megabytes of garbage (schemas, route
   * tables, the migrations' statements) that JavaScriptCore otherwise keeps until its own timers
   * collect it, which an idle server may not run for minutes.
   */
  private busy = true;
  /** Whether the caches were released after the last burst and the code not yet. */
  private codeDue = false;
  /** Start of the current run of idle intervals. */
  private idleSince: number | null = null;

  constructor(private sources: ReclaimerSources) {
    this.cpu = sources.cpuMicros();
    this.at = sources.nowMs();
  }

  /** Called once per interval; returns what was released, if anything. */
  tick(): ReleaseLevel | null {
    const cpu = this.sources.cpuMicros();
    const at = this.sources.nowMs();
    const from = this.at;
    const share = at > from ? (cpu - this.cpu) / 1000 / (at - from) : 0;
    this.cpu = cpu;
    this.at = at;
    if (share >= IDLE_SHARE) {
      this.idleSince = null;
      if (share >= BUSY_SHARE) {
        this.busy = true;
        this.codeDue = false;
      }
      return null;
    }
    this.idleSince ??= from;
    let level: ReleaseLevel | null = null;
    if (this.busy) {
      this.busy = false;
      this.codeDue = true;
      level = "caches";
    } else if (this.codeDue && at - this.idleSince >= SHRINK_AFTER_IDLE_MS) {
      this.codeDue = false;
      level = "code";
    }
    if (level) {
      this.sources.release(level);
      // The release's own work does not count towards the next interval.
      this.cpu = this.sources.cpuMicros();
      this.at = this.sources.nowMs();
    }
    return level;
  }
}

/**
 * "caches": collects the heap and has SQLite release the pages its caches are not using, on the
 * main connection and the reader threads. "code": drops the compiled code as well, on every thread.
 */
export function releaseMemory(ctx: Ctx, level: ReleaseLevel): void {
  const started = performance.now();
  const before = process.memoryUsage.rss();
  if (level === "code") Bun.shrink();
  else Bun.gc(true);
  ctx.db.$client.run("PRAGMA shrink_memory");
  ctx.reads.release(level).catch(() => {});
  // Bun.shrink() does its work once no JavaScript is on the stack, i.e. after this returns.
  setTimeout(() => ctx.log.debug("released memory after a burst of work", { release: level, rss_before: before, rss_after: process.memoryUsage.rss(), ms: Math.round(performance.now() - started) }), 0);
}

/** Starts watching the server's CPU use (the server, once it listens); stop() ends it. */
export function startReclaimer(ctx: Ctx): { stop(): void } {
  const reclaimer = new Reclaimer({
    cpuMicros: () => {
      const u = process.cpuUsage();
      return u.user + u.system;
    },
    nowMs: () => performance.now(),
    release: (level) => releaseMemory(ctx, level),
  });
  const timer = setInterval(() => reclaimer.tick(), RECLAIM_INTERVAL_MS);
  (timer as { unref?: () => void }).unref?.();
  return { stop: () => clearInterval(timer) };
}
