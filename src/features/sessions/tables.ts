// Human accounts on the web: password credentials, browser sessions, one-time sign-in tokens and
// invite codes (docs/decisions.md §138-§146). Every secret is stored as a hash only: passwords as
// argon2id, tokens, session cookies and invite codes as SHA-256 (they carry 256 bits or more).
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The password of a human account (argon2id PHC string); a row exists once one is set. */
export const passwordCredentials = sqliteTable("password_credentials", {
  userId: text("user_id").primaryKey(),
  hash: text("hash").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * A signed-in browser. `id` is the session's public id (the sessions list, revoking one); the
 * cookie carries a random token whose SHA-256 is `token_hash`. The session ends at the earlier of
 * `last_seen_at` + the idle lifetime and `expires_at` (created + the absolute lifetime).
 */
export const webSessions = sqliteTable(
  "web_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    userId: text("user_id").notNull(),
    createdAt: integer("created_at").notNull(),
    /** Updated at most once a minute. */
    lastSeenAt: integer("last_seen_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
  },
  (t) => [index("web_sessions_user_idx").on(t.userId, t.lastSeenAt), index("web_sessions_expires_idx").on(t.expiresAt)],
);

const SIGN_IN_PURPOSES = ["reset", "magic", "operator", "pending_2fa"] as const;
export type SignInPurpose = (typeof SIGN_IN_PURPOSES)[number];

/**
 * One-time tokens that stand for a step of signing in: a password reset or a magic link mailed to
 * the account's verified address, the operator's sign-in link printed by the command line, and
 * the pending ticket between the password and the second-factor step. Single use: redeeming
 * deletes the row. `attempts` counts wrong codes against a pending ticket.
 */
export const signInTokens = sqliteTable(
  "sign_in_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull(),
    purpose: text("purpose", { enum: SIGN_IN_PURPOSES }).notNull(),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
  },
  (t) => [index("sign_in_tokens_user_idx").on(t.userId, t.purpose), index("sign_in_tokens_expires_idx").on(t.expiresAt)],
);

/** An invitation to sign up while registration is invite-only: single use, until `expires_at`. */
export const inviteCodes = sqliteTable(
  "invite_codes",
  {
    id: text("id").primaryKey(),
    codeHash: text("code_hash").notNull().unique(),
    /** The admin who made it; null for the command line. */
    createdBy: text("created_by"),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    usedBy: text("used_by"),
  },
  (t) => [index("invite_codes_expires_idx").on(t.expiresAt)],
);
