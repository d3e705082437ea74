// GET /health: ok, or degraded (still 200) when the outbox falls behind or a job keeps failing.
import { beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { JOB_FAILURES_MAX, OUTBOX_OLDEST_MAX_MS, OUTBOX_PENDING_MAX } from "./health";

const h = setup();
const emit = (n = 1) =>
  h.ctx.db.transaction((tx) => {
    for (let i = 0; i < n; i++) h.ctx.events.emit(tx, { type: "email_verified", actorId: null });
  });
const health = () => h.req("GET", "/health");
/** Requests seen as from the loopback address (operators get the figures). */
const asOperator = async <T,>(fn: () => Promise<T>) => {
  h.ctx.server = { requestIP: () => ({ address: "127.0.0.1", family: "IPv4", port: 40000 }) };
  try {
    return await fn();
  } finally {
    h.ctx.server = null;
  }
};

beforeEach(async () => {
  await h.ctx.events.drain();
});

describe("GET /health", () => {
  test("ok on a quiet instance, not cached by anyone", async () => {
    const r = await health();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "ok", reasons: [] });
    expect(r.body.checks).toBeUndefined();
    expect(r.headers.get("cache-control")).toBe("no-store");
  });

  test("degraded, still 200, once the oldest undelivered event is older than the limit; ok again after delivery", async () => {
    emit();
    h.clock.advance(OUTBOX_OLDEST_MAX_MS);
    expect((await health()).body.status).toBe("ok");
    h.clock.advance(1);
    const r = await health();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "degraded", reasons: ["outbox_stale"] });
    await h.ctx.events.drain();
    expect((await health()).body).toMatchObject({ status: "ok", reasons: [] });
  });

  test("degraded while more events wait than the limit", async () => {
    emit(OUTBOX_PENDING_MAX);
    expect((await health()).body.status).toBe("ok");
    emit();
    expect((await health()).body).toMatchObject({ status: "degraded", reasons: ["outbox_backlog"] });
    await h.ctx.events.drain();
    expect((await health()).body.status).toBe("ok");
  });

  test("degraded while a task's last runs all failed; ok after it succeeds once", async () => {
    let fail = true;
    h.ctx.jobs.every("health-flaky", "0 0 * * *", () => {
      if (fail) throw new Error("boom");
    });
    const run = () => h.ctx.jobs.runRecurring("health-flaky").catch(() => {});
    for (let i = 1; i < JOB_FAILURES_MAX; i++) await run();
    expect((await health()).body.status).toBe("ok");
    await run();
    expect((await health()).body).toMatchObject({ status: "degraded", reasons: ["jobs_failing"] });
    fail = false;
    await run();
    expect((await health()).body.status).toBe("ok");
  });

  test("operators (loopback) get the figures behind the status; others only the reasons", async () => {
    emit(2);
    h.clock.advance(90_000);
    const local = await asOperator(health);
    expect(local.body).toMatchObject({
      status: "degraded",
      reasons: ["outbox_stale"],
      checks: { outbox: { pending: 2, oldest_pending_age_s: 90 }, jobs: { failing: [] }, payouts: { in_flight_over_1h: 0, failing: 0 } },
    });
    const remote = await health();
    expect(remote.body.reasons).toEqual(["outbox_stale"]);
    expect(remote.body.checks).toBeUndefined();
  });

  test("payouts_stuck: a payout in flight for over an hour, or failed five times, until it moves on", async () => {
    const q = h.ctx.db.$client;
    const now = h.clock.now();
    const insert = (id: string, status: string, attempts: number, updatedAt: number) =>
      q.query("insert into payouts (id, purpose, subject_id, recipient_id, gross_sats, fee_sats, amount_sats, status, attempts, next_attempt_at, created_at, updated_at) values (?, 'health', ?, 'nobody', 100, 5, 95, ?, ?, ?, ?, ?)").run(id, id, status, attempts, now + 86_400_000, updatedAt, updatedAt);
    insert("p-flying", "in_flight", 1, now - 30 * 60_000);
    insert("p-failed", "failed", 4, now);
    expect((await asOperator(health)).body.reasons).not.toContain("payouts_stuck");
    h.clock.advance(31 * 60_000);
    const flying = await asOperator(health);
    expect(flying.body.reasons).toContain("payouts_stuck");
    expect(flying.body.checks.payouts).toEqual({ in_flight_over_1h: 1, failing: 0 });
    q.query("update payouts set status = 'completed' where id = 'p-flying'").run();
    q.query("update payouts set attempts = 5 where id = 'p-failed'").run();
    expect((await asOperator(health)).body.checks.payouts).toEqual({ in_flight_over_1h: 0, failing: 1 });
    q.query("delete from payouts where purpose = 'health'").run();
    expect((await health()).body.reasons).not.toContain("payouts_stuck");
  });
});

describe("a worker of several processes", () => {
  test("reports the jobs its supervisor runs, as the supervisor last told it", async () => {
    const role = h.ctx.role;
    try {
      (h.ctx as { role: string }).role = "worker";
      h.ctx.cluster = { workers: 2, restarts: 0, failingJobs: [], writer: null };
      expect((await health()).body).toMatchObject({ status: "ok", workers: 2 });
      h.ctx.cluster = { workers: 2, restarts: 1, failingJobs: [{ job: "webhooks-retry", consecutive_failures: JOB_FAILURES_MAX }], writer: null };
      const r = await asOperator(health);
      expect(r.body).toMatchObject({ status: "degraded", reasons: ["jobs_failing"], worker_restarts: 1 });
      expect(r.body.checks.jobs.failing).toEqual([{ job: "webhooks-retry", consecutive_failures: JOB_FAILURES_MAX }]);
    } finally {
      (h.ctx as { role: string }).role = role;
      h.ctx.cluster = null;
    }
  });
});
