// The wiki pages of GET /api/v1/search (spec Part 1 §4.7: a fixed top-10 list `wiki_pages`;
// docs/decisions.md §89). The full-text index (migrations/0034_wiki_fts.sql) holds every live
// page; the best matches by bm25 (title hits weigh five times content hits) are ranked on a
// reader thread, then the pages the caller may read are kept here: the site wiki's, and those of
// colonies the caller may read whose wiki is not off.
import { inArray, sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import type { ReadRows, ReadStatement } from "../../db/read-pool";
import { readStatement } from "../../db/statements";
import type { Actor } from "../colonies/service";
import * as colonies from "../colonies/service";
import { matcher, searchSnippet, snippetTerms } from "../posts/snippet";
import { wikiOff } from "./access";
import { wikiPages } from "./tables";

const SEARCH_WIKI_MAX = 10;
/**
 * Matches ranked before readability is checked. Pages the caller may not read (a private colony,
 * a wiki switched off) are dropped from these, so a query whose best matches are mostly in such
 * wikis may list fewer than ten.
 */
const SEARCH_WIKI_CANDIDATES = 100;

export interface WikiHit {
  id: string;
  slug: string;
  title: string;
  colony_name: string | null;
  excerpt: string;
  url: string;
}

/** The ranking of the pages matching `ftsText` (a posts/search toFtsQuery result), for ctx.reads. */
export function wikiMatchRead(ctx: Ctx, ftsText: string): ReadStatement {
  const stmt = readStatement(ctx.db, "wiki.match", () =>
    sql`select p.id as id, p.colony_id as colony_id, p.slug as slug, p.title as title
        from wiki_pages_fts f join wiki_pages p on p.rowid = f.rowid
        where wiki_pages_fts match ${sql.placeholder("m")} and p.deleted_at is null
        order by bm25(wiki_pages_fts, 5.0, 1.0) limit ${sql.placeholder("max")}`,
  );
  return stmt({ m: ftsText, max: SEARCH_WIKI_CANDIDATES });
}

interface Candidate {
  id: string;
  colony_id: string | null;
  slug: string;
  title: string;
}

/**
 * The hits of wikiMatchRead's rows the caller may read, best first, at most ten; `colonyId` keeps
 * only that colony's pages (the search's colony filter). Excerpts are plain text around the
 * matched words of `q`.
 */
export function wikiHits(ctx: Ctx, caller: Actor | null, q: string, rows: ReadRows, colonyId?: string): WikiHit[] {
  const candidates = (rows as unknown as Candidate[]).filter((r) => (colonyId ? r.colony_id === colonyId : true));
  const colonyRows = colonies.findColonies(ctx, [...new Set(candidates.flatMap((c) => (c.colony_id ? [c.colony_id] : [])))]);
  const readable = new Map<string, boolean>();
  for (const [id, c] of colonyRows) readable.set(id, colonies.canRead(ctx, c, caller) && !wikiOff(c));
  const kept = candidates.filter((c) => c.colony_id === null || readable.get(c.colony_id)).slice(0, SEARCH_WIKI_MAX);
  if (!kept.length) return [];
  const contents = new Map(
    ctx.db
      .select({ id: wikiPages.id, content: wikiPages.content })
      .from(wikiPages)
      .where(inArray(wikiPages.id, kept.map((c) => c.id)))
      .all()
      .map((r) => [r.id, r.content]),
  );
  const terms = matcher(snippetTerms(q));
  return kept.map((c) => {
    const colonyName = c.colony_id ? (colonyRows.get(c.colony_id)?.name ?? null) : null;
    const url = `${ctx.config.publicUrl}/api/v1/wiki/${c.slug}${colonyName ? `?colony=${encodeURIComponent(colonyName)}` : ""}`;
    const excerpt = searchSnippet(terms, c.title, contents.get(c.id) ?? "", "").replace(/\s+/g, " ").trim();
    return { id: c.id, slug: c.slug, title: c.title, colony_name: colonyName, excerpt, url };
  });
}
