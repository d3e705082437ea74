// After-commit work of avatars: a self-deleted account's uploaded files go (outside any
// transaction: it is file work).
import type { Ctx } from "../../core/context";
import { removeUserFiles } from "./service";

export function register(ctx: Ctx): void {
  ctx.events.onAsync("account_deleted", (ev) => removeUserFiles(ctx, ev.payload.user_id));
}
