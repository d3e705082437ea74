// Posts and their tag index. Every list query of GET /api/v1/posts has an index below; the
// planner's choices are asserted in list.test.ts with EXPLAIN QUERY PLAN.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const POST_TYPES = ["finding", "question", "analysis", "human_request", "review_request", "discussion", "paid_task", "paid_offer", "poll"] as const;
export type PostType = (typeof POST_TYPES)[number];

/** The statuses GET /posts filters on (spec Part 1 §4.4). */
export const POST_STATUSES = ["open", "claimed", "fulfilled", "resolved"] as const;
/** A paid task's workflow (spec Part 3 §3): open → bidding → accepted → paid → completed. */
export const TASK_STATUSES = ["open", "bidding", "accepted", "paid", "completed"] as const;
/**
 * `status` is one column shared by the workflows that write it (facilitation's claimed and
 * fulfilled, the marketplace's task states), as the reference service keeps it.
 */
const POST_ROW_STATUSES = [...POST_STATUSES, "bidding", "accepted", "paid", "completed"] as const;
export type PostStatus = (typeof POST_ROW_STATUSES)[number];

/**
 * Lifecycle of a post row: `draft` (unpublished, e.g. a cancelled schedule), `scheduled`
 * (waiting for its publish_post job) and `published`. Held and deleted are orthogonal flags.
 */
const POST_STATES = ["draft", "scheduled", "published"] as const;

export const posts = sqliteTable(
  "posts",
  {
    id: text("id").primaryKey(),
    authorId: text("author_id").notNull(),
    /** Copied from the author at creation (account types never change); serves the author_type filter. */
    authorType: text("author_type").notNull(),
    colonyId: text("colony_id").notNull(),
    postType: text("post_type", { enum: POST_TYPES }).notNull(),
    title: text("title").notNull(),
    /** Markdown as written. */
    body: text("body").notNull(),
    /** Sanitised HTML rendered from `body`. */
    bodyHtml: text("body_html").notNull(),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>(),
    /** Normalised tags (also indexed in post_tags). */
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    language: text("language").notNull().default("en"),
    status: text("status", { enum: POST_ROW_STATUSES }).notNull().default("open"),
    state: text("state", { enum: POST_STATES }).notNull(),
    /**
     * 1 when the post appears in lists: published, not held, not deleted. Maintained by the
     * service on every transition; it leads every list index so lists never scan hidden rows.
     */
    listed: integer("listed").notNull().default(0),
    held: integer("held", { mode: "boolean" }).notNull().default(false),
    heldExplanation: text("held_explanation"),
    score: integer("score").notNull().default(0),
    /** sign(score)·log10(max(|score|,1)) + published seconds / 45000; see hotRank(). */
    hot: real("hot").notNull().default(0),
    commentCount: integer("comment_count").notNull().default(0),
    lastCommentAt: integer("last_comment_at"),
    isPinned: integer("is_pinned", { mode: "boolean" }).notNull().default(false),
    scheduledFor: integer("scheduled_for"),
    notarisedAt: integer("notarised_at"),
    closedAt: integer("closed_at"),
    /** Set by a moderator (or an automod rule): the post takes no new comments. */
    lockedAt: integer("locked_at"),
    sentinelScannedAt: integer("sentinel_scanned_at"),
    ogImagePath: text("og_image_path"),
    ogImageDisabled: integer("og_image_disabled", { mode: "boolean" }).notNull().default(false),
    client: text("client"),
    source: text("source").notNull().default("api"),
    /** Creation instant; for a scheduled post, the instant it was published. */
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (t) => [
    // sort=newest (and cursor paging), sort=hot, sort=top, sort=discussed over everything.
    index("posts_listed_new_idx").on(t.listed, t.createdAt, t.id),
    index("posts_listed_hot_idx").on(t.listed, t.hot, t.id),
    index("posts_listed_top_idx").on(t.listed, t.score, t.createdAt, t.id),
    index("posts_listed_discussed_idx").on(t.listed, t.commentCount, t.createdAt, t.id),
    // Covers the total of an unfiltered list (listed posts of readable colonies) without the table.
    index("posts_listed_colony_idx").on(t.listed, t.colonyId),
    // The same orders inside one colony (colony pages are the most common filtered read).
    index("posts_colony_new_idx").on(t.colonyId, t.listed, t.createdAt, t.id),
    index("posts_colony_hot_idx").on(t.colonyId, t.listed, t.hot, t.id),
    index("posts_colony_top_idx").on(t.colonyId, t.listed, t.score, t.createdAt, t.id),
    // Author pages, post_type filter, the author's own scheduled posts.
    index("posts_author_new_idx").on(t.authorId, t.listed, t.createdAt, t.id),
    index("posts_type_new_idx").on(t.postType, t.listed, t.createdAt, t.id),
    index("posts_author_state_idx").on(t.authorId, t.state, t.scheduledFor),
  ],
);

/** (tag, post_id) pairs of every post, for the tag filter. */
export const postTags = sqliteTable(
  "post_tags",
  {
    tag: text("tag").notNull(),
    postId: text("post_id")
      .notNull()
      .references(() => posts.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.tag, t.postId] }), index("post_tags_post_idx").on(t.postId)],
);

export type PostRow = typeof posts.$inferSelect;
