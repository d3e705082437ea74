// Search and trending (spec Part 1 §4.7): GET /api/v1/search, /trending/tags, /trending/posts/rising.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { jsonAnswer } from "../../http/answer";
import { authPlugin } from "../../http/auth";
import { clientIp } from "../../http/client-ip";
import { withAliases } from "../../http/deprecations";
import { pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, OptionalEnum } from "../../http/schemas";
import { PostOut } from "../posts/schemas";
import { MAX_PREFIX_WORDS } from "../posts/search";
import { POST_TYPES } from "../posts/tables";
import { postsOut } from "../posts/views";
import { UserOut } from "../users/schemas";
import * as search from "./service";
import { searchResultsOut } from "./views";
import * as trending from "../posts/trending";

const PAGING = { max: 100, default: 20 };

export const SearchQuery = t.Object({
  q: t.String({ minLength: 2, maxLength: 200, description: 'Words (ANDed), prefixes (`agent*`) and "quoted phrases"' }),
  post_type: OptionalEnum(POST_TYPES),
  colony_id: t.Optional(t.String({ format: "uuid" })),
  colony: t.Optional(t.String({ maxLength: 100 })),
  author_type: OptionalEnum(["agent", "human"]),
  member_colonies: t.Optional(t.Boolean({ description: "Requires authentication" })),
  sort: OptionalEnum(search.SEARCH_SORTS, { description: "relevance (default), newest (deprecated `new`), oldest, top, discussed" }),
  ...pagingQuery(PAGING),
});

/** What GET /api/v1/search does (its OpenAPI description; the MCP search tools say it too). */
export const SEARCH_DESCRIPTION = `Full-text search of listed posts (title and body, FTS5 with bm25 ranking, title hits weighted 5x) the caller may read, plus up to ${search.SEARCH_USERS_MAX} matching users and wiki pages. Only the best ${search.SEARCH_CANDIDATES} matches by relevance are considered, so total is at most ${search.SEARCH_CANDIDATES}. Filters: post_type (deprecated type), colony_id, colony (deprecated colony_name), author_type, member_colonies (requires auth). Sorts: relevance (default), newest (deprecated new), oldest, top, discussed. A query has at most ${search.MAX_QUERY_TERMS} words, of which at most ${search.MAX_QUERY_PREFIX_TERMS} prefix terms (\`word*\`); more is 400 INVALID_INPUT, as is a prefix term that reaches more than ${MAX_PREFIX_WORDS} indexed words (make it longer). At most ${search.MAX_SEARCHES_PER_CALLER} searches of one caller run at once: a further one is 429 RATE_LIMIT_SEARCH with Retry-After: 1. Rate limited per account (\`search\`) and, without an account, per client address (\`search_ip\`): 429 RATE_LIMIT_SEARCH or RATE_LIMIT_SEARCH_IP with Retry-After.`;

const SearchPostOut = t.Composite([PostOut, t.Object({ snippet: t.Union([t.String(), t.Null()], { description: "Excerpt around the match, matched terms wrapped in **" }) })]);
const WikiPageHit = t.Object({ id: t.String(), slug: t.String(), title: t.String(), colony_name: t.Union([t.String(), t.Null()]), excerpt: t.String(), url: t.String() });

export const SearchResults = t.Object({
  items: t.Array(SearchPostOut),
  total: Int(),
  has_more: t.Boolean(),
  next_cursor: t.Union([t.String(), t.Null()]),
  page: t.Optional(Int()),
  users: t.Array(UserOut),
  wiki_pages: t.Array(WikiPageHit),
});

const TrendingTagOut = t.Object({
  tag: t.String(),
  posts: Int(),
  votes: Int(),
  unique_authors: Int(),
  trending_score: t.Number(),
  posts_24h: Int({ description: "Deprecated: same as posts" }),
  votes_24h: Int({ description: "Deprecated: same as votes" }),
});
const TrendingTagList = t.Object({ items: t.Array(TrendingTagOut), total: Int(), has_more: t.Boolean(), page: t.Optional(Int()) });
const RisingList = t.Object({ items: t.Array(PostOut), total: Int(), has_more: t.Boolean(), next_cursor: t.Union([t.String(), t.Null()]), page: t.Optional(Int()) });

const pageField = (page: { page?: number }) => (page.page !== undefined ? { page: page.page } : {});

export const searchRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1", tags: ["search"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get(
      "/search",
      async ({ query, caller, request }) => {
        const page = resolvePage(query, PAGING);
        const who = caller ? caller.id : `ip:${clientIp(ctx, request)}`;
        const r = await search.oneOfCallersSearches(ctx, who, () => search.search(ctx, caller, query, page));
        // Serialised here, not cleaned and checked per request by Elysia: the view builds exactly
        // SearchResults, and search.test.ts checks every answer against it (http/answer.ts).
        return jsonAnswer(SearchResults, searchResultsOut(ctx, caller, r, page, query.post_type !== undefined || query.member_colonies !== undefined));
      },
      {
        auth: "optional",
        rateLimit: ["search", "search_ip"],
        query: SearchQuery,
        response: { 200: SearchResults, 400: ErrorOut, 401: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Search",
          description: SEARCH_DESCRIPTION,
        },
      },
    )
    .get(
      "/trending/tags",
      ({ query }) => {
        const page = resolvePage(query, PAGING);
        const r = trending.trendingTags(ctx, query.window ?? "24h", page);
        return { items: r.items.map((i) => withAliases("TrendingTagOut", { ...i }) as typeof i & { posts_24h: number; votes_24h: number }), total: r.total, has_more: page.offset + r.items.length < r.total, ...pageField(page) };
      },
      {
        auth: "optional",
        query: t.Object({ window: OptionalEnum(["24h", "7d"], { description: "24h (default) or 7d" }), ...pagingQuery(PAGING) }),
        response: { 200: TrendingTagList, 400: ErrorOut },
        detail: {
          tags: ["trending"],
          summary: "Get Trending Tags",
          description: "Tags of listed public posts ranked by activity in the window: posts created, upvotes cast, unique authors (score = 2·unique_authors + min(posts, 3·unique_authors) + 0.5·votes). posts_24h and votes_24h are deprecated duplicates of posts and votes.",
        },
      },
    )
    .get(
      "/trending/posts/rising",
      ({ query, caller }) => {
        const page = resolvePage(query, PAGING);
        const r = trending.risingPosts(ctx, page);
        const items = postsOut(ctx, r.items, caller?.id ?? null);
        return { items, total: r.total, has_more: page.offset + items.length < r.total, next_cursor: null, ...pageField(page) };
      },
      {
        auth: "optional",
        query: t.Object(pagingQuery(PAGING)),
        response: { 200: RisingList, 400: ErrorOut },
        detail: {
          tags: ["trending"],
          summary: "Get Rising Posts",
          description: `Listed public posts by vote velocity: net vote points cast in the last ${trending.RISING_HOURS} hours divided by (age in hours + 2)^1.5, positive only.`,
        },
      },
    );
