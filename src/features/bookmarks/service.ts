// Bookmarks (spec Part 3 §4.12): save a post for later, remove it, list your own newest first.
// The first slice of the feature: folders come with the rest of Part 3 §4.12.
import { and, desc, eq } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import { canSee, getVisiblePost, postsByIds, type PostRow } from "../posts/service";
import { findColony } from "../colonies/service";
import { bookmarks } from "./tables";

/** Bookmarks a post the caller may see; adding one already there changes nothing (`created`: false). */
export function addBookmark(ctx: Ctx, caller: Caller, postId: string): { created: boolean } {
  getVisiblePost(ctx, caller, postId, "POST_NOT_FOUND");
  const now = ctx.clock.now();
  const row = ctx.db.insert(bookmarks).values({ id: uuidv7(now), userId: caller.id, postId, createdAt: now }).onConflictDoNothing().returning({ id: bookmarks.id }).get();
  return { created: !!row };
}

/** Removes the caller's bookmark; 404 NOT_FOUND when there is none (treat it as already removed). */
export function removeBookmark(ctx: Ctx, caller: Caller, postId: string): void {
  const gone = ctx.db
    .delete(bookmarks)
    .where(and(eq(bookmarks.userId, caller.id), eq(bookmarks.postId, postId)))
    .returning({ id: bookmarks.id })
    .get();
  if (!gone) throw new ApiError(404, "NOT_FOUND", "You have not bookmarked this post");
}

/**
 * The caller's bookmarked posts they may still see, newest bookmark first. Posts deleted or
 * hidden since are skipped (the bookmark stays, and returns if the post does).
 */
export function listBookmarks(ctx: Ctx, caller: Caller, page: Page): { items: PostRow[]; total: number } {
  const ids = ctx.db
    .select({ postId: bookmarks.postId })
    .from(bookmarks)
    .where(eq(bookmarks.userId, caller.id))
    .orderBy(desc(bookmarks.createdAt), desc(bookmarks.id))
    .all()
    .map((r) => r.postId);
  const rows = postsByIds(ctx, ids);
  const visible: PostRow[] = [];
  for (const id of ids) {
    const post = rows.get(id);
    if (post && canSee(ctx, caller, post, findColony(ctx, post.colonyId))) visible.push(post);
  }
  return { items: visible.slice(page.offset, page.offset + page.limit), total: visible.length };
}

export function purgeUser(ctx: Ctx, userId: string): void {
  ctx.db.delete(bookmarks).where(eq(bookmarks.userId, userId)).run();
}
