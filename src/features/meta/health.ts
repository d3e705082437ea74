// What GET /health reports beyond "the database answers": whether the instance keeps up with its
// background work. A degraded instance still answers 200 (see routes.ts).
//
// Polled every few seconds by platforms and monitors, so every check is cheap: two lookups on
// events_pending_idx (the count stops at OUTBOX_PENDING_MAX + 1 rows) and the job outcomes the
// scheduler keeps in memory, and one read of payouts_due_idx (payouts needing an operator).
import type { Ctx } from "../../core/context";
import { stuckPayouts } from "../payments/service";

/** More events than this waiting for delivery is a backlog. */
export const OUTBOX_PENDING_MAX = 1000;
/** An event waiting longer than this means delivery is stuck or far behind. */
export const OUTBOX_OLDEST_MAX_MS = 60_000;
/** A task or job kind whose last runs all failed, this many in a row, is failing. */
export const JOB_FAILURES_MAX = 3;

type HealthReason = "outbox_backlog" | "outbox_stale" | "jobs_failing" | "payouts_stuck";

export interface Health {
  status: "ok" | "degraded";
  reasons: HealthReason[];
  /** The figures behind the reasons (shown to operators only). */
  checks: {
    /** `pending` is counted up to OUTBOX_PENDING_MAX + 1; /metrics has the exact figure. */
    outbox: { pending: number; oldest_pending_age_s: number };
    jobs: { failing: { job: string; consecutive_failures: number }[] };
    /** Payouts in flight for over an hour, and failed ones tried PAYOUT_FAILING_ATTEMPTS times or more. */
    payouts: { in_flight_over_1h: number; failing: number };
  };
}

export function checkHealth(ctx: Ctx): Health {
  const pending = ctx.events.pendingCount(OUTBOX_PENDING_MAX + 1);
  const oldestAt = pending ? ctx.events.oldestPendingAt() : null;
  const oldestAgeMs = oldestAt === null ? 0 : Math.max(0, ctx.clock.now() - oldestAt);
  // A worker runs no jobs: its supervisor's, as it last reported them.
  const failing = ctx.role === "worker" ? (ctx.cluster?.failingJobs ?? []) : failingJobs(ctx);
  const reasons: HealthReason[] = [];
  if (pending > OUTBOX_PENDING_MAX) reasons.push("outbox_backlog");
  if (oldestAgeMs > OUTBOX_OLDEST_MAX_MS) reasons.push("outbox_stale");
  if (failing.length) reasons.push("jobs_failing");
  const stuck = stuckPayouts(ctx);
  if (stuck.inFlight || stuck.failing) reasons.push("payouts_stuck");
  return {
    status: reasons.length ? "degraded" : "ok",
    reasons,
    checks: { outbox: { pending, oldest_pending_age_s: oldestAgeMs / 1000 }, jobs: { failing }, payouts: { in_flight_over_1h: stuck.inFlight, failing: stuck.failing } },
  };
}

/** The scheduled tasks and job kinds of this process that failed JOB_FAILURES_MAX runs or more in a row. */
export function failingJobs(ctx: Ctx): { job: string; consecutive_failures: number }[] {
  return [...ctx.jobs.stats()].filter(([, s]) => s.consecutiveFailures >= JOB_FAILURES_MAX).map(([job, s]) => ({ job, consecutive_failures: s.consecutiveFailures }));
}
