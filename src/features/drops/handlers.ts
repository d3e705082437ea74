// Dead drops' registration: the hourly sweep of expired drops, and a deleted account's drops and
// signals going with it. Drops emit no domain event (an event row would carry the author).
import type { Ctx } from "../../core/context";
import { purgeExpired, purgeUser } from "./service";

export function register(ctx: Ctx): void {
  ctx.jobs.every("purge-dead-drops", "17 * * * *", () => purgeExpired(ctx));
  ctx.events.on("account_deleted", (ev) => purgeUser(ctx, ev.payload.user_id));
}
