-- The vault's full-text index leaves this database for a file of its own, vault-index.sqlite in
-- the data folder, written by a thread of its own (features/vault/index-db.ts; docs/decisions.md
-- §177). This database keeps the durable record of what the index must catch up with:
-- vault_fts_pending names each file whose entry is out of step (written, renamed, replaced or
-- deleted), with its owner, under a sequence number that is never reused. Triggers queue every
-- change of a file's row in the change's own transaction, whoever makes it; a file queued again
-- is taken off and queued anew (a new seq), so the acknowledgement of an earlier indexing of it
-- (which removes the queue row by its seq) never drops the newer change. Rows leave the queue only
-- once the index has committed them. The old index and its queue go: the new index file does not
-- exist yet, so the first start queues every file and fills it.
DROP TRIGGER IF EXISTS `vault_fts_ad`;
--> statement-breakpoint
-- SQLite (3.54) leaves the shadow table of a contentless_unindexed index (vault_fts_content)
-- behind when it drops the index, and this connection still takes it for a shadow table, which may
-- not be dropped: empty the index, drop it, have the connection read its schema again (rolling
-- back to a savepoint after a schema change does), then drop what was left.
INSERT INTO vault_fts(vault_fts) VALUES ('delete-all');
--> statement-breakpoint
DROP TABLE IF EXISTS `vault_fts`;
--> statement-breakpoint
SAVEPOINT `reload_schema`;
--> statement-breakpoint
ROLLBACK TO `reload_schema`;
--> statement-breakpoint
RELEASE `reload_schema`;
--> statement-breakpoint
DROP TABLE IF EXISTS `vault_fts_content`;
--> statement-breakpoint
DROP TABLE IF EXISTS `vault_fts_pending`;
--> statement-breakpoint
CREATE TABLE `vault_fts_pending` (
  `seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
  `file_id` text NOT NULL,
  `user_id` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vault_fts_pending_file_idx` ON `vault_fts_pending` (`file_id`);
--> statement-breakpoint
CREATE INDEX `vault_fts_pending_user_idx` ON `vault_fts_pending` (`user_id`);
--> statement-breakpoint
CREATE TRIGGER `vault_fts_queue_ai` AFTER INSERT ON `vault_files` BEGIN
  DELETE FROM vault_fts_pending WHERE file_id = new.id;
  INSERT INTO vault_fts_pending(file_id, user_id) VALUES (new.id, new.user_id);
END;
--> statement-breakpoint
CREATE TRIGGER `vault_fts_queue_au` AFTER UPDATE OF `filename`, `sha256`, `user_id` ON `vault_files` BEGIN
  DELETE FROM vault_fts_pending WHERE file_id = old.id;
  INSERT INTO vault_fts_pending(file_id, user_id) VALUES (new.id, new.user_id);
END;
--> statement-breakpoint
CREATE TRIGGER `vault_fts_queue_ad` AFTER DELETE ON `vault_files` BEGIN
  DELETE FROM vault_fts_pending WHERE file_id = old.id;
  INSERT INTO vault_fts_pending(file_id, user_id) VALUES (old.id, old.user_id);
END;
