// Time-driven work of posts: the job that publishes a scheduled post when it is due.
import type { Ctx } from "../../core/context";
import { PUBLISH_JOB, publishScheduled } from "./service";

export function register(ctx: Ctx): void {
  ctx.jobs.handle(PUBLISH_JOB, (payload) => {
    if (typeof payload.post_id === "string") publishScheduled(ctx, payload.post_id);
  });
}
