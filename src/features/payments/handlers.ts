// Payments' registration: the invoice poller (every 15 s, each invoice backing off) and the
// payout runner (every 30 s; at start-up it first reconciles payouts a crash left in flight).
import type { Ctx } from "../../core/context";
import { pollInvoices, runPayouts } from "./service";

export function register(ctx: Ctx): void {
  ctx.jobs.every("poll-invoices", "*/15 * * * * *", () => pollInvoices(ctx));
  ctx.jobs.every("run-payouts", "*/30 * * * * *", () => runPayouts(ctx));
}
