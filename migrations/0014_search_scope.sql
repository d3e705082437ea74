-- Search with its filters inside the index. posts_fts now indexes only what a search may
-- return: listed posts of live colonies. Its content is the posts_fts_src view, which also adds a
-- third column, `scope`, of filter tokens that no search text can reach (queries name
-- {title body} explicitly):
--   zpriv              the post's colony is private
--   zc<colony id hex>  its colony;  zt<post type>  its type;  za<author type>  its author's type
-- so the number of matches a caller may read is one FTS5 count (no join to posts) and the page
-- is the index's own bm25 order. Triggers keep the index equal to the view: BEFORE a change the
-- entry the view currently yields is removed, AFTER it the entry it now yields is added (the view
-- yields none for an unlisted post or a deleted colony), per post and, when a colony's
-- visibility changes, for every post of the colony.
-- users_fts is a trigram index of usernames and display names for the search's `users` list
-- (substring matches without scanning every user).
DROP TRIGGER IF EXISTS `posts_fts_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `posts_fts_ad`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `posts_fts_au`;
--> statement-breakpoint
DROP TABLE IF EXISTS `posts_fts`;
--> statement-breakpoint
CREATE VIEW `posts_fts_src` AS
SELECT p.rowid AS rid, p.title AS title, p.body AS body,
  concat_ws(' ',
    CASE WHEN c.community_type = 'private' THEN 'zpriv' END,
    'zc' || replace(p.colony_id, '-', ''),
    'zt' || replace(p.post_type, '_', ''),
    'za' || p.author_type) AS scope
FROM posts p JOIN colonies c ON c.id = p.colony_id
WHERE p.listed = 1 AND c.deleted_at IS NULL;
--> statement-breakpoint
CREATE VIRTUAL TABLE `posts_fts` USING fts5(title, body, scope, content='posts_fts_src', content_rowid='rid', tokenize='porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `posts_fts_ai` AFTER INSERT ON `posts` BEGIN
  INSERT INTO posts_fts(rowid, title, body, scope) SELECT rid, title, body, scope FROM posts_fts_src WHERE rid = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_bd` BEFORE DELETE ON `posts` BEGIN
  INSERT INTO posts_fts(posts_fts, rowid, title, body, scope) SELECT 'delete', rid, title, body, scope FROM posts_fts_src WHERE rid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_bu` BEFORE UPDATE OF title, body, listed, colony_id, post_type, author_type ON `posts` BEGIN
  INSERT INTO posts_fts(posts_fts, rowid, title, body, scope) SELECT 'delete', rid, title, body, scope FROM posts_fts_src WHERE rid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_au` AFTER UPDATE OF title, body, listed, colony_id, post_type, author_type ON `posts` BEGIN
  INSERT INTO posts_fts(rowid, title, body, scope) SELECT rid, title, body, scope FROM posts_fts_src WHERE rid = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_colony_bu` BEFORE UPDATE OF community_type, deleted_at ON `colonies`
WHEN old.community_type IS NOT new.community_type OR old.deleted_at IS NOT new.deleted_at BEGIN
  INSERT INTO posts_fts(posts_fts, rowid, title, body, scope) SELECT 'delete', s.rid, s.title, s.body, s.scope FROM posts p JOIN posts_fts_src s ON s.rid = p.rowid WHERE p.colony_id = old.id;
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_colony_au` AFTER UPDATE OF community_type, deleted_at ON `colonies`
WHEN old.community_type IS NOT new.community_type OR old.deleted_at IS NOT new.deleted_at BEGIN
  INSERT INTO posts_fts(rowid, title, body, scope) SELECT s.rid, s.title, s.body, s.scope FROM posts p JOIN posts_fts_src s ON s.rid = p.rowid WHERE p.colony_id = new.id;
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_colony_bd` BEFORE DELETE ON `colonies` BEGIN
  INSERT INTO posts_fts(posts_fts, rowid, title, body, scope) SELECT 'delete', s.rid, s.title, s.body, s.scope FROM posts p JOIN posts_fts_src s ON s.rid = p.rowid WHERE p.colony_id = old.id;
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_colony_ad` AFTER DELETE ON `colonies` BEGIN
  INSERT INTO posts_fts(rowid, title, body, scope) SELECT s.rid, s.title, s.body, s.scope FROM posts p JOIN posts_fts_src s ON s.rid = p.rowid WHERE p.colony_id = old.id;
END;
--> statement-breakpoint
INSERT INTO posts_fts(posts_fts) VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE `users_fts` USING fts5(username, display_name, content='users', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `users_fts_ai` AFTER INSERT ON `users` BEGIN
  INSERT INTO users_fts(rowid, username, display_name) VALUES (new.rowid, new.username, new.display_name);
END;
--> statement-breakpoint
CREATE TRIGGER `users_fts_ad` AFTER DELETE ON `users` BEGIN
  INSERT INTO users_fts(users_fts, rowid, username, display_name) VALUES ('delete', old.rowid, old.username, old.display_name);
END;
--> statement-breakpoint
CREATE TRIGGER `users_fts_au` AFTER UPDATE OF username, display_name ON `users` BEGIN
  INSERT INTO users_fts(users_fts, rowid, username, display_name) VALUES ('delete', old.rowid, old.username, old.display_name);
  INSERT INTO users_fts(rowid, username, display_name) VALUES (new.rowid, new.username, new.display_name);
END;
--> statement-breakpoint
INSERT INTO users_fts(users_fts) VALUES ('rebuild');
