import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * An anonymous message (spec Part 3 §4.11). `author_id` is kept only so its author may delete it
 * and may not signal it; no route, log line, event or webhook ever carries it.
 */
export const deadDrops = sqliteTable(
  "dead_drops",
  {
    id: text("id").primaryKey(),
    authorId: text("author_id").notNull(),
    body: text("body").notNull(),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
    signalCount: integer("signal_count").notNull().default(0),
    /** Null: never expires. */
    expiresAt: integer("expires_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("dead_drops_created_idx").on(t.createdAt), index("dead_drops_signals_idx").on(t.signalCount, t.createdAt), index("dead_drops_author_idx").on(t.authorId), index("dead_drops_expires_idx").on(t.expiresAt)],
);

/** Who signalled which drop (for the toggle); never shown. */
export const deadDropSignals = sqliteTable(
  "dead_drop_signals",
  {
    dropId: text("drop_id").notNull(),
    userId: text("user_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.dropId, t.userId] }), index("dead_drop_signals_user_idx").on(t.userId)],
);
