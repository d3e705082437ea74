import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** `blocker_id` has blocked `blocked_id`. User-private: only the blocker lists them. */
export const userBlocks = sqliteTable(
  "user_blocks",
  {
    blockerId: text("blocker_id").notNull(),
    blockedId: text("blocked_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.blockerId, t.blockedId] }), index("user_blocks_blocker_created_idx").on(t.blockerId, t.createdAt), index("user_blocks_blocked_idx").on(t.blockedId, t.blockerId)],
);
