// Search (GET /api/v1/search): posts through the posts feature's full-text index, users through
// the users feature, scoped by the colonies feature's readability rule. Trending tags and rising
// posts are the posts feature's (posts/trending.ts).
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import type { ReadStatement } from "../../db/read-pool";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import * as postSearch from "../posts/search";
import { toFtsQuery, type PostSearchScope, type SearchSort } from "../posts/search";
import type { PostRow } from "../posts/service";
import { matcher, searchSnippet, snippetTerms } from "../posts/snippet";
import type { PostType } from "../posts/tables";
import * as usersService from "../users/service";
import * as wikiSearch from "../wiki/search";
import type { WikiHit } from "../wiki/search";
import type { UserRow } from "../users/service";

export { MAX_QUERY_PREFIX_TERMS, MAX_QUERY_TERMS, SEARCH_SORTS, toFtsQuery } from "../posts/search";
export type { SearchSort } from "../posts/search";

// ---------------------------------------------------------------------------------------------
// Search

/**
 * Broad terms are bounded: only the best SEARCH_CANDIDATES matches by bm25 (among the newest
 * RANK_WINDOW, posts/search.ts) are paged or re-sorted, so `total` is at most this number.
 * Counting the matches stops past it, and the relevance page is the index's own top-k, so a term
 * found in every post does not read every post.
 */
export const SEARCH_CANDIDATES = 1000;
export const SEARCH_USERS_MAX = 10;

interface SearchInput {
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
  wikiPages: WikiHit[];
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

/** Searches of one caller (an account, or a client address) that may run at once. */
export const MAX_SEARCHES_PER_CALLER = 2;
const running = new WeakMap<Ctx, Map<string, number>>();

/**
 * Runs `fn` as one of `who`'s searches: at most MAX_SEARCHES_PER_CALLER at once (in this
 * process), a further one is 429 RATE_LIMIT_SEARCH with Retry-After: 1. The reader thread ranks
 * searches one after another, so a caller sending many costly searches at once would otherwise
 * make every other caller's search wait behind all of them.
 */
export async function oneOfCallersSearches<T>(ctx: Ctx, who: string, fn: () => Promise<T>): Promise<T> {
  let counts = running.get(ctx);
  if (!counts) running.set(ctx, (counts = new Map()));
  const n = counts.get(who) ?? 0;
  if (n >= MAX_SEARCHES_PER_CALLER) {
    throw new ApiError(429, "RATE_LIMIT_SEARCH", `At most ${MAX_SEARCHES_PER_CALLER} of your searches run at once; send the next when one has answered`, { retry_after: 1 }, { "retry-after": "1" });
  }
  counts.set(who, n + 1);
  try {
    return await fn();
  } finally {
    const left = (counts.get(who) ?? 1) - 1;
    if (left > 0) counts.set(who, left);
    else counts.delete(who);
  }
}

/**
 * Posts, users and wiki pages matching the query. Wiki pages are left out when the query is for
 * posts only (post_type or member_colonies); the colony filter keeps that colony's pages.
 */
export async function search(ctx: Ctx, caller: Caller | null, f: SearchInput, page: Page): Promise<SearchResult> {
  // Throws 400 for a query over the word or prefix-term caps, before anything is read.
  const text = toFtsQuery(f.q);
  // Posts written since the last batch enter the index first: a search finds what came before it.
  if (text) postSearch.indexPending(ctx);
  // Throws 400 for a prefix term that reaches too many words of the index, before it is searched.
  if (text) postSearch.assertPrefixReach(ctx, f.q);
  const scope = text ? scopeOf(ctx, caller, f) : null;
  const match = text && scope ? postSearch.scopedMatch(text, scope, postSearch.anyPrivateIndexed(ctx)) : null;
  // The count of matches, the posts' ranking and the users list go to a reader thread together,
  // in one batch (one snapshot); this thread then reads only the page's rows. Nothing whose cost
  // grows with the number of matches runs on this thread, which serves every other request.
  const count = match ? postSearch.countRead(ctx, match, SEARCH_CANDIDATES) : null;
  const ranking = match ? postSearch.rankingRead(ctx, match, f.sort ?? "relevance", SEARCH_CANDIDATES, page.limit, page.offset) : null;
  const usersRead = usersService.matchUsersRead(ctx, f.q, SEARCH_USERS_MAX);
  const postsOnly = f.post_type !== undefined || f.member_colonies !== undefined;
  const wikiRead = text && scope && !postsOnly ? wikiSearch.wikiMatchRead(ctx, text) : null;
  const batch = [count, ranking, usersRead, wikiRead].filter((s) => s !== null);
  const results = batch.length ? await ctx.reads.all(batch) : [];
  const rowsOf = (s: ReadStatement) => results[batch.indexOf(s)];
  const total = count ? postSearch.matchCount(rowsOf(count), SEARCH_CANDIDATES) : 0;
  const users = usersRead ? usersService.usersOfRows(rowsOf(usersRead)) : [];
  const wikiPages = wikiRead ? wikiSearch.wikiHits(ctx, caller, f.q, rowsOf(wikiRead), scope?.colonyId) : [];
  if (!ranking || page.offset >= total) return { items: [], snippets: new Map(), total, users, wikiPages };
  const items = postSearch.rankedPosts(ctx, rowsOf(ranking));
  const terms = matcher(snippetTerms(f.q));
  return { items, snippets: new Map(items.map((p) => [p.id, searchSnippet(terms, p.title, p.body)])), total, users, wikiPages };
}
