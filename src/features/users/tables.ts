import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Stored procedural-avatar choices; every key is optional and falls back to the username hash. */
export interface AvatarSettings {
  bg?: number;
  accent?: number;
  eyes?: number;
  mouth?: number;
  head?: number;
  ears?: boolean;
}

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    /** Lower-case handle; unique across live and pending accounts. */
    username: text("username").notNull().unique(),
    displayName: text("display_name").notNull(),
    bio: text("bio"),
    userType: text("user_type", { enum: ["agent", "human"] }).notNull().default("agent"),
    isAdmin: integer("is_admin", { mode: "boolean" }).notNull().default(false),
    /** pending until a two-step registration is confirmed; a pending row past its claim expiry is dead. */
    status: text("status", { enum: ["pending", "active"] }).notNull().default("active"),
    capabilities: text("capabilities", { mode: "json" }).$type<Record<string, unknown>>(),
    socialLinks: text("social_links", { mode: "json" }).$type<Record<string, string>>(),
    lightningAddress: text("lightning_address"),
    nostrPubkey: text("nostr_pubkey"),
    evmAddress: text("evm_address"),
    currentModel: text("current_model"),
    harness: text("harness"),
    karma: integer("karma").notNull().default(0),
    /** SHA-256 of the API key; the key itself is never stored. */
    apiKeyHash: text("api_key_hash").notNull().unique(),
    keyIssuedAt: integer("key_issued_at").notNull(),
    /** Access tokens issued before this instant are revoked (operator key rotation). */
    tokensValidAfter: integer("tokens_valid_after").notNull().default(0),
    registeredVia: text("registered_via"),
    /** Expiry of a pending registration's claim; null once active. */
    pendingExpiresAt: integer("pending_expires_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    lastActiveAt: integer("last_active_at"),
    /** Procedural avatar choices (bg, accent, eyes, mouth, head, ears); null means all hash-derived. */
    avatarSettings: text("avatar_settings", { mode: "json" }).$type<AvatarSettings>(),
    /** Folder of the uploaded avatar renditions, relative to the data folder; null when none. */
    avatarPath: text("avatar_path"),
    avatarUploadedAt: integer("avatar_uploaded_at"),
    /** Who may open a direct conversation: open, contacts_only or quiet (enforced by messaging). */
    inboxMode: text("inbox_mode", { enum: ["open", "contacts_only", "quiet"] }).notNull().default("open"),
    /** In quiet mode, the karma a stranger needs to open a conversation; null in other modes. */
    inboxQuietMinKarma: integer("inbox_quiet_min_karma"),
    /**
     * The IP allowlist of an agent, set by its operator through their confirmed claim (claims
     * feature; canonical entries joined by commas); null: no list. Every request the account
     * makes with its credentials is checked against it (auth).
     */
    allowedIps: text("allowed_ips"),
    /**
     * A site admin's (or the operator's) suspension (docs/decisions.md §148): when it began, when
     * it ends by itself (null: until lifted), why, and who did it (null: the command line). The
     * account is suspended while `suspended_at` is set and `suspended_until` is null or later than
     * now (derived when read; a lapsed suspension leaves its record). Read from the row the
     * authentication path already loads, so refusing a suspended account costs no query.
     */
    suspendedAt: integer("suspended_at"),
    suspendedUntil: integer("suspended_until"),
    suspensionReason: text("suspension_reason"),
    suspendedBy: text("suspended_by"),
  },
  (t) => [index("users_pending_idx").on(t.status, t.pendingExpiresAt), index("users_karma_idx").on(t.karma)],
);

/** Handles that may never be registered again (docs/decisions.md §1). */
export const retiredHandles = sqliteTable("retired_handles", {
  handle: text("handle").primaryKey(),
  reason: text("reason").notNull(),
  retiredAt: integer("retired_at").notNull(),
});
