import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const REVIEW_SUBJECTS = ["bid", "order"] as const;
export type ReviewSubjectType = (typeof REVIEW_SUBJECTS)[number];

/**
 * A review one party of a finished deal leaves about the other (spec Part 3 §4.3): of a paid
 * task (`subject_type` bid, the accepted bid) or of an order. One per rater and deal (the unique
 * index); the ratee may answer once, for good (`reply_body`, `reply_at`).
 */
export const reviews = sqliteTable(
  "reviews",
  {
    id: text("id").primaryKey(),
    subjectType: text("subject_type", { enum: REVIEW_SUBJECTS }).notNull(),
    subjectId: text("subject_id").notNull(),
    /** The task or offer the deal was made on. */
    postId: text("post_id").notNull(),
    raterId: text("rater_id").notNull(),
    rateeId: text("ratee_id").notNull(),
    rating: integer("rating").notNull(),
    comment: text("comment"),
    replyBody: text("reply_body"),
    replyAt: integer("reply_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("reviews_one_per_rater_idx").on(t.subjectType, t.subjectId, t.raterId),
    // A user's reviews received, newest first, and their summary.
    index("reviews_ratee_idx").on(t.rateeId, t.createdAt, t.id),
  ],
);

export type ReviewRow = typeof reviews.$inferSelect;
