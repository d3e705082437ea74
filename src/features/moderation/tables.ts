// Moderation's records of colonies (spec Part 2 §2.5, §3, §4.2): moderator invitations, ownership
// transfers, modmail threads, automod rules and the moderation queue.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { colonies } from "../colonies/tables";

export const MOD_INVITE_ROLES = ["moderator", "admin"] as const;
export const MOD_INVITE_STATUSES = ["pending", "accepted", "declined", "revoked", "expired"] as const;

/** An offer of a moderating role (7 days; no powers until accepted). */
export const colonyModInvites = sqliteTable(
  "colony_mod_invites",
  {
    id: text("id").primaryKey(),
    colonyId: text("colony_id")
      .notNull()
      .references(() => colonies.id, { onDelete: "cascade" }),
    inviteeId: text("invitee_id").notNull(),
    invitedBy: text("invited_by").notNull(),
    roleOffered: text("role_offered", { enum: MOD_INVITE_ROLES }).notNull(),
    permissions: text("permissions", { mode: "json" }).$type<string[]>().notNull(),
    status: text("status", { enum: MOD_INVITE_STATUSES }).notNull().default("pending"),
    expiresAt: integer("expires_at").notNull(),
    respondedAt: integer("responded_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("colony_mod_invites_one_pending_idx").on(t.colonyId, t.inviteeId).where(sql`${t.status} = 'pending'`),
    index("colony_mod_invites_invitee_idx").on(t.inviteeId, t.status, t.createdAt),
    index("colony_mod_invites_colony_idx").on(t.colonyId, t.status, t.createdAt),
    index("colony_mod_invites_expiry_idx").on(t.expiresAt).where(sql`${t.status} = 'pending'`),
  ],
);

export const TRANSFER_STATUSES = ["pending", "accepted", "declined", "cancelled", "expired"] as const;

/** A founder's proposal to hand the colony to one of its moderators (7 days). */
export const colonyOwnershipTransfers = sqliteTable(
  "colony_ownership_transfers",
  {
    id: text("id").primaryKey(),
    colonyId: text("colony_id")
      .notNull()
      .references(() => colonies.id, { onDelete: "cascade" }),
    initiatorId: text("initiator_id").notNull(),
    recipientId: text("recipient_id").notNull(),
    status: text("status", { enum: TRANSFER_STATUSES }).notNull().default("pending"),
    expiresAt: integer("expires_at").notNull(),
    respondedAt: integer("responded_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("colony_ownership_transfers_one_pending_idx").on(t.colonyId).where(sql`${t.status} = 'pending'`),
    index("colony_ownership_transfers_recipient_idx").on(t.recipientId, t.status),
    index("colony_ownership_transfers_expiry_idx").on(t.expiresAt).where(sql`${t.status} = 'pending'`),
  ],
);

/** One modmail thread per user per colony: a group conversation between the user and the moderators who join it. */
export const colonyModmailThreads = sqliteTable(
  "colony_modmail_threads",
  {
    colonyId: text("colony_id")
      .notNull()
      .references(() => colonies.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    conversationId: text("conversation_id").notNull().unique(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.colonyId, t.userId] }), index("colony_modmail_threads_colony_idx").on(t.colonyId, t.updatedAt)],
);

export const AUTOMOD_SCOPES = ["post", "comment", "both"] as const;

/** Automod rules of a colony, applied in `order_index` order on create and edit (spec Part 2 §4.2). */
export const colonyAutomodRules = sqliteTable(
  "colony_automod_rules",
  {
    id: text("id").primaryKey(),
    colonyId: text("colony_id")
      .notNull()
      .references(() => colonies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    scope: text("scope", { enum: AUTOMOD_SCOPES }).notNull().default("both"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    orderIndex: integer("order_index").notNull(),
    triggers: text("triggers", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    actions: text("actions", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdBy: text("created_by"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("colony_automod_rules_order_idx").on(t.colonyId, t.orderIndex)],
);

/**
 * Where a row of the moderation queue comes from (spec Part 2 §2.5). The reference adds the
 * filter-only `unmoderated` and `edited_post`, which this server accepts as filters and never
 * fills (docs/decisions.md §41).
 */
export const MOD_QUEUE_SOURCES = ["pending_post", "open_report", "automod_removed_post", "automod_removed_comment", "automod_filtered_post", "xss_probe_quarantined"] as const;
export type ModQueueSource = (typeof MOD_QUEUE_SOURCES)[number];
export const MOD_QUEUE_STATUSES = ["open", "resolved"] as const;

/**
 * The unified moderation queue (spec Part 2 §4.2): one row per thing waiting for a moderator,
 * written in the transaction of the write that opened it (a held post, a report, an automod
 * firing, a quarantined probe) and resolved in the transaction of the action that settles it.
 * `source_id` is the id the source knows the row by (the post, the comment or the report).
 */
export const colonyModQueue = sqliteTable(
  "colony_mod_queue",
  {
    id: text("id").primaryKey(),
    colonyId: text("colony_id")
      .notNull()
      .references(() => colonies.id, { onDelete: "cascade" }),
    source: text("source", { enum: MOD_QUEUE_SOURCES }).notNull(),
    sourceId: text("source_id").notNull(),
    /** post or comment */
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    postId: text("post_id"),
    authorId: text("author_id"),
    excerpt: text("excerpt").notNull().default(""),
    payload: text("payload", { mode: "json" }).$type<Record<string, unknown>>(),
    status: text("status", { enum: MOD_QUEUE_STATUSES }).notNull().default("open"),
    /** The action that resolved the row (approve, remove, dismiss …), or why it closed by itself (content_deleted). */
    resolution: text("resolution"),
    resolvedBy: text("resolved_by"),
    resolvedAt: integer("resolved_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    // The queue page (status filter, newest or oldest first) and its source chips.
    index("colony_mod_queue_list_idx").on(t.colonyId, t.status, t.createdAt, t.id),
    index("colony_mod_queue_source_idx").on(t.colonyId, t.status, t.source, t.createdAt, t.id),
    // A source opens at most one row at a time.
    uniqueIndex("colony_mod_queue_one_open_idx").on(t.source, t.sourceId).where(sql`${t.status} = 'open'`),
    // Every open row about a post or comment (cascades when it is removed or deleted).
    index("colony_mod_queue_target_idx").on(t.targetId, t.status),
    index("colony_mod_queue_post_idx").on(t.postId, t.status),
  ],
);
