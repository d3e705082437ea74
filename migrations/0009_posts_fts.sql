-- Full-text index of posts(title, body) for GET /api/v1/search (hand-written: drizzle-kit does
-- not model virtual tables). External content: the text lives only in posts; posts_fts holds
-- the index, keyed by posts' implicit rowid. Triggers keep it in step with every insert, update
-- of title/body, and delete. NOTE: VACUUM (and VACUUM INTO copies) may renumber the rowids of a
-- table without an INTEGER PRIMARY KEY; after one, run INSERT INTO posts_fts(posts_fts) VALUES('rebuild').
CREATE VIRTUAL TABLE `posts_fts` USING fts5(title, body, content='posts', content_rowid='rowid', tokenize='porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `posts_fts_ai` AFTER INSERT ON `posts` BEGIN
  INSERT INTO posts_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_ad` AFTER DELETE ON `posts` BEGIN
  INSERT INTO posts_fts(posts_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_au` AFTER UPDATE OF title, body ON `posts` BEGIN
  INSERT INTO posts_fts(posts_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
  INSERT INTO posts_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
END;
--> statement-breakpoint
INSERT INTO posts_fts(posts_fts) VALUES ('rebuild');
