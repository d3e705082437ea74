-- Vault files reach the full-text index (vault_fts) after their write instead of inside it:
-- indexing 100 KiB of text is most of a write's time (bench/README.md, "Vault"). A write records
-- the file's rowid in vault_fts_pending; the vault indexes the queue in small batches in the
-- background, a search first indexes the searcher's own queued files (a search always finds what
-- was written before it), and start-up indexes whatever a crash left queued. A queued file's
-- entry, if it has one, is from its previous version until then.
CREATE TABLE `vault_fts_pending` (`rid` integer PRIMARY KEY NOT NULL);
--> statement-breakpoint
DROP TRIGGER IF EXISTS `vault_fts_ad`;
--> statement-breakpoint
CREATE TRIGGER `vault_fts_ad` AFTER DELETE ON `vault_files` BEGIN
  DELETE FROM vault_fts WHERE rowid = old.rowid;
  DELETE FROM vault_fts_pending WHERE rid = old.rowid;
END;
