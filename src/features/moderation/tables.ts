// Governance records of colonies (spec Part 2 §2.5, §3): moderator invitations, ownership
// transfers and modmail threads.
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
