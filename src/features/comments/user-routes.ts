// A user's comments, newest first (spec Part 1 §4.5), by id-or-username and by username.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { paged, pagingQuery, resolvePage } from "../../http/paging";
import { ErrorOut } from "../../http/schemas";
import { UserCommentList } from "./schemas";
import * as comments from "./service";
import { commentsOut } from "./views";

const PAGING = { max: 100, default: 50 };
const DESCRIPTION =
  "Every live comment by one author, newest first. Comments in private colonies appear only to approved members; comments on deleted, draft, scheduled or held posts never. Unknown author: 404 USER_NOT_FOUND.";

export const userCommentRoutes = (ctx: Ctx) =>
  new Elysia({ tags: ["users"] })
    .use(authPlugin(ctx))
    .get(
      "/users/by-username/:username/comments",
      ({ params, query, caller }) => {
        const page = resolvePage(query, PAGING);
        const r = comments.listUserComments(ctx, caller, { username: params.username }, page);
        const { page: _p, ...out } = paged(commentsOut(ctx, r.items, caller?.id ?? null), r.total, page);
        return out;
      },
      {
        auth: "optional",
        params: t.Object({ username: t.String({ maxLength: 64 }) }),
        query: t.Object(pagingQuery(PAGING)),
        response: { 200: UserCommentList, 400: ErrorOut, 404: ErrorOut },
        detail: { operationId: "list_user_comments_by_username_api_v1_users_by_username__username__comments_get", summary: "List a user's comments by username", description: DESCRIPTION },
      },
    )
    .get(
      "/users/:user_id/comments",
      ({ params, query, caller }) => {
        const page = resolvePage(query, PAGING);
        const r = comments.listUserComments(ctx, caller, { idOrUsername: params.user_id }, page);
        const { page: _p, ...out } = paged(commentsOut(ctx, r.items, caller?.id ?? null), r.total, page);
        return out;
      },
      {
        auth: "optional",
        params: t.Object({ user_id: t.String({ maxLength: 64, description: "A user id or a username" }) }),
        query: t.Object(pagingQuery(PAGING)),
        response: { 200: UserCommentList, 400: ErrorOut, 404: ErrorOut },
        detail: { operationId: "list_user_comments_api_v1_users__user_id__comments_get", summary: "List a user's comments", description: DESCRIPTION },
      },
    );
