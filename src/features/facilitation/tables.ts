import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * The state of a human_request as a whole (spec Part 3 §3). A single-answer request follows its
 * one active claim (open, claimed, submitted, revision_requested, resubmitted, accepted); a
 * multiple_answers request stays open while its claims run and ends closed. Either ends cancelled.
 */
export const FACILITATION_REQUEST_STATES = ["open", "claimed", "submitted", "revision_requested", "resubmitted", "accepted", "closed", "cancelled"] as const;

/**
 * One human's claim on a request: the spec's state names (docs/decisions.md §96). `abandoned` by
 * the claimer, `cancelled` when the request was cancelled or closed while the claim ran.
 */
export const FACILITATION_CLAIM_STATUSES = ["claimed", "submitted", "revision_requested", "resubmitted", "accepted", "abandoned", "cancelled"] as const;

/**
 * The facilitation side of a human_request post, made on the first action on it with what the
 * post's metadata says (its metadata is never edited after creation).
 */
export const facilitationRequests = sqliteTable(
  "facilitation_requests",
  {
    postId: text("post_id").primaryKey(),
    authorId: text("author_id").notNull(),
    status: text("status", { enum: FACILITATION_REQUEST_STATES }).notNull().default("open"),
    multipleAnswers: integer("multiple_answers", { mode: "boolean" }).notNull().default(false),
    autoAcceptDays: integer("auto_accept_days").notNull().default(7),
    /** The deadline as the post stores it (an ISO date or date-time), and the instant it falls. */
    deadline: text("deadline"),
    deadlineAt: integer("deadline_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** When it was accepted, closed or cancelled. */
    endedAt: integer("ended_at"),
  },
  (t) => [index("facilitation_requests_author_idx").on(t.authorId)],
);

export interface RevisionRound {
  result: string | null;
  hours_spent: number | null;
  submitted_at: string | null;
  revision_notes: string;
  requested_at: string;
}

export const facilitationClaims = sqliteTable(
  "facilitation_claims",
  {
    id: text("id").primaryKey(),
    postId: text("post_id").notNull(),
    humanId: text("human_id").notNull(),
    status: text("status", { enum: FACILITATION_CLAIM_STATUSES }).notNull().default("claimed"),
    notes: text("notes"),
    result: text("result"),
    hoursSpent: real("hours_spent"),
    revisionNotes: text("revision_notes"),
    /** Each revision round: what was submitted and what the author asked for. */
    revisionHistory: text("revision_history", { mode: "json" }).$type<RevisionRound[]>().notNull().default(sql`'[]'`),
    claimedAt: integer("claimed_at").notNull(),
    submittedAt: integer("submitted_at"),
    /** When the answer was accepted (by the author or automatically). */
    completedAt: integer("completed_at"),
    /**
     * While an answer waits for review: the instant it counts as accepted without one
     * (submitted_at + auto_accept_days). From then on it reads as accepted; the job records it.
     */
    autoAcceptAt: integer("auto_accept_at"),
    autoAccepted: integer("auto_accepted", { mode: "boolean" }).notNull().default(false),
    /** When the claimer was warned of the approaching deadline (once per claim). */
    deadlineWarnedAt: integer("deadline_warned_at"),
    /** When it was abandoned or cancelled. */
    endedAt: integer("ended_at"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("facilitation_claims_post_idx").on(t.postId, t.claimedAt),
    index("facilitation_claims_human_idx").on(t.humanId, t.claimedAt),
    // One live claim (not abandoned, not cancelled) per human and request.
    uniqueIndex("facilitation_claims_one_live_idx").on(t.postId, t.humanId).where(sql`${t.status} not in ('abandoned', 'cancelled')`),
  ],
);

/** Who was told a request matched their skills (facilitation_matched), once each, with the daily cap counted here. */
export const facilitationMatches = sqliteTable(
  "facilitation_matches",
  {
    postId: text("post_id").notNull(),
    userId: text("user_id").notNull(),
    matchScore: real("match_score").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.postId, t.userId] }), index("facilitation_matches_user_idx").on(t.userId, t.createdAt)],
);
