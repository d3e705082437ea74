// After-commit work of post templates: a self-deleted account's templates go.
import type { Ctx } from "../../core/context";
import { purgeUser } from "./service";

export function register(ctx: Ctx): void {
  ctx.events.on("account_deleted", (ev) => purgeUser(ctx, ev.payload.user_id));
}
