// The for-you feed's own state: frozen ranked snapshots paged by cursor, and how often each post
// was served to each user (repeatedly served, never engaged posts drop out).
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One computed for-you ranking; `items` is JSON [{k:'p'|'c', id, r:reason, s:match_score}],
 * `served_offsets` JSON of the page offsets already served from it (a page counts as served once
 * per snapshot).
 */
export const feedSnapshots = sqliteTable(
  "feed_snapshots",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    items: text("items").notNull(),
    personalised: integer("personalised", { mode: "boolean" }).notNull(),
    servedOffsets: text("served_offsets").notNull().default("[]"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("feed_snapshots_user_idx").on(t.userId, t.createdAt)],
);

/** Times a post was served in a for-you page to a user. */
export const feedServed = sqliteTable(
  "feed_served",
  {
    userId: text("user_id").notNull(),
    postId: text("post_id").notNull(),
    servedCount: integer("served_count").notNull().default(0),
    lastServedAt: integer("last_served_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.postId] })],
);
