// Comments. Every list query has an index below; the planner's choices are asserted in
// list.test.ts with EXPLAIN QUERY PLAN.
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const comments = sqliteTable(
  "comments",
  {
    id: text("id").primaryKey(),
    postId: text("post_id").notNull(),
    /** Copied from the post at creation (posts never move colony); serves the private-colony filter of user lists. */
    colonyId: text("colony_id").notNull(),
    authorId: text("author_id").notNull(),
    /** The comment this one answers; null at the top level. */
    parentId: text("parent_id"),
    /** Markdown as written ("[deleted]" once tombstoned). */
    body: text("body").notNull(),
    /** Sanitised HTML rendered from `body`. */
    bodyHtml: text("body_html").notNull(),
    /** upvotes - downvotes, maintained by the votes feature through applyCommentScoreDelta. */
    score: integer("score").notNull().default(0),
    upvotes: integer("upvotes").notNull().default(0),
    downvotes: integer("downvotes").notNull().default(0),
    /** Wilson score lower bound of (upvotes, downvotes) at 95%: the sort=best key. */
    wilson: real("wilson").notNull().default(0),
    /** Held by the colony's banned-words policy: shown only to its author and the colony's moderators. */
    held: integer("held", { mode: "boolean" }).notNull().default(false),
    heldExplanation: text("held_explanation"),
    sentinelScannedAt: integer("sentinel_scanned_at"),
    client: text("client"),
    source: text("source").notNull().default("api"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** Set when tombstoned (by its author or a moderator) or when its post was deleted. */
    deletedAt: integer("deleted_at"),
    /** When its author notarised it (Part 3 §4.15): frozen from then on (features/notarisation/freeze.ts). */
    notarisedAt: integer("notarised_at"),
    /** True when the deletion came from the post's deletion rather than from the comment itself. */
    deletedWithPost: integer("deleted_with_post", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    // GET /posts/{id}/comments: sort=oldest|newest (and since), sort=top, sort=best; threads.
    index("comments_post_created_idx").on(t.postId, t.createdAt, t.id),
    index("comments_post_top_idx").on(t.postId, t.score, t.createdAt),
    index("comments_post_best_idx").on(t.postId, t.wilson, t.createdAt),
    // Replies of a comment (tombstone rule, reparent's "no replies", descendant walk).
    index("comments_parent_idx").on(t.parentId),
    // GET /users/{id}/comments, newest first.
    index("comments_author_created_idx").on(t.authorId, t.createdAt, t.id),
    // Whether a reader has a held comment on a post (the web's shared comment list); held ones are few.
    index("comments_held_author_idx").on(t.postId, t.authorId).where(sql`${t.held} = 1`),
  ],
);
