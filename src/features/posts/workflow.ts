// What the marketplace (and later facilitation) changes on a post row and reads from it: the
// workflow status, compare-and-set; a listing's closed_at; and the marketplace's task list, a
// query over posts with the list rules of GET /posts (listed, readable colonies). Nothing here
// decides who may do what: the calling feature does.
import { and, count, desc, eq, inArray, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import type { Page } from "../../core/paging";
import type { Tx } from "../../db/client";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import { posts, type PostRow, type PostStatus } from "./tables";

/**
 * Moves the post's workflow status to `to` when it is one of `from`, in the caller's transaction;
 * the row as it now is, or null when the status was not in `from` (someone moved it first).
 */
export function moveStatus(tx: Tx, postId: string, from: readonly PostStatus[], to: PostStatus): PostRow | null {
  return tx.update(posts).set({ status: to }).where(and(eq(posts.id, postId), inArray(posts.status, [...from]))).returning().get() ?? null;
}

/**
 * Closes (`at` an instant) or reopens (`at` null) a listing: only a change is written, so a
 * repeat changes nothing and keeps the first closing instant. The row when it changed, else null.
 */
export function setClosedAt(tx: Tx, postId: string, at: number | null): PostRow | null {
  const changes = at === null ? isNotNull(posts.closedAt) : isNull(posts.closedAt);
  return tx.update(posts).set({ closedAt: at }).where(and(eq(posts.id, postId), changes)).returning().get() ?? null;
}

export const TASK_SORTS = ["newest", "top", "budget"] as const;

export interface TaskListFilters {
  category?: string;
  status?: PostStatus;
  sort?: (typeof TASK_SORTS)[number];
}

/** A task's declared budget ceiling (metadata), null without one. */
const budgetMax = sql`json_extract(${posts.metadata}, '$.budget_max_sats')`;

/**
 * Listed paid_task posts the caller may read (public and restricted colonies, and the private
 * ones the caller is an approved member of), closed listings left out, newest first by default;
 * `top` by score, `budget` by budget_max_sats with tasks that declare none last
 * (docs/decisions.md §116). Read along posts_type_new_idx (post_type, listed, created_at).
 */
export function listPaidTasks(ctx: Ctx, caller: Caller | null, f: TaskListFilters, page: Page): { items: PostRow[]; total: number } {
  const conds: (SQL | undefined)[] = [
    eq(posts.postType, "paid_task"),
    eq(posts.listed, 1),
    isNull(posts.closedAt),
    colonies.readableColonyFilter(ctx, caller, posts.colonyId),
    f.status ? eq(posts.status, f.status) : undefined,
    f.category ? sql`json_extract(${posts.metadata}, '$.category') = ${f.category}` : undefined,
  ];
  const where = and(...conds);
  const order =
    f.sort === "top"
      ? // `+score`: the type index narrows to tasks first; walking the whole forum's score index would not.
        [sql`+${posts.score} desc`, desc(posts.createdAt), desc(posts.id)]
      : f.sort === "budget"
        ? [sql`(${budgetMax} is null)`, sql`${budgetMax} desc`, desc(posts.createdAt), desc(posts.id)]
        : [desc(posts.createdAt), desc(posts.id)];
  const total = ctx.db.select({ n: count() }).from(posts).where(where).get()!.n;
  const items = ctx.db.select().from(posts).where(where).orderBy(...order).limit(page.limit).offset(page.offset).all();
  return { items, total };
}
