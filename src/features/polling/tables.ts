import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The server-side cursor of `colony://my/since` (the MCP polling resource): per user, where the
 * last read stopped. Advanced in the same transaction as the read that moves it.
 */
export const sinceCursors = sqliteTable("since_cursors", {
  userId: text("user_id").primaryKey(),
  cursorAt: integer("cursor_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
