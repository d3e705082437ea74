// Collections on the web (GET, POST, PUT and DELETE /api/v1/collections…): /collections (one's
// own, `?user=` someone's public ones, `?all=1` everyone's: anonymous readers see those), a
// collection's page with its posts, and its owner's forms (add a post by its address, or from the
// post's page; remove one; title, description and visibility; delete after a confirmation). Each
// form calls the collections service as the API's route does, charged to the same `collection`
// limit, and answers a 303; a refusal shows the page again with the service's reason and status.
import { ApiError } from "../../core/errors";
import { isUuid } from "../../core/ids";
import * as collections from "../../features/collections/service";
import type { CollectionRow } from "../../features/collections/service";
import { findManyByIds, getActiveUser } from "../../features/users/service";
import { charge, subjectOf } from "../../http/rate-limit";
import { sync } from "../layout";
import { CollectionPage, CollectionsPage, DeleteCollectionPage, type CollectionPageState, type CollectionSummary, type CollectionValues, type Whose } from "../pages/collections";
import { pageNumber } from "../pages/lists";
import { refusedAction, servePage } from "../respond";
import { ById, FORM, PAGE } from "../route-options";
import { failure, field, isSignedIn, page, seeOther, toSignIn, type SignedInWeb, type Web } from "../session";
import { visitOf, type Visit } from "../visit";
import { uuidOr404 } from "../part/actions";
import { firstOf } from "./query";
import type { WebArea } from "../web-app";
import { t } from "elysia";

/** Collections on a page of /collections: the API's default page. */
export const COLLECTIONS_PER_PAGE = 20;
const EMPTY: CollectionValues = { title: "", description: "", isPublic: true };

const NOTICES: Record<string, string> = {
  made: "The collection is made. Add posts to it here, or from a post's page.",
  added: "The post is added.",
  removed: "The post is taken out of the collection.",
  saved: "Saved.",
};

/** A post named by its page's address (…/post/<id>, with or without the site) or by its id; else a 400. */
export function postIdOf(raw: string): string {
  const m = /(?:^|\/post\/)([0-9a-fA-F-]{36})(?:[/?#].*)?$/.exec(raw.trim());
  if (!m || !isUuid(m[1])) throw new ApiError(400, "INVALID_INPUT", "Give the post's address (…/post/<id>) or its id");
  return m[1].toLowerCase();
}

/** Rows as the pages show them, their owners read in one query. */
function summaries(ctx: Parameters<WebArea>[0], rows: readonly CollectionRow[]): CollectionSummary[] {
  const owners = findManyByIds(ctx, rows.map((r) => r.userId));
  return rows.map((c) => {
    const u = owners.get(c.userId);
    return { id: c.id, title: c.title, description: c.description, isPublic: c.isPublic, postCount: c.itemCount, updatedAt: c.updatedAt, owner: u ? { username: u.username, displayName: u.displayName } : null };
  });
}

export const collectionRoutes: WebArea = (ctx, app) => {
  function listPage(visit: Visit, whose: Whose, pageNo: number, form: CollectionValues = EMPTY, error: string | null = null) {
    const offset = (pageNo - 1) * COLLECTIONS_PER_PAGE;
    const userRef = whose.kind === "mine" ? visit.caller!.id : whose.kind === "user" ? whose.username : undefined;
    const { items, total } = collections.listCollections(ctx, visit.caller, userRef, { limit: COLLECTIONS_PER_PAGE, offset });
    return sync(CollectionsPage({ visit, whose, items: summaries(ctx, items), total, page: pageNo, hasMore: offset + items.length < total, form, error }));
  }

  function collectionPage(w: Web, request: Request, id: string, state: CollectionPageState = {}, status = 200, headers: Record<string, string> = {}): Response {
    const visit = visitOf(ctx, request);
    const c = collections.getCollection(ctx, visit.caller, id);
    const items = collections.visibleItems(ctx, visit.caller, c.id).map(({ item, post }) => ({ postId: post.id, title: post.title, postType: post.postType, note: item.note, addedAt: item.addedAt }));
    const html = CollectionPage({ visit, collection: summaries(ctx, [c])[0], items, own: !!visit.caller && visit.caller.id === c.userId, state });
    return page(w, sync(html), status, headers);
  }

  /** The form's title, description and visibility. */
  const values = (w: Web): CollectionValues => ({ title: w.form.getAll("title")[0] ?? "", description: w.form.getAll("description")[0] ?? "", isPublic: w.form.getAll("public")[0] === "1" });

  /**
   * A form on a collection's page: signed in, charged to the `collection` limit, then `act`,
   * answered 303 to where it says; a refusal shows the page again with `state` and the reason.
   */
  function collectionForm(web: Web, request: Request, rawId: string, act: (w: SignedInWeb, id: string) => string, state: (w: SignedInWeb) => CollectionPageState = () => ({})): Response {
    if (!isSignedIn(web)) return toSignIn(web, `/collections/${encodeURIComponent(rawId)}`);
    let id = "";
    try {
      id = uuidOr404(rawId);
      charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["collection"]);
      return seeOther(web, act(web, id));
    } catch (err) {
      const f = failure(err);
      if (!id) return refusedAction(ctx, web, request, err);
      try {
        return collectionPage(web, request, id, { ...state(web), error: f.message }, f.status, f.headers);
      } catch (again) {
        return refusedAction(ctx, web, request, again);
      }
    }
  }

  app
    .get(
      "/collections",
      ({ request, query }) =>
        servePage(ctx, request, () => {
          const user = firstOf(query.user).trim().replace(/^@/, "").toLowerCase();
          const all = firstOf(query.all) === "1";
          const pageNo = pageNumber(firstOf(query.page) || undefined, COLLECTIONS_PER_PAGE);
          return {
            key: `collections|${user}|${pageNo}`,
            render: (visit) => {
              if (user) getActiveUser(ctx, user);
              const whose: Whose = user ? { kind: "user", username: user } : visit.caller && !all ? { kind: "mine" } : { kind: "all" };
              return listPage(visit, whose, pageNo);
            },
          };
        }),
      PAGE,
    )
    .post(
      "/collections",
      ({ web, request }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/collections");
        const typed = values(web);
        try {
          const input = { title: field(web, "title", collections.MAX_TITLE), description: field(web, "description", collections.MAX_DESCRIPTION) || null, is_public: typed.isPublic };
          charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["collection"]);
          const c = collections.createCollection(ctx, web.viewer.caller, input);
          return seeOther(web, `/collections/${c.id}?notice=made`);
        } catch (err) {
          const f = failure(err);
          return page(web, listPage(visitOf(ctx, request), { kind: "mine" }, 1, typed, f.message), f.status, f.headers);
        }
      },
      FORM,
    )
    .post(
      "/collections/add",
      ({ web, request }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/collections");
        try {
          const id = uuidOr404(field(web, "collection_id", 64));
          return collectionForm(web, request, id, (w) => {
            collections.addItem(ctx, w.viewer.caller, id, uuidOr404(field(w, "post_id", 64)), null);
            return `/collections/${id}?notice=added`;
          });
        } catch (err) {
          return refusedAction(ctx, web, request, err);
        }
      },
      FORM,
    )
    .get(
      "/collections/:id",
      ({ web, request, params, query }) => {
        try {
          const notice = firstOf(query.notice);
          return collectionPage(web, request, uuidOr404(params.id), { notice: Object.hasOwn(NOTICES, notice) ? NOTICES[notice] : null });
        } catch (err) {
          return refusedAction(ctx, web, request, err);
        }
      },
      { params: ById, ...PAGE },
    )
    .post(
      "/collections/:id/items",
      ({ web, request, params }) =>
        collectionForm(
          web,
          request,
          params.id,
          (w, id) => {
            const postId = postIdOf(field(w, "post", 300));
            collections.addItem(ctx, w.viewer.caller, id, postId, field(w, "note", collections.MAX_NOTE) || null);
            return `/collections/${id}?notice=added`;
          },
          (w) => ({ add: { post: w.form.getAll("post")[0] ?? "", note: w.form.getAll("note")[0] ?? "" } }),
        ),
      { params: ById, ...FORM },
    )
    .post(
      "/collections/:id/items/:post/remove",
      ({ web, request, params }) =>
        collectionForm(web, request, params.id, (w, id) => {
          collections.removeItem(ctx, w.viewer.caller, id, uuidOr404(params.post));
          return `/collections/${id}?notice=removed`;
        }),
      { params: t.Object({ id: t.String(), post: t.String() }), ...FORM },
    )
    .post(
      "/collections/:id/edit",
      ({ web, request, params }) =>
        collectionForm(
          web,
          request,
          params.id,
          (w, id) => {
            const v = values(w);
            collections.updateCollection(ctx, w.viewer.caller, id, { title: field(w, "title", collections.MAX_TITLE), description: field(w, "description", collections.MAX_DESCRIPTION) || null, is_public: v.isPublic });
            return `/collections/${id}?notice=saved`;
          },
          (w) => ({ settings: values(w) }),
        ),
      { params: ById, ...FORM },
    )
    .get(
      "/collections/:id/delete",
      ({ web, request, params }) => {
        if (!isSignedIn(web)) return toSignIn(web, `/collections/${encodeURIComponent(params.id)}/delete`);
        try {
          const c = collections.getCollection(ctx, web.viewer.caller, uuidOr404(params.id));
          if (c.userId !== web.viewer.user.id) throw new ApiError(403, "FORBIDDEN", "Only the collection's owner may change it");
          return page(web, sync(DeleteCollectionPage({ visit: visitOf(ctx, request), collection: summaries(ctx, [c])[0] })));
        } catch (err) {
          return refusedAction(ctx, web, request, err);
        }
      },
      { params: ById, ...PAGE },
    )
    .post(
      "/collections/:id/delete",
      ({ web, request, params }) =>
        collectionForm(web, request, params.id, (w, id) => {
          collections.deleteCollection(ctx, w.viewer.caller, id);
          return "/collections";
        }),
      { params: ById, ...FORM },
    );
};
