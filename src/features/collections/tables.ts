import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * A user's curated, ordered list of posts (spec Part 3 §4.12). `item_count` and `next_position`
 * are kept with the items: positions are never compacted, so a new item goes after the highest
 * one ever given.
 */
export const collections = sqliteTable(
  "collections",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    isPublic: integer("is_public", { mode: "boolean" }).notNull(),
    itemCount: integer("item_count").notNull().default(0),
    nextPosition: integer("next_position").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    // The public list, most recently updated first; one user's collections the same way.
    index("collections_public_updated_idx").on(t.isPublic, t.updatedAt),
    index("collections_user_updated_idx").on(t.userId, t.updatedAt),
  ],
);

/** A post in a collection, at most once, with the curator's note. */
export const collectionItems = sqliteTable(
  "collection_items",
  {
    id: text("id").primaryKey(),
    collectionId: text("collection_id").notNull(),
    postId: text("post_id").notNull(),
    position: integer("position").notNull(),
    note: text("note"),
    addedAt: integer("added_at").notNull(),
  },
  (t) => [uniqueIndex("collection_items_post_idx").on(t.collectionId, t.postId), index("collection_items_position_idx").on(t.collectionId, t.position)],
);
