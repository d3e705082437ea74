// Queries over posts for other features: fragments for their list queries (they never touch the
// posts table directly), the context pack's related-posts lookup, and the reads behind feeds,
// polling and achievements.
import { and, count, desc, eq, gte, inArray, isNull, ne, or, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Ctx } from "../../core/context";
import type { Db } from "../../db/client";
import { prepared, preparedSql } from "../../db/statements";
import { oldestAfter, type Window } from "../../db/window";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import { posts, type PostRow, type PostType } from "./tables";

/**
 * A WHERE condition: the post named by `postIdColumn` is listed (published, not held, not
 * deleted). A primary-key probe per candidate row.
 */
export function listedPostFilter(postIdColumn: SQLiteColumn): SQL {
  return sql`exists (select 1 from ${posts} where ${posts.id} = ${postIdColumn} and ${posts.listed} = 1)`;
}

/**
 * A WHERE condition: the post named by `postIdColumn` is listed and in a colony the caller may
 * read (colonies.readableColonyFilter). A primary-key probe per candidate row.
 */
export function readableListedPostFilter(ctx: Ctx, caller: Caller | null, postIdColumn: SQLiteColumn): SQL {
  return sql`exists (select 1 from ${posts} where ${posts.id} = ${postIdColumn} and ${posts.listed} = 1 and ${colonies.readableColonyFilter(ctx, caller, posts.colonyId)})`;
}

/** The titles of the posts, by id (no visibility check; for features that already filtered by it). */
export function postTitles(ctx: Ctx, ids: readonly string[]): Map<string, string> {
  if (!ids.length) return new Map();
  const rows = ctx.db.select({ id: posts.id, title: posts.title }).from(posts).where(inArray(posts.id, [...new Set(ids)])).all();
  return new Map(rows.map((r) => [r.id, r.title]));
}

const RELATED_MAX = 5;
/** Tags of the post considered for related posts (a post has at most 10). */
const RELATED_TAG_SCAN = 200;

interface RelatedPost {
  id: string;
  title: string;
  postType: PostRow["postType"];
  colonyId: string;
  score: number;
  commentCount: number;
  createdAt: number;
}

type Viewer = "anonymous" | "admin" | "member";

/** The candidates' listed, readable posts, most shared tags first, then newest id: one cached statement per kind of viewer. */
function relatedStatement(ctx: Ctx, viewer: Viewer) {
  const db = ctx.db;
  return preparedSql(db, `posts.related.${viewer}`, () => {
    // readableColonyFilter with the viewer's id as a placeholder, so the statement is shared by every member.
    const actor = viewer === "anonymous" ? null : { id: sql.placeholder("viewer") as unknown as string, isAdmin: viewer === "admin" };
    const shared = sql<number>`cast(c.value as integer)`;
    return db
      .select({
        id: posts.id,
        title: posts.title,
        postType: posts.postType,
        colonyId: posts.colonyId,
        score: posts.score,
        commentCount: posts.commentCount,
        createdAt: posts.createdAt,
      })
      .from(sql`json_each(${sql.placeholder("candidates")}) as c`)
      .innerJoin(posts, sql`${posts.id} = c.key`)
      .where(and(eq(posts.listed, 1), colonies.readableColonyFilter(ctx, actor, posts.colonyId)))
      .orderBy(desc(shared), desc(posts.id))
      .limit(sql.placeholder("max"))
      .getSQL();
  });
}

/** A related post from its raw row (the statement's columns). */
const relatedOf = (r: Record<string, unknown>): RelatedPost => ({
  id: r.id as string,
  title: r.title as string,
  postType: r.post_type as RelatedPost["postType"],
  colonyId: r.colony_id as string,
  score: r.score as number,
  commentCount: r.comment_count as number,
  createdAt: r.created_at as number,
});

/**
 * Listed posts the caller may read sharing tags with `post`, most shared tags first, then newest
 * (by id, which is time-ordered).
 * Bounded: each tag contributes at most RELATED_TAG_SCAN of its newest post ids through the
 * (tag, post_id) primary key, so a popular tag never scans its whole history. The candidates go
 * to SQLite as one JSON object (id: shared count), which ranks them and returns only `max` rows
 * of the columns the context pack shows.
 */
export function relatedPosts(ctx: Ctx, caller: Caller | null, post: PostRow, max = RELATED_MAX): { post: RelatedPost; shared: string[] }[] {
  if (!post.tags.length) return [];
  const db = ctx.db;
  const byTag = prepared(db, "posts.related.byTag", () =>
    db.$client.prepare<[string], [string, string]>(`select post_id from post_tags where tag = ? and post_id <> ? order by post_id desc limit ${RELATED_TAG_SCAN}`),
  );
  const shared = new Map<string, string[]>();
  for (const tag of post.tags) {
    for (const row of byTag.values(tag, post.id)) {
      const id = row[0] as string;
      const tags = shared.get(id);
      if (tags) tags.push(tag);
      else shared.set(id, [tag]);
    }
  }
  if (!shared.size) return [];
  // Ranked here, looked up in growing batches: most candidates are never read (a context pack
  // shows `max` of up to a thousand), and each lookup is a primary-key probe plus the readability
  // check. Ids are time-ordered (uuidv7), so id order is newest first, as the tag scan reads them.
  const ranked = [...shared].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0));
  const viewer: Viewer = !caller ? "anonymous" : caller.isAdmin ? "admin" : "member";
  const stmt = relatedStatement(ctx, viewer);
  const out: { post: RelatedPost; shared: string[] }[] = [];
  for (let start = 0, size = max * 4; start < ranked.length && out.length < max; start += size, size *= 4) {
    const candidates: Record<string, number> = {};
    for (const [id, tags] of ranked.slice(start, start + size)) candidates[id] = tags.length;
    for (const r of stmt.all({ candidates: JSON.stringify(candidates), max: max - out.length, viewer: caller?.id ?? null })) {
      const p = relatedOf(r);
      out.push({ post: p, shared: shared.get(p.id)! });
    }
  }
  return out;
}

/** Whether the user has ever written a post (any row, deleted or unpublished ones included). */
export function hasPosted(db: Pick<Db, "select">, userId: string): boolean {
  return !!db.select({ id: posts.id }).from(posts).where(eq(posts.authorId, userId)).limit(1).get();
}

/** The author's own posts held for review (live, not deleted), newest first: GET /me/probation. */
export function heldPostsOf(ctx: Ctx, userId: string, limit = 50): { count: number; ids: string[]; explanations: string[] } {
  const where = and(eq(posts.authorId, userId), eq(posts.held, true), isNull(posts.deletedAt));
  const n = ctx.db.select({ n: count() }).from(posts).where(where).get()?.n ?? 0;
  if (!n) return { count: 0, ids: [], explanations: [] };
  const rows = ctx.db.select({ id: posts.id, why: posts.heldExplanation }).from(posts).where(where).orderBy(desc(posts.createdAt)).limit(limit).all();
  return { count: n, ids: rows.map((r) => r.id), explanations: [...new Set(rows.map((r) => r.why).filter((w): w is string => !!w))] };
}

/** The author's published, not deleted posts, optionally of one type (achievements, onboarding). */
export function publishedPostCount(ctx: Ctx, userId: string, postType?: PostType): number {
  const where = and(eq(posts.authorId, userId), eq(posts.state, "published"), isNull(posts.deletedAt), postType ? eq(posts.postType, postType) : undefined);
  return ctx.db.select({ n: count() }).from(posts).where(where).get()?.n ?? 0;
}

/** Listed posts of the given colonies in a time window, oldest first, not by `excludeAuthor` (GET /since). */
export function listedPostsAfter(ctx: Ctx, colonyIds: readonly string[], excludeAuthor: string, w: Window, limit: number): { rows: PostRow[]; truncated: boolean } {
  if (!colonyIds.length) return { rows: [], truncated: false };
  return oldestAfter<PostRow>(ctx.db, posts, posts.createdAt, posts.id, and(eq(posts.listed, 1), inArray(posts.colonyId, [...colonyIds]), ne(posts.authorId, excludeAuthor)), w, limit);
}

/**
 * GET /delta's post stream: the oldest listed posts in (since, upper] in public (non-private,
 * live) colonies, excluding `excludeAuthor`'s own when given.
 */
export function publicListedPostsAfter(ctx: Ctx, excludeAuthor: string | null, w: Window, limit: number): { rows: PostRow[]; truncated: boolean } {
  const where = and(eq(posts.listed, 1), colonies.readableColonyFilter(ctx, null, posts.colonyId), excludeAuthor ? ne(posts.authorId, excludeAuthor) : undefined);
  return oldestAfter<PostRow>(ctx.db, posts, posts.createdAt, posts.id, where, w, limit);
}

/** A subquery of the ids of `authorId`'s posts that are not deleted (for other features' IN filters). */
export function livePostIdsBy(ctx: Ctx, authorId: string) {
  return ctx.db.select({ id: posts.id }).from(posts).where(and(eq(posts.authorId, authorId), isNull(posts.deletedAt)));
}

/** The columns feed ranking reads: candidates are ranked on these, full rows are read only for the page shown. */
type FeedCandidate = Pick<PostRow, "id" | "authorId" | "colonyId" | "postType" | "title" | "score" | "commentCount" | "createdAt" | "hot">;

const candidateColumns = { id: posts.id, authorId: posts.authorId, colonyId: posts.colonyId, postType: posts.postType, title: posts.title, score: posts.score, commentCount: posts.commentCount, createdAt: posts.createdAt, hot: posts.hot };
const hotFirst = (a: FeedCandidate, b: FeedCandidate) => b.hot - a.hot || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * Listed posts the caller may read since `since`, not the caller's own, hottest first: either
 * by the given authors or in the given colonies, or (discovery) any with score >= minScore or
 * comment_count >= minReplies. Colonies are read one at a time down their (colony, hot) index —
 * an IN list over several colonies made SQLite sort every post of the window first (60+ ms for a
 * member of nine busy colonies) — and merged with the authors' posts.
 */
export function feedCandidatePosts(
  ctx: Ctx,
  caller: Caller,
  f: { since: number; authorIds?: readonly string[]; colonyIds?: readonly string[]; discovery?: { minScore: number; minReplies: number }; postType?: PostType; limit: number },
): FeedCandidate[] {
  const base = [eq(posts.listed, 1), gte(posts.createdAt, f.since), ne(posts.authorId, caller.id), f.postType ? eq(posts.postType, f.postType) : undefined];
  const query = (scope: SQL | undefined, readable: boolean, limit = f.limit) =>
    ctx.db
      .select(candidateColumns)
      .from(posts)
      .where(and(...base, scope, readable ? colonies.readableColonyFilter(ctx, caller, posts.colonyId) : undefined))
      .orderBy(desc(posts.hot), desc(posts.id))
      .limit(limit)
      .all();
  if (f.discovery) return query(or(gte(posts.score, f.discovery.minScore), gte(posts.commentCount, f.discovery.minReplies)), true);
  const found = new Map<string, FeedCandidate>();
  if (f.authorIds?.length) for (const p of query(inArray(posts.authorId, [...f.authorIds]), true)) found.set(p.id, p);
  // Each colony contributes its hottest posts, at most twice its even share of `limit` (a
  // busy colony cannot fill the pool alone; the feed keeps a third per colony anyway).
  const ids = f.colonyIds ?? [];
  const share = Math.max(50, Math.ceil((2 * f.limit) / Math.max(1, ids.length)));
  const live = colonies.findColonies(ctx, ids);
  for (const id of ids) {
    const colony = live.get(id);
    if (!colony || colony.deletedAt !== null || !colonies.canRead(ctx, colony, caller)) continue;
    for (const p of query(eq(posts.colonyId, id), false, Math.min(f.limit, share))) found.set(p.id, p);
  }
  return [...found.values()].sort(hotFirst).slice(0, f.limit);
}

/** Authors of listed posts in the given colonies since `since`, most posts first (follow suggestions). */
export function activeAuthorsIn(ctx: Ctx, colonyIds: readonly string[], since: number, limit: number): { authorId: string; posts: number }[] {
  if (!colonyIds.length) return [];
  return ctx.db
    .select({ authorId: posts.authorId, posts: count() })
    .from(posts)
    .where(and(eq(posts.listed, 1), inArray(posts.colonyId, [...colonyIds]), gte(posts.createdAt, since)))
    .groupBy(posts.authorId)
    .orderBy(desc(count()), posts.authorId)
    .limit(limit)
    .all();
}

/** A subquery of the ids of the user's live (not deleted) posts, for other features' WHERE clauses. */
export function livePostIdsOfQuery(ctx: Ctx, userId: string) {
  return ctx.db.select({ id: posts.id }).from(posts).where(and(eq(posts.authorId, userId), isNull(posts.deletedAt)));
}
