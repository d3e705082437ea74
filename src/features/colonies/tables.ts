// Colonies, their memberships and their bans (spec Part 2 §2.1-2.4).
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const COMMUNITY_TYPES = ["public", "restricted", "private"] as const;
export type CommunityType = (typeof COMMUNITY_TYPES)[number];

/** Colony roles, lowest to highest authority; the founder holds `founder_moderator`. */
export const COLONY_ROLES = ["member", "moderator", "founder_moderator", "admin"] as const;
export type ColonyRole = (typeof COLONY_ROLES)[number];

export const DEFAULT_SORTS = ["new", "hot", "top", "discussed", "shuffle"] as const;
export const CROWD_CONTROL_LEVELS = ["off", "lenient", "moderate", "strict"] as const;
export const CROSSPOST_POLICIES = ["allow", "mod_approval", "disallow"] as const;
export const BANNED_WORDS_ACTIONS = ["quarantine", "reject"] as const;
export const STRIKE_ACTIONS = ["mute_7d", "mute_30d", "ban"] as const;
/**
 * Who may write the colony's wiki (spec Part 3 §4.14): anyone who may take part, members only
 * (the default), members above a karma floor or on the editor list, approved editors only,
 * moderators only, or no wiki at all.
 */
export const WIKI_EDIT_POLICIES = ["anyone", "members", "karma_or_editors", "editors", "moderators", "off"] as const;

/**
 * Settings of §2.4 that are not columns of their own. A key that is absent means the default;
 * PATCH with null removes the key.
 */
export interface ColonySettings {
  rules?: string;
  welcome_message?: string;
  default_sort?: (typeof DEFAULT_SORTS)[number];
  crowd_control_level?: (typeof CROWD_CONTROL_LEVELS)[number];
  accent_color?: string;
  show_rules_banner?: boolean;
  requires_post_approval?: boolean;
  crosspost_policy?: (typeof CROSSPOST_POLICIES)[number];
  require_flair?: boolean;
  banned_words?: string[];
  report_reasons?: string[];
  banned_words_action?: (typeof BANNED_WORDS_ACTIONS)[number];
  undo_window_seconds?: number;
  min_karma_to_post?: number;
  min_karma_to_comment?: number;
  min_karma_to_vote?: number;
  min_comment_length?: number;
  strike_threshold?: number;
  strike_action?: (typeof STRIKE_ACTIONS)[number];
  wiki_edit_policy?: (typeof WIKI_EDIT_POLICIES)[number];
  /** The karma floor of the `karma_or_editors` wiki policy (docs/decisions.md §84). */
  min_karma_to_edit_wiki?: number;
  /** Lockdown: the colony's wiki takes writes from its moderators only (docs/decisions.md §85). */
  lockdown?: boolean;
}

export const colonies = sqliteTable(
  "colonies",
  {
    id: text("id").primaryKey(),
    /** Lower-case url-safe slug; stays taken after a soft delete. */
    name: text("name").notNull().unique(),
    displayName: text("display_name").notNull(),
    description: text("description"),
    communityType: text("community_type", { enum: COMMUNITY_TYPES }).notNull().default("public"),
    /** Every membership row, pending ones included (kept exact in the write transaction). */
    memberCount: integer("member_count").notNull().default(0),
    /** Publicly visible posts, maintained by the posts feature through adjustPostCount. */
    postCount: integer("post_count").notNull().default(0),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    isSandbox: integer("is_sandbox", { mode: "boolean" }).notNull().default(false),
    /** The founder; null for the seeded default colonies. */
    createdBy: text("created_by"),
    settings: text("settings", { mode: "json" }).$type<ColonySettings>().notNull().default(sql`'{}'`),
    iconUrl: text("icon_url"),
    iconUrl96: text("icon_url_96"),
    iconUrl256: text("icon_url_256"),
    headerUrl: text("header_url"),
    /** Archived colonies stay browseable but refuse new members. */
    archivedAt: integer("archived_at"),
    /** Soft-deleted colonies are hidden everywhere; the name stays reserved. */
    deletedAt: integer("deleted_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    // GET /colonies: busiest first among live colonies, then oldest, then by name.
    index("colonies_popular_idx").on(sql`${t.memberCount} desc`, t.createdAt, t.name).where(sql`${t.deletedAt} is null`),
    // The colonies a user founded.
    index("colonies_created_by_idx").on(t.createdBy, t.createdAt),
  ],
);

export const colonyMembers = sqliteTable(
  "colony_members",
  {
    colonyId: text("colony_id")
      .notNull()
      .references(() => colonies.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    role: text("role", { enum: COLONY_ROLES }).notNull().default("member"),
    /** False while a join to a restricted or private colony awaits a moderator (or after revoke-approval). */
    approved: integer("approved", { mode: "boolean" }).notNull().default(true),
    /** Moderator permission keys (can_manage_settings, can_remove, can_manage_mods …); null means the role's defaults. */
    permissions: text("permissions", { mode: "json" }).$type<string[]>(),
    joinedAt: integer("joined_at").notNull(),
    approvedAt: integer("approved_at"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.colonyId, t.userId] }),
    // The roster in join order, and its role filter.
    index("colony_members_roster_idx").on(t.colonyId, t.joinedAt, t.userId),
    index("colony_members_role_idx").on(t.colonyId, t.role),
    // A user's colonies (member_colonies filters, readable-colony checks).
    index("colony_members_user_idx").on(t.userId, t.approved),
  ],
);

/** Colony-level bans (spec Part 2 §2.3); a ban with expires_at in the past no longer applies. */
export const colonyBans = sqliteTable(
  "colony_bans",
  {
    colonyId: text("colony_id")
      .notNull()
      .references(() => colonies.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    reason: text("reason"),
    /** Null for a permanent ban. */
    expiresAt: integer("expires_at"),
    bannedBy: text("banned_by"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.colonyId, t.userId] }),
    index("colony_bans_user_idx").on(t.userId),
    // GET /colonies/{id}/bans, newest first.
    index("colony_bans_colony_idx").on(t.colonyId, t.createdAt),
    // The sweep that lifts timed bans once they expire.
    index("colony_bans_expiry_idx").on(t.expiresAt).where(sql`${t.expiresAt} is not null`),
  ],
);

/**
 * Moderator permission keys (spec Part 2 §2.2). A member row's `permissions` null means its
 * role's defaults (colonies/permissions.ts).
 */
export const MOD_PERMISSIONS = ["can_manage_settings", "can_remove", "can_ban", "can_manage_mods"] as const;
export type ModPermission = (typeof MOD_PERMISSIONS)[number];

/**
 * The moderation audit trail of a colony: one row per moderation action (approve, remove_member,
 * ban, unban, strike, queue actions, automod, invites, transfers …). Mod activity reads it.
 * `actor_id` is null for actions the service takes itself (automod, a timed ban lifting).
 */
export const colonyModLog = sqliteTable(
  "colony_mod_log",
  {
    id: text("id").primaryKey(),
    colonyId: text("colony_id")
      .notNull()
      .references(() => colonies.id, { onDelete: "cascade" }),
    actorId: text("actor_id"),
    /** What was done: approve_member, remove_member, promote, demote, ban, unban, strike, … */
    action: text("action").notNull(),
    /** What it was done to: user, post, comment, report, appeal, rule, invite, transfer … */
    targetType: text("target_type"),
    targetId: text("target_id"),
    /** The member the action concerns, when there is one (a post's author, a banned user). */
    targetUserId: text("target_user_id"),
    reason: text("reason"),
    meta: text("meta", { mode: "json" }).$type<Record<string, unknown>>(),
    /** For actions that resolve something (a queue row, an appeal): when it was opened, for resolution times. */
    openedAt: integer("opened_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("colony_mod_log_colony_idx").on(t.colonyId, t.createdAt, t.id),
    index("colony_mod_log_actor_idx").on(t.colonyId, t.actorId, t.createdAt),
    index("colony_mod_log_target_user_idx").on(t.colonyId, t.targetUserId, t.createdAt),
  ],
);

export const STRIKE_SEVERITIES = ["minor", "major"] as const;

/** Strikes against a member of a colony (spec Part 2 §2.5); active while expires_at is null or ahead. */
export const colonyStrikes = sqliteTable(
  "colony_strikes",
  {
    id: text("id").primaryKey(),
    colonyId: text("colony_id")
      .notNull()
      .references(() => colonies.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    reason: text("reason").notNull(),
    severity: text("severity", { enum: STRIKE_SEVERITIES }).notNull(),
    issuedBy: text("issued_by"),
    /** Null: never expires. */
    expiresAt: integer("expires_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("colony_strikes_member_idx").on(t.colonyId, t.userId, t.createdAt)],
);

export const APPEAL_STATUSES = ["pending", "accepted", "rejected"] as const;

/** Ban appeals (spec Part 2 §2.5, §3): one pending appeal per colony per user. */
export const colonyBanAppeals = sqliteTable(
  "colony_ban_appeals",
  {
    id: text("id").primaryKey(),
    colonyId: text("colony_id")
      .notNull()
      .references(() => colonies.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    body: text("body").notNull(),
    status: text("status", { enum: APPEAL_STATUSES }).notNull().default("pending"),
    resolutionNote: text("resolution_note"),
    resolvedBy: text("resolved_by"),
    resolvedAt: integer("resolved_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("colony_ban_appeals_one_pending_idx").on(t.colonyId, t.userId).where(sql`${t.status} = 'pending'`),
    index("colony_ban_appeals_colony_idx").on(t.colonyId, t.status, t.createdAt),
    index("colony_ban_appeals_user_idx").on(t.colonyId, t.userId, t.createdAt),
  ],
);
