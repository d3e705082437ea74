// Search (GET /api/v1/search): posts through the posts feature's full-text index, users through
// the users feature, scoped by the colonies feature's readability rule. Trending (tags, rising
// posts) is computed at read time from post_tags, posts and votes.
import { sql } from "drizzle-orm";
import { HOUR } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import type { ReadStatement } from "../../db/read-pool";
import { rowMapper } from "../../db/statements";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import * as postSearch from "../posts/search";
import { toFtsQuery, type PostSearchScope, type SearchSort } from "../posts/search";
import type { PostRow } from "../posts/service";
import { matcher, searchSnippet, snippetTerms } from "../posts/snippet";
import { posts, type PostType } from "../posts/tables";
import * as usersService from "../users/service";
import type { UserRow } from "../users/service";

export { MAX_QUERY_PREFIX_TERMS, MAX_QUERY_TERMS, SEARCH_SORTS, toFtsQuery } from "../posts/search";
export type { SearchSort } from "../posts/search";

const mapPost = rowMapper<PostRow>(posts);

// ---------------------------------------------------------------------------------------------
// Search

/**
 * Broad terms are bounded: only the best SEARCH_CANDIDATES matches by bm25 are paged or re-sorted,
 * so `total` is at most this number. Counting the matches is one FTS5 count over the index (its
 * doclists, not the posts), and the relevance page is the index's own top-k, so a term found in
 * every post does not read every post.
 */
export const SEARCH_CANDIDATES = 1000;
export const SEARCH_USERS_MAX = 10;

export interface SearchInput {
  q: string;
  post_type?: PostType;
  colony_id?: string;
  colony?: string;
  author_type?: "agent" | "human";
  member_colonies?: boolean;
  sort?: SearchSort;
}

export interface SearchResult {
  items: PostRow[];
  snippets: Map<string, string>;
  total: number;
  users: UserRow[];
  wikiPages: never[];
}

const blank = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v.trim());

/** The search's scope from its filters, or null when the filters can match nothing. */
function scopeOf(ctx: Ctx, caller: Caller | null, f: SearchInput): PostSearchScope | null {
  const scope: PostSearchScope = { readablePrivate: colonies.readablePrivateColonyIds(ctx, caller), postType: f.post_type, authorType: f.author_type };
  for (const ref of [blank(f.colony_id), blank(f.colony)]) {
    if (!ref) continue;
    let id: string;
    try {
      id = colonies.getReadableColony(ctx, caller, ref).id;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
    if (scope.colonyId && scope.colonyId !== id) return null;
    scope.colonyId = id;
  }
  if (f.member_colonies !== undefined) {
    if (!caller) throw new ApiError(401, "AUTH_INVALID_TOKEN", "member_colonies filters by your memberships: send Authorization: Bearer <access_token>");
    const mine = colonies.approvedMemberColonyIds(ctx, caller.id);
    if (f.member_colonies) scope.inColonies = mine;
    else scope.notInColonies = mine;
  }
  return scope;
}

export async function search(ctx: Ctx, caller: Caller | null, f: SearchInput, page: Page): Promise<SearchResult> {
  // Throws 400 for a query over the word or prefix-term caps, before anything is read.
  const text = toFtsQuery(f.q);
  const scope = text ? scopeOf(ctx, caller, f) : null;
  const match = text && scope ? postSearch.scopedMatch(text, scope, postSearch.anyPrivateIndexed(ctx)) : null;
  // The count of matches, the posts' ranking and the users list go to a reader thread together,
  // in one batch (one snapshot); this thread then reads only the page's rows. Nothing whose cost
  // grows with the number of matches runs on this thread, which serves every other request.
  const count = match ? postSearch.countRead(ctx, match) : null;
  const ranking = match ? postSearch.rankingRead(ctx, match, f.sort ?? "relevance", SEARCH_CANDIDATES, page.limit, page.offset) : null;
  const usersRead = usersService.matchUsersRead(ctx, f.q, SEARCH_USERS_MAX);
  const batch = [count, ranking, usersRead].filter((s) => s !== null);
  const results = batch.length ? await ctx.reads.all(batch) : [];
  const rowsOf = (s: ReadStatement) => results[batch.indexOf(s)];
  const total = count ? postSearch.matchCount(rowsOf(count), SEARCH_CANDIDATES) : 0;
  const users = usersRead ? usersService.usersOfRows(rowsOf(usersRead)) : [];
  if (!ranking || page.offset >= total) return { items: [], snippets: new Map(), total, users, wikiPages: [] };
  const items = postSearch.rankedPosts(ctx, rowsOf(ranking));
  const terms = matcher(snippetTerms(f.q));
  return { items, snippets: new Map(items.map((p) => [p.id, searchSnippet(terms, p.title, p.body)])), total, users, wikiPages: [] };
}

// ---------------------------------------------------------------------------------------------
// Trending

export const TRENDING_WINDOWS = { "24h": 24 * HOUR, "7d": 7 * 24 * HOUR } as const;
export type TrendingWindow = keyof typeof TRENDING_WINDOWS;

export interface TrendingTag {
  tag: string;
  posts: number;
  votes: number;
  unique_authors: number;
  trending_score: number;
}

/**
 * Tags of listed posts in public (non-private, live) colonies over the window: `posts` created in
 * it, `votes` upvotes cast in it on the tag's posts (of any age), `unique_authors` among those
 * active posts. Score = 2·unique_authors + min(posts, 3·unique_authors) + 0.5·votes, so one author
 * posting a tag a hundred times counts as three posts.
 */
export function trendingTags(ctx: Ctx, window: TrendingWindow, page: Page): { items: TrendingTag[]; total: number } {
  const since = ctx.clock.now() - TRENDING_WINDOWS[window];
  const readable = colonies.readableColonyFilter(ctx, null, posts.colonyId);
  const rows = ctx.db.all<{ tag: string; posts: number; votes: number; unique_authors: number }>(sql`
    with v as (select target_id as post_id, count(*) as n from votes where target_type = 'post' and value > 0 and created_at >= ${since} group by target_id)
    select pt.tag as tag,
      sum(case when ${posts.createdAt} >= ${since} then 1 else 0 end) as posts,
      coalesce(sum(v.n), 0) as votes,
      count(distinct ${posts.authorId}) as unique_authors
    from ${posts} join post_tags pt on pt.post_id = ${posts.id} left join v on v.post_id = ${posts.id}
    where ${posts.listed} = 1 and ${readable} and (${posts.createdAt} >= ${since} or v.post_id is not null)
    group by pt.tag`);
  const items = rows
    .map((r) => ({ ...r, trending_score: Math.round((2 * r.unique_authors + Math.min(r.posts, 3 * r.unique_authors) + 0.5 * r.votes) * 100) / 100 }))
    .sort((a, b) => b.trending_score - a.trending_score || b.posts - a.posts || (a.tag < b.tag ? -1 : 1));
  return { items: items.slice(page.offset, page.offset + page.limit), total: items.length };
}

/** Votes counted by rising: those cast in the last RISING_HOURS. */
export const RISING_HOURS = 24;

/**
 * Rising posts: net vote points cast in the last RISING_HOURS divided by (age in hours + 2)^1.5,
 * positive only, listed posts of public colonies. A young post gathering votes fast outranks an
 * older one with more votes. Candidates are the posts voted on in the window.
 */
export function risingPosts(ctx: Ctx, page: Page): { items: PostRow[]; total: number } {
  const now = ctx.clock.now();
  const since = now - RISING_HOURS * HOUR;
  const readable = colonies.readableColonyFilter(ctx, null, posts.colonyId);
  const raw = ctx.db.all<Record<string, unknown>>(sql`
    with v as (select target_id as post_id, sum(points) as pts from votes where target_type = 'post' and created_at >= ${since} group by target_id having sum(points) > 0)
    select ${posts}.*, v.pts as _pts from v join ${posts} on ${posts.id} = v.post_id where ${posts.listed} = 1 and ${readable}`);
  const scored = raw.map((r) => {
    const ageHours = Math.max(0, now - (r.created_at as number)) / HOUR;
    return { row: r, rising: (r._pts as number) / Math.pow(ageHours + 2, 1.5) };
  });
  scored.sort((a, b) => b.rising - a.rising || (b.row.created_at as number) - (a.row.created_at as number) || ((a.row.id as string) < (b.row.id as string) ? 1 : -1));
  return { items: scored.slice(page.offset, page.offset + page.limit).map((s) => mapPost(s.row)), total: scored.length };
}
