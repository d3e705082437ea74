// After-commit work of follows: a self-deleted account's follows go, and so do the follows
// between two users in both directions when one blocks the other (unblocking restores nothing).
import type { Ctx } from "../../core/context";
import { purgeUser, removeBetween } from "./service";

export function register(ctx: Ctx): void {
  ctx.events.on("account_deleted", (ev) => purgeUser(ctx, ev.payload.user_id));
  ctx.events.on("user_blocked", (ev) => removeBetween(ctx, ev.payload.blocker_id, ev.payload.blocked_id));
}
