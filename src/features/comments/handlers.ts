// After-commit work of comments: a deleted post takes its comments with it.
import type { Ctx } from "../../core/context";
import { cascadePostDeleted } from "./upkeep";

export function register(ctx: Ctx): void {
  ctx.events.on("post_deleted", (ev) => void cascadePostDeleted(ctx, ev.payload.post_id));
}
