// Moving a comment under another parent (POST /comments/{id}/reparent): the author, with enough
// karma, within the window, a comment without replies, under a live comment of the same post that
// is not itself or one of its own replies, or to the top level. Nobody is notified.
import { eq } from "drizzle-orm";
import { MINUTE } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, conflict, forbidden, invalid } from "../../core/errors";
import type { Caller } from "../auth/service";
import { assertNotFrozen } from "../notarisation/freeze";
import { resolveParent } from "./checks";
import { findComment, getVisibleComment, type CommentRow } from "./read";
import { comments } from "./tables";

export const REPARENT_WINDOW_MS = 15 * MINUTE;
export const REPARENT_MIN_KARMA = 10;

const hasReplies = (ctx: Ctx, id: string) => !!ctx.db.select({ id: comments.id }).from(comments).where(eq(comments.parentId, id)).limit(1).get();

/** Whether `candidate` is `ancestorId` or lies below it (walks up from the candidate). */
function isSelfOrDescendant(ctx: Ctx, candidate: CommentRow, ancestorId: string): boolean {
  let cur: CommentRow | null = candidate;
  for (let hops = 0; cur && hops < 10_000; hops++) {
    if (cur.id === ancestorId) return true;
    cur = cur.parentId ? findComment(ctx, cur.parentId) : null;
  }
  return false;
}

/**
 * POST /comments/{id}/reparent: the author (403 FORBIDDEN) of a comment that is not notarised
 * (403 FORBIDDEN), with at least 10 karma (403 KARMA_TOO_LOW), within 15 minutes (403
 * FORBIDDEN) moves a comment without replies (409 CONFLICT) under another live comment of the same post (404 when missing, 400 INVALID_INPUT
 * for another post, itself or a descendant), or to the top level with null. Nobody is notified.
 */
export function reparentComment(ctx: Ctx, caller: Caller, commentId: string, parentId: string | null): CommentRow {
  const { comment, post, colony } = getVisibleComment(ctx, caller, commentId);
  if (comment.authorId !== caller.id) throw forbidden("Only the author can move this comment");
  assertNotFrozen("comment", comment, "reparent");
  if (caller.karma < REPARENT_MIN_KARMA) throw new ApiError(403, "KARMA_TOO_LOW", `Moving a comment needs at least ${REPARENT_MIN_KARMA} karma (you have ${caller.karma})`);
  if (ctx.clock.now() - comment.createdAt > REPARENT_WINDOW_MS) throw forbidden("Comments can only be moved within 15 minutes of posting");
  if (hasReplies(ctx, comment.id)) throw conflict("This comment has replies; moving it would move them too. Ask a moderator.");
  let target: string | null = null;
  if (parentId !== null) {
    if (parentId.toLowerCase() === comment.id) throw invalid("A comment cannot be its own parent");
    const parent = resolveParent(ctx, caller, post, colony, parentId);
    if (isSelfOrDescendant(ctx, parent, comment.id)) throw invalid("The new parent is one of this comment's own replies");
    target = parent.id;
  }
  if (target === comment.parentId) return comment;
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const row = tx.update(comments).set({ parentId: target, updatedAt: now }).where(eq(comments.id, comment.id)).returning().get();
    ctx.events.emit(tx, { type: "comment_reparented", actorId: caller.id, subject: { type: "comment", id: row.id }, payload: { post_id: row.postId, comment_id: row.id, from_parent_id: comment.parentId, to_parent_id: target } });
    return row;
  });
}
