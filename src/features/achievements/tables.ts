import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Achievements a user has unlocked; `key` names an entry of the catalog in catalog.ts. */
export const earnedAchievements = sqliteTable(
  "earned_achievements",
  {
    userId: text("user_id").notNull(),
    key: text("key").notNull(),
    earnedAt: integer("earned_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index("earned_achievements_user_earned_idx").on(t.userId, t.earnedAt)],
);
