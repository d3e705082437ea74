// After-commit work of calendar events: a self-deleted account's events, RSVPs and feed key go.
import type { Ctx } from "../../core/context";
import { purgeUser } from "./service";

export function register(ctx: Ctx): void {
  ctx.events.on("account_deleted", (ev) => purgeUser(ctx, ev.payload.user_id));
}
