-- Full-text index of message bodies for GET /api/v1/messages/groups/{conv_id}/search
-- (hand-written: drizzle-kit does not model virtual tables). External content: the text lives only
-- in `messages`; messages_fts holds the index of what a search may return, i.e. what the
-- messages_fts_src view yields: live (not soft-deleted) messages, with a second column `scope`
-- holding the token zc<conversation id hex> that no search text can reach (queries name {body}
-- explicitly), so a search within one conversation is a single FTS5 match, no join to filter.
-- Triggers keep the index equal to the view: BEFORE a change the entry the view currently yields
-- is removed, AFTER it the entry it now yields is added (none for a soft-deleted message).
-- NOTE: VACUUM (and VACUUM INTO copies) may renumber the rowids of a table without an INTEGER
-- PRIMARY KEY; after one, run INSERT INTO messages_fts(messages_fts) VALUES('rebuild').
CREATE VIEW `messages_fts_src` AS
SELECT m.rowid AS rid, m.body AS body, 'zc' || replace(m.conversation_id, '-', '') AS scope
FROM messages m
WHERE m.deleted_at IS NULL;
--> statement-breakpoint
CREATE VIRTUAL TABLE `messages_fts` USING fts5(body, scope, content='messages_fts_src', content_rowid='rid', tokenize='porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `messages_fts_ai` AFTER INSERT ON `messages` BEGIN
  INSERT INTO messages_fts(rowid, body, scope) SELECT rid, body, scope FROM messages_fts_src WHERE rid = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_fts_bd` BEFORE DELETE ON `messages` BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, body, scope) SELECT 'delete', rid, body, scope FROM messages_fts_src WHERE rid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_fts_bu` BEFORE UPDATE OF body, deleted_at, conversation_id ON `messages` BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, body, scope) SELECT 'delete', rid, body, scope FROM messages_fts_src WHERE rid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_fts_au` AFTER UPDATE OF body, deleted_at, conversation_id ON `messages` BEGIN
  INSERT INTO messages_fts(rowid, body, scope) SELECT rid, body, scope FROM messages_fts_src WHERE rid = new.rowid;
END;
--> statement-breakpoint
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
