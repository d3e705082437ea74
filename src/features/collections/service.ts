// Collections (spec Part 3 §4.12): ordered lists of public posts with notes. Private collections
// are their owner's alone and answer 404 to everyone else (docs/decisions.md §76).
import { and, asc, count, desc, eq, or, sql, type SQL } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError, forbidden, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { inTransaction } from "../../db/client";
import type { Caller } from "../auth/service";
import { findColony } from "../colonies/service";
import { canSee, getVisiblePost, postsByIds, type PostRow } from "../posts/service";
import { getActiveUser } from "../users/service";
import { collectionItems, collections } from "./tables";

export type CollectionRow = typeof collections.$inferSelect;
export type ItemRow = typeof collectionItems.$inferSelect;

export const MAX_COLLECTIONS = 100;
export const MAX_ITEMS = 1000;
export const MAX_TITLE = 200;
export const MAX_DESCRIPTION = 5000;
export const MAX_NOTE = 500;

function title(raw: string): string {
  const t = raw.trim();
  if (!t) throw new ApiError(400, "INVALID_INPUT", "A collection needs a title");
  return t;
}

/** Public collections, most recently updated first, with the caller's own private ones; `userId` (an id or a username) narrows to one user. */
export function listCollections(ctx: Ctx, caller: Caller | null, userRef: string | undefined, page: Page): { items: CollectionRow[]; total: number } {
  const visible = caller ? or(eq(collections.isPublic, true), eq(collections.userId, caller.id)) : eq(collections.isPublic, true);
  let where: SQL | undefined = visible;
  if (userRef !== undefined) where = and(visible, eq(collections.userId, getActiveUser(ctx, userRef).id));
  const total = ctx.db.select({ n: count() }).from(collections).where(where).get()!.n;
  const items = ctx.db.select().from(collections).where(where).orderBy(desc(collections.updatedAt), desc(collections.id)).limit(page.limit).offset(page.offset).all();
  return { items, total };
}

export function createCollection(ctx: Ctx, caller: Caller, input: { title: string; description?: string | null; is_public?: boolean }): CollectionRow {
  const name = title(input.title);
  return inTransaction(ctx.db, (tx) => {
    const held = tx.select({ n: count() }).from(collections).where(eq(collections.userId, caller.id)).get()!.n;
    if (held >= MAX_COLLECTIONS) throw new ApiError(400, "LIMIT_EXCEEDED", `You already have ${MAX_COLLECTIONS} collections, the most allowed`);
    const now = ctx.clock.now();
    return tx
      .insert(collections)
      .values({ id: uuidv7(now), userId: caller.id, title: name, description: input.description ?? null, isPublic: input.is_public ?? true, createdAt: now, updatedAt: now })
      .returning()
      .get();
  });
}

/** A collection the caller may read: private ones are 404 to all but their owner. */
export function getCollection(ctx: Ctx, caller: Caller | null, id: string): CollectionRow {
  const row = ctx.db.select().from(collections).where(eq(collections.id, id)).get();
  if (!row || (!row.isPublic && row.userId !== caller?.id)) throw notFound("Collection not found");
  return row;
}

/** A collection the caller owns: someone else's public one is 403, a private one 404 (the reference's rule). */
function ownCollection(ctx: Ctx, caller: Caller, id: string): CollectionRow {
  const row = getCollection(ctx, caller, id);
  if (row.userId !== caller.id) throw forbidden("Only the collection's owner may change it");
  return row;
}

export function updateCollection(ctx: Ctx, caller: Caller, id: string, input: { title?: string | null; description?: string | null; is_public?: boolean | null }): CollectionRow {
  ownCollection(ctx, caller, id);
  const set: Partial<CollectionRow> = { updatedAt: ctx.clock.now() };
  if (input.title != null) set.title = title(input.title);
  if (input.description !== undefined) set.description = input.description;
  if (input.is_public != null) set.isPublic = input.is_public;
  return ctx.db.update(collections).set(set).where(eq(collections.id, id)).returning().get()!;
}

export function deleteCollection(ctx: Ctx, caller: Caller, id: string): void {
  ownCollection(ctx, caller, id);
  inTransaction(ctx.db, (tx) => {
    tx.delete(collectionItems).where(eq(collectionItems.collectionId, id)).run();
    tx.delete(collections).where(eq(collections.id, id)).run();
  });
}

/**
 * Appends a post after the highest position ever given. The post must be one the caller can read
 * (else 404 POST_NOT_FOUND, so an id cannot be probed) and one anyone can read: a post of a
 * private colony, held or unpublished is 403, since a collection republishes it.
 */
export function addItem(ctx: Ctx, caller: Caller, id: string, postId: string, note: string | null | undefined): { item: ItemRow; post: PostRow } {
  ownCollection(ctx, caller, id);
  const { post, colony } = getVisiblePost(ctx, caller, postId, "POST_NOT_FOUND");
  if (!canSee(ctx, null, post, colony)) throw forbidden("Only posts everyone can read may be collected");
  return inTransaction(ctx.db, (tx) => {
    const c = tx.select().from(collections).where(eq(collections.id, id)).get()!;
    if (tx.select({ id: collectionItems.id }).from(collectionItems).where(and(eq(collectionItems.collectionId, id), eq(collectionItems.postId, postId))).get())
      throw new ApiError(409, "CONFLICT", "That post is already in this collection");
    if (c.itemCount >= MAX_ITEMS) throw new ApiError(400, "LIMIT_EXCEEDED", `A collection holds at most ${MAX_ITEMS} posts`);
    const now = ctx.clock.now();
    const item = tx
      .insert(collectionItems)
      .values({ id: uuidv7(now), collectionId: id, postId, position: c.nextPosition, note: note ?? null, addedAt: now })
      .returning()
      .get();
    tx.update(collections)
      .set({ itemCount: sql`${collections.itemCount} + 1`, nextPosition: c.nextPosition + 1, updatedAt: now })
      .where(eq(collections.id, id))
      .run();
    return { item, post };
  });
}

/** Removes a post from the collection; the others keep their positions. 404 when it is not in it. */
export function removeItem(ctx: Ctx, caller: Caller, id: string, postId: string): void {
  ownCollection(ctx, caller, id);
  inTransaction(ctx.db, (tx) => {
    const gone = tx
      .delete(collectionItems)
      .where(and(eq(collectionItems.collectionId, id), eq(collectionItems.postId, postId)))
      .returning({ id: collectionItems.id })
      .get();
    if (!gone) throw notFound("That post is not in this collection");
    tx.update(collections)
      .set({ itemCount: sql`${collections.itemCount} - 1`, updatedAt: ctx.clock.now() })
      .where(eq(collections.id, id))
      .run();
  });
}

/** The items in position order whose posts the viewer can still see (deleted or hidden posts are left out). */
export function visibleItems(ctx: Ctx, viewer: Caller | null, id: string): { item: ItemRow; post: PostRow }[] {
  const items = ctx.db.select().from(collectionItems).where(eq(collectionItems.collectionId, id)).orderBy(asc(collectionItems.position)).all();
  const posts = postsByIds(
    ctx,
    items.map((i) => i.postId),
  );
  const out: { item: ItemRow; post: PostRow }[] = [];
  for (const item of items) {
    const post = posts.get(item.postId);
    if (post && canSee(ctx, viewer, post, findColony(ctx, post.colonyId))) out.push({ item, post });
  }
  return out;
}

export function purgeUser(ctx: Ctx, userId: string): void {
  inTransaction(ctx.db, (tx) => {
    tx.delete(collectionItems)
      .where(sql`${collectionItems.collectionId} in (select id from collections where user_id = ${userId})`)
      .run();
    tx.delete(collections).where(eq(collections.userId, userId)).run();
  });
}
