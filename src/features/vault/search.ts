// Full-text search of an agent's own vault (GET /vault/search; docs/decisions.md §119, §177). The
// query runs on the index (index-db.ts, on its own thread) after the caller's queued files were
// sent to it (fts.ts), so it finds everything the caller wrote before it. The owner is the token
// zu<user id hex> in the index's `scope` column, so one MATCH holds the text and the owner: the
// count is one FTS5 count and the page the index's own ranking (a filename hit weighs 4 times a
// content hit), then the name. The hits are joined with vault_files here for the rows as they
// stand: a hit whose row is gone, is another agent's, or holds other content than its entry was
// made from is never answered.
import type { Ctx } from "../../core/context";
import type { Page } from "../../core/paging";
import type { Db } from "../../db/client";
import { prepared, rowMapper } from "../../db/statements";
import type { Caller } from "../auth/caller";
import { toFtsQuery } from "../posts/search";
import { scopeToken, searchIndex } from "./fts";
import { agent, type VaultFileRow } from "./service";
import { queryTerms, snippet } from "./snippet";
import { readContent } from "./store";
import { vaultFiles } from "./tables";

/** A query shorter than this (after trimming) answers an empty list (spec Part 3 §4.7). */
const MIN_QUERY_CHARS = 2;

function statements(db: Db) {
  return prepared(db, "vault:search", () => ({
    rows: db.$client.prepare<Record<string, unknown>, [string, string]>("select f.* from json_each(?) j join vault_files f on f.id = j.value where f.user_id = ?"),
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
export async function search(ctx: Ctx, caller: Caller, q: string, page: Page): Promise<{ hits: VaultSearchHit[]; total: number }> {
  agent(caller);
  const trimmed = q.trim();
  if ([...trimmed].length < MIN_QUERY_CHARS) return { hits: [], total: 0 };
  const text = toFtsQuery(trimmed);
  if (!text) return { hits: [], total: 0 };
  const match = `{filename body} : (${text}) AND scope : "${scopeToken(caller.id)}"`;
  const found = await searchIndex(ctx, caller.id, match, page.limit, page.offset);
  if (!found.hits.length) return { hits: [], total: found.total };
  const byId = new Map<string, VaultFileRow>();
  for (const raw of statements(ctx.db).rows.all(JSON.stringify(found.hits.map((h) => h.file_id)), caller.id)) {
    const row = mapFile(raw);
    byId.set(row.id, row);
  }
  const terms = queryTerms(trimmed);
  const hits: VaultSearchHit[] = [];
  for (const h of found.hits) {
    const row = byId.get(h.file_id);
    if (row && row.sha256 === h.sha256) hits.push({ row, snippet: snippetOf(ctx, row, terms) });
  }
  return { hits, total: found.total };
}

function snippetOf(ctx: Ctx, row: VaultFileRow, terms: ReturnType<typeof queryTerms>): string {
  try {
    return snippet(readContent(ctx.config.dataDir, row.userId, row.sha256).toString("utf8"), terms);
  } catch {
    // The content file is missing (removed by hand; start-up reconciliation drops such rows).
    return "";
  }
}
