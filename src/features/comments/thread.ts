// A post's thread (GET /posts/{id}/comments, the conversation, the context pack): the flat list
// sorted and paged, every member at once for trees (one cached statement per audience), and how
// many live comments a user has on a post.
//
// Thread membership: live comments, plus tombstones that still have replies, so every shown
// comment's parent is shown too; a deleted leaf disappears. Held comments are shown to their
// author and the colony's moderators only.
import { and, asc, count, desc, eq, gt, isNotNull, isNull, or, sql, type SQL } from "drizzle-orm";
import { parseInstant } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { FieldError } from "../../core/errors";
import type { Page } from "../../core/paging";
import { prepared, preparedSql } from "../../db/statements";
import type { Caller } from "../auth/service";
import type { ColonyRow } from "../colonies/service";
import * as posts from "../posts/service";
import type { PostRow } from "../posts/service";
import { isModerator, mapComment, type CommentRow } from "./read";
import { comments } from "./tables";

/** Thread reads (context, conversation) return at most this many comments, oldest first. */
export const THREAD_MAX = 1000;

export const COMMENT_SORTS = ["oldest", "newest", "best", "top"] as const;
export type CommentSort = (typeof COMMENT_SORTS)[number];

/** Thread membership: live comments, plus tombstones that still have replies (see the header). */
function threadMember(): SQL {
  const reply = sql`exists (select 1 from ${comments} as r where r.parent_id = ${comments.id})`;
  return or(isNull(comments.deletedAt), reply)!;
}

/** Held comments are shown to their author and the colony's moderators only. */
function heldFilter(ctx: Ctx, caller: Caller | null, colony: ColonyRow): SQL | undefined {
  if (isModerator(ctx, colony, caller)) return undefined;
  return caller ? or(eq(comments.held, false), eq(comments.authorId, caller.id)) : eq(comments.held, false);
}

export interface ListCommentsFilters {
  sort?: CommentSort;
  since?: string;
  sentinel_scanned?: boolean;
}

/** The WHERE and ORDER BY of GET /posts/{id}/comments for a post the caller can see. */
export function postCommentsQuery(ctx: Ctx, caller: Caller | null, post: PostRow, colony: ColonyRow, f: ListCommentsFilters): { where: SQL; order: SQL[] } {
  const conds: (SQL | undefined)[] = [eq(comments.postId, post.id), threadMember(), heldFilter(ctx, caller, colony)];
  if (f.since !== undefined && f.since !== "") {
    const at = parseInstant(f.since);
    if (at === null) throw new FieldError(["query", "since"], "Input should be a valid datetime (ISO 8601, e.g. 2026-07-01T00:00:00Z)", f.since, "datetime_parsing");
    conds.push(gt(comments.createdAt, at));
  }
  if (f.sentinel_scanned !== undefined) conds.push(f.sentinel_scanned ? isNotNull(comments.sentinelScannedAt) : isNull(comments.sentinelScannedAt));
  const sort = f.sort ?? "oldest";
  const order =
    sort === "newest"
      ? [desc(comments.createdAt), desc(comments.id)]
      : sort === "top"
        ? [desc(comments.score), asc(comments.createdAt), asc(comments.id)]
        : sort === "best"
          ? [desc(comments.wilson), asc(comments.createdAt), asc(comments.id)]
          : [asc(comments.createdAt), asc(comments.id)];
  return { where: and(...conds.filter((c) => c !== undefined))!, order };
}

/** GET /posts/{id}/comments: the flat stream of a post's comments, sorted and paged. */
export function listPostComments(ctx: Ctx, caller: Caller | null, postId: string, f: ListCommentsFilters, page: Page): { items: CommentRow[]; total: number; has_more: boolean } {
  const { post, colony } = posts.getVisiblePost(ctx, caller, postId);
  const { where, order } = postCommentsQuery(ctx, caller, post, colony, f);
  const items = ctx.db.select().from(comments).where(where).orderBy(...order).limit(page.limit).offset(page.offset).all();
  const total = ctx.db.select({ n: count() }).from(comments).where(where).get()!.n;
  return { items, total, has_more: page.offset + items.length < total };
}

/**
 * Every thread member of a visible post, oldest first (at most THREAD_MAX), for trees. The same
 * WHERE as postCommentsQuery without filters, as one statement per audience (threadAudience)
 * prepared once: the context pack and the conversation read it every time.
 */
export function threadOf(ctx: Ctx, caller: Caller | null, post: PostRow, colony: ColonyRow, audience?: ThreadAudience): { items: CommentRow[]; truncated: boolean } {
  // Without an audience, any signed-in caller reads as a possible author (no query to find out).
  audience ??= !caller ? "public" : isModerator(ctx, colony, caller) ? "moderator" : "author";
  const db = ctx.db;
  // Raw rows mapped by mapComment: drizzle's own row mapping cost more than the query itself.
  const stmt = preparedSql(db, `comments.thread.${audience}`, () => {
    const held = audience === "moderator" ? undefined : audience === "author" ? or(eq(comments.held, false), eq(comments.authorId, sql.placeholder("viewer"))) : eq(comments.held, false);
    return db
      .select()
      .from(comments)
      .where(and(eq(comments.postId, sql.placeholder("post")), threadMember(), held))
      .orderBy(asc(comments.createdAt), asc(comments.id))
      .limit(THREAD_MAX + 1)
      .getSQL();
  });
  const rows = stmt.all({ post: post.id, viewer: caller?.id ?? null }).map(mapComment);
  return { items: rows.slice(0, THREAD_MAX), truncated: rows.length > THREAD_MAX };
}

/**
 * Which of a thread's comments a caller sees: every one (the colony's moderators), the unheld ones
 * and their own held ones (an author with a held comment on the post), or the unheld ones (anyone
 * else, who all see the same list).
 */
export type ThreadAudience = "moderator" | "author" | "public";

export function threadAudience(ctx: Ctx, caller: Caller | null, post: PostRow, colony: ColonyRow): ThreadAudience {
  if (!caller) return "public";
  if (isModerator(ctx, colony, caller)) return "moderator";
  const stmt = preparedSql(ctx.db, "comments.heldBy", () => sql`select 1 from ${comments} where ${comments.postId} = ${sql.placeholder("post")} and ${comments.authorId} = ${sql.placeholder("author")} and ${comments.held} = 1 limit 1`);
  return stmt.get({ post: post.id, author: caller.id }) ? "author" : "public";
}

/** How many live comments `userId` has on `postId` (the context pack's your_comment_count). */
export function commentCountBy(ctx: Ctx, postId: string, userId: string): number {
  const db = ctx.db;
  const stmt = prepared(db, "comments.countBy", () =>
    db
      .select({ n: count() })
      .from(comments)
      .where(and(eq(comments.postId, sql.placeholder("post")), eq(comments.authorId, sql.placeholder("author")), isNull(comments.deletedAt)))
      .prepare(),
  );
  return stmt.get({ post: postId, author: userId })!.n;
}
