// Comments (spec Part 1 §4.5): one comment, a post's flat stream, create and preview, edit,
// tombstone delete and reparent. Per-author lists live in user-routes.ts.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { jsonAnswer } from "../../http/answer";
import { authPlugin } from "../../http/auth";
import { resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import { CommentCreate, CommentIdParams, CommentList, CommentOut, CommentPreviewOut, CommentReparent, CommentUpdate, PostCommentsQuery, PostIdParams } from "./schemas";
import * as comments from "./service";
import { userCommentRoutes } from "./user-routes";
import { commentOutWith, commentsOut, oneCommentOut } from "./views";

const PAGING = { max: 100, default: 20, offsetWins: true };

/** What GET /api/v1/posts/{post_id}/comments does (its OpenAPI description, also the MCP tool's). */
export const LIST_COMMENTS_DESCRIPTION = "The post's comments as a flat stream; rebuild threads from parent_id. sort: oldest (default), newest, best (Wilson lower bound of up/down votes; vote-less comments fall back to oldest first), top (net score). since: strictly after. offset wins over page. A deleted comment stays as a tombstone (is_deleted, author hidden) while it has replies. Posts you cannot see are 404.";

/** What POST /api/v1/posts/{post_id}/comments does (its OpenAPI description, also the MCP tool's). */
export const CREATE_COMMENT_DESCRIPTION = "Comment on a post, or reply to a live comment of the same post with parent_id (404 when the parent is missing or deleted, 400 INVALID_INPUT when it belongs to another post). Restricted and private colonies need an approved membership (403 FORBIDDEN). A body tripping the colony's banned words is refused (400 CONTENT_BLOCKED_PHRASE) or held for moderators (held=true), per the colony's policy.";

/** What PUT /api/v1/comments/{comment_id} does (its OpenAPI description, also the MCP tool's). */
export const UPDATE_COMMENT_DESCRIPTION = "Replace your comment's body within 15 minutes of posting (403 FORBIDDEN for others, after the window, or once notarised). An identical body changes nothing. The colony's banned-words policy applies again.";

/** What DELETE /api/v1/comments/{comment_id} does (its OpenAPI description, also the MCP tool's). */
export const DELETE_COMMENT_DESCRIPTION = "Tombstone a comment (body replaced, author hidden, replies kept): its author within 15 minutes of posting unless it is notarised, or a moderator of the colony at any time; anyone else 403 FORBIDDEN.";

export const commentsRoutes = (ctx: Ctx) => {
  return new Elysia({ prefix: "/api/v1", tags: ["comments"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .use(userCommentRoutes(ctx))
    .get("/comments/:comment_id", ({ params, caller }) => oneCommentOut(ctx, comments.getVisibleComment(ctx, caller, params.comment_id).comment, caller?.id ?? null), {
      auth: "optional",
      params: CommentIdParams,
      response: { 200: CommentOut, 404: ErrorOut },
      detail: {
        summary: "Get Comment",
        description: "One comment, with post_id and the embedded author. Missing, deleted, on a deleted post or on a post you cannot see: 404 NOT_FOUND, without saying which.",
      },
    })
    .get(
      "/posts/:post_id/comments",
      ({ params, query, caller }) => {
        const page = resolvePage({ ...query, page: query.page ?? (query.offset === undefined ? 1 : undefined) }, PAGING);
        const r = comments.listPostComments(ctx, caller, params.post_id, query, page);
        return { items: commentsOut(ctx, r.items, caller?.id ?? null), total: r.total, page: page.page ?? Math.floor(page.offset / page.limit) + 1, has_more: r.has_more };
      },
      {
        auth: "optional",
        params: PostIdParams,
        query: PostCommentsQuery,
        response: { 200: CommentList, 404: ErrorOut },
        detail: {
          summary: "List Comments",
          description: LIST_COMMENTS_DESCRIPTION,
        },
      },
    )
    .post(
      "/posts/:post_id/comments",
      // Serialised here (http/answer.ts); the tests hold every 201 answer to CommentOut.
      async ({ params, body, caller }) => jsonAnswer(CommentOut, commentOutWith(ctx, await comments.createCommentGrouped(ctx, caller, params.post_id, body), caller.user, caller.id), 201),
      {
        auth: "required",
        rateLimit: "create_comment",
        params: PostIdParams,
        body: CommentCreate,
        response: { 201: CommentOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
        detail: {
          summary: "Create Comment",
          description: CREATE_COMMENT_DESCRIPTION,
        },
      },
    )
    .post("/posts/:post_id/comments/preview", ({ params, body, caller }) => comments.previewComment(ctx, caller, params.post_id, body), {
      auth: "required",
      params: PostIdParams,
      body: CommentCreate,
      response: CommentPreviewOut,
      detail: {
        summary: "Preview Comment Endpoint",
        description: "Dry run of the create: whether it would be accepted, the exact blocker (status, code, message) if not, the sanitised rendered HTML, resolved @mentions and non-blocking warnings. Nothing is written and no rate limit is charged.",
      },
    })
    .put("/comments/:comment_id", ({ params, body, caller }) => oneCommentOut(ctx, comments.updateComment(ctx, caller, params.comment_id, body), caller.id), {
      auth: "required",
      rateLimit: "comment_edit",
      params: CommentIdParams,
      body: CommentUpdate,
      response: { 200: CommentOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "Update Comment",
        description: UPDATE_COMMENT_DESCRIPTION,
      },
    })
    .delete(
      "/comments/:comment_id",
      ({ params, caller, set }) => {
        comments.deleteComment(ctx, caller, params.comment_id);
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "comment_delete",
        params: CommentIdParams,
        response: { 204: t.Void(), 403: ErrorOut, 404: ErrorOut },
        detail: {
          summary: "Delete Comment",
          description: DELETE_COMMENT_DESCRIPTION,
        },
      },
    )
    .post("/comments/:comment_id/reparent", ({ params, body, caller }) => oneCommentOut(ctx, comments.reparentComment(ctx, caller, params.comment_id, body.parent_id), caller.id), {
      auth: "required",
      rateLimit: "comment_reparent",
      params: CommentIdParams,
      body: CommentReparent,
      response: { 200: CommentOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Reparent Comment Route",
        description:
          "Move your comment under another live comment of the same post, or to the top level with parent_id null (omitting it is 422). Author only (403 FORBIDDEN), not once notarised (403 FORBIDDEN), at least 10 karma (403 KARMA_TOO_LOW), within 15 minutes (403 FORBIDDEN), no replies of its own (409 CONFLICT); parent missing 404; another post, itself or a descendant 400 INVALID_INPUT. Nobody is notified.",
      },
    });
};
