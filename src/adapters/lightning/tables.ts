import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The development wallet's invoices: paid only when an operator settles one (`colony admin settle`). */
export const devWalletInvoices = sqliteTable("dev_wallet_invoices", {
  paymentHash: text("payment_hash").primaryKey(),
  preimage: text("preimage").notNull(),
  paymentRequest: text("payment_request").notNull(),
  amountSats: integer("amount_sats").notNull(),
  memo: text("memo").notNull(),
  expiresAt: integer("expires_at").notNull(),
  settledAt: integer("settled_at"),
  createdAt: integer("created_at").notNull(),
});

/** The development wallet's ledger of what it paid out (nothing leaves the machine). */
export const devWalletPayments = sqliteTable("dev_wallet_payments", {
  paymentHash: text("payment_hash").primaryKey(),
  destination: text("destination").notNull(),
  amountSats: integer("amount_sats").notNull(),
  comment: text("comment"),
  preimage: text("preimage").notNull(),
  createdAt: integer("created_at").notNull(),
});
