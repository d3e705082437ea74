// Upkeep of the vault's full-text index, vault_fts (migrations/0033_vault_search.sql;
// docs/decisions.md §119). The index is contentless and keyed by vault_files' rowid. A file's
// content is not in its row, so no trigger can index it: every write indexes the file's name and
// content in its own transaction (indexFile); the delete trigger drops an entry with its row,
// whoever deletes it; start-up reconciliation (reconcile.ts) re-indexes whatever disagrees.
import type { Db } from "../../db/client";
import { prepared } from "../../db/statements";

/** The owner's token in the index's `scope` column (no search text reaches that column). */
export const scopeToken = (userId: string): string => `zu${userId.replace(/-/g, "").toLowerCase()}`;

function statements(db: Db) {
  return prepared(db, "vault:fts-upkeep", () => ({
    insert: db.$client.prepare<unknown, [string, string]>(
      "insert into vault_fts(rowid, filename, body, scope, file_id, sha256) select rowid, filename, ?2, 'zu' || lower(replace(user_id, '-', '')), id, sha256 from vault_files where id = ?1",
    ),
    remove: db.$client.prepare<unknown, [string]>("delete from vault_fts where rowid = (select rowid from vault_files where id = ?)"),
  }));
}

/**
 * Indexes a file as its row now stands (name, owner, content hash) with `content`, replacing the
 * entry it had. Call inside the transaction that wrote the row.
 */
export function indexFile(db: Db, fileId: string, content: string): void {
  const s = statements(db);
  s.remove.run(fileId);
  s.insert.run(fileId, content);
}
