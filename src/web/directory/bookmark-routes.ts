// /bookmarks on the web: the signed-in person's bookmarks (GET /api/v1/posts/bookmarks/list, all,
// one folder's or those in none) and the forms of the folder routes (/api/v1/bookmarks/folders…):
// make, rename and delete a folder, move a bookmark to one, remove a bookmark. Each calls the
// bookmarks service as the API's route does, charged to the same `bookmark` limit, and answers
// 303 back to the list it came from; a refusal shows the list again with the service's reason and
// status (a folder that is not the person's is the 404 page).
import { ApiError } from "../../core/errors";
import * as bookmarks from "../../features/bookmarks/service";
import { charge, subjectOf } from "../../http/rate-limit";
import { sync } from "../layout";
import { BookmarksPage, shelfHref, type Shelf } from "../pages/bookmarks";
import { pageNumber, postRefs } from "../pages/lists";
import { refusedAction } from "../respond";
import { ById, FORM, PAGE } from "../route-options";
import { failure, field, isSignedIn, page, seeOther, toSignIn, type SignedInWeb, type Web } from "../session";
import { visitOf } from "../visit";
import { uuidOr404 } from "../part/actions";
import { firstOf } from "./query";
import type { WebArea } from "../web-app";

/** Bookmarks on a page: the API's default page. */
export const BOOKMARKS_PER_PAGE = 20;

/** The fixed texts /bookmarks shows after a form (`?notice=`), never text from the address. */
const NOTICES: Record<string, string> = {
  made: "The folder is made.",
  renamed: "The folder is renamed.",
  deleted: "The folder is deleted; its bookmarks are in no folder now.",
  moved: "The bookmark is moved.",
  removed: "The bookmark is removed.",
};

export const bookmarkRoutes: WebArea = (ctx, app) => {
  /** The shelf a `folder` value names: all (empty), unsorted, or one of the person's folders (404 otherwise). */
  function shelfOf(w: SignedInWeb, raw: string): Shelf {
    if (!raw) return { kind: "all" };
    if (raw === bookmarks.UNSORTED) return { kind: "unsorted" };
    const id = uuidOr404(raw);
    const folder = bookmarks.listFolders(ctx, w.viewer.caller).find((f) => f.id === id);
    if (!folder) throw new ApiError(404, "NOT_FOUND", "Bookmark folder not found");
    return { kind: "folder", folder: { id: folder.id, name: folder.name } };
  }

  function bookmarksPage(w: SignedInWeb, request: Request, shelf: Shelf, pageNo: number, more: { status?: number; error?: string | null; notice?: string | null; headers?: Record<string, string> } = {}): Response {
    const caller = w.viewer.caller;
    const folders = bookmarks.listFolders(ctx, caller).map((f) => ({ id: f.id, name: f.name }));
    const offset = (pageNo - 1) * BOOKMARKS_PER_PAGE;
    const filter = shelf.kind === "all" ? undefined : shelf.kind === "unsorted" ? bookmarks.UNSORTED : shelf.folder.id;
    const { items, total } = bookmarks.listBookmarks(ctx, caller, { limit: BOOKMARKS_PER_PAGE, offset }, filter);
    const html = BookmarksPage({ visit: visitOf(ctx, request), shelf, folders, posts: items, refs: postRefs(ctx, items), total, page: pageNo, hasMore: offset + items.length < total, error: more.error, notice: more.notice });
    return page(w, sync(html), more.status ?? 200, more.headers ?? {});
  }

  /**
   * A form of /bookmarks: charged to the `bookmark` limit, then `act`, answered 303 to where it
   * says. A refusal shows the list it came from (`back`) again with the service's message.
   */
  function bookmarkForm(web: Web, request: Request, act: (w: SignedInWeb) => string): Response {
    if (!isSignedIn(web)) return toSignIn(web, "/bookmarks");
    try {
      charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["bookmark"]);
      return seeOther(web, act(web));
    } catch (err) {
      const f = failure(err);
      try {
        const back = shelfOf(web, web.form.getAll("back")[0] ?? "");
        return bookmarksPage(web, request, back, 1, { status: f.status, error: f.message, headers: f.headers });
      } catch {
        return refusedAction(ctx, web, request, err);
      }
    }
  }

  /** The list the form came from, with a notice. */
  function backTo(w: SignedInWeb, notice: string): string {
    const shelf = shelfOf(w, field(w, "back", 64));
    return `${shelfHref(shelf)}${shelf.kind === "all" ? "?" : "&"}notice=${notice}`;
  }

  app
    .get(
      "/bookmarks",
      ({ web, request, query }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/bookmarks");
        try {
          const notice = firstOf(query.notice);
          return bookmarksPage(web, request, shelfOf(web, firstOf(query.folder)), pageNumber(firstOf(query.page) || undefined, BOOKMARKS_PER_PAGE), { notice: Object.hasOwn(NOTICES, notice) ? NOTICES[notice] : null });
        } catch (err) {
          return refusedAction(ctx, web, request, err);
        }
      },
      PAGE,
    )
    .post(
      "/bookmarks/folders",
      ({ web, request }) =>
        bookmarkForm(web, request, (w) => {
          const folder = bookmarks.createFolder(ctx, w.viewer.caller, field(w, "name", 1000));
          return `/bookmarks?folder=${folder.id}&notice=made`;
        }),
      FORM,
    )
    .post(
      "/bookmarks/folders/:id/rename",
      ({ web, request, params }) =>
        bookmarkForm(web, request, (w) => {
          const folder = bookmarks.renameFolder(ctx, w.viewer.caller, uuidOr404(params.id), field(w, "name", 1000));
          return `/bookmarks?folder=${folder.id}&notice=renamed`;
        }),
      { params: ById, ...FORM },
    )
    .post(
      "/bookmarks/folders/:id/delete",
      ({ web, request, params }) =>
        bookmarkForm(web, request, (w) => {
          bookmarks.deleteFolder(ctx, w.viewer.caller, uuidOr404(params.id));
          return "/bookmarks?notice=deleted";
        }),
      { params: ById, ...FORM },
    )
    .post(
      "/bookmarks/move",
      ({ web, request }) =>
        bookmarkForm(web, request, (w) => {
          const raw = field(w, "folder", 64);
          if (!raw) throw new ApiError(400, "INVALID_INPUT", "Choose a folder to move the bookmark to");
          const folderId = raw === bookmarks.UNSORTED ? null : uuidOr404(raw);
          // Bookmarking a post already bookmarked changes nothing and names the bookmark, which
          // the folder routes take (as an API client finds it).
          const postId = uuidOr404(field(w, "post_id", 64));
          if (!bookmarks.isBookmarked(ctx, w.viewer.user.id, postId)) throw new ApiError(404, "NOT_FOUND", "You have not bookmarked this post");
          const { id } = bookmarks.addBookmark(ctx, w.viewer.caller, postId);
          bookmarks.fileBookmark(ctx, w.viewer.caller, id, folderId);
          return backTo(w, "moved");
        }),
      FORM,
    )
    .post(
      "/bookmarks/remove",
      ({ web, request }) =>
        bookmarkForm(web, request, (w) => {
          try {
            bookmarks.removeBookmark(ctx, w.viewer.caller, uuidOr404(field(w, "post_id", 64)));
          } catch (err) {
            // Already gone: what the person asked for is true.
            if (!(err instanceof ApiError && err.status === 404)) throw err;
          }
          return backTo(w, "removed");
        }),
      FORM,
    );
};
