// Full-text search of posts over the posts_fts index (migrations/0009_posts_fts.sql, reshaped by
// 0014_search_scope.sql). The index holds only listed posts of live colonies and carries each
// post's filter state as tokens in a `scope` column (private colony, colony id, post type, author
// type), so one MATCH expresses the text, the filters and what the caller may read: the count of
// readable matches is a single FTS5 count and the page is the index's own bm25 order, with no
// join to filter rows.
import { sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import type { ReadStatement } from "../../db/read-pool";
import { keptWhile, preparedSql, readStatement, rowsByRowids } from "../../db/statements";
import { indexPendingPosts } from "./search-index";
import type { PostRow } from "./tables";
import { posts, type PostType } from "./tables";

/** Indexes the posts queued since the last batch (search-index.ts); call before reading posts_fts. */
export const indexPending = (ctx: Ctx): number => indexPendingPosts(ctx.db);

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
 * Most words a query may hold (the words of its "phrases" included), and most prefix terms
 * (`word*`) among them. FTS5 reads a doclist per word and, for a prefix, the doclists of every
 * indexed word it starts, and bm25 scores every match once per term: a one-letter prefix reaches
 * a large share of the index, so a query's cost grows with its words and prefixes, and without a
 * cap one query could hold a reader thread for seconds (docs/decisions.md §23). Agents' queries
 * are a few words; these caps sit well above.
 */
export const MAX_QUERY_TERMS = 16;
export const MAX_QUERY_PREFIX_TERMS = 3;

/**
 * Most indexed words one prefix term may reach. FTS5 reads the doclist of every word a prefix
 * starts, and bm25 scores each match once per term: `a*` reached thousands of words, and three such
 * prefixes with thirteen words took 1.74 s of a reader thread on a 1,500-post instance while every
 * other search waited. A prefix reaching more is refused (400) before anything is searched.
 */
export const MAX_PREFIX_WORDS = 50;

/** The searchable tokens of one query part (FTS5 operators and punctuation left out). */
const tokensOf = (text: string): string[] => text.match(/[\p{L}\p{N}_]+/gu) ?? [];

/** The prefix (lower-cased) of each prefix term of a query: the last token of a `word*` part. */
function prefixesOf(input: string): string[] {
  const out: string[] = [];
  for (const p of queryParts(input)) {
    if (!p.prefix) continue;
    const last = tokensOf(p.text).at(-1);
    if (last) out.push(last.toLowerCase());
  }
  return out;
}

/** The smallest string after every string that starts with `prefix` (its last character incremented). */
const pastPrefix = (prefix: string) => prefix.slice(0, -1) + String.fromCodePoint(prefix.codePointAt(prefix.length - 1)! + 1);

/**
 * Throws 400 INVALID_INPUT when a prefix term of `input` reaches more than MAX_PREFIX_WORDS words
 * of the posts' index (read from its vocabulary, migration 0059: at most that many rows a prefix).
 */
export function assertPrefixReach(ctx: Ctx, input: string): void {
  const prefixes = prefixesOf(input);
  if (!prefixes.length) return;
  const stmt = preparedSql(ctx.db, "posts.search.prefixReach", () => sql`select count(*) as n from (select 1 from posts_fts_vocab where term >= ${sql.placeholder("from")} and term < ${sql.placeholder("to")} limit ${MAX_PREFIX_WORDS + 1})`);
  for (const prefix of prefixes) {
    const n = (stmt.get({ from: prefix, to: pastPrefix(prefix) })?.n as number) ?? 0;
    if (n > MAX_PREFIX_WORDS) throw new ApiError(400, "INVALID_INPUT", `The prefix term ${prefix}* matches more than ${MAX_PREFIX_WORDS} words; make it longer or use whole words`);
  }
}

/**
 * Converts user input into a safe FTS5 query: every bare word becomes a quoted string ("tok"),
 * a word ending in * keeps its prefix star ("tok"*), a "quoted phrase" stays a phrase, and the
 * terms are ANDed (a term repeated is sent once: it matches the same posts). FTS5 operators and
 * column filters in the input are never interpreted. Returns null when the input holds no
 * searchable token; throws 400 INVALID_INPUT, before anything is read, when it holds more words
 * or prefix terms than MAX_QUERY_TERMS and MAX_QUERY_PREFIX_TERMS.
 */
export function toFtsQuery(input: string): string | null {
  const parts = new Set<string>();
  let words = 0;
  let prefixes = 0;
  for (const p of queryParts(input)) {
    const toks = tokensOf(p.text);
    if (!toks.length) continue;
    const part = `"${toks.join(" ")}"${p.prefix ? "*" : ""}`;
    if (parts.has(part)) continue;
    parts.add(part);
    words += toks.length;
    if (p.prefix) prefixes++;
  }
  if (words > MAX_QUERY_TERMS) throw new ApiError(400, "INVALID_INPUT", `A search query may have at most ${MAX_QUERY_TERMS} words (got ${words}); search for fewer words`);
  if (prefixes > MAX_QUERY_PREFIX_TERMS) throw new ApiError(400, "INVALID_INPUT", `A search query may have at most ${MAX_QUERY_PREFIX_TERMS} prefix terms (word*) (got ${prefixes}); use whole words for the others`);
  return parts.size ? [...parts].join(" ") : null;
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

/**
 * Whether `text` could match a filter token of the scope column. Those all start with "z" (zpriv,
 * zc…, zt…, za…); the tokenizer only strips suffixes (porter) and folds case and diacritics
 * (unicode61), so a word starting with an ASCII letter a to y or a digit never reaches one. Any
 * other first character (z, or a letter that may fold to z) counts as reaching.
 */
const reachesScope = (text: string) => (text.match(/[\p{L}\p{N}]+/gu) ?? []).some((w) => !/^[a-y0-9]/i.test(w));

/**
 * The FTS5 expression of `text` (a toFtsQuery result) over the searchable columns. The column
 * filter {title body} keeps the scope column out of reach; text that cannot reach it goes without
 * (the same matches and the same bm25 scores: the scope column weighs nothing), which spares FTS5
 * checking every match's columns.
 */
export const textMatch = (text: string) => (reachesScope(text) ? `{title body} : (${text})` : `(${text})`);

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
 * How many of the newest matches a search ranks (docs/decisions.md §131): bm25 scores every match
 * it ranks, so without a window a broad term's cost grows with its number of matches. Twice the
 * candidates a search pages (SEARCH_CANDIDATES): a term with fewer matches is ranked whole.
 */
export const RANK_WINDOW = 2000;

/**
 * The ranking of one page of matches, as a statement for `ctx.reads` (a reader thread: bm25 over
 * the matches is the costly part of a search). Its rows are `{ rid }`, the posts' rowids in page
 * order. Only the newest RANK_WINDOW matches are ranked: the rowid of the window's oldest bounds
 * the match (FTS5 seeks to it, so the rest of the doclist is never scored). By relevance the index
 * orders and pages them itself; the other sorts order the `cap` most relevant by their column.
 * Null when the page lies past the cap.
 */
export function rankingRead(ctx: Ctx, match: string, sort: SearchSort, cap: number, limit: number, offset: number, window = RANK_WINDOW): ReadStatement | null {
  if (offset >= cap) return null;
  const windowed = sql`posts_fts match ${sql.placeholder("m")} and rowid >= coalesce((select rowid from posts_fts where posts_fts match ${sql.placeholder("m")} order by rowid desc limit 1 offset ${sql.placeholder("window")}), 0)`;
  const page = readStatement(ctx.db, `posts.search.${sort}`, () =>
    sort === "relevance"
      ? sql`select rowid as rid from posts_fts where ${windowed} order by ${BM25} asc, rowid desc limit ${sql.placeholder("limit")} offset ${sql.placeholder("offset")}`
      : sql`with m as (select rowid as rid, ${BM25} as rank from posts_fts where ${windowed} order by rank asc, rowid desc limit ${sql.placeholder("cap")})
            select m.rid from m join posts p on p.rowid = m.rid order by ${sql.raw(ORDER[sort])} limit ${sql.placeholder("limit")} offset ${sql.placeholder("offset")}`,
  );
  return page({ m: match, limit: Math.min(limit, cap - offset), offset, cap, window: window - 1 });
}

/**
 * How many posts match, up to `cap` + 1, as a statement for `ctx.reads` (a walk of the terms'
 * doclists that stops there): its one row is `{ n }`, read with matchCount.
 */
export function countRead(ctx: Ctx, match: string, cap: number): ReadStatement {
  return readStatement(ctx.db, "posts.search.count", () => sql`select count(*) as n from (select 1 from posts_fts where posts_fts match ${sql.placeholder("m")} limit ${sql.placeholder("cap")})`)({ m: match, cap: cap + 1 });
}

/** The number of matches of a countRead's rows, at most `cap`. */
export const matchCount = (rows: readonly Record<string, unknown>[], cap: number): number => Math.min(cap, (rows[0]?.n as number) ?? 0);

/** The posts of a ranking's rows (rankingRead), in its order; a post deleted since is left out. */
export function rankedPosts(ctx: Ctx, ranking: readonly Record<string, unknown>[]): PostRow[] {
  const rowids = ranking.map((r) => r.rid as number);
  const rows = rowsByRowids<PostRow>(ctx.db, posts, "posts", rowids);
  return rowids.flatMap((rid) => rows.get(rid) ?? []);
}
