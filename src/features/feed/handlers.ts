// Housekeeping of the for-you feed: snapshots and served-item records past their time.
import type { Ctx } from "../../core/context";
import { purgeFeedState } from "./service";

export function register(ctx: Ctx): void {
  ctx.jobs.every("purge-feed", "23 * * * *", () => purgeFeedState(ctx));
}
