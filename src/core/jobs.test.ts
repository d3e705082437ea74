import { beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { loadConfig } from "../config";
import { HOUR, MINUTE, TestClock } from "./clock";
import { migratedImage } from "../../test/harness";
import { createContext, type Ctx } from "./context";
import { Jobs } from "./jobs";
import type { Logger } from "./log";
import { jobs as jobsTable } from "./tables";

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, access() {}, flush() {} };

let ctx: Ctx;
let clock: TestClock;
let jobs: Jobs;

beforeEach(() => {
  clock = new TestClock();
  // A copy of the test process's migrated database: a context per test costs about 2 ms.
  ctx = createContext({ config: loadConfig({ COLONY_LOG_LEVEL: "silent" }), clock, dbPath: ":memory:", image: migratedImage() });
  jobs = new Jobs(ctx.db, clock, silent);
});

const row = (id: string) => ctx.db.select().from(jobsTable).where(eq(jobsTable.id, id)).get()!;

describe("one-shot jobs", () => {
  test("run only once due, with their payload, and only once", async () => {
    const ran: unknown[] = [];
    jobs.handle("publish", (payload, job) => void ran.push({ payload, attempts: job.attempts }));
    const id = jobs.schedule("publish", clock.now() + 5 * MINUTE, { post_id: "p1" });

    expect(await jobs.runDue()).toBe(0);
    clock.advance(5 * MINUTE - 1);
    expect(await jobs.runDue()).toBe(0);
    expect(ran).toEqual([]);

    clock.advance(1);
    expect(await jobs.runDue()).toBe(1);
    expect(ran).toEqual([{ payload: { post_id: "p1" }, attempts: 1 }]);
    expect(row(id)).toMatchObject({ doneAt: clock.now(), attempts: 1, lockedUntil: null, lastError: null });

    clock.advance(HOUR);
    expect(await jobs.runDue()).toBe(0);
    expect(ran).toHaveLength(1);
  });

  test("a job scheduled in the past runs at the next pass", async () => {
    let n = 0;
    jobs.handle("k", () => void n++);
    jobs.schedule("k", clock.now() - HOUR);
    await jobs.runDue();
    expect(n).toBe(1);
  });

  test("due jobs run in run_at order, then creation order", async () => {
    const order: string[] = [];
    jobs.handle("k", (p) => void order.push(p.name as string));
    const t = clock.now();
    jobs.schedule("k", t + 3_000, { name: "c" });
    jobs.schedule("k", t + 1_000, { name: "a" });
    jobs.schedule("k", t + 2_000, { name: "b1" });
    jobs.schedule("k", t + 2_000, { name: "b2" });
    clock.advance(10_000);
    expect(await jobs.runDue()).toBe(4);
    expect(order).toEqual(["a", "b1", "b2", "c"]);
  });

  test("runDue honours its limit", async () => {
    let n = 0;
    jobs.handle("k", () => void n++);
    for (let i = 0; i < 5; i++) jobs.schedule("k", clock.now());
    expect(await jobs.runDue(2)).toBe(2);
    expect(n).toBe(2);
    expect(await jobs.runDue()).toBe(3);
    expect(n).toBe(5);
  });

  test("a job queued inside a rolled-back transaction never exists", async () => {
    let n = 0;
    jobs.handle("k", () => void n++);
    expect(() =>
      ctx.db.transaction((tx) => {
        jobs.schedule("k", clock.now(), {}, tx);
        throw new Error("rollback");
      }),
    ).toThrow("rollback");
    ctx.db.transaction((tx) => void jobs.schedule("k", clock.now(), { kept: true }, tx));
    expect(await jobs.runDue()).toBe(1);
    expect(n).toBe(1);
  });

  test("a job without a registered handler waits for one", async () => {
    const id = jobs.schedule("later", clock.now());
    expect(await jobs.runDue()).toBe(1); // seen, not run
    expect(row(id)).toMatchObject({ doneAt: null, attempts: 0 });
    let n = 0;
    jobs.handle("later", () => void n++);
    await jobs.runDue();
    expect(n).toBe(1);
    expect(row(id).doneAt).not.toBeNull();
  });
});

describe("retries", () => {
  test("a failing job is retried with backoff: 30 s, 2 min, 10 min, then hourly", async () => {
    let calls = 0;
    jobs.handle("flaky", () => {
      calls++;
      throw new Error(`boom ${calls}`);
    });
    const id = jobs.schedule("flaky", clock.now());
    const gaps = [30_000, 120_000, 600_000, HOUR, HOUR];
    await jobs.runDue();
    expect(calls).toBe(1);
    for (const [i, gap] of gaps.entries()) {
      const r = row(id);
      expect(r.runAt).toBe(clock.now() + gap);
      expect(r.doneAt).toBeNull();
      expect(r.lockedUntil).toBeNull();
      expect(r.lastError).toContain(`boom ${calls}`);
      clock.advance(gap - 1);
      await jobs.runDue();
      expect(calls).toBe(i + 1); // not yet
      clock.advance(1);
      await jobs.runDue();
      expect(calls).toBe(i + 2);
    }
    expect(row(id).attempts).toBe(6);
  });

  test("a job that fails 10 times is given up, keeping its last error", async () => {
    let calls = 0;
    jobs.handle("doomed", () => {
      calls++;
      throw new Error("still down");
    });
    const id = jobs.schedule("doomed", clock.now());
    for (let i = 0; i < 15; i++) {
      await jobs.runDue();
      clock.advance(2 * HOUR);
    }
    expect(calls).toBe(10);
    expect(row(id)).toMatchObject({ attempts: 10, lastError: expect.stringContaining("still down") });
    expect(row(id).doneAt).not.toBeNull();
  });

  test("a job that succeeds on retry is done", async () => {
    let calls = 0;
    jobs.handle("k", (_p, job) => {
      calls++;
      if (job.attempts < 2) throw new Error("first try fails");
    });
    const id = jobs.schedule("k", clock.now());
    await jobs.runDue();
    clock.advance(30_000);
    await jobs.runDue();
    expect(calls).toBe(2);
    expect(row(id)).toMatchObject({ attempts: 2 });
    expect(row(id).doneAt).toBe(clock.now());
  });

  test("one failing job does not stop the others in the same pass", async () => {
    const ok: string[] = [];
    jobs.handle("bad", () => {
      throw new Error("x");
    });
    jobs.handle("good", (p) => void ok.push(p.n as string));
    jobs.schedule("good", clock.now(), { n: "1" });
    jobs.schedule("bad", clock.now());
    jobs.schedule("good", clock.now(), { n: "2" });
    expect(await jobs.runDue()).toBe(3);
    expect(ok).toEqual(["1", "2"]);
  });

  test("a job locked by a running pass is not picked up twice", async () => {
    let release!: () => void;
    let calls = 0;
    jobs.handle("slow", () => {
      calls++;
      return new Promise<void>((r) => (release = r));
    });
    jobs.schedule("slow", clock.now());
    const first = jobs.runDue();
    await Promise.resolve();
    expect(await jobs.runDue()).toBe(0);
    release();
    await first;
    expect(calls).toBe(1);
  });
});

describe("cancel", () => {
  test("removes pending jobs of the kind whose payload matches every given key", async () => {
    const ran: string[] = [];
    jobs.handle("publish", (p) => void ran.push(p.post_id as string));
    jobs.handle("other", (p) => void ran.push(`other:${p.post_id}`));
    jobs.schedule("publish", clock.now() + MINUTE, { post_id: "p1", by: "u1" });
    jobs.schedule("publish", clock.now() + MINUTE, { post_id: "p2", by: "u1" });
    jobs.schedule("other", clock.now() + MINUTE, { post_id: "p1" });

    expect(jobs.cancel("publish", { post_id: "p1", by: "u2" })).toBe(0);
    expect(jobs.cancel("publish", { post_id: "p1" })).toBe(1);
    expect(jobs.cancel("publish", { post_id: "p1" })).toBe(0);

    clock.advance(MINUTE);
    await jobs.runDue();
    expect(ran.sort()).toEqual(["other:p1", "p2"]);
  });

  test("does not touch jobs that already ran", async () => {
    jobs.handle("k", () => {});
    const id = jobs.schedule("k", clock.now(), { a: 1 });
    await jobs.runDue();
    expect(jobs.cancel("k", { a: 1 })).toBe(0);
    expect(row(id).doneAt).not.toBeNull();
  });
});

describe("durability", () => {
  test("a job queued by one Jobs instance is run by a new one on the same database", async () => {
    jobs.schedule("publish", clock.now() + HOUR, { post_id: "p9" });
    // The process restarts: a fresh scheduler, the same database.
    const restarted = new Jobs(ctx.db, clock, silent);
    const ran: unknown[] = [];
    restarted.handle("publish", (p) => void ran.push(p));
    expect(await restarted.runDue()).toBe(0);
    clock.advance(HOUR);
    expect(await restarted.runDue()).toBe(1);
    expect(ran).toEqual([{ post_id: "p9" }]);
  });

  test("a job whose run died is retried once its lock expires", async () => {
    jobs.handle("k", () => new Promise<void>(() => {})); // never settles: the process "dies"
    const id = jobs.schedule("k", clock.now());
    void jobs.runDue();
    await Promise.resolve();
    expect(row(id).lockedUntil).toBe(clock.now() + 5 * MINUTE);

    const restarted = new Jobs(ctx.db, clock, silent);
    let n = 0;
    restarted.handle("k", () => void n++);
    expect(await restarted.runDue()).toBe(0);
    clock.advance(5 * MINUTE);
    expect(await restarted.runDue()).toBe(1);
    expect(n).toBe(1);
    expect(row(id)).toMatchObject({ attempts: 2 });
  });
});

describe("recurring tasks", () => {
  test("every() declares and runRecurring() runs a task on demand", async () => {
    let n = 0;
    jobs.every("sweep", "*/5 * * * *", () => void n++);
    await jobs.runRecurring("sweep");
    await jobs.runRecurring("sweep");
    expect(n).toBe(2);
  });

  test("runRecurring awaits async tasks", async () => {
    const done: string[] = [];
    jobs.every("async", "0 * * * *", async () => {
      await Promise.resolve();
      done.push("yes");
    });
    await jobs.runRecurring("async");
    expect(done).toEqual(["yes"]);
  });

  test("an unknown task name throws", async () => {
    await expect(jobs.runRecurring("nope")).rejects.toThrow("no recurring task nope");
  });

  test("a bad cron pattern fails where it is declared", () => {
    expect(() => jobs.every("typo", "61 * * * *", () => {})).toThrow();
    expect(() => jobs.every("typo", "every minute", () => {})).toThrow();
    expect(() => jobs.every("seconds", "*/10 * * * * *", () => {})).not.toThrow();
  });

  test("start() schedules the due-job runner and every recurring task; stop() clears them, twice is harmless", async () => {
    jobs.every("sweep", "0 0 1 1 *", () => {});
    expect(jobs.schedules()).toEqual([]);
    jobs.start();
    const running = jobs.schedules();
    expect(running.map((s) => s.name)).toEqual(["jobs", "sweep"]);
    // The sweep's next run is the next 1 January, 00:00 (server time).
    const next = running[1].next!;
    expect([next.getMonth(), next.getDate(), next.getHours(), next.getMinutes()]).toEqual([0, 1, 0, 0]);
    await jobs.stop();
    expect(jobs.schedules()).toEqual([]);
    await jobs.stop();
    expect(jobs.schedules()).toEqual([]);
  });

  test("stop() resolves only once a task already running has finished", async () => {
    let release = () => {};
    let started = false;
    jobs.every("slow", "* * * * * *", () => {
      started = true;
      return new Promise<void>((resolve) => (release = resolve));
    });
    jobs.start();
    while (!started) await Bun.sleep(20);
    let stopped = false;
    const stopping = jobs.stop().then(() => (stopped = true));
    await Bun.sleep(20);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
  });
});
