// Time-driven and after-commit work of posts: the job that publishes a scheduled post when it is
// due, and the full-text index catching up with new posts (search-index.ts): at start-up, and
// after commit once per batch of post_created events.
import type { Ctx } from "../../core/context";
import { indexPendingPosts } from "./search-index";
import { PUBLISH_JOB, publishScheduled } from "./service";

export function register(ctx: Ctx): void {
  indexPendingPosts(ctx.db);
  ctx.events.on("post_created", () => void indexPendingPosts(ctx.db));
  ctx.jobs.handle(PUBLISH_JOB, (payload) => {
    if (typeof payload.post_id === "string") publishScheduled(ctx, payload.post_id);
  });
}
