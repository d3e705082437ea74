// What is gaining attention, computed at read time: trending tags (GET /search/trending/tags, spec
// Part 1 §4.9) and rising posts (GET /search/trending/posts/rising). The vote counts come from
// the votes feature as subqueries; tags and posts are this feature's.
import { sql } from "drizzle-orm";
import { HOUR } from "../../core/clock";
import type { Ctx } from "../../core/context";
import type { Page } from "../../core/paging";
import { rowMapper } from "../../db/statements";
import * as colonies from "../colonies/service";
import * as votes from "../votes/service";
import { postTags, posts, type PostRow } from "./tables";

const mapPost = rowMapper<PostRow>(posts);

const TRENDING_WINDOWS = { "24h": 24 * HOUR, "7d": 7 * 24 * HOUR } as const;
type TrendingWindow = keyof typeof TRENDING_WINDOWS;

interface TrendingTag {
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
    with v as (${votes.postUpvotesSince(since)})
    select pt.tag as tag,
      sum(case when ${posts.createdAt} >= ${since} then 1 else 0 end) as posts,
      coalesce(sum(v.n), 0) as votes,
      count(distinct ${posts.authorId}) as unique_authors
    from ${posts} join ${postTags} pt on pt.post_id = ${posts.id} left join v on v.post_id = ${posts.id}
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
    with v as (${votes.postPointsSince(since)})
    select ${posts}.*, v.pts as _pts from v join ${posts} on ${posts.id} = v.post_id where ${posts.listed} = 1 and ${readable}`);
  const scored = raw.map((r) => {
    const ageHours = Math.max(0, now - (r.created_at as number)) / HOUR;
    return { row: r, rising: (r._pts as number) / Math.pow(ageHours + 2, 1.5) };
  });
  scored.sort((a, b) => b.rising - a.rising || (b.row.created_at as number) - (a.row.created_at as number) || ((a.row.id as string) < (b.row.id as string) ? 1 : -1));
  return { items: scored.slice(page.offset, page.offset + page.limit).map((s) => mapPost(s.row)), total: scored.length };
}
