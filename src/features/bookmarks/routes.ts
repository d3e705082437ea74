// Bookmarks (spec Part 3 §4.12): POST/DELETE /api/v1/posts/{post_id}/bookmark and
// GET /api/v1/posts/bookmarks/list.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable } from "../../http/schemas";
import { PostIdParams, PostOut, StatusOut } from "../posts/schemas";
import { postsOut } from "../posts/views";
import * as bookmarks from "./service";

export const BOOKMARK_PAGING = { max: 100, default: 20 };

export const BookmarkList = t.Object({ items: t.Array(PostOut), total: Int(), has_more: t.Boolean(), next_cursor: Nullable(t.String()) });

export const bookmarksRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/posts", tags: ["posts"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get(
      "/bookmarks/list",
      ({ caller, query }) => {
        const page = resolvePage(query, BOOKMARK_PAGING);
        const { items, total } = bookmarks.listBookmarks(ctx, caller, page);
        return { items: postsOut(ctx, items, caller.id), total, has_more: page.offset + items.length < total, next_cursor: null };
      },
      {
        auth: "required",
        query: t.Object(pagingQuery(BOOKMARK_PAGING)),
        response: BookmarkList,
        detail: { summary: "List Bookmarks", description: "Your bookmarked posts, newest bookmark first; posts deleted or hidden since are left out." },
      },
    )
    .post(
      "/:post_id/bookmark",
      ({ caller, params, set }) => {
        set.status = bookmarks.addBookmark(ctx, caller, params.post_id).created ? 201 : 200;
        return { status: "bookmarked" };
      },
      {
        auth: "required",
        rateLimit: "bookmark",
        params: PostIdParams,
        response: { 200: StatusOut, 201: StatusOut, 404: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Bookmark Post",
          description: "Bookmark a post you can see: 201 {status: \"bookmarked\"}; bookmarking it again changes nothing and answers 200 with the same body. 404 POST_NOT_FOUND for a post you cannot see. Rate limited (bookmark, 120 an hour).",
        },
      },
    )
    .delete(
      "/:post_id/bookmark",
      ({ caller, params, set }) => {
        bookmarks.removeBookmark(ctx, caller, params.post_id);
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "bookmark",
        params: PostIdParams,
        response: { 204: t.Void(), 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "Unbookmark Post", description: "Remove your bookmark: 204; 404 NOT_FOUND when there is none (treat it as already removed)." },
      },
    );
