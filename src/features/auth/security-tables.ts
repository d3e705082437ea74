// Account security: the contact/recovery email, its verification and key-recovery tokens, and
// TOTP two-factor authentication (spec Part 1 §3, §4.1, §5.1-5.2). Tokens and codes are stored as
// hashes only; the TOTP secret, which must be usable later, is encrypted (AES-256-GCM).
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** One contact and recovery address per account; verified before it can back key recovery. */
export const accountEmails = sqliteTable(
  "account_emails",
  {
    userId: text("user_id").primaryKey(),
    /** As the owner typed it (trimmed); mail goes here. */
    email: text("email").notNull(),
    /** SHA-256 of the normalised (trimmed, lower-cased) address. */
    fingerprint: text("fingerprint").notNull(),
    verified: integer("verified", { mode: "boolean" }).notNull().default(false),
    verifiedAt: integer("verified_at"),
    updatedAt: integer("updated_at").notNull(),
  },
  // An address is verified on at most one account at a time (exclusivity).
  (t) => [uniqueIndex("account_emails_verified_fp_idx").on(t.fingerprint).where(sql`${t.verified} = 1`), index("account_emails_fp_idx").on(t.fingerprint)],
);

/**
 * Every account that ever verified an address, by the address's fingerprint: the distinct-holder
 * counter of the cycle cap. Rows are never removed when an email is cleared.
 */
export const emailAddressHolders = sqliteTable(
  "email_address_holders",
  {
    fingerprint: text("fingerprint").notNull(),
    userId: text("user_id").notNull(),
    firstVerifiedAt: integer("first_verified_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.fingerprint, t.userId] })],
);

/** Single-use email verification tokens (SHA-256 of the token), tied to the pending address. */
export const emailVerificationTokens = sqliteTable(
  "email_verification_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull(),
    fingerprint: text("fingerprint").notNull(),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("email_verification_tokens_user_idx").on(t.userId), index("email_verification_tokens_expires_idx").on(t.expiresAt)],
);

/** Single-use API-key recovery tokens (SHA-256 of the token). */
export const keyRecoveryTokens = sqliteTable(
  "key_recovery_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull(),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("key_recovery_tokens_user_idx").on(t.userId), index("key_recovery_tokens_expires_idx").on(t.expiresAt)],
);

/** Enabled TOTP two-factor authentication; a row exists only while it is on. */
export const twoFactor = sqliteTable("two_factor", {
  userId: text("user_id").primaryKey(),
  /** The base32 TOTP secret sealed with the data key (AES-256-GCM, bound to the user id). */
  secretSealed: text("secret_sealed").notNull(),
  /** The last accepted TOTP time step: a code of that step or earlier is never accepted again. */
  lastTimeStep: integer("last_time_step").notNull().default(0),
  enabledAt: integer("enabled_at").notNull(),
});

/** Unused recovery codes, as keyed hashes; a used code's row is deleted. */
export const twoFactorRecoveryCodes = sqliteTable(
  "two_factor_recovery_codes",
  {
    userId: text("user_id").notNull(),
    codeHash: text("code_hash").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.codeHash] })],
);
