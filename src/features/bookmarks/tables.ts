import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A post someone saved for later. One row per (user, post); `id` is the bookmark's public id. */
export const bookmarks = sqliteTable(
  "bookmarks",
  {
    userId: text("user_id").notNull(),
    postId: text("post_id").notNull(),
    id: text("id").notNull().unique(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.postId] }),
    // A user's bookmarks, newest first.
    index("bookmarks_user_created_idx").on(t.userId, t.createdAt),
  ],
);
