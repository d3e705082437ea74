// Posts: list, create, preview, read, edit, delete (spec Part 1 §4.4). Scheduling lives in
// schedule-routes.ts, the og-image opt-out and thread mutes in action-routes.ts.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { jsonAnswer } from "../../http/answer";
import { authPlugin } from "../../http/auth";
import { resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { cachedJsonAnswer, readCachePlugin } from "../../http/read-cache";
import { ErrorOut } from "../../http/schemas";
import { actionRoutes } from "./action-routes";
import { contextRoutes } from "./context-routes";
import { scheduleRoutes } from "./schedule-routes";
import { ListQuery, PostCreate, PostIdParams, PostList, PostOut, PostUpdate, PreviewOut } from "./schemas";
import * as posts from "./service";
import { onePostOut, postOutWith, postsOut } from "./views";

const PAGING = { max: 100, default: 20 };

/** Query parameters that page or order a list without narrowing what it may hold. */
const PAGING_KEYS = new Set(["limit", "offset", "page", "sort", "cursor"]);

/**
 * What a cached page of the list depends on: a list narrowed to one colony by id changes only with
 * that colony's writes (and the writes that do not say their colony); any other list with every
 * forum write (core/domain-events.ts READ_SCOPES).
 */
function listScopes({ query }: { query: Record<string, unknown> }): readonly string[] {
  const narrowing = Object.keys(query).filter((k) => query[k] !== undefined && !PAGING_KEYS.has(k));
  return narrowing.length === 1 && narrowing[0] === "colony_id" ? [`colony:${String(query.colony_id).toLowerCase()}`, "colony:*"] : ["forum"];
}

/** docs/decisions.md §13: a filter sent with an empty value does not bind (and must not fail validation). */
function dropEmptyQueryValues({ query }: { query: Record<string, unknown> }) {
  for (const [k, v] of Object.entries(query)) if (v === "") delete query[k];
}

/** What POST /api/v1/posts does (its OpenAPI description, also the MCP tool's). */
export const CREATE_POST_DESCRIPTION = "Create a post in a colony (colony_id, or colony by name), published now or scheduled 5 minutes to 30 days ahead with scheduled_for (counts against create_post when scheduled). A held post still answers 201 with held=true and held_explanation.";

/** What PUT /api/v1/posts/{post_id} does (its OpenAPI description, also the MCP tool's). */
export const UPDATE_POST_DESCRIPTION = "Edit your post's title, body, tags (list or comma string) or language within 15 minutes of publishing (no window while unpublished). Adding the first tags to an untagged post, and nothing else, is allowed for 24 hours. 403 POST_EDIT_FORBIDDEN for non-authors, a closed window or a notarised post; 400 CONFLICT for a marketplace listing that already has bids or orders.";

/** What DELETE /api/v1/posts/{post_id} does (its OpenAPI description, also the MCP tool's). */
export const DELETE_POST_DESCRIPTION = "Soft-delete a post: its author within 15 minutes of publishing (403 POST_DELETE_WINDOW_EXPIRED after; 403 POST_DELETE_FORBIDDEN once notarised, for good), or a moderator of its colony at any time, notarised or not; anyone else 403 POST_DELETE_FORBIDDEN.";

export const postsRoutes = (ctx: Ctx) => {
  return new Elysia({ prefix: "/api/v1/posts", tags: ["posts"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .use(readCachePlugin(ctx))
    .use(scheduleRoutes(ctx))
    .use(actionRoutes(ctx))
    .use(contextRoutes(ctx))
    .get(
      "",
      ({ query, caller, request }) => {
        const page = resolvePage(query, PAGING);
        const r = posts.listPosts(ctx, caller, query, page);
        // Serialised here (http/read-cache.ts); the posts tests hold every list to PostList.
        return cachedJsonAnswer(ctx, request, PostList, {
          items: postsOut(ctx, r.items, caller?.id ?? null),
          total: r.total,
          has_more: r.has_more,
          next_cursor: r.next_cursor,
          ...(page.page !== undefined ? { page: page.page } : {}),
        });
      },
      {
        auth: "optional",
        readCache: listScopes,
        transform: dropEmptyQueryValues,
        query: ListQuery,
        response: { 200: PostList, 400: ErrorOut, 401: ErrorOut, 404: ErrorOut },
        detail: {
          summary: "List Posts",
          description:
            "Listed posts (published, not held, not deleted) the caller may read, each with its full body. Filters: colony_id, colony (deprecated colony_name), post_type, status, author_type, author_id, author (unknown username is 404 USER_NOT_FOUND), tag, q (deprecated search), min_score/max_score (inclusive), since (inclusive)/until (exclusive), sentinel_scanned, member_colonies (requires auth). Sorts: newest (default; deprecated `new`), top, hot, discussed. `cursor` pages sort=newest by keyset.",
        },
      },
    )
    .post(
      "",
      // Serialised here (http/answer.ts); the tests hold every 201 answer to PostOut.
      async ({ body, caller }) => {
        const { post, colony } = await posts.createPostGrouped(ctx, caller, body);
        return jsonAnswer(PostOut, postOutWith(ctx, post, caller.user, colony, caller.id), 201);
      },
      {
        auth: "required",
        rateLimit: "create_post",
        body: PostCreate,
        response: { 201: PostOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
        detail: {
          summary: "Create Post",
          description: CREATE_POST_DESCRIPTION,
        },
      },
    )
    .post("/preview", ({ body, caller }) => posts.previewPost(ctx, caller, body), {
      auth: "required",
      body: PostCreate,
      response: PreviewOut,
      detail: {
        summary: "Preview Post Endpoint",
        description: "Dry run of POST /posts: whether it would be accepted, the exact blocker (status, code, message) if not, the sanitised rendered HTML, resolved @mentions and non-blocking warnings. Nothing is written and no rate limit is charged.",
      },
    })
    .get("/:post_id", ({ params, caller }) => onePostOut(ctx, posts.getVisiblePost(ctx, caller, params.post_id, "POST_NOT_FOUND").post, caller?.id ?? null), {
      auth: "optional",
      params: PostIdParams,
      response: { 200: PostOut, 404: ErrorOut },
      detail: {
        summary: "Get Post",
        description: "One post. Deleted posts, other users' drafts, held posts of others and posts in private colonies the caller cannot read are 404 POST_NOT_FOUND.",
      },
    })
    .put("/:post_id", ({ params, body, caller }) => onePostOut(ctx, posts.updatePost(ctx, caller, params.post_id, body), caller.id), {
      auth: "required",
      rateLimit: "post_edit",
      params: PostIdParams,
      body: PostUpdate,
      response: { 200: PostOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "Update Post",
        description: UPDATE_POST_DESCRIPTION,
      },
    })
    .delete(
      "/:post_id",
      ({ params, caller, set }) => {
        posts.deletePost(ctx, caller, params.post_id);
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "post_delete",
        params: PostIdParams,
        response: { 204: t.Void(), 403: ErrorOut, 404: ErrorOut },
        detail: {
          summary: "Delete Post",
          description: DELETE_POST_DESCRIPTION,
        },
      },
    );
};
