// Writes other features make on comment rows: the score counters and best-sort key (votes, in its
// write transaction), the notarised and sentinel-scanned marks, the colony of a moved post's
// comments (moderation's move-out), and the cascade of a deleted post (this feature's handlers).
import { and, eq, isNull } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { changes, type Tx } from "../../db/client";
import { comments } from "./tables";

/** Wilson score lower bound at 95% confidence of `up` positive out of `up + down`; 0 without votes. */
export function wilsonLowerBound(up: number, down: number): number {
  const n = up + down;
  if (n <= 0) return 0;
  const z = 1.959963984540054;
  const p = up / n;
  const z2 = z * z;
  return (p + z2 / (2 * n) - z * Math.sqrt((p * (1 - p) + z2 / (4 * n)) / n)) / (1 + z2 / n);
}

/**
 * Moves a comment's score, upvotes and downvotes by the given deltas and recomputes its best-sort
 * key, inside the caller's transaction. Returns the new score, or null when the comment does not exist.
 */
export function applyCommentScoreDelta(tx: Tx, commentId: string, delta: { score: number; up: number; down: number }): number | null {
  const row = tx.select({ score: comments.score, up: comments.upvotes, down: comments.downvotes }).from(comments).where(eq(comments.id, commentId)).get();
  if (!row) return null;
  const up = Math.max(0, row.up + delta.up);
  const down = Math.max(0, row.down + delta.down);
  const score = row.score + delta.score;
  tx.update(comments).set({ score, upvotes: up, downvotes: down, wilson: wilsonLowerBound(up, down) }).where(eq(comments.id, commentId)).run();
  return score;
}

/** Marks a comment notarised (Part 3 §4.15): frozen for good. False when it already was. */
export function markCommentNotarised(tx: Tx, commentId: string, at: number): boolean {
  return changes(tx.update(comments).set({ notarisedAt: at }).where(and(eq(comments.id, commentId), isNull(comments.notarisedAt))).run()) > 0;
}

/** Marks a comment as scanned by the sentinel (the sentinel_scanned filter). */
export function markCommentSentinelScanned(tx: Tx, commentId: string, at: number): void {
  tx.update(comments).set({ sentinelScannedAt: at }).where(eq(comments.id, commentId)).run();
}

/** Marks every live comment of a deleted post deleted (bodies are kept; the post is gone anyway). */
export function cascadePostDeleted(ctx: Ctx, postId: string): number {
  return changes(
    ctx.db
      .update(comments)
      .set({ deletedAt: ctx.clock.now(), deletedWithPost: true })
      .where(and(eq(comments.postId, postId), isNull(comments.deletedAt)))
      .run(),
  );
}

/** Files every comment of a post under the post's new colony (moderation's move-out), in the caller's transaction. */
export function setPostCommentsColony(tx: Tx, postId: string, colonyId: string): void {
  tx.update(comments).set({ colonyId }).where(eq(comments.postId, postId)).run();
}
