// GET /posts: the list's filters, sorts and keyset cursor, and its totals (cached briefly).
import { and, count, desc, eq, gte, inArray, isNotNull, isNull, lt, lte, notInArray, or, sql, type SQL } from "drizzle-orm";
import { parseInstant } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError, invalid } from "../../core/errors";
import { isUuid } from "../../core/ids";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import * as users from "../users/service";
import { prepared, preparedSql, rowMapper } from "../../db/statements";
import { textMatch, toFtsQuery } from "./search";
import { indexPendingPosts } from "./search-index";
import { postTags, posts, type PostStatus, type PostType, type PostRow } from "./tables";

export const LIST_SORTS = ["newest", "top", "hot", "discussed"] as const;
type ListSort = (typeof LIST_SORTS)[number];

export interface ListFilters {
  colony_id?: string;
  colony?: string;
  post_type?: PostType;
  status?: PostStatus;
  author_type?: "agent" | "human" | "system";
  author_id?: string;
  author?: string;
  tag?: string;
  q?: string;
  min_score?: number;
  max_score?: number;
  since?: string;
  until?: string;
  sentinel_scanned?: boolean;
  member_colonies?: boolean;
  sort?: ListSort;
  cursor?: string;
}

interface ListResult {
  items: PostRow[];
  total: number;
  has_more: boolean;
  next_cursor: string | null;
}

const encodeCursor = (p: PostRow) => Buffer.from(`${p.createdAt}:${p.id}`).toString("base64url");

function decodeCursor(raw: string): { createdAt: number; id: string } {
  const text = Buffer.from(raw, "base64url").toString("utf8");
  const m = /^(\d{1,16}):([0-9a-f-]{36})$/.exec(text);
  if (!m || !isUuid(m[2])) throw invalid("cursor is not a next_cursor from this endpoint");
  return { createdAt: Number(m[1]), id: m[2] };
}

/** An author filter value: a known id, an unknown id (matches nothing) or a username (unknown is 404). */
function resolveAuthor(ctx: Ctx, value: string): string | null {
  if (isUuid(value)) {
    const u = users.findById(ctx, value.toLowerCase());
    return users.isActive(u) ? u.id : null;
  }
  return users.getActiveUser(ctx, value).id;
}

function instantFilter(value: string, name: string): number {
  const at = parseInstant(value);
  if (at === null) throw new FieldError(["query", name], "Input should be a valid datetime or date (ISO 8601, e.g. 2026-07-01T00:00:00Z)", value, "datetime_from_date_parsing");
  return at;
}

const mapPost = rowMapper<PostRow>(posts);

const EMPTY: ListResult = { items: [], total: 0, has_more: false, next_cursor: null };

/**
 * Totals of list queries, cached per database for at most 15 seconds and dropped at once by any
 * write (every write emits a domain event, which moves `ctx.events.writes`). Counting every
 * listed post of a large instance on each page read would dominate the list's cost; the rows
 * themselves are always read fresh.
 */
const TOTAL_TTL_MS = 15_000;
const TOTAL_CACHE_MAX = 1000;
const totalCaches = new WeakMap<object, Map<string, { writes: number; at: number; total: number }>>();

const countQuery = (ctx: Ctx, where: SQL) => ctx.db.select({ n: count() }).from(posts).where(where);

function cachedTotal(ctx: Ctx, where: SQL, fixedKey?: string): number {
  // Built only when needed: a fixed key that hits the cache costs no query building.
  let query: ReturnType<typeof countQuery> | undefined;
  let key = fixedKey;
  if (key === undefined) {
    const { sql: text, params } = (query = countQuery(ctx, where)).toSQL();
    key = `${text}|${JSON.stringify(params)}`;
  }
  let cache = totalCaches.get(ctx.db);
  if (!cache) totalCaches.set(ctx.db, (cache = new Map()));
  const now = ctx.clock.now();
  const hit = cache.get(key);
  if (hit && hit.writes === ctx.events.writes && now - hit.at < TOTAL_TTL_MS && now >= hit.at) return hit.total;
  const total = (query ?? countQuery(ctx, where)).get()!.n;
  if (cache.size >= TOTAL_CACHE_MAX) cache.clear();
  cache.set(key, { writes: ctx.events.writes, at: now, total });
  return total;
}
const blank = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v.trim());

const COLONY_SORTS: Record<string, ListSort> = { new: "newest", hot: "hot", top: "top", discussed: "discussed", shuffle: "newest" };

/** The WHERE and ORDER BY of a GET /posts query, or null when the filters can match nothing. */
export function buildListQuery(ctx: Ctx, caller: Caller | null, f: ListFilters): { where: SQL; order: SQL[]; sort: ListSort } | null {
  const conds: (SQL | undefined)[] = [eq(posts.listed, 1)];

  let colonyScoped = false;
  let scopedColony: ColonyRow | null = null;
  for (const ref of [blank(f.colony_id), blank(f.colony)]) {
    if (!ref) continue;
    let colony: ColonyRow;
    try {
      colony = colonies.getReadableColony(ctx, caller, ref);
    } catch (err) {
      // A colony that does not exist (or that the caller may not see) simply matches nothing.
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
    conds.push(eq(posts.colonyId, colony.id));
    colonyScoped = true;
    scopedColony = colony;
  }

  if (f.member_colonies !== undefined) {
    if (!caller) throw new ApiError(401, "AUTH_INVALID_TOKEN", "member_colonies filters by your memberships: send Authorization: Bearer <access_token>");
    const mine = colonies.approvedMemberColonyIds(ctx, caller.id);
    if (f.member_colonies) {
      if (!mine.length) return null;
      conds.push(inArray(posts.colonyId, mine));
    } else if (mine.length) conds.push(notInArray(posts.colonyId, mine));
  }
  // Readability: a colony filter was checked above. With member_colonies=true the caller's own
  // colonies (private ones included) are readable to them. Every other list shows public and
  // restricted colonies only: private colonies' posts never appear in an unfiltered list.
  if (!colonyScoped) conds.push(colonies.readableColonyFilter(ctx, f.member_colonies === true ? caller : null, posts.colonyId));

  const authorRef = blank(f.author);
  const authorIdRef = blank(f.author_id);
  const a1 = authorRef ? resolveAuthor(ctx, authorRef) : undefined;
  const a2 = authorIdRef ? resolveAuthor(ctx, authorIdRef) : undefined;
  if (a1 !== undefined && a2 !== undefined && a1 !== a2) throw invalid("author and author_id name different users; send one of them");
  const authorId = a1 !== undefined ? a1 : a2;
  if (authorId === null) return null;
  if (authorId) conds.push(eq(posts.authorId, authorId));

  if (f.post_type) conds.push(eq(posts.postType, f.post_type));
  if (f.status) conds.push(eq(posts.status, f.status));
  if (f.author_type) conds.push(eq(posts.authorType, f.author_type));
  const tag = blank(f.tag)?.toLowerCase().replace(/^#+/, "");
  if (tag) conds.push(inArray(posts.id, ctx.db.select({ id: postTags.postId }).from(postTags).where(eq(postTags.tag, tag))));
  const q = blank(f.q);
  if (q) {
    if (q.length < 2) throw new FieldError(["query", "q"], "String should have at least 2 characters", q, "string_too_short");
    // The full-text index (words, stems, "phrases", prefix*), as GET /search reads it.
    const text = toFtsQuery(q);
    if (!text) return null;
    indexPendingPosts(ctx.db);
    conds.push(sql`${posts}.rowid in (select rowid from posts_fts where posts_fts match ${textMatch(text)})`);
  }
  if (f.min_score !== undefined) conds.push(gte(posts.score, f.min_score));
  if (f.max_score !== undefined) conds.push(lte(posts.score, f.max_score));
  const since = blank(f.since);
  if (since) conds.push(gte(posts.createdAt, instantFilter(since, "since")));
  const until = blank(f.until);
  if (until) conds.push(lt(posts.createdAt, instantFilter(until, "until")));
  if (f.sentinel_scanned !== undefined) conds.push(f.sentinel_scanned ? isNotNull(posts.sentinelScannedAt) : isNull(posts.sentinelScannedAt));

  // A list of one colony without a sort follows the colony's default_sort (spec Part 2 §2.4);
  // `shuffle` has no list order here and lists newest first (docs/decisions.md §44).
  const sort = f.sort ?? (scopedColony ? COLONY_SORTS[colonies.settingsOf(scopedColony).default_sort] : "newest");
  const order =
    sort === "hot"
      ? [desc(posts.hot), desc(posts.id)]
      : sort === "top"
        ? [desc(posts.score), desc(posts.createdAt), desc(posts.id)]
        : sort === "discussed"
          ? [desc(posts.commentCount), desc(posts.createdAt), desc(posts.id)]
          : [desc(posts.createdAt), desc(posts.id)];
  return { where: and(...conds)!, order, sort };
}

/** Filters that narrow a list; a list with none of them is the front page. */
const FILTER_KEYS = ["colony_id", "colony", "post_type", "status", "author_type", "author_id", "author", "tag", "q", "min_score", "max_score", "since", "until", "sentinel_scanned", "member_colonies"] as const;

const isUnfiltered = (f: ListFilters) => FILTER_KEYS.every((k) => f[k] === undefined || (typeof f[k] === "string" && (f[k] as string).trim() === ""));

/**
 * The front page (no filter, offset paging): the most requested list. Its WHERE depends on
 * nothing but the sort (listed posts of live, non-private colonies, the rule buildListQuery
 * applies to every unfiltered list), so its statements are prepared once per database instead of
 * being built for every request. The total shares the cache of cachedTotal.
 */
function listFrontPage(ctx: Ctx, sort: ListSort, page: Page): ListResult {
  const db = ctx.db;
  const stmts = prepared(db, `posts.front.${sort}`, () => {
    const q = buildListQuery(ctx, null, { sort })!;
    const rows = db.select().from(posts).where(q.where).orderBy(...q.order).limit(sql.placeholder("limit")).offset(sql.placeholder("offset"));
    return { where: q.where, rows: preparedSql(db, `posts.front.${sort}`, () => rows.getSQL()) };
  });
  const total = cachedTotal(ctx, stmts.where, "front");
  const items = stmts.rows.all({ limit: page.limit, offset: page.offset }).map(mapPost);
  const has_more = page.offset + items.length < total;
  return { items, total, has_more, next_cursor: sort === "newest" && has_more && items.length ? encodeCursor(items[items.length - 1]) : null };
}

/** GET /posts: listed posts the caller may read, filtered and sorted, with offset or cursor paging. */
export function listPosts(ctx: Ctx, caller: Caller | null, f: ListFilters, page: Page): ListResult {
  if (!blank(f.cursor) && isUnfiltered(f)) return listFrontPage(ctx, f.sort ?? "newest", page);
  const query = buildListQuery(ctx, caller, f);
  if (!query) return EMPTY;
  const { where, order, sort } = query;

  const total = cachedTotal(ctx, where);
  const cursorRaw = blank(f.cursor);
  if (sort === "newest" && cursorRaw) {
    const c = decodeCursor(cursorRaw);
    const after = or(lt(posts.createdAt, c.createdAt), and(eq(posts.createdAt, c.createdAt), lt(posts.id, c.id)));
    const rows = ctx.db.select().from(posts).where(and(where, after)).orderBy(...order).limit(page.limit + 1).all();
    const has_more = rows.length > page.limit;
    const items = rows.slice(0, page.limit);
    return { items, total, has_more, next_cursor: has_more ? encodeCursor(items[items.length - 1]) : null };
  }
  const items = ctx.db.select().from(posts).where(where).orderBy(...order).limit(page.limit).offset(page.offset).all();
  const has_more = page.offset + items.length < total;
  return { items, total, has_more, next_cursor: sort === "newest" && has_more && items.length ? encodeCursor(items[items.length - 1]) : null };
}
