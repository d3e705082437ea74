// What moderation does to comments: release a held comment, remove one as a moderator, post an
// automod rule's reply, and the recent comments of the automod dry run. Each runs in the caller's
// transaction when there is one.
import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { uuidv7 } from "../../core/ids";
import * as colonies from "../colonies/service";
import { renderMarkdown, scanMarkdown } from "../posts/content";
import * as posts from "../posts/service";
import * as users from "../users/service";
import { emitCreated } from "./create";
import { tombstone } from "./edit";
import { findComment, type CommentRow } from "./read";
import { comments } from "./tables";

/** Releases a held comment: it counts on its post and notifies as a new comment would. False when not held. */
export function releaseHeldComment(ctx: Ctx, commentId: string): boolean {
  const c = findComment(ctx, commentId);
  if (!c || !c.held || c.deletedAt !== null) return false;
  const post = posts.findPost(ctx, c.postId);
  const colony = post ? colonies.findColony(ctx, post.colonyId) : null;
  const author = users.findById(ctx, c.authorId);
  if (!post || !colony || !author) return false;
  const parent = c.parentId ? findComment(ctx, c.parentId) : null;
  const mentions = users.resolveMentions(ctx, c.authorId, scanMarkdown(c.body).mentionCandidates).found.map((u) => u.id);
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    const row = tx.update(comments).set({ held: false, heldExplanation: null, updatedAt: now }).where(eq(comments.id, c.id)).returning().get();
    posts.adjustCommentCount(tx, c.postId, 1, now);
    emitCreated(ctx, tx, row, author, post, colony, parent, mentions);
  });
  return true;
}

/** A moderator's removal of a comment: the tombstone of deleteComment, without the windows. False when already deleted. */
export function removeCommentByModerator(ctx: Ctx, actorId: string, commentId: string): boolean {
  const c = findComment(ctx, commentId);
  if (!c || c.deletedAt !== null) return false;
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.update(comments).set(tombstone(now)).where(eq(comments.id, c.id)).run();
    if (!c.held) posts.adjustCommentCount(tx, c.postId, -1);
    ctx.events.emit(tx, {
      type: "comment_deleted",
      actorId,
      subject: { type: "comment", id: c.id },
      payload: { post_id: c.postId, comment_id: c.id, author_id: c.authorId, by_moderator: true },
    });
  });
  return true;
}

/**
 * An automod rule's reply_with_comment: a comment by `authorId` (the rule's author) on the post,
 * under the comment the rule fired on when there is one. `marker` (the firing event) makes a
 * redelivery a no-op. Skips a deleted post or parent.
 */
export function postAutomodReply(ctx: Ctx, authorId: string, postId: string, parentId: string | null, body: string, marker: string): CommentRow | null {
  const client = `automod:${marker}`;
  if (ctx.db.select({ id: comments.id }).from(comments).where(and(eq(comments.postId, postId), eq(comments.client, client))).get()) return null;
  const post = posts.findPost(ctx, postId);
  const colony = post ? colonies.findColony(ctx, post.colonyId) : null;
  const author = users.findById(ctx, authorId);
  const parent = parentId ? findComment(ctx, parentId) : null;
  if (!post || post.deletedAt !== null || !colony || !author || (parentId && (!parent || parent.deletedAt !== null))) return null;
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const row = tx
      .insert(comments)
      .values({ id: uuidv7(now), postId, colonyId: post.colonyId, authorId, parentId, body, bodyHtml: renderMarkdown(body, [], ctx.config.publicUrl), held: false, client, createdAt: now, updatedAt: now })
      .returning()
      .get();
    posts.adjustCommentCount(tx, postId, 1, now);
    emitCreated(ctx, tx, row, author, post, colony, parent, []);
    return row;
  });
}

/** The newest live comments on the given posts (held ones included), for the automod dry run. */
export function recentCommentsOnPosts(ctx: Ctx, postIds: readonly string[], limit: number): CommentRow[] {
  if (!postIds.length) return [];
  return ctx.db
    .select()
    .from(comments)
    .where(and(inArray(comments.postId, [...postIds]), isNull(comments.deletedAt)))
    .orderBy(desc(comments.createdAt))
    .limit(limit)
    .all();
}
