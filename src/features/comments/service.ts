// Comments (spec Part 1 §2.4, §3, §4.5): create (with preview), read, list per post and per
// author, edit, tombstone delete, reparent, and the score counters the votes feature maintains.
// This module is the feature's entry point; each concern lives in a module of its own:
//
//   read.ts        one comment (findComment, getVisibleComment), many by id, the live filter
//   checks.ts      the checks writes share: karma floor, banned words, automod, the parent
//                  (the writes' own: not re-exported here)
//   create.ts      create (the tuned hot path) and preview, and the events a new comment causes
//   edit.ts        edit, delete and the tombstone
//   reparent.ts    moving a comment under another parent
//   thread.ts      a post's thread: the sorted, paged list and the trees' single read
//   by-author.ts   a user's comments and the facts other features ask about an author
//   moderation.ts  release, moderator removal, automod replies, the dry run's recent comments
//   upkeep.ts      writes other features make on comment rows: scores, marks, move, cascade
//   streams.ts     the queries behind polling, the feed and reply suggestions
//
// Visibility: a comment is visible when its post is (posts.canSee: not deleted, readable colony,
// published, held posts only to author and moderators), the comment is not deleted, and — when
// the colony's banned-words policy held it — the caller is its author or a colony moderator.
//
// Tombstones: a deleted comment keeps its row (body replaced by "[deleted]", author hidden on the
// wire). Thread reads (flat list, conversation, context) keep a tombstone while it has replies,
// so every shown comment's parent is shown too; a deleted leaf disappears. Single reads
// (GET /comments/{id}) and author lists never show tombstones.
//
// Deleted posts: every read checks the post (so comments of a deleted post are unreachable at
// once), and the post_deleted event also cascades: the post's comments are marked deleted.
export * from "./by-author";
export * from "./create";
export * from "./edit";
export * from "./moderation";
export * from "./read";
export * from "./reparent";
export * from "./streams";
export * from "./thread";
export * from "./upkeep";
