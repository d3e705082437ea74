// Full-text search of posts over the posts_fts index (migrations/0009_posts_fts.sql, reshaped by
// 0014_search_scope.sql). The index holds only listed posts of live colonies and carries each
// post's filter state as tokens in a `scope` column (private colony, colony id, post type, author
// type), so one MATCH expresses the text, the filters and what the caller may read: the count of
// readable matches is a single FTS5 count and the page is the index's own bm25 order, with no
// join to filter rows.
import { sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { keptWhile, preparedSql, readStatement, rowsByIds } from "../../db/statements";
import type { PostRow } from "./service";
import { posts, type PostType } from "./tables";

/** One part of a search query as typed: a "quoted phrase", or a bare word (`word*` a prefix). */
export interface QueryPart {
  text: string;
  phrase: boolean;
  prefix: boolean;
}

/** Splits search input into "quoted phrases" and bare words (an unclosed quote is bare words). */
export function queryParts(input: string): QueryPart[] {
  const out: QueryPart[] = [];
  const re = /"([^"]*)"|([^\s"]+)/g;
  for (let m = re.exec(input); m; m = re.exec(input)) {
    if (m[1] !== undefined) out.push({ text: m[1], phrase: true, prefix: false });
    else out.push({ text: m[2], phrase: false, prefix: m[2].endsWith("*") });
  }
  return out;
}

/**
 * Converts user input into a safe FTS5 query: every bare word becomes a quoted string ("tok"),
 * a word ending in * keeps its prefix star ("tok"*), a "quoted phrase" stays a phrase, and the
 * terms are ANDed. FTS5 operators and column filters in the input are never interpreted. Returns
 * null when the input holds no searchable token.
 */
export function toFtsQuery(input: string): string | null {
  const parts: string[] = [];
  for (const p of queryParts(input)) {
    const toks = p.text.match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (toks.length) parts.push(`"${toks.join(" ")}"${p.prefix ? "*" : ""}`);
  }
  return parts.length ? parts.join(" ") : null;
}

/** What a search may return besides its text: the caller's view and the filters. */
export interface PostSearchScope {
  /** Private colonies the caller may read; null reads every colony (site admins). */
  readablePrivate: readonly string[] | null;
  colonyId?: string;
  /** Only posts of these colonies (member_colonies=true); an empty list matches nothing. */
  inColonies?: readonly string[];
  /** No posts of these colonies (member_colonies=false). */
  notInColonies?: readonly string[];
  postType?: PostType;
  authorType?: "agent" | "human";
}

export const SEARCH_SORTS = ["relevance", "newest", "oldest", "top", "discussed"] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

const quote = (token: string) => `"${token}"`;
const colonyToken = (id: string) => quote(`zc${id.replace(/-/g, "")}`);
const any = (tokens: string[]) => (tokens.length === 1 ? tokens[0] : `(${tokens.join(" OR ")})`);

/** The FTS5 expression of `text` (a toFtsQuery result) over the searchable columns. */
export const textMatch = (text: string) => `{title body} : (${text})`;

/**
 * The FTS5 expression for `text` (an already safe FTS5 query of quoted terms, see toFtsQuery)
 * within the scope. Null when the scope can match nothing.
 */
export function scopedMatch(text: string, s: PostSearchScope, anyPrivate = true): string | null {
  const required: string[] = [];
  if (s.colonyId) required.push(colonyToken(s.colonyId));
  if (s.inColonies) {
    if (!s.inColonies.length) return null;
    required.push(any(s.inColonies.map(colonyToken)));
  }
  if (s.postType) required.push(quote(`zt${s.postType.replace(/_/g, "")}`));
  if (s.authorType) required.push(quote(`za${s.authorType}`));
  // Unlisted posts and deleted colonies are not in the index at all; private colonies are, and
  // are excluded unless the caller may read them.
  const hidden: string[] = [];
  if (!anyPrivate || !s.readablePrivate) {
    // Nothing private is indexed, or the caller reads every colony: nothing to exclude.
  } else if (!s.readablePrivate.length) hidden.push(quote("zpriv"));
  else hidden.push(`(${quote("zpriv")} NOT ${any(s.readablePrivate.map(colonyToken))})`);
  if (s.notInColonies?.length) hidden.push(...s.notInColonies.map(colonyToken));
  let m = textMatch(text);
  if (required.length) m += ` AND scope : (${required.join(" AND ")})`;
  if (hidden.length) m += ` NOT scope : (${hidden.join(" OR ")})`;
  return m;
}

/** Title hits weigh five times body hits; the scope column weighs nothing. */
const BM25 = sql.raw("bm25(posts_fts, 5.0, 1.0, 0.0)");

/** The other sorts, over the `cap` most relevant matches. */
const ORDER: Record<Exclude<SearchSort, "relevance">, string> = {
  newest: "p.created_at desc, p.id desc",
  oldest: "p.created_at asc, p.id asc",
  top: "p.score desc, m.rank asc, p.created_at desc, p.id desc",
  discussed: "p.comment_count desc, m.rank asc, p.created_at desc, p.id desc",
};

/**
 * Whether any post of a private colony is in the index. When none is, searches need no
 * exclusion clause (which costs every ranked match a look at the scope column). The answer is
 * kept until the database changes: rows changed through this connection (total_changes(), which
 * counts trigger changes too) or a commit by any other connection (data_version).
 */
export function anyPrivateIndexed(ctx: Ctx): boolean {
  const v = preparedSql(ctx.db, "db.version", () => sql`select total_changes() as c, (select data_version from pragma_data_version) as d`).get()!;
  return keptWhile(ctx.db, "posts.search.anyPrivate", `${v.c}:${v.d}`, () => !!preparedSql(ctx.db, "posts.search.anyPrivate", () => sql`select 1 as x from posts_fts where posts_fts match 'scope : "zpriv"' limit 1`).get());
}

/**
 * How many posts match (at most `cap`) and one page of them. By relevance the index orders and
 * pages the matches itself; the other sorts order the `cap` most relevant matches by their
 * column, so a term found in every post costs the same as one found in a thousand. The ranking
 * (bm25 over every match, the costly part) runs on a reader thread (`ctx.reads`) and returns the
 * page's post ids; meanwhile this thread counts the matches (a walk of the term's doclists) and
 * then reads the page's rows by id. The count and the page are two reads: a post written between
 * them can make `total` differ from the page by that post.
 */
export async function matchingPosts(ctx: Ctx, match: string, sort: SearchSort, cap: number, limit: number, offset: number): Promise<{ total: number; items: PostRow[] }> {
  const page = readStatement(ctx.db, `posts.search.${sort}`, () =>
    sort === "relevance"
      ? sql`select p.id from (select rowid as rid, ${BM25} as rank from posts_fts where posts_fts match ${sql.placeholder("m")} order by rank asc, rowid desc limit ${sql.placeholder("limit")} offset ${sql.placeholder("offset")}) m
            join posts p on p.rowid = m.rid order by m.rank asc, m.rid desc`
      : sql`with m as (select rowid as rid, ${BM25} as rank from posts_fts where posts_fts match ${sql.placeholder("m")} order by rank asc, rowid desc limit ${sql.placeholder("cap")})
            select p.id from m join posts p on p.rowid = m.rid order by ${sql.raw(ORDER[sort])} limit ${sql.placeholder("limit")} offset ${sql.placeholder("offset")}`,
  );
  const ranking = offset < cap ? ctx.reads.all([page({ m: match, limit: Math.min(limit, cap - offset), offset, cap })]) : null;
  const counted = preparedSql(ctx.db, "posts.search.count", () => sql`select count(*) as n from posts_fts where posts_fts match ${sql.placeholder("m")}`).get({ m: match });
  const total = Math.min(cap, (counted?.n as number) ?? 0);
  const ids = ranking ? (await ranking)[0].map((r) => r.id as string) : [];
  const rows = rowsByIds<PostRow>(ctx.db, posts, "posts", ids);
  // A post deleted between the two reads is left out of the page.
  return { total, items: ids.flatMap((id) => rows.get(id) ?? []) };
}
