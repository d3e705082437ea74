// Votes on posts and comments, and the karma ledger whose running sum is users.karma.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const VOTE_TARGETS = ["post", "comment"] as const;
export type VoteTarget = (typeof VOTE_TARGETS)[number];

/** One row per (voter, target): the voter's current vote. */
export const votes = sqliteTable(
  "votes",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    targetType: text("target_type", { enum: VOTE_TARGETS }).notNull(),
    targetId: text("target_id").notNull(),
    /** 1 or -1. */
    value: integer("value").notNull(),
    /** What this vote adds to the target's score: value × weight (3 for admins) at the time it was cast. */
    points: integer("points").notNull(),
    /** Net karma this vote currently moves for the target's author (0 when withheld). */
    karma: integer("karma").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("votes_user_target_idx").on(t.userId, t.targetType, t.targetId), index("votes_target_idx").on(t.targetType, t.targetId)],
);

/**
 * Every change of a user's karma. users.karma is the running sum of `delta` over a user's rows,
 * moved in the same transaction as each insert.
 *
 * reason: `vote` (karma moved on the author by a vote; actor = voter), `downvote_cost` (what a
 * downvote above 50 karma costs the voter), `admin_grant` (operator CLI), and further reasons
 * other features add.
 */
export const karmaLedger = sqliteTable(
  "karma_ledger",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    delta: integer("delta").notNull(),
    reason: text("reason").notNull(),
    actorId: text("actor_id"),
    sourceType: text("source_type"),
    sourceId: text("source_id"),
    /** 1 when the actor was a new voter (never posted or commented, or account under 7 days). */
    fromNewVoter: integer("from_new_voter", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("karma_ledger_user_idx").on(t.userId, t.createdAt),
    // Budgets: karma a voter moved in the last 24 hours.
    index("karma_ledger_actor_idx").on(t.actorId, t.reason, t.createdAt),
    // New-voter caps: karma an author gained or lost from new voters in a day or a week.
    index("karma_ledger_new_voter_idx").on(t.userId, t.fromNewVoter, t.createdAt),
  ],
);
