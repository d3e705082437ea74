// Search (GET /api/v1/search) over the posts_fts FTS5 index (migrations/0009_posts_fts.sql), and
// trending (tags, rising posts) computed at read time from post_tags, posts and votes.
// These are read-only aggregate queries across the posts, votes and users tables; they reuse the
// colonies service's readability rule and the posts views for rendering.
import { and, eq, inArray, notInArray, sql, type SQL } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import type { Page } from "../../http/paging";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import type { PostRow } from "../posts/service";
import type { PostType } from "../posts/tables";
import { rowMapper } from "../../db/statements";
import { posts } from "../posts/tables";
import type { UserRow } from "../users/service";
import { users } from "../users/tables";

const HOUR = 3600_000;

// ---------------------------------------------------------------------------------------------
// Query text -> FTS5 query

/**
 * Converts user input into a safe FTS5 query: every bare word becomes a quoted string ("tok"),
 * a word ending in * keeps its prefix star ("tok"*), a "quoted phrase" stays a phrase, and the
 * terms are ANDed. FTS5 operators and column filters in the input are never interpreted. Returns
 * null when the input holds no searchable token.
 */
export function toFtsQuery(input: string): string | null {
  const parts: string[] = [];
  const words = (s: string) => s.match(/[\p{L}\p{N}_]+/gu) ?? [];
  const re = /"([^"]*)"|([^\s"]+)/g;
  for (let m = re.exec(input); m; m = re.exec(input)) {
    if (m[1] !== undefined) {
      const toks = words(m[1]);
      if (toks.length) parts.push(`"${toks.join(" ")}"`);
      continue;
    }
    const raw = m[2];
    const toks = words(raw);
    if (!toks.length) continue;
    const prefix = raw.endsWith("*");
    parts.push(`"${toks.join(" ")}"${prefix ? "*" : ""}`);
  }
  return parts.length ? parts.join(" ") : null;
}

// ---------------------------------------------------------------------------------------------
// Search

/**
 * Broad terms are bounded: only the best SEARCH_CANDIDATES matches by bm25 are joined to posts,
 * filtered and sorted, so `total` is at most this number and a term found in every post costs the
 * same as a rarer one. Filters apply after the cap.
 */
export const SEARCH_CANDIDATES = 1000;
export const SEARCH_USERS_MAX = 10;
export const SEARCH_SORTS = ["relevance", "newest", "oldest", "top", "discussed"] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

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
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => "\\" + c);
const mapPost = rowMapper<PostRow>(posts);
const mapUser = rowMapper<UserRow>(users);

/** Title hits weigh more than body hits. */
const BM25 = sql`bm25(posts_fts, 5.0, 1.0)`;

/** The post conditions of a search, or null when the filters can match nothing. */
function postConditions(ctx: Ctx, caller: Caller | null, f: SearchInput): SQL | null {
  const conds: (SQL | undefined)[] = [eq(posts.listed, 1)];
  let colonyScoped = false;
  for (const ref of [blank(f.colony_id), blank(f.colony)]) {
    if (!ref) continue;
    try {
      conds.push(eq(posts.colonyId, colonies.getReadableColony(ctx, caller, ref).id));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
    colonyScoped = true;
  }
  if (f.member_colonies !== undefined) {
    if (!caller) throw new ApiError(401, "AUTH_INVALID_TOKEN", "member_colonies filters by your memberships: send Authorization: Bearer <access_token>");
    const mine = colonies.approvedMemberColonyIds(ctx, caller.id);
    if (f.member_colonies) {
      if (!mine.length) return null;
      conds.push(inArray(posts.colonyId, mine));
    } else if (mine.length) conds.push(notInArray(posts.colonyId, mine));
  }
  // Private colonies' posts only for their approved members (and admins).
  if (!colonyScoped) conds.push(colonies.readableColonyFilter(ctx, caller, posts.colonyId));
  if (f.post_type) conds.push(eq(posts.postType, f.post_type));
  if (f.author_type) conds.push(eq(posts.authorType, f.author_type));
  return and(...conds)!;
}

function orderOf(sort: SearchSort, m: "m" | "p" = "m"): SQL {
  const rank = sql.raw(`${m}.rank`);
  switch (sort) {
    case "newest":
      return sql`${posts.createdAt} desc, ${posts.id} desc`;
    case "oldest":
      return sql`${posts.createdAt} asc, ${posts.id} asc`;
    case "top":
      return sql`${posts.score} desc, ${rank} asc, ${posts.createdAt} desc, ${posts.id} desc`;
    case "discussed":
      return sql`${posts.commentCount} desc, ${rank} asc, ${posts.createdAt} desc, ${posts.id} desc`;
    default:
      return sql`${rank} asc, ${posts.createdAt} desc, ${posts.id} desc`;
  }
}

/** Active users whose username or display name contains the text, best match first. */
function matchingUsers(ctx: Ctx, q: string): UserRow[] {
  const term = q.replace(/["*]/g, " ").trim().toLowerCase();
  if (term.length < 2) return [];
  const like = `%${likeEscape(term)}%`;
  const rows = ctx.db.all<Record<string, unknown>>(sql`
    select * from ${users}
    where ${users.status} = 'active' and (lower(${users.username}) like ${like} escape '\\' or lower(${users.displayName}) like ${like} escape '\\')
    order by case when lower(${users.username}) = ${term} then 0 when lower(${users.username}) like ${likeEscape(term) + "%"} escape '\\' then 1 when lower(${users.displayName}) = ${term} then 2 else 3 end,
      ${users.karma} desc, ${users.username} asc
    limit ${SEARCH_USERS_MAX}`);
  return rows.map(mapUser);
}

export function search(ctx: Ctx, caller: Caller | null, f: SearchInput, page: Page): SearchResult {
  const where = postConditions(ctx, caller, f);
  const users = matchingUsers(ctx, f.q);
  const empty: SearchResult = { items: [], snippets: new Map(), total: 0, users, wikiPages: [] };
  const match = toFtsQuery(f.q);
  if (!match || !where) return empty;
  const candidates = sql`with m as (select rowid as rid, ${BM25} as rank from posts_fts where posts_fts match ${match} order by rank limit ${SEARCH_CANDIDATES})`;
  // One pass over the FTS index: the total comes with the page (count(*) over the filtered
  // candidates), and the page is chosen on keys before the full rows of only its posts are read.
  // Only a page past the end needs a separate count.
  const sort = f.sort ?? "relevance";
  const raw = ctx.db.all<Record<string, unknown>>(
    sql`${candidates}, p as (select m.rid, m.rank, count(*) over () as total from m join ${posts} on ${posts}.rowid = m.rid where ${where} order by ${orderOf(sort)} limit ${page.limit} offset ${page.offset})
        select ${posts}.*, ${posts}.rowid as _rid, p.total as _total from p join ${posts} on ${posts}.rowid = p.rid order by ${orderOf(sort, "p")}`,
  );
  const total = raw.length
    ? (raw[0]._total as number)
    : ctx.db.all<{ n: number }>(sql`${candidates} select count(*) as n from m join ${posts} on ${posts}.rowid = m.rid where ${where}`)[0].n;
  if (!total || page.offset >= total) return { ...empty, total };
  const items = raw.map(mapPost);
  const snippets = new Map<string, string>();
  if (raw.length) {
    const rids = raw.map((r) => r._rid as number);
    const byRid = new Map(raw.map((r) => [r._rid as number, r.id as string]));
    const rows = ctx.db.all<{ rid: number; title: string; body: string }>(
      sql`select rowid as rid, snippet(posts_fts, 0, '**', '**', '…', 16) as title, snippet(posts_fts, 1, '**', '**', '…', 24) as body
          from posts_fts where posts_fts match ${match} and rowid in (select value from json_each(${JSON.stringify(rids)}))`,
    );
    // The body's excerpt, or the title's when the match is only in the title.
    for (const r of rows) snippets.set(byRid.get(r.rid)!, r.body.includes("**") || !r.title.includes("**") ? r.body : r.title);
  }
  return { items, snippets, total, users, wikiPages: [] };
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
