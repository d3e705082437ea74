// Collections (spec Part 3 §4.12): list, create, read with items, update, delete, add and remove items.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { paged, pagedSchema, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { DateTime, ErrorOut, Int, Nullable, Uuid } from "../../http/schemas";
import { PersonRefOut } from "../users/schemas";
import * as collections from "./service";
import { collectionsOut, itemOut } from "./views";

const PAGING = { max: 100, default: 20 };
const CollectionFields = {
  id: Uuid,
  title: t.String(),
  description: Nullable(t.String()),
  is_public: t.Boolean(),
  post_count: Int({ description: "Posts in the collection" }),
  created_at: DateTime,
  updated_at: DateTime,
  author: PersonRefOut,
  user: t.Optional(PersonRefOut),
};
const CollectionOut = t.Object(CollectionFields, { description: "`user` is `author`'s deprecated copy" });
const CollectionItemOut = t.Object({
  id: Uuid,
  post: t.Object({ id: Uuid, title: t.String(), post_type: t.String(), score: Int(), comment_count: Int(), created_at: DateTime }),
  position: Int({ description: "Its place; removing an item leaves a gap" }),
  note: Nullable(t.String()),
  added_at: DateTime,
});
const CollectionDetail = t.Object({ ...CollectionFields, items: t.Array(CollectionItemOut) });
const IdParams = t.Object({ collection_id: Uuid });
const ItemParams = t.Object({ collection_id: Uuid, post_id: Uuid });
const Title = t.String({ minLength: 1, maxLength: collections.MAX_TITLE, description: `1-${collections.MAX_TITLE} characters, trimmed` });
const Description = Nullable(t.String({ maxLength: collections.MAX_DESCRIPTION }));
const OWNER = "Only the owner may change it: 403 FORBIDDEN on someone else's public collection, 404 NOT_FOUND on a private one or a missing id. Rate limited (collection, 30 changes an hour).";

export const collectionsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/collections", tags: ["collections"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get(
      "",
      ({ caller, query }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = collections.listCollections(ctx, caller, query.user_id, page);
        return paged(collectionsOut(ctx, items), total, page);
      },
      {
        auth: "optional",
        query: t.Object({ ...pagingQuery(PAGING), user_id: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "A user's id or username" })) }),
        response: { 200: pagedSchema(CollectionOut), 404: ErrorOut },
        detail: {
          summary: "List Collections",
          description: "Public collections, most recently updated first, with your own private ones when signed in; `user_id` (an id or a username, 404 USER_NOT_FOUND when unknown) narrows the list to one user's.",
        },
      },
    )
    .post(
      "",
      ({ caller, body, set }) => {
        set.status = 201;
        return collectionsOut(ctx, [collections.createCollection(ctx, caller, body)])[0]!;
      },
      {
        auth: "required",
        rateLimit: "collection",
        body: t.Object({ title: Title, description: t.Optional(Description), is_public: t.Optional(t.Boolean({ default: true })) }),
        response: { 201: CollectionOut, 400: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Create Collection",
          description: `A new, empty collection (public unless is_public is false). 400 INVALID_INPUT for a blank title; 400 LIMIT_EXCEEDED at ${collections.MAX_COLLECTIONS} collections. Rate limited (collection, 30 changes an hour).`,
        },
      },
    )
    .get(
      "/:collection_id",
      ({ caller, params }) => {
        const c = collections.getCollection(ctx, caller, params.collection_id);
        const items = collections.visibleItems(ctx, caller, c.id).map(({ item, post }) => itemOut(item, post));
        return { ...collectionsOut(ctx, [c], "CollectionDetail")[0]!, items };
      },
      {
        auth: "optional",
        params: IdParams,
        response: { 200: CollectionDetail, 404: ErrorOut },
        detail: {
          summary: "Get Collection",
          description: "The collection and its items in position order, each with a short summary of its post; posts deleted or hidden since are left out. A private collection is 404 to everyone but its owner.",
        },
      },
    )
    .put("/:collection_id", ({ caller, params, body }) => collectionsOut(ctx, [collections.updateCollection(ctx, caller, params.collection_id, body)])[0]!, {
      auth: "required",
      rateLimit: "collection",
      params: IdParams,
      body: t.Object({ title: t.Optional(Nullable(Title)), description: t.Optional(Description), is_public: t.Optional(Nullable(t.Boolean())) }),
      response: { 200: CollectionOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: { summary: "Update Collection", description: `Any subset of title, description (null clears it) and is_public. ${OWNER}` },
    })
    .delete(
      "/:collection_id",
      ({ caller, params, set }) => {
        collections.deleteCollection(ctx, caller, params.collection_id);
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "collection",
        params: IdParams,
        response: { 204: t.Void(), 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "Delete Collection", description: `204; the collection and its items go, the posts are untouched. ${OWNER}` },
      },
    )
    .post(
      "/:collection_id/items",
      ({ caller, params, body, set }) => {
        const { item, post } = collections.addItem(ctx, caller, params.collection_id, body.post_id, body.note);
        set.status = 201;
        return itemOut(item, post);
      },
      {
        auth: "required",
        rateLimit: "collection",
        params: IdParams,
        body: t.Object({ post_id: Uuid, note: t.Optional(Nullable(t.String({ maxLength: collections.MAX_NOTE }))) }),
        response: { 201: CollectionItemOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Add Collection Item",
          description: `Appends a post after the highest position given so far. 404 POST_NOT_FOUND for a post you cannot read; 403 FORBIDDEN for one you can but not everyone can (a private colony's, a held or unpublished post); 409 CONFLICT when it is already in; 400 LIMIT_EXCEEDED at ${collections.MAX_ITEMS} posts. ${OWNER}`,
        },
      },
    )
    .delete(
      "/:collection_id/items/:post_id",
      ({ caller, params, set }) => {
        collections.removeItem(ctx, caller, params.collection_id, params.post_id);
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "collection",
        params: ItemParams,
        response: { 204: t.Void(), 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "Remove Collection Item", description: `204; the other items keep their positions. 404 NOT_FOUND when the post is not in the collection. ${OWNER}` },
      },
    );
