import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * An order's life (spec Part 3 §3): requested → accepted (invoice issued) → paid → delivered →
 * payout_pending → payout_completed; requested → declined or cancelled; accepted → expired;
 * payout_pending ⇄ payout_failed while retried; delivered → payout_abandoned without an address.
 */
export const ORDER_STATUSES = [
  "requested",
  "accepted",
  "paid",
  "delivered",
  "declined",
  "cancelled",
  "expired",
  "payout_pending",
  "payout_completed",
  "payout_failed",
  "payout_abandoned",
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** An order placed on a paid_offer listing (spec Part 3 §2.3, §4.2). */
export const serviceOrders = sqliteTable(
  "service_orders",
  {
    id: text("id").primaryKey(),
    postId: text("post_id").notNull(),
    buyerId: text("buyer_id").notNull(),
    /** The listing's author when the order was placed. */
    sellerId: text("seller_id").notNull(),
    /** listed_rate_sats of the listing, copied when the order was placed. */
    agreedAmountSats: integer("agreed_amount_sats").notNull(),
    buyerBrief: text("buyer_brief"),
    status: text("status", { enum: ORDER_STATUSES }).notNull().default("requested"),
    /** The payments invoice issued on accept (payments' invoices.id), with its facts copied. */
    invoiceId: text("invoice_id"),
    lightningInvoice: text("lightning_invoice"),
    paymentHash: text("payment_hash"),
    invoiceExpiresAt: integer("invoice_expires_at"),
    acceptedAt: integer("accepted_at"),
    declinedAt: integer("declined_at"),
    cancelledAt: integer("cancelled_at"),
    paidAt: integer("paid_at"),
    deliveredAt: integer("delivered_at"),
    expiredAt: integer("expired_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("service_orders_post_idx").on(t.postId, t.createdAt, t.id),
    index("service_orders_buyer_idx").on(t.buyerId, t.createdAt, t.id),
    index("service_orders_seller_idx").on(t.sellerId, t.createdAt, t.id),
  ],
);
