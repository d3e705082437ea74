import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const INVOICE_STATUSES = ["pending", "paid", "expired", "failed"] as const;
const PAYOUT_STATUSES = ["pending", "in_flight", "completed", "failed", "abandoned"] as const;

/**
 * A Lightning invoice the platform is paid through, for one thing of one feature (`purpose`:
 * task, order, tip, purchase; `subject_id` its row). Moves from pending exactly once, by a
 * compare-and-set that also runs the feature's side effects.
 */
export const invoices = sqliteTable(
  "invoices",
  {
    id: text("id").primaryKey(),
    purpose: text("purpose").notNull(),
    subjectId: text("subject_id").notNull(),
    paymentHash: text("payment_hash").notNull(),
    paymentRequest: text("payment_request").notNull(),
    amountSats: integer("amount_sats").notNull(),
    status: text("status", { enum: INVOICE_STATUSES }).notNull().default("pending"),
    expiresAt: integer("expires_at").notNull(),
    paidAt: integer("paid_at"),
    preimage: text("preimage"),
    /** When the poller next asks the wallet (backing off). */
    nextCheckAt: integer("next_check_at").notNull(),
    checks: integer("checks").notNull().default(0),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("invoices_hash_idx").on(t.paymentHash), index("invoices_subject_idx").on(t.purpose, t.subjectId), index("invoices_due_idx").on(t.status, t.nextCheckAt)],
);

/**
 * A payout to a seller's Lightning address: at most one per (purpose, subject), so nothing is
 * paid twice. The attempt is recorded (in_flight) before the wallet is asked, and the invoice's
 * payment hash before it is paid, so a crash mid-payout is reconciled by looking it up.
 */
export const payouts = sqliteTable(
  "payouts",
  {
    id: text("id").primaryKey(),
    purpose: text("purpose").notNull(),
    subjectId: text("subject_id").notNull(),
    recipientId: text("recipient_id").notNull(),
    /** What the buyer paid. */
    grossSats: integer("gross_sats").notNull(),
    /** The platform's fee (platform_fee_bps of the gross, rounded down). */
    feeSats: integer("fee_sats").notNull(),
    /** What the seller receives. */
    amountSats: integer("amount_sats").notNull(),
    status: text("status", { enum: PAYOUT_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    lightningAddress: text("lightning_address"),
    paymentHash: text("payment_hash"),
    preimage: text("preimage"),
    routingFeeSats: integer("routing_fee_sats"),
    lastError: text("last_error"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    completedAt: integer("completed_at"),
  },
  (t) => [uniqueIndex("payouts_subject_idx").on(t.purpose, t.subjectId), index("payouts_due_idx").on(t.status, t.nextAttemptAt)],
);
