-- messages_fts serves only the search inside a group (GET /messages/groups/{id}/search), so it
-- indexes group messages only: a one-to-one send no longer writes a full-text segment at commit.
-- The conversation of a message never changes kind, so the triggers of 0016 stay correct; the
-- rebuild drops the entries of direct messages.
DROP VIEW `messages_fts_src`;
--> statement-breakpoint
CREATE VIEW `messages_fts_src` AS
SELECT m.rowid AS rid, m.body AS body, 'zc' || replace(m.conversation_id, '-', '') AS scope
FROM messages m JOIN conversations c ON c.id = m.conversation_id
WHERE m.deleted_at IS NULL AND c.kind = 'group';
--> statement-breakpoint
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
