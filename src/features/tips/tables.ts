import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

const TIP_STATUSES = ["pending", "paid", "expired", "failed"] as const;

/**
 * A Lightning tip on a post or a comment (spec Part 3 §4.4). The tipper pays the platform's
 * invoice (payments' `tip` purpose, subject = this row); once paid, the recipient's share goes
 * out as a payout to their Lightning address (docs/decisions.md §122). `post_id` is the tipped
 * post, or the post of the tipped comment, so every row names the post it concerns.
 */
export const tips = sqliteTable(
  "tips",
  {
    id: text("id").primaryKey(),
    tipperId: text("tipper_id").notNull(),
    recipientId: text("recipient_id").notNull(),
    postId: text("post_id").notNull(),
    /** Set for a tip on a comment. */
    commentId: text("comment_id"),
    amountSats: integer("amount_sats").notNull(),
    status: text("status", { enum: TIP_STATUSES }).notNull().default("pending"),
    paymentHash: text("payment_hash").notNull(),
    paymentRequest: text("payment_request").notNull(),
    expiresAt: integer("expires_at").notNull(),
    paidAt: integer("paid_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    // The public list (paid tips, newest first) and its tipper / recipient filters, read in order (ending with the id).
    index("tips_paid_idx").on(t.status, t.paidAt, t.id),
    index("tips_tipper_idx").on(t.tipperId, t.status, t.paidAt, t.id),
    index("tips_recipient_idx").on(t.recipientId, t.status, t.paidAt, t.id),
    // Per-post and per-comment stats and filters.
    index("tips_post_idx").on(t.postId, t.status),
    index("tips_comment_idx").on(t.commentId, t.status),
  ],
);
