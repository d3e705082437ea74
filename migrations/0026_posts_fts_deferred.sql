-- New posts reach the full-text index in batches instead of one FTS5 segment per request.
-- Inserting a listed post records its rowid in posts_fts_pending; the posts feature indexes every
-- pending post in one statement after commit (the outbox worker, once per batch of events),
-- before any search reads the index (the request thread), and at start-up (a crash leaves the
-- queue, never a half-indexed post). Until then the post is simply not in the index, so the
-- delete and update triggers skip pending posts: FTS5 with external content must never be told
-- to delete an entry it does not hold (that corrupts the index), and the batch indexes the
-- post's values as they are when it runs.
CREATE TABLE `posts_fts_pending` (`rid` integer PRIMARY KEY NOT NULL);
--> statement-breakpoint
DROP TRIGGER IF EXISTS `posts_fts_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `posts_fts_bd`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `posts_fts_bu`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `posts_fts_au`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `posts_fts_colony_bu`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `posts_fts_colony_au`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `posts_fts_colony_bd`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `posts_fts_colony_ad`;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_ai` AFTER INSERT ON `posts` WHEN new.listed = 1 BEGIN
  INSERT OR IGNORE INTO posts_fts_pending(rid) VALUES (new.rowid);
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_bd` BEFORE DELETE ON `posts` BEGIN
  INSERT INTO posts_fts(posts_fts, rowid, title, body, scope) SELECT 'delete', rid, title, body, scope FROM posts_fts_src
    WHERE rid = old.rowid AND NOT EXISTS (SELECT 1 FROM posts_fts_pending q WHERE q.rid = old.rowid);
  DELETE FROM posts_fts_pending WHERE rid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_bu` BEFORE UPDATE OF title, body, listed, colony_id, post_type, author_type ON `posts` BEGIN
  INSERT INTO posts_fts(posts_fts, rowid, title, body, scope) SELECT 'delete', rid, title, body, scope FROM posts_fts_src
    WHERE rid = old.rowid AND NOT EXISTS (SELECT 1 FROM posts_fts_pending q WHERE q.rid = old.rowid);
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_au` AFTER UPDATE OF title, body, listed, colony_id, post_type, author_type ON `posts` BEGIN
  INSERT INTO posts_fts(rowid, title, body, scope) SELECT rid, title, body, scope FROM posts_fts_src
    WHERE rid = new.rowid AND NOT EXISTS (SELECT 1 FROM posts_fts_pending q WHERE q.rid = new.rowid);
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_colony_bu` BEFORE UPDATE OF community_type, deleted_at ON `colonies`
WHEN old.community_type IS NOT new.community_type OR old.deleted_at IS NOT new.deleted_at BEGIN
  INSERT INTO posts_fts(posts_fts, rowid, title, body, scope) SELECT 'delete', s.rid, s.title, s.body, s.scope FROM posts p JOIN posts_fts_src s ON s.rid = p.rowid
    WHERE p.colony_id = old.id AND NOT EXISTS (SELECT 1 FROM posts_fts_pending q WHERE q.rid = p.rowid);
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_colony_au` AFTER UPDATE OF community_type, deleted_at ON `colonies`
WHEN old.community_type IS NOT new.community_type OR old.deleted_at IS NOT new.deleted_at BEGIN
  INSERT INTO posts_fts(rowid, title, body, scope) SELECT s.rid, s.title, s.body, s.scope FROM posts p JOIN posts_fts_src s ON s.rid = p.rowid
    WHERE p.colony_id = new.id AND NOT EXISTS (SELECT 1 FROM posts_fts_pending q WHERE q.rid = p.rowid);
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_colony_bd` BEFORE DELETE ON `colonies` BEGIN
  INSERT INTO posts_fts(posts_fts, rowid, title, body, scope) SELECT 'delete', s.rid, s.title, s.body, s.scope FROM posts p JOIN posts_fts_src s ON s.rid = p.rowid
    WHERE p.colony_id = old.id AND NOT EXISTS (SELECT 1 FROM posts_fts_pending q WHERE q.rid = p.rowid);
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_colony_ad` AFTER DELETE ON `colonies` BEGIN
  INSERT INTO posts_fts(rowid, title, body, scope) SELECT s.rid, s.title, s.body, s.scope FROM posts p JOIN posts_fts_src s ON s.rid = p.rowid
    WHERE p.colony_id = old.id AND NOT EXISTS (SELECT 1 FROM posts_fts_pending q WHERE q.rid = p.rowid);
END;
