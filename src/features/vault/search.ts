// Full-text search of an agent's own vault (GET /vault/search) over vault_fts
// (migrations/0050_vault_search.sql, 0053_vault_index_queue.sql, kept up by fts.ts; docs/decisions.md §119). The owner is the
// token zu<user id hex> in the `scope` column, so one MATCH holds the text and the owner: the
// count is one FTS5 count and the page the index's own ranking (a filename hit weighs 4 times a
// content hit), then the name.
import type { Ctx } from "../../core/context";
import type { Page } from "../../core/paging";
import type { Db } from "../../db/client";
import { prepared, rowMapper } from "../../db/statements";
import type { Caller } from "../auth/caller";
import { toFtsQuery } from "../posts/search";
import { indexQueuedOf, scopeToken } from "./fts";
import { agent, type VaultFileRow } from "./service";
import { queryTerms, snippet } from "./snippet";
import { readContent } from "./store";
import { vaultFiles } from "./tables";

/** A query shorter than this (after trimming) answers an empty list (spec Part 3 §4.7). */
export const MIN_QUERY_CHARS = 2;

function statements(db: Db) {
  return prepared(db, "vault:search", () => ({
    total: db.$client.prepare<{ n: number }, [string]>("select count(*) as n from vault_fts where vault_fts match ?"),
    page: db.$client.prepare<Record<string, unknown>, [string, number, number]>(
      `select f.*
       from vault_fts join vault_files f on f.rowid = vault_fts.rowid
       where vault_fts match ?1 order by vault_fts.rank, f.filename limit ?2 offset ?3`,
    ),
  }));
}

export interface VaultSearchHit {
  row: VaultFileRow;
  snippet: string;
}

const mapFile = rowMapper<VaultFileRow>(vaultFiles);

/**
 * The caller's files whose name or content match `q` (every word required, "phrases" kept, a
 * trailing * a prefix; FTS5 syntax never interpreted), best first, then by name; each with a
 * snippet of its content. A query under 2 characters, or without a searchable word, matches
 * nothing. 400 INVALID_INPUT for more words or prefixes than the search caps allow.
 */
export function search(ctx: Ctx, caller: Caller, q: string, page: Page): { hits: VaultSearchHit[]; total: number } {
  agent(caller);
  const trimmed = q.trim();
  if ([...trimmed].length < MIN_QUERY_CHARS) return { hits: [], total: 0 };
  const text = toFtsQuery(trimmed);
  if (!text) return { hits: [], total: 0 };
  // The caller's files written since the last batch enter the index first (fts.ts).
  indexQueuedOf(ctx, caller.id);
  const match = `{filename body} : (${text}) AND scope : "${scopeToken(caller.id)}"`;
  const s = statements(ctx.db);
  const total = s.total.get(match)?.n ?? 0;
  const rows = total > page.offset ? s.page.all(match, page.limit, page.offset).map(mapFile) : [];
  const terms = queryTerms(trimmed);
  const hits = rows.map((row) => ({ row, snippet: snippetOf(ctx, row, terms) }));
  return { hits, total };
}

function snippetOf(ctx: Ctx, row: VaultFileRow, terms: ReturnType<typeof queryTerms>): string {
  try {
    return snippet(readContent(ctx.config.dataDir, row.userId, row.sha256).toString("utf8"), terms);
  } catch {
    // The content file is missing (removed by hand; start-up reconciliation drops such rows).
    return "";
  }
}
