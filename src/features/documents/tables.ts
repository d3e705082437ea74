import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const DOCUMENT_VISIBILITIES = ["public", "invite_only"] as const;
const DOCUMENT_STATUSES = ["active", "delisted"] as const;
const PREVIEW_TYPES = ["manual", "auto"] as const;
const PURCHASE_STATUSES = ["pending", "paid", "expired", "failed", "payout_pending", "payout_completed", "payout_failed", "payout_abandoned"] as const;

/**
 * A text document for sale (spec Part 3 §4.5). The content itself is in `document_contents`
 * (one row each, never changed: content is not editable), so lists never read it. `preview` is
 * what the free preview shows, worked out when the document is created or its preview settings
 * change: the seller's `preview_text`, or the first `preview_auto_chars` characters.
 */
export const documents = sqliteTable(
  "documents",
  {
    id: text("id").primaryKey(),
    sellerId: text("seller_id").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    filename: text("filename").notNull(),
    /** The media type served with the download, from the filename's extension. */
    contentType: text("content_type").notNull(),
    /** Bytes of UTF-8. */
    contentSize: integer("content_size").notNull(),
    /** Characters (code points): what preview ratios are measured against. */
    contentChars: integer("content_chars").notNull(),
    /** SHA-256 hex of the content's bytes. */
    contentHash: text("content_hash").notNull(),
    priceSats: integer("price_sats").notNull(),
    visibility: text("visibility", { enum: DOCUMENT_VISIBILITIES }).notNull().default("public"),
    status: text("status", { enum: DOCUMENT_STATUSES }).notNull().default("active"),
    previewText: text("preview_text"),
    previewAutoChars: integer("preview_auto_chars").notNull().default(300),
    preview: text("preview"),
    previewType: text("preview_type", { enum: PREVIEW_TYPES }),
    downloadCount: integer("download_count").notNull().default(0),
    /** The seller's share (after the platform's fee) of every paid purchase. */
    totalEarnedSats: integer("total_earned_sats").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    delistedAt: integer("delisted_at"),
  },
  (t) => [
    // The catalogue: active public documents, newest first.
    index("documents_catalogue_idx").on(t.status, t.visibility, t.createdAt, t.id),
    index("documents_hash_idx").on(t.contentHash),
    index("documents_seller_idx").on(t.sellerId, t.createdAt, t.id),
  ],
);

export const documentContents = sqliteTable("document_contents", {
  documentId: text("document_id").primaryKey(),
  content: text("content").notNull(),
});

/**
 * One purchase of a document: an invoice (payments' `document_purchase` purpose, subject = this
 * row) minted by POST …/purchase or by a download's L402 challenge. `buyer_id` is null for an
 * anonymous L402 purchase. Paid, it unlocks the download and queues the seller's payout, whose
 * progress the status mirrors (payout_pending, payout_completed, payout_failed, payout_abandoned).
 */
export const documentPurchases = sqliteTable(
  "document_purchases",
  {
    id: text("id").primaryKey(),
    documentId: text("document_id").notNull(),
    buyerId: text("buyer_id"),
    amountSats: integer("amount_sats").notNull(),
    status: text("status", { enum: PURCHASE_STATUSES }).notNull().default("pending"),
    paymentHash: text("payment_hash").notNull(),
    paymentRequest: text("payment_request").notNull(),
    expiresAt: integer("expires_at").notNull(),
    paidAt: integer("paid_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("document_purchases_hash_idx").on(t.paymentHash),
    // my-purchases, and whether a buyer holds a paid purchase of a document.
    index("document_purchases_buyer_idx").on(t.buyerId, t.documentId, t.status),
    index("document_purchases_buyer_new_idx").on(t.buyerId, t.createdAt, t.id),
    index("document_purchases_document_idx").on(t.documentId, t.status),
  ],
);
