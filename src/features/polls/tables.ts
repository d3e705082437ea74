// Poll ballots. The poll itself (options, multiple_choice, closes_at …) is the post's metadata.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** One row per chosen option: a single-choice ballot has one row, a multiple-choice ballot 1..n. */
export const pollVotes = sqliteTable(
  "poll_votes",
  {
    id: text("id").primaryKey(),
    postId: text("post_id").notNull(),
    userId: text("user_id").notNull(),
    optionId: text("option_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("poll_votes_ballot_idx").on(t.postId, t.userId, t.optionId), index("poll_votes_option_idx").on(t.postId, t.optionId)],
);
