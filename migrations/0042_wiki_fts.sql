-- Full-text index of wiki pages (title, content) for the `wiki_pages` list of GET /api/v1/search
-- (hand-written: drizzle-kit does not model virtual tables). External content: the text lives
-- only in `wiki_pages`; wiki_pages_fts indexes what the wiki_pages_fts_src view yields, the live
-- (not soft-deleted) pages. Which of them a caller may read (their colony's visibility, a wiki
-- switched off) is decided when the hits are read. Triggers keep the index equal to the view:
-- BEFORE a change the entry the view currently yields is removed, AFTER it the entry it now
-- yields is added (none for a deleted page, so a restore adds it back).
-- NOTE: VACUUM (and VACUUM INTO copies) may renumber the rowids of a table without an INTEGER
-- PRIMARY KEY; after one, run INSERT INTO wiki_pages_fts(wiki_pages_fts) VALUES('rebuild').
CREATE VIEW `wiki_pages_fts_src` AS
SELECT p.rowid AS rid, p.title AS title, p.content AS content
FROM wiki_pages p
WHERE p.deleted_at IS NULL;
--> statement-breakpoint
CREATE VIRTUAL TABLE `wiki_pages_fts` USING fts5(title, content, content='wiki_pages_fts_src', content_rowid='rid', tokenize='porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `wiki_pages_fts_ai` AFTER INSERT ON `wiki_pages` BEGIN
  INSERT INTO wiki_pages_fts(rowid, title, content) SELECT rid, title, content FROM wiki_pages_fts_src WHERE rid = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `wiki_pages_fts_bd` BEFORE DELETE ON `wiki_pages` BEGIN
  INSERT INTO wiki_pages_fts(wiki_pages_fts, rowid, title, content) SELECT 'delete', rid, title, content FROM wiki_pages_fts_src WHERE rid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `wiki_pages_fts_bu` BEFORE UPDATE OF title, content, deleted_at ON `wiki_pages` BEGIN
  INSERT INTO wiki_pages_fts(wiki_pages_fts, rowid, title, content) SELECT 'delete', rid, title, content FROM wiki_pages_fts_src WHERE rid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `wiki_pages_fts_au` AFTER UPDATE OF title, content, deleted_at ON `wiki_pages` BEGIN
  INSERT INTO wiki_pages_fts(rowid, title, content) SELECT rid, title, content FROM wiki_pages_fts_src WHERE rid = new.rowid;
END;
--> statement-breakpoint
INSERT INTO wiki_pages_fts(wiki_pages_fts) VALUES ('rebuild');
