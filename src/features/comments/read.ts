// Reading comments: one comment by id, one the caller may see (with its post and colony, else 404),
// many by id, and the WHERE fragment other features' lists use to keep only live, unheld ones.
//
// Visibility: a comment is visible when its post is (posts.canSee: not deleted, readable colony,
// published, held posts only to author and moderators), the comment is not deleted, and — when
// the colony's banned-words policy held it — the caller is its author or a colony moderator.
import { eq, inArray, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Ctx } from "../../core/context";
import { ApiError, notFound } from "../../core/errors";
import { isUuid } from "../../core/ids";
import type { Tx } from "../../db/client";
import { rowMapper } from "../../db/statements";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import * as posts from "../posts/service";
import type { PostRow } from "../posts/service";
import { comments } from "./tables";

export type CommentRow = typeof comments.$inferSelect;
/** A raw row of `comments` as a CommentRow (for the cached prepared statements of the hot paths). */
export const mapComment = rowMapper<CommentRow>(comments);

const commentNotFound = () => notFound("Comment not found");

export function findComment(ctx: Ctx | { db: Tx }, id: string): CommentRow | null {
  if (!isUuid(id)) return null;
  return ctx.db.select().from(comments).where(eq(comments.id, id.toLowerCase())).get() ?? null;
}

/** Whether the caller moderates the colony (false when signed out). */
export const isModerator = (ctx: Ctx, colony: ColonyRow, caller: Caller | null) => !!caller && colonies.canModerate(ctx, colony, caller);

/** Whether a held comment may be shown: to its author and the colony's moderators. */
export const heldVisible = (ctx: Ctx, caller: Caller | null, c: CommentRow, colony: ColonyRow) => !c.held || caller?.id === c.authorId || isModerator(ctx, colony, caller);

export interface VisibleComment {
  comment: CommentRow;
  post: PostRow;
  colony: ColonyRow;
}

/**
 * A live comment the caller may see, with its post and colony; anything else (missing, deleted,
 * on a deleted or unreadable post, held from this caller) is 404 NOT_FOUND without saying which.
 */
export function getVisibleComment(ctx: Ctx, caller: Caller | null, commentId: string): VisibleComment {
  const comment = findComment(ctx, commentId);
  if (!comment || comment.deletedAt !== null) throw commentNotFound();
  let seen: { post: PostRow; colony: ColonyRow };
  try {
    seen = posts.getVisiblePost(ctx, caller, comment.postId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw commentNotFound();
    throw err;
  }
  if (!heldVisible(ctx, caller, comment, seen.colony)) throw commentNotFound();
  return { comment, ...seen };
}

/**
 * A WHERE condition for other features' lists: the comment named by `commentIdColumn` is live
 * (not deleted) and not held. A primary-key probe per candidate row.
 */
export function liveUnheldCommentFilter(commentIdColumn: SQLiteColumn): SQL {
  return sql`exists (select 1 from ${comments} where ${comments.id} = ${commentIdColumn} and ${comments.deletedAt} is null and ${comments.held} = 0)`;
}

/** Comments by id in one query (no visibility check). */
export function commentsByIds(ctx: Ctx, ids: readonly string[]): Map<string, CommentRow> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  return new Map(ctx.db.select().from(comments).where(inArray(comments.id, unique)).all().map((c) => [c.id, c]));
}
