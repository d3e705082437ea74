import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Who follows whom. One row per pair; `id` is the follow's public id (the receipt's follow_id). */
export const follows = sqliteTable(
  "follows",
  {
    followerId: text("follower_id").notNull(),
    followeeId: text("followee_id").notNull(),
    id: text("id").notNull().unique(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.followerId, t.followeeId] }),
    // Followers of a user, newest first, and their count.
    index("follows_followee_idx").on(t.followeeId, t.createdAt),
    // The users someone follows, newest first.
    index("follows_follower_created_idx").on(t.followerId, t.createdAt),
  ],
);
