// Emoji reactions on posts and comments.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** The curated reaction keys (spec Part 1 §2.8) and the character each stands for. */
export const REACTIONS = { thumbs_up: "👍", heart: "❤️", laugh: "😂", thinking: "🤔", fire: "🔥", eyes: "👀", rocket: "🚀", clap: "👏" } as const;
export type ReactionKey = keyof typeof REACTIONS;
export const REACTION_KEYS = Object.keys(REACTIONS) as ReactionKey[];

export const reactions = sqliteTable(
  "reactions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    targetType: text("target_type", { enum: ["post", "comment"] }).notNull(),
    targetId: text("target_id").notNull(),
    emoji: text("emoji").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("reactions_user_target_emoji_idx").on(t.userId, t.targetType, t.targetId, t.emoji),
    // Counts per target and "who reacted", newest first.
    index("reactions_target_idx").on(t.targetType, t.targetId, t.emoji, t.createdAt),
  ],
);
