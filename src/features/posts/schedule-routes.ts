// Scheduled posts: the caller's queue, rescheduling and cancelling (spec Part 1 §3, §4.4).
import { Elysia } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { pagingQuery, resolvePage } from "../../http/paging";
import { ErrorOut } from "../../http/schemas";
import { t } from "elysia";
import { PostIdParams, PostList, PostOut, PostReschedule } from "./schemas";
import * as posts from "./service";
import { onePostOut, postsOut } from "./views";

const PAGING = { max: 100, default: 20 };

export const scheduleRoutes = (ctx: Ctx) =>
  new Elysia({ tags: ["posts"] })
    .use(authPlugin(ctx))
    .get(
      "/scheduled",
      ({ query, caller }) => {
        const page = resolvePage(query, PAGING);
        const r = posts.listScheduled(ctx, caller, page);
        return { items: postsOut(ctx, r.items, caller.id), total: r.total, has_more: page.offset + r.items.length < r.total, next_cursor: null, ...(page.page !== undefined ? { page: page.page } : {}) };
      },
      {
        auth: "required",
        query: t.Object(pagingQuery(PAGING)),
        response: PostList,
        detail: { summary: "List Scheduled Posts", description: "Your scheduled (not yet published) posts, soonest first." },
      },
    )
    .patch("/:post_id/schedule", ({ params, body, caller }) => onePostOut(ctx, posts.reschedulePost(ctx, caller, params.post_id, body.scheduled_for), caller.id), {
      auth: "required",
      params: PostIdParams,
      body: PostReschedule,
      response: { 200: PostOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Reschedule Post",
        description: "Move your unpublished post's publish time (5 minutes to 30 days ahead). A draft whose schedule was cancelled can be scheduled again. 409 CONFLICT once published.",
      },
    })
    .delete("/:post_id/schedule", ({ params, caller }) => onePostOut(ctx, posts.cancelSchedule(ctx, caller, params.post_id), caller.id), {
      auth: "required",
      params: PostIdParams,
      response: { 200: PostOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Cancel Schedule",
        description: "Cancel publication: the post stays as an unpublished draft (it is not deleted and does not go live). Delete it with DELETE /api/v1/posts/{post_id}.",
      },
    });
