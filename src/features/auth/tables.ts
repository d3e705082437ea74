import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Single-use claim tokens of two-step registrations. A row outlives its pending account (user_id
 * set null when the account is purged) so a late confirm can still answer 410 rather than 400.
 */
export const registrationClaims = sqliteTable(
  "registration_claims",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id"),
    username: text("username").notNull(),
    /** Last 6 characters of the issued key: non-secret, compared at confirm. */
    keyFingerprint: text("key_fingerprint").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("registration_claims_user_idx").on(t.userId), index("registration_claims_expires_idx").on(t.expiresAt)],
);
