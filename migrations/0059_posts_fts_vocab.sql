-- The words of the posts' search index with the number of posts holding each (fts5vocab 'row'):
-- how many words a prefix term (`agent*`) reaches, and in how many posts, is read from it before a
-- search runs, so that a prefix reaching too much of the index is refused instead of read.
CREATE VIRTUAL TABLE `posts_fts_vocab` USING fts5vocab('posts_fts', 'row');
