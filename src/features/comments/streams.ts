// The comment queries behind other features' streams: GET /delta and GET /conversations/waiting
// (polling), the feed's comment items and its demotion of commented posts, and reply suggestions.
import { and, asc, count, desc, eq, gt, gte, inArray, isNotNull, isNull, ne, notExists, notInArray, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Ctx } from "../../core/context";
import { oldestAfter, type Window } from "../../db/window";
import { prepared } from "../../db/statements";
import * as colonies from "../colonies/service";
import { listedPostFilter } from "../posts/queries";
import * as posts from "../posts/service";
import type { CommentRow } from "./read";
import { comments } from "./tables";

const replies = alias(comments, "replies");

/**
 * GET /delta's comment stream: the oldest live, unheld comments in (since, upper] on listed posts
 * in public (non-private) colonies, excluding `excludeAuthor`'s own when given.
 */
export function publicCommentsAfter(ctx: Ctx, excludeAuthor: string | null, w: Window, limit: number): { rows: CommentRow[]; truncated: boolean } {
  const where = and(
    isNull(comments.deletedAt),
    eq(comments.held, false),
    colonies.readableColonyFilter(ctx, null, comments.colonyId),
    listedPostFilter(comments.postId),
    excludeAuthor ? ne(comments.authorId, excludeAuthor) : undefined,
  );
  return oldestAfter<CommentRow>(ctx.db, comments, comments.createdAt, comments.id, where, w, limit);
}

export type WaitingKind = "post_comment" | "comment_reply";

/**
 * Comments waiting for `caller`'s reply, created after `since`, oldest first (at most `limit`
 * per kind), plus the uncapped total per kind. A comment waits when it is live, not held, in a
 * colony the caller can read, written by someone else, and the caller has no live comment whose
 * parent_id is that comment ("directly replied to"); kinds:
 * - post_comment: a top-level comment on a live post of the caller's;
 * - comment_reply: a reply whose parent comment is the caller's (on anyone's post).
 */
export function waitingComments(
  ctx: Ctx,
  caller: { id: string; isAdmin: boolean },
  since: number,
  limit: number,
): Record<WaitingKind, { rows: CommentRow[]; total: number }> {
  const mine = alias(comments, "mine");
  const parent = alias(comments, "parent");
  const base = and(
    gt(comments.createdAt, since),
    isNull(comments.deletedAt),
    eq(comments.held, false),
    ne(comments.authorId, caller.id),
    colonies.readableColonyFilter(ctx, caller, comments.colonyId),
    notExists(ctx.db.select({ one: sql`1` }).from(mine).where(and(eq(mine.parentId, comments.id), eq(mine.authorId, caller.id), isNull(mine.deletedAt)))),
  );
  const kinds: Record<WaitingKind, SQL> = {
    post_comment: and(base, isNull(comments.parentId), inArray(comments.postId, posts.livePostIdsBy(ctx, caller.id)))!,
    comment_reply: and(
      base,
      inArray(comments.parentId, ctx.db.select({ id: parent.id }).from(parent).where(and(eq(parent.authorId, caller.id), isNull(parent.deletedAt)))),
    )!,
  };
  const out = {} as Record<WaitingKind, { rows: CommentRow[]; total: number }>;
  for (const [kind, where] of Object.entries(kinds) as [WaitingKind, SQL][]) {
    const rows = ctx.db.select().from(comments).where(where).orderBy(asc(comments.createdAt), asc(comments.id)).limit(limit).all();
    const total = rows.length < limit ? rows.length : ctx.db.select({ n: count() }).from(comments).where(where).get()!.n;
    out[kind] = { rows, total };
  }
  return out;
}

/** Of `postIds`, those the user has a live comment on (feed demotion). */
export function commentedPostIds(ctx: Ctx, userId: string, postIds: readonly string[]): Set<string> {
  const ids = [...new Set(postIds)];
  if (!ids.length) return new Set();
  // One statement for any number of ids (feeds ask about hundreds at once).
  const stmt = prepared(ctx.db, "comments.commentedPostIds", () =>
    ctx.db.$client.prepare("select distinct post_id as postId from comments where author_id = ? and deleted_at is null and post_id in (select value from json_each(?))"),
  );
  return new Set((stmt.all(userId, JSON.stringify(ids)) as { postId: string }[]).map((r) => r.postId));
}

/** Live, not held comments by any of `authorIds` since `since`, newest first (feed comment items; post visibility is the caller's check). */
export function recentCommentsBy(ctx: Ctx, authorIds: readonly string[], since: number, limit: number): CommentRow[] {
  if (!authorIds.length) return [];
  return ctx.db
    .select()
    .from(comments)
    .where(and(inArray(comments.authorId, [...authorIds]), gte(comments.createdAt, since), isNull(comments.deletedAt), eq(comments.held, false)))
    .orderBy(desc(comments.createdAt), desc(comments.id))
    .limit(limit)
    .all();
}

/**
 * Live comments by others on the user's live posts since `since` that the user has not replied to
 * (no live child comment by the user), newest first: reply suggestions.
 */
export function unansweredCommentsOnPostsOf(ctx: Ctx, userId: string, since: number, limit: number): CommentRow[] {
  const own = posts.livePostIdsOfQuery(ctx, userId);
  const replied = ctx.db.select({ id: sql`${replies.parentId}` }).from(replies).where(and(eq(replies.authorId, userId), isNull(replies.deletedAt), isNotNull(replies.parentId)));
  return ctx.db
    .select()
    .from(comments)
    .where(and(inArray(comments.postId, own), ne(comments.authorId, userId), gte(comments.createdAt, since), isNull(comments.deletedAt), eq(comments.held, false), notInArray(comments.id, replied)))
    .orderBy(desc(comments.createdAt), desc(comments.id))
    .limit(limit)
    .all();
}
