// Editing (PUT /comments/{id}) and deleting (DELETE /comments/{id}) a comment, and the tombstone a
// deletion leaves: the row stays with its body replaced by "[deleted]" and the author hidden on
// the wire, so the replies keep their parent (thread reads keep a tombstone while it has replies).
import { eq } from "drizzle-orm";
import { MINUTE } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { forbidden, invalid } from "../../core/errors";
import type { Caller } from "../auth/service";
import { recordModeration } from "../moderation/automod";
import { resolveQueueForTarget } from "../moderation/queue-store";
import * as colonies from "../colonies/service";
import { renderBody } from "../posts/body";
import * as posts from "../posts/service";
import { assertNotFrozen } from "../notarisation/freeze";
import { moderateBody, moderationTarget } from "./checks";
import { getVisibleComment, type CommentRow } from "./read";
import { comments } from "./tables";

export const EDIT_WINDOW_MS = 15 * MINUTE;
export const DELETE_WINDOW_MS = 15 * MINUTE;
export const TOMBSTONE_BODY = "[deleted]";

/** The columns a deletion sets at `now`: the tombstone's body and the deletion instant. */
export const tombstone = (now: number) => ({ deletedAt: now, updatedAt: now, body: TOMBSTONE_BODY, bodyHtml: `<p>${TOMBSTONE_BODY}</p>` });

/**
 * PUT /comments/{id}: the author replaces the body within 15 minutes of posting (403 FORBIDDEN
 * otherwise, and for a notarised comment). An identical body changes nothing. The colony's banned-words policy applies again.
 */
export function updateComment(ctx: Ctx, caller: Caller, commentId: string, input: { body: string }): CommentRow {
  const { comment, colony, post } = getVisibleComment(ctx, caller, commentId);
  if (comment.authorId !== caller.id) throw forbidden("Only the author can edit this comment");
  assertNotFrozen("comment", comment, "edit");
  if (ctx.clock.now() - comment.createdAt > EDIT_WINDOW_MS) throw forbidden("Comments can only be edited within 15 minutes of posting");
  const body = input.body.trim();
  if (!body) throw invalid("body must not be empty");
  if (body === comment.body) return comment;
  const { hold, settingsHold, automod } = moderateBody(ctx, caller, post, colony, body);
  const bodyHtml = renderBody(ctx, caller.id, body).html;
  const now = ctx.clock.now();
  const holdNow = hold !== null && !comment.held;
  return ctx.db.transaction((tx) => {
    const row = tx
      .update(comments)
      .set({ body, bodyHtml, updatedAt: now, ...(holdNow ? { held: true, heldExplanation: hold } : {}) })
      .where(eq(comments.id, comment.id))
      .returning()
      .get();
    if (holdNow || automod.fired.length) recordModeration(ctx, tx, moderationTarget(row), automod, holdNow ? settingsHold : null);
    if (automod.lock) posts.lockPost(ctx, row.postId, true);
    if (holdNow) {
      posts.adjustCommentCount(tx, comment.postId, -1);
      ctx.events.emit(tx, { type: "comment_held", actorId: caller.id, subject: { type: "comment", id: row.id }, payload: { post_id: row.postId, comment_id: row.id, colony_id: row.colonyId, reason: hold } });
    }
    ctx.events.emit(tx, { type: "comment_updated", actorId: caller.id, subject: { type: "comment", id: row.id }, payload: { post_id: row.postId, comment_id: row.id } });
    return row;
  });
}

/**
 * DELETE /comments/{id}: tombstones the comment (body replaced, author hidden, replies kept). Its
 * author may delete within 15 minutes of posting unless it is notarised, a moderator of the colony
 * at any time (docs/decisions.md §91); anyone else is 403 FORBIDDEN.
 */
export function deleteComment(ctx: Ctx, caller: Caller, commentId: string): void {
  const { comment, colony } = getVisibleComment(ctx, caller, commentId);
  const moderator = colonies.canModerate(ctx, colony, caller);
  if (comment.authorId === caller.id) {
    assertNotFrozen("comment", comment, "delete");
    if (!moderator && ctx.clock.now() - comment.createdAt > DELETE_WINDOW_MS) throw forbidden("Comments can only be deleted by their author within 15 minutes of posting");
  } else if (!moderator) {
    throw forbidden("Only the author or a moderator of this colony can delete this comment");
  }
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.update(comments).set(tombstone(now)).where(eq(comments.id, comment.id)).run();
    if (!comment.held) posts.adjustCommentCount(tx, comment.postId, -1);
    resolveQueueForTarget(ctx, comment.id, "content_deleted", caller.id);
    ctx.events.emit(tx, {
      type: "comment_deleted",
      actorId: caller.id,
      subject: { type: "comment", id: comment.id },
      payload: { post_id: comment.postId, comment_id: comment.id, author_id: comment.authorId, by_moderator: comment.authorId !== caller.id },
    });
  });
}
