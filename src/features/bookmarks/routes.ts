// Bookmarks (spec Part 3 §4.12): POST/DELETE /api/v1/posts/{post_id}/bookmark,
// GET /api/v1/posts/bookmarks/list and the folders under /api/v1/bookmarks/folders.
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable, Uuid } from "../../http/schemas";
import { PostIdParams, PostOut } from "../posts/schemas";
import { postsOut } from "../posts/views";
import * as bookmarks from "./service";

export const BOOKMARK_PAGING = { max: 100, default: 20 };

export const BookmarkList = t.Object({ items: t.Array(PostOut), total: Int(), has_more: t.Boolean(), next_cursor: Nullable(t.String()) });
const BookmarkedOut = t.Object({
  status: t.Literal("bookmarked"),
  bookmark_id: t.String({ format: "uuid", description: "The bookmark's id, which the folder routes take" }),
  folder_id: Nullable(t.String({ format: "uuid" }), { description: "Its folder; null while unsorted" }),
});
const FolderOut = t.Object({ id: t.String({ format: "uuid" }), name: t.String(), position: Int(), created_at: t.String({ format: "date-time" }) });
const FolderName = t.Object({ name: t.String({ maxLength: 1000, description: "Trimmed; 1-100 characters" }) });
const OkOut = t.Object({ ok: t.Literal(true) });

const folderOut = (f: bookmarks.FolderRow) => ({ id: f.id, name: f.name, position: f.position, created_at: iso(f.createdAt) });

/** What POST /api/v1/posts/{post_id}/bookmark does (its OpenAPI description, also the MCP tool's). */
export const BOOKMARK_DESCRIPTION = "Bookmark a post you can see: 201 {status: \"bookmarked\", bookmark_id, folder_id}; bookmarking it again changes nothing and answers 200 with the same bookmark. 404 POST_NOT_FOUND for a post you cannot see. Rate limited (bookmark, 120 an hour).";

export const bookmarksRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/posts", tags: ["posts"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get(
      "/bookmarks/list",
      ({ caller, query }) => {
        const page = resolvePage(query, BOOKMARK_PAGING);
        const { items, total } = bookmarks.listBookmarks(ctx, caller, page, query.folder_id);
        return { items: postsOut(ctx, items, caller.id), total, has_more: page.offset + items.length < total, next_cursor: null };
      },
      {
        auth: "required",
        query: t.Object({
          ...pagingQuery(BOOKMARK_PAGING),
          folder_id: t.Optional(t.Union([t.String({ format: "uuid" }), t.Literal(bookmarks.UNSORTED)], { description: "Only the bookmarks in this folder of yours, or `unsorted` for those in none" })),
        }),
        response: { 200: BookmarkList, 404: ErrorOut },
        detail: {
          summary: "List Bookmarks",
          description: "Your bookmarked posts, newest bookmark first; posts deleted or hidden since are left out. `folder_id` narrows the list to one of your folders (404 NOT_FOUND for a folder that is not yours) or, as `unsorted`, to the bookmarks in no folder.",
        },
      },
    )
    .post(
      "/:post_id/bookmark",
      ({ caller, params, set }) => {
        const b = bookmarks.addBookmark(ctx, caller, params.post_id);
        set.status = b.created ? 201 : 200;
        return { status: "bookmarked" as const, bookmark_id: b.id, folder_id: b.folderId };
      },
      {
        auth: "required",
        rateLimit: "bookmark",
        params: PostIdParams,
        response: { 200: BookmarkedOut, 201: BookmarkedOut, 404: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Bookmark Post",
          description: BOOKMARK_DESCRIPTION,
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

const FolderParams = t.Object({ folder_id: Uuid });
const MoveParams = t.Object({ folder_id: Uuid, bookmark_id: Uuid });
const BookmarkParams = t.Object({ bookmark_id: Uuid });
const NOT_YOURS = "404 NOT_FOUND for a folder or bookmark that is missing or not yours alike.";

/** Bookmark folders (spec Part 3 §4.12): at most 20 per user, ordered by position. */
export const bookmarkFolderRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/bookmarks/folders", tags: ["bookmarks"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("", ({ caller }) => bookmarks.listFolders(ctx, caller).map(folderOut), {
      auth: "required",
      response: t.Array(FolderOut),
      detail: { summary: "List Folders", description: "Your bookmark folders in position order, as a bare array." },
    })
    .post(
      "",
      ({ caller, body, set }) => {
        set.status = 201;
        return folderOut(bookmarks.createFolder(ctx, caller, body.name));
      },
      {
        auth: "required",
        rateLimit: "bookmark",
        body: FolderName,
        response: { 201: FolderOut, 400: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Create Folder",
          description: `A folder after your others (position = how many you had). The name is trimmed: 400 INVALID_INPUT when empty or over ${bookmarks.MAX_FOLDER_NAME} characters; 400 LIMIT_EXCEEDED when you already have ${bookmarks.MAX_FOLDERS}.`,
        },
      },
    )
    .put("/:folder_id", ({ caller, params, body }) => folderOut(bookmarks.renameFolder(ctx, caller, params.folder_id, body.name)), {
      auth: "required",
      rateLimit: "bookmark",
      params: FolderParams,
      body: FolderName,
      response: { 200: FolderOut, 400: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: { summary: "Rename Folder", description: `Rename your folder (trimmed, 1-${bookmarks.MAX_FOLDER_NAME} characters, else 400 INVALID_INPUT); position and contents unchanged. ${NOT_YOURS}` },
    })
    .delete(
      "/:folder_id",
      ({ caller, params }) => {
        bookmarks.deleteFolder(ctx, caller, params.folder_id);
        return { ok: true as const };
      },
      {
        auth: "required",
        rateLimit: "bookmark",
        params: FolderParams,
        response: { 200: OkOut, 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "Delete Folder", description: `{ok: true}. Its bookmarks become unsorted and the folders after it move up one position. ${NOT_YOURS}` },
      },
    )
    .post(
      "/:folder_id/move/:bookmark_id",
      ({ caller, params }) => {
        bookmarks.fileBookmark(ctx, caller, params.bookmark_id, params.folder_id);
        return { ok: true as const };
      },
      {
        auth: "required",
        rateLimit: "bookmark",
        params: MoveParams,
        response: { 200: OkOut, 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "Move Bookmark", description: `{ok: true}: the bookmark (its id from POST /posts/{post_id}/bookmark) is now in this folder; moving it where it already is changes nothing. ${NOT_YOURS}` },
      },
    )
    .post(
      "/unsort/:bookmark_id",
      ({ caller, params }) => {
        bookmarks.fileBookmark(ctx, caller, params.bookmark_id, null);
        return { ok: true as const };
      },
      {
        auth: "required",
        rateLimit: "bookmark",
        params: BookmarkParams,
        response: { 200: OkOut, 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "Unsort Bookmark", description: "{ok: true}: the bookmark is in no folder. 404 NOT_FOUND for a bookmark that is missing or not yours." },
      },
    );
