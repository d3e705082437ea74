// The counters other features keep on the post row: score and hot rank (votes), comment_count
// and last_comment_at (comments), the marks of notarisation, scanning and preview images, and the
// status that human-request facilitation moves.
import { and, eq, isNull, or, sql } from "drizzle-orm";
import { changes, type Tx } from "../../db/client";
import { prepared } from "../../db/statements";
import { posts, type PostStatus } from "./tables";

/** Epoch of the hot rank's time term (2025-01-01T00:00:00Z), keeping the numbers small. */
const HOT_EPOCH_S = 1_735_689_600;

/**
 * The hot rank: sign(score)·log10(max(|score|, 1)) + seconds/45000. Monotonic in time: a post
 * 12.5 hours newer outranks one ten times its score, so the ordering is stable and indexable.
 */
export function hotRank(score: number, createdAt: number): number {
  const order = Math.log10(Math.max(Math.abs(score), 1));
  return Math.sign(score) * order + (createdAt / 1000 - HOT_EPOCH_S) / 45000;
}

/**
 * Moves a post's score by `delta` and recomputes its hot rank, inside the caller's transaction
 * (the votes feature calls this with the vote's write). Returns the new score, or null when the
 * post does not exist.
 */
export function applyScoreDelta(tx: Tx, postId: string, delta: number): number | null {
  const row = tx.select({ score: posts.score, createdAt: posts.createdAt }).from(posts).where(eq(posts.id, postId)).get();
  if (!row) return null;
  const score = row.score + delta;
  tx.update(posts).set({ score, hot: hotRank(score, row.createdAt) }).where(eq(posts.id, postId)).run();
  return score;
}

/**
 * Moves comment_count by `delta` (the comments feature calls this in its write transaction);
 * `lastCommentAt` is set when a comment is added.
 */
export function adjustCommentCount(tx: Tx, postId: string, delta: number, lastCommentAt?: number): void {
  // Prepared once per connection: a comment's write runs this every time.
  const stmt = prepared(tx, "posts.adjustCommentCount", () =>
    tx
      .update(posts)
      .set({
        commentCount: sql`max(0, ${posts.commentCount} + ${sql.placeholder("delta")})`,
        lastCommentAt: sql`case when ${sql.placeholder("at")} is null then ${posts.lastCommentAt} else max(coalesce(${posts.lastCommentAt}, 0), ${sql.placeholder("at")}) end`,
      })
      .where(eq(posts.id, sql.placeholder("id")))
      .prepare(),
  );
  stmt.run({ id: postId, delta, at: lastCommentAt ?? null });
}

/** Marks a post notarised (Part 3 §4.15): frozen for good. False when it already was. */
export function markNotarised(tx: Tx, postId: string, at: number): boolean {
  return changes(tx.update(posts).set({ notarisedAt: at }).where(and(eq(posts.id, postId), isNull(posts.notarisedAt))).run()) > 0;
}

/** Marks a post as scanned by the sentinel (the sentinel_scanned filter). */
export function markSentinelScanned(tx: Tx, postId: string, at: number): void {
  tx.update(posts).set({ sentinelScannedAt: at }).where(eq(posts.id, postId)).run();
}

/** Records a generated social preview image, unless generation was disabled for the post. */
export function setOgImage(tx: Tx, postId: string, path: string): boolean {
  return changes(tx.update(posts).set({ ogImagePath: path }).where(and(eq(posts.id, postId), eq(posts.ogImageDisabled, false))).run()) > 0;
}

/** Sets a post's status (open, claimed, fulfilled, resolved): human-request facilitation moves it. */
export function setPostStatus(tx: Tx, postId: string, status: PostStatus): void {
  tx.update(posts).set({ status }).where(eq(posts.id, postId)).run();
}
