// Bookmarks (spec Part 3 §4.12): save a post for later, remove it, list your own newest first,
// file them in up to 20 folders (docs/decisions.md §75).
import { and, asc, count, desc, eq, isNull, sql } from "drizzle-orm";
import { inTransaction } from "../../db/client";
import { prepared } from "../../db/statements";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import { canSee, getVisiblePost, postsByIds, type PostRow } from "../posts/service";
import { findColony } from "../colonies/service";
import { bookmarkFolders, bookmarks } from "./tables";

export type FolderRow = typeof bookmarkFolders.$inferSelect;
export const MAX_FOLDERS = 20;
export const MAX_FOLDER_NAME = 100;

/**
 * Bookmarks a post the caller may see; adding one already there changes nothing (`created`:
 * false). Either way the answer names the bookmark, which the folder routes take.
 */
export function addBookmark(ctx: Ctx, caller: Caller, postId: string): { created: boolean; id: string; folderId: string | null } {
  getVisiblePost(ctx, caller, postId, "POST_NOT_FOUND");
  const now = ctx.clock.now();
  const row = ctx.db.insert(bookmarks).values({ id: uuidv7(now), userId: caller.id, postId, createdAt: now }).onConflictDoNothing().returning({ id: bookmarks.id }).get();
  if (row) return { created: true, id: row.id, folderId: null };
  const held = ctx.db.select({ id: bookmarks.id, folderId: bookmarks.folderId }).from(bookmarks).where(and(eq(bookmarks.userId, caller.id), eq(bookmarks.postId, postId))).get()!;
  return { created: false, ...held };
}

/** Whether the user has bookmarked the post (the web page's bookmark button shows it). */
export function isBookmarked(ctx: Ctx, userId: string, postId: string): boolean {
  const stmt = prepared(ctx.db, "bookmarks.isBookmarked", () =>
    ctx.db
      .select({ id: bookmarks.id })
      .from(bookmarks)
      .where(and(eq(bookmarks.userId, sql.placeholder("user")), eq(bookmarks.postId, sql.placeholder("post"))))
      .prepare(),
  );
  return stmt.get({ user: userId, post: postId }) !== undefined;
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
export function listBookmarks(ctx: Ctx, caller: Caller, page: Page, folder?: string): { items: PostRow[]; total: number } {
  const inFolder = folder === undefined ? undefined : folder === UNSORTED ? isNull(bookmarks.folderId) : eq(bookmarks.folderId, ownFolder(ctx, caller, folder).id);
  const ids = ctx.db
    .select({ postId: bookmarks.postId })
    .from(bookmarks)
    .where(and(eq(bookmarks.userId, caller.id), inFolder))
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

/** The `folder_id` filter value naming the bookmarks in no folder. */
export const UNSORTED = "unsorted";

/** The caller's folders in position order. */
export function listFolders(ctx: Ctx, caller: Caller): FolderRow[] {
  return ctx.db.select().from(bookmarkFolders).where(eq(bookmarkFolders.userId, caller.id)).orderBy(asc(bookmarkFolders.position), asc(bookmarkFolders.id)).all();
}

/** A folder name trimmed; 400 INVALID_INPUT when empty or over 100 characters. */
function folderName(raw: string): string {
  const name = raw.trim();
  if (!name) throw new ApiError(400, "INVALID_INPUT", "A folder name cannot be empty");
  if ([...name].length > MAX_FOLDER_NAME) throw new ApiError(400, "INVALID_INPUT", `A folder name is at most ${MAX_FOLDER_NAME} characters`);
  return name;
}

/** A new folder after the caller's others (position = how many they have); 400 LIMIT_EXCEEDED at 20. */
export function createFolder(ctx: Ctx, caller: Caller, rawName: string): FolderRow {
  const name = folderName(rawName);
  return inTransaction(ctx.db, (tx) => {
    const held = tx.select({ n: count() }).from(bookmarkFolders).where(eq(bookmarkFolders.userId, caller.id)).get()!.n;
    if (held >= MAX_FOLDERS) throw new ApiError(400, "LIMIT_EXCEEDED", `You already have ${MAX_FOLDERS} bookmark folders, the most allowed; delete one first`);
    const now = ctx.clock.now();
    return tx.insert(bookmarkFolders).values({ id: uuidv7(now), userId: caller.id, name, position: held, createdAt: now }).returning().get();
  });
}

/** The caller's folder; 404 NOT_FOUND for a missing or foreign one alike. */
function ownFolder(ctx: Ctx, caller: Caller, folderId: string): FolderRow {
  const row = ctx.db.select().from(bookmarkFolders).where(and(eq(bookmarkFolders.id, folderId), eq(bookmarkFolders.userId, caller.id))).get();
  if (!row) throw new ApiError(404, "NOT_FOUND", "Bookmark folder not found");
  return row;
}

export function renameFolder(ctx: Ctx, caller: Caller, folderId: string, rawName: string): FolderRow {
  const name = folderName(rawName);
  ownFolder(ctx, caller, folderId);
  return ctx.db.update(bookmarkFolders).set({ name }).where(eq(bookmarkFolders.id, folderId)).returning().get()!;
}

/**
 * Deletes a folder: its bookmarks become unsorted, and the folders after it move up one place so
 * positions stay 0..n-1 and the next new folder's position is free (docs/decisions.md §75).
 */
export function deleteFolder(ctx: Ctx, caller: Caller, folderId: string): void {
  const folder = ownFolder(ctx, caller, folderId);
  inTransaction(ctx.db, (tx) => {
    tx.update(bookmarks).set({ folderId: null }).where(eq(bookmarks.folderId, folder.id)).run();
    tx.delete(bookmarkFolders).where(eq(bookmarkFolders.id, folder.id)).run();
    tx.update(bookmarkFolders)
      .set({ position: sql`${bookmarkFolders.position} - 1` })
      .where(and(eq(bookmarkFolders.userId, caller.id), sql`${bookmarkFolders.position} > ${folder.position}`))
      .run();
  });
}

/** Files the caller's bookmark in their folder (null: unsorted); foreign or missing ids of either are 404. */
export function fileBookmark(ctx: Ctx, caller: Caller, bookmarkId: string, folderId: string | null): void {
  if (folderId !== null) ownFolder(ctx, caller, folderId);
  const moved = ctx.db
    .update(bookmarks)
    .set({ folderId })
    .where(and(eq(bookmarks.id, bookmarkId), eq(bookmarks.userId, caller.id)))
    .returning({ id: bookmarks.id })
    .get();
  if (!moved) throw new ApiError(404, "NOT_FOUND", "Bookmark not found");
}

export function purgeUser(ctx: Ctx, userId: string): void {
  ctx.db.delete(bookmarks).where(eq(bookmarks.userId, userId)).run();
  ctx.db.delete(bookmarkFolders).where(eq(bookmarkFolders.userId, userId)).run();
}
