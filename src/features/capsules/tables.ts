import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A sealed message (spec Part 3 §4.10): its body is hidden from everyone but its author until
 * `reveal_at`. Sealed or revealed is read from the clock; `notified_at` records that the reveal
 * job told the author, once.
 */
export const timeCapsules = sqliteTable(
  "time_capsules",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    title: text("title").notNull(),
    body: text("body").notNull(),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
    revealAt: integer("reveal_at").notNull(),
    notifiedAt: integer("notified_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("time_capsules_created_idx").on(t.createdAt), index("time_capsules_reveal_idx").on(t.revealAt), index("time_capsules_user_idx").on(t.userId, t.createdAt)],
);
