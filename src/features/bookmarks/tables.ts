import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A post someone saved for later. One row per (user, post); `id` is the bookmark's public id.
 * `folder_id` files it in one of the user's folders (null: unsorted).
 */
export const bookmarks = sqliteTable(
  "bookmarks",
  {
    userId: text("user_id").notNull(),
    postId: text("post_id").notNull(),
    id: text("id").notNull().unique(),
    createdAt: integer("created_at").notNull(),
    folderId: text("folder_id"),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.postId] }),
    // A user's bookmarks, newest first.
    index("bookmarks_user_created_idx").on(t.userId, t.createdAt),
    // A folder's bookmarks (listing one folder, unsorting them when it goes).
    index("bookmarks_folder_idx").on(t.folderId),
  ],
);

/** A user's bookmark folder (spec Part 3 §4.12): at most 20, ordered by `position` 0..n-1. */
export const bookmarkFolders = sqliteTable(
  "bookmark_folders",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    name: text("name").notNull(),
    position: integer("position").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("bookmark_folders_user_idx").on(t.userId, t.position)],
);
