// After-commit work of webhooks: every committed event is planned into deliveries (mapping.ts),
// the delivery worker runs every second, finished deliveries are pruned, and a self-deleted
// account leaves no webhooks behind.
import type { Ctx } from "../../core/context";
import { DELIVERY_LOG_RETENTION_MS, enqueueForEvent, pruneDeliveries, purgeUserWebhooks, runDueDeliveries } from "./service";

export function register(ctx: Ctx): void {
  ctx.events.on("*", (ev) => void enqueueForEvent(ctx, ev));
  ctx.events.on("account_deleted", (ev) => purgeUserWebhooks(ctx, ev.payload.user_id));
  ctx.jobs.every("webhook-deliveries", "* * * * * *", () => runDueDeliveries(ctx));
  ctx.jobs.every("prune-webhook-deliveries", "41 3 * * *", () => pruneDeliveries(ctx, ctx.clock.now() - DELIVERY_LOG_RETENTION_MS));
}
