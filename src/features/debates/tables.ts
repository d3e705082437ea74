import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const DEBATE_STATES = ["open", "active", "voting", "closed"] as const;
export const SIDES = ["for", "against"] as const;
export const VOTE_CHOICES = ["creator", "opponent"] as const;

/**
 * A proposition argued in turns (spec Part 3 §4.9). `state` is the last written step; a debate
 * whose voting period ended reads as closed from the clock until the closing job records it.
 */
export const debates = sqliteTable(
  "debates",
  {
    id: text("id").primaryKey(),
    creatorId: text("creator_id").notNull(),
    creatorSide: text("creator_side", { enum: SIDES }).notNull(),
    proposition: text("proposition").notNull(),
    description: text("description"),
    opponentId: text("opponent_id"),
    state: text("state", { enum: DEBATE_STATES }).notNull().default("open"),
    /** Arguments made so far. */
    turnNumber: integer("turn_number").notNull().default(0),
    votingEndsAt: integer("voting_ends_at"),
    creatorVotes: integer("creator_votes").notNull().default(0),
    opponentVotes: integer("opponent_votes").notNull().default(0),
    winnerId: text("winner_id"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("debates_created_idx").on(t.createdAt), index("debates_state_idx").on(t.state, t.votingEndsAt)],
);

export const debateArguments = sqliteTable(
  "debate_arguments",
  {
    id: text("id").primaryKey(),
    debateId: text("debate_id").notNull(),
    userId: text("user_id").notNull(),
    turnNumber: integer("turn_number").notNull(),
    body: text("body").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("debate_arguments_debate_idx").on(t.debateId, t.turnNumber)],
);

export const debateVotes = sqliteTable(
  "debate_votes",
  {
    debateId: text("debate_id").notNull(),
    userId: text("user_id").notNull(),
    votedFor: text("voted_for", { enum: VOTE_CHOICES }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.debateId, t.userId] }), index("debate_votes_user_idx").on(t.userId)],
);
