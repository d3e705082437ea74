-- Full-text index of vault files (filename and content) for GET /api/v1/vault/search
-- (hand-written: drizzle-kit does not model virtual tables). Contentless: a file's content lives
-- in the data folder (features/vault/store.ts), not in SQLite, so the index keeps only its terms;
-- snippets are cut from the file itself (features/vault/snippet.ts). contentless_delete lets an
-- entry go by rowid alone, and contentless_unindexed keeps the UNINDEXED file_id and sha256, so
-- start-up reconciliation can tell which file and which content each entry was made from.
-- Entries are keyed by vault_files' rowid and written by the vault's service in the transaction
-- of the write (the content is not in the row, so a trigger cannot index it); the delete trigger
-- removes an entry with its row, whoever deletes it. `scope` holds the owner as the token
-- zu<user id hex>, which no search text reaches (queries name {filename body}), so one MATCH
-- expresses the text and the owner. Ranking weighs a hit in the filename 4 times one in the body.
-- NOTE: VACUUM (and VACUUM INTO copies) may renumber vault_files' rowids; the vault's start-up
-- reconciliation compares every entry's file_id with the row of its rowid and re-indexes what
-- differs, and restore empties the index ('delete-all') so that the next start refills it.
CREATE VIRTUAL TABLE `vault_fts` USING fts5(filename, body, scope, file_id UNINDEXED, sha256 UNINDEXED, content='', contentless_delete=1, contentless_unindexed=1, tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
INSERT INTO vault_fts(vault_fts, rank) VALUES ('rank', 'bm25(4.0, 1.0, 0.0)');
--> statement-breakpoint
CREATE TRIGGER `vault_fts_ad` AFTER DELETE ON `vault_files` BEGIN
  DELETE FROM vault_fts WHERE rowid = old.rowid;
END;
