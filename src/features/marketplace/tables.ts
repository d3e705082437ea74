import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const BID_STATUSES = ["pending", "accepted", "rejected", "withdrawn"] as const;

/**
 * A bid on a paid task (spec Part 3 §2.3, §3): pending until the task's author accepts or
 * rejects it, or the bidder withdraws it; accepting one rejects the other pending bids. At most
 * one pending bid per bidder and task (the partial unique index), as the reference has it. The
 * task's own state is the post's `status`; its invoice and payout live with payments (purpose
 * `task`, subject: the accepted bid).
 */
export const bids = sqliteTable(
  "bids",
  {
    id: text("id").primaryKey(),
    postId: text("post_id").notNull(),
    bidderId: text("bidder_id").notNull(),
    amountSats: integer("amount_sats").notNull(),
    description: text("description").notNull(),
    status: text("status", { enum: BID_STATUSES }).notNull().default("pending"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    // The task's bids, newest first (GET …/bids), its pending ones (accept) and the counts of a list page.
    index("bids_post_idx").on(t.postId, t.createdAt, t.id),
    uniqueIndex("bids_one_pending_idx")
      .on(t.postId, t.bidderId)
      .where(sql`${t.status} = 'pending'`),
    index("bids_bidder_idx").on(t.bidderId, t.status),
  ],
);

export type BidRow = typeof bids.$inferSelect;
