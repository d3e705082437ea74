// Time-driven work. Recurring maintenance runs on croner schedules; one-shot side effects
// (publish a scheduled post, retry a delivery) are rows in the durable `jobs` table, so they
// survive a restart. Tests call runDue() and runRecurring() after moving the TestClock.
import { Cron } from "croner";
import { and, asc, eq, isNull, lte, or } from "drizzle-orm";
import type { Db } from "../db/client";
import type { Clock } from "./clock";
import { uuidv7 } from "./ids";
import type { Logger } from "./log";
import { jobs } from "./tables";

type JobHandler = (payload: Record<string, unknown>, job: { id: string; attempts: number }) => void | Promise<void>;
type RecurringTask = () => unknown;

/** Outcomes of a recurring task or a one-shot job kind since the process started. */
interface JobStats {
  ok: number;
  failed: number;
  /** Failed runs since the last successful one. */
  consecutiveFailures: number;
}

/** Retry backoff for a failed one-shot job: 30 s, 2 min, 10 min, then hourly, up to 10 attempts. */
const BACKOFF_MS = [30_000, 120_000, 600_000, 3_600_000];
const MAX_ATTEMPTS = 10;
const LOCK_MS = 5 * 60_000;

/** Cron patterns already parsed by `every` in this process. */
const checkedPatterns = new Set<string>();

export class Jobs {
  private handlers = new Map<string, JobHandler>();
  private recurring = new Map<string, { pattern: string; task: RecurringTask }>();
  private crons: Cron[] = [];
  private running = new Set<Promise<void>>();
  private runs = new Map<string, JobStats>();

  constructor(
    private db: Db,
    private clock: Clock,
    private log: Logger,
  ) {}

  /** Registers the handler of a one-shot job kind. */
  handle(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  /** Queues a one-shot job; `tx` lets a feature queue it in the transaction of its write. */
  schedule(kind: string, runAt: number, payload: Record<string, unknown> = {}, tx: Pick<Db, "insert"> = this.db): string {
    const id = uuidv7(this.clock.now());
    tx.insert(jobs).values({ id, kind, payload, runAt, createdAt: this.clock.now() }).run();
    return id;
  }

  /** Cancels pending jobs of a kind whose payload matches `match` on every given key. */
  cancel(kind: string, match: Record<string, unknown>): number {
    const pending = this.db.select().from(jobs).where(and(eq(jobs.kind, kind), isNull(jobs.doneAt))).all();
    let n = 0;
    for (const j of pending) {
      if (Object.entries(match).every(([k, v]) => j.payload[k] === v)) {
        this.db.delete(jobs).where(eq(jobs.id, j.id)).run();
        n++;
      }
    }
    return n;
  }

  /** Declares a recurring task on a cron pattern (croner syntax, seconds optional). */
  every(name: string, pattern: string, task: RecurringTask): void {
    // A paused Cron parses the pattern, so a typo fails where it is declared, not at start-up
    // (once per pattern: the features declare 35 tasks on 15 patterns, and each parse is start-up time).
    if (!checkedPatterns.has(pattern)) {
      new Cron(pattern, { paused: true }).stop();
      checkedPatterns.add(pattern);
    }
    this.recurring.set(name, { pattern, task });
  }

  async runRecurring(name: string): Promise<void> {
    const r = this.recurring.get(name);
    if (!r) throw new Error(`no recurring task ${name}`);
    await this.tracked(name, r.task);
  }

  /** Outcomes per recurring task name and one-shot job kind (metrics and /health read them). */
  stats(): ReadonlyMap<string, JobStats> {
    return this.runs;
  }

  private record(name: string, failed: boolean): void {
    let s = this.runs.get(name);
    if (!s) this.runs.set(name, (s = { ok: 0, failed: 0, consecutiveFailures: 0 }));
    if (failed) {
      s.failed++;
      s.consecutiveFailures++;
    } else {
      s.ok++;
      s.consecutiveFailures = 0;
    }
  }

  private async tracked(name: string, fn: () => unknown): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.record(name, true);
      throw err;
    }
    this.record(name, false);
  }

  /** Runs every one-shot job that is due now. Returns how many ran (successfully or not). */
  async runDue(limit = 100): Promise<number> {
    const now = this.clock.now();
    const due = this.db
      .select()
      .from(jobs)
      .where(and(isNull(jobs.doneAt), lte(jobs.runAt, now), or(isNull(jobs.lockedUntil), lte(jobs.lockedUntil, now))))
      .orderBy(asc(jobs.runAt), asc(jobs.id))
      .limit(limit)
      .all();
    for (const job of due) {
      const handler = this.handlers.get(job.kind);
      if (!handler) continue;
      this.db.update(jobs).set({ lockedUntil: now + LOCK_MS, attempts: job.attempts + 1 }).where(eq(jobs.id, job.id)).run();
      try {
        await handler(job.payload, { id: job.id, attempts: job.attempts + 1 });
        this.db.update(jobs).set({ doneAt: this.clock.now(), lockedUntil: null }).where(eq(jobs.id, job.id)).run();
        this.record(job.kind, false);
      } catch (err) {
        this.record(job.kind, true);
        const attempts = job.attempts + 1;
        const giveUp = attempts >= MAX_ATTEMPTS;
        this.log.warn("job failed", { kind: job.kind, id: job.id, attempts, error: String(err) });
        this.db
          .update(jobs)
          .set({
            lastError: String(err).slice(0, 1000),
            lockedUntil: null,
            doneAt: giveUp ? this.clock.now() : null,
            runAt: giveUp ? job.runAt : this.clock.now() + BACKOFF_MS[Math.min(attempts - 1, BACKOFF_MS.length - 1)],
          })
          .where(eq(jobs.id, job.id))
          .run();
      }
    }
    return due.length;
  }

  /** Starts the croner schedules: due jobs every few seconds plus each recurring task. */
  start(): void {
    const guard = (name: string, fn: () => unknown) => async () => {
      const run = (async () => {
        try {
          await this.tracked(name, fn);
        } catch (err) {
          this.log.error("scheduled task failed", { task: name, error: String(err) });
        }
      })();
      this.running.add(run);
      try {
        await run;
      } finally {
        this.running.delete(run);
      }
    };
    this.crons.push(new Cron("*/5 * * * * *", { protect: true, name: "jobs" }, guard("jobs", () => this.runDue())));
    for (const [name, r] of this.recurring) this.crons.push(new Cron(r.pattern, { protect: true, name }, guard(name, r.task)));
  }

  /** The schedules running now, by name ("jobs" runs the due one-shot jobs), with their next run. */
  schedules(): { name: string; next: Date | null }[] {
    return this.crons.map((c) => ({ name: c.name ?? "", next: c.nextRun() }));
  }

  /** Stops the schedules; resolves once the tasks already running have finished. */
  stop(): Promise<void> {
    for (const c of this.crons) c.stop();
    this.crons = [];
    return Promise.all([...this.running]).then(() => {});
  }
}
