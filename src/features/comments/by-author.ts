// A user's comments: GET /users/{id}/comments (live comments on listed posts in readable colonies,
// never tombstones) and the facts other features ask about an author (profile, achievements).
import { and, count, desc, eq, isNull, type SQL } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import type { Page } from "../../core/paging";
import type { Db } from "../../db/client";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import { listedPostFilter } from "../posts/queries";
import * as users from "../users/service";
import type { CommentRow } from "./read";
import { comments } from "./tables";

/**
 * The WHERE of GET /users/{id}/comments: the author's live comments on listed posts (not deleted,
 * draft, scheduled or held) in colonies the caller may read; held comments only to their author.
 */
export function userCommentsWhere(ctx: Ctx, caller: Caller | null, authorId: string): SQL {
  return and(
    eq(comments.authorId, authorId),
    isNull(comments.deletedAt),
    caller?.id === authorId ? undefined : eq(comments.held, false),
    listedPostFilter(comments.postId),
    colonies.readableColonyFilter(ctx, caller, comments.colonyId),
  )!;
}

/** GET /users/{user_id}/comments (id or username) and /users/by-username/{username}/comments. */
export function listUserComments(ctx: Ctx, caller: Caller | null, ref: users.AuthorRef, page: Page): { items: CommentRow[]; total: number; has_more: boolean } {
  const author = users.getListedAuthor(ctx, ref);
  const where = userCommentsWhere(ctx, caller, author.id);
  const items = ctx.db.select().from(comments).where(where).orderBy(desc(comments.createdAt), desc(comments.id)).limit(page.limit).offset(page.offset).all();
  const total = ctx.db.select({ n: count() }).from(comments).where(where).get()!.n;
  return { items, total, has_more: page.offset + items.length < total };
}

/** Whether the user has ever written a comment (any row, tombstones included). */
export function hasCommented(db: Pick<Db, "select">, userId: string): boolean {
  return !!db.select({ id: comments.id }).from(comments).where(eq(comments.authorId, userId)).limit(1).get();
}

/** The author's live (not deleted) comments: achievements. */
export function liveCommentCount(ctx: Ctx, userId: string): number {
  return ctx.db.select({ n: count() }).from(comments).where(and(eq(comments.authorId, userId), isNull(comments.deletedAt))).get()?.n ?? 0;
}
