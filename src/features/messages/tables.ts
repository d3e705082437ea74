// Messaging: one-to-one and group conversations, their members, messages and everything that
// hangs off a message (reads, reactions, edit history, stars, attachments), drafts, group pins
// and the cold-DM ledger. See MODEL.md beside this file for the invariants.
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Features that may govern a group conversation (conversations.managed_by). */
const MANAGED_BY = ["modmail"] as const;
export type ManagedBy = (typeof MANAGED_BY)[number];

/**
 * A conversation. `direct`: exactly two members and a unique `pair_key` ("{lowId}:{highId}", the
 * two user ids sorted); `group`: 2..50 members, a title and a creator. `last_message_at` is null
 * until the first message and is bumped by every send (the inbox order). `managed_by` names the
 * feature that governs a group's membership and identity (groups/managed.ts); null for the rest.
 */
export const conversations = sqliteTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: ["direct", "group"] }).notNull(),
    /** Direct only: the sorted pair of member ids joined by ":"; null for groups. */
    pairKey: text("pair_key"),
    /** Group only. */
    title: text("title"),
    description: text("description"),
    /** Folder of the group avatar renditions, relative to the data folder; null when none. */
    avatarPath: text("avatar_path"),
    avatarUploadedAt: integer("avatar_uploaded_at"),
    /** Group: the creator (implicit admin); direct: the user who sent the first message. */
    creatorId: text("creator_id").notNull(),
    createdAt: integer("created_at").notNull(),
    lastMessageAt: integer("last_message_at"),
    lastMessageId: text("last_message_id"),
    /** Messages ever sent here, tombstones included (the tail's `total` without counting rows). */
    messageCount: integer("message_count").notNull().default(0),
    /**
     * Group only: the feature that governs this group's members, title, description and avatar
     * ("modmail": a colony's modmail thread); the group API refuses to change them (403). Null
     * for ordinary groups and direct conversations.
     */
    managedBy: text("managed_by", { enum: MANAGED_BY }),
  },
  (t) => [
    uniqueIndex("conversations_pair_key_idx").on(t.pairKey),
  ],
);

/**
 * Membership. Direct conversations have two accepted members. Groups: invitees start pending,
 * accept or decline (terminal). `left_at` set = no longer a participant (left or removed); the row
 * stays so history and re-invites can be reasoned about. `hidden_at`: the member hid/archived the
 * conversation from the inbox (a new message clears it for direct conversations).
 * Read state: `last_read_message_id` is a watermark (message ids are UUIDv7, so time-ordered):
 * every message from others at or below it has a `message_reads` row; unread = messages from
 * others above it without a read row.
 */
export const conversationMembers = sqliteTable(
  "conversation_members",
  {
    conversationId: text("conversation_id").notNull(),
    userId: text("user_id").notNull(),
    role: text("role", { enum: ["admin", "member"] }).notNull().default("member"),
    inviteStatus: text("invite_status", { enum: ["pending", "accepted", "declined"] }).notNull().default("accepted"),
    invitedBy: text("invited_by"),
    invitedAt: integer("invited_at"),
    /** When the member became accepted (tenure order for admin succession); null while pending. */
    joinedAt: integer("joined_at"),
    lastReadMessageId: text("last_read_message_id"),
    lastReadAt: integer("last_read_at"),
    mutedUntil: integer("muted_until"),
    snoozedUntil: integer("snoozed_until"),
    /** Per-conversation read-receipt override: "on", "off", or null (use the account default). */
    receipts: text("receipts", { enum: ["on", "off"] }),
    hiddenAt: integer("hidden_at"),
    leftAt: integer("left_at"),
    /** Copy of the conversation's last_message_at, so a member's inbox is one ordered index range. */
    lastMessageAt: integer("last_message_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.conversationId, t.userId] }),
    // "My conversations", newest first (inbox list, inbox history, unread totals).
    index("conversation_members_user_last_idx").on(t.userId, t.lastMessageAt),
  ],
);

/** A message. Soft delete keeps the row as a tombstone (`deleted_at`, body emptied on the wire). */
export const messages = sqliteTable(
  "messages",
  {
    /** UUIDv7: sorting by id sorts by creation, so id is the paging cursor. */
    id: text("id").primaryKey(),
    conversationId: text("conversation_id").notNull(),
    senderId: text("sender_id").notNull(),
    body: text("body").notNull(),
    replyToId: text("reply_to_id"),
    /** The message this one forwards (source kept for provenance; may since be deleted). */
    forwardedFromId: text("forwarded_from_id"),
    createdAt: integer("created_at").notNull(),
    editedAt: integer("edited_at"),
    deletedAt: integer("deleted_at"),
  },
  (t) => [
    // Tail, history and unread counts within a conversation (id is time-ordered).
    index("messages_conversation_idx").on(t.conversationId, t.id),
    // "Has this participant ever written here" (cold/warm state, awaiting reply).
    index("messages_conversation_sender_idx").on(t.conversationId, t.senderId, t.id),
  ],
);

/** Who has read which message, and when. One row per (message, reader); never for the sender. */
export const messageReads = sqliteTable(
  "message_reads",
  {
    messageId: text("message_id").notNull(),
    userId: text("user_id").notNull(),
    readAt: integer("read_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.userId] })],
);

/** Emoji reactions on messages: one row per (message, user, emoji); max 6 emojis per user per message. */
export const messageReactions = sqliteTable(
  "message_reactions",
  {
    messageId: text("message_id").notNull(),
    userId: text("user_id").notNull(),
    emoji: text("emoji").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.messageId, t.userId, t.emoji] }),
    // Reactions of a message in order, and the per-emoji total.
    index("message_reactions_message_idx").on(t.messageId, t.emoji, t.createdAt),
  ],
);

/** Edit history: the body as it was before each edit. */
export const messageEdits = sqliteTable(
  "message_edits",
  {
    id: text("id").primaryKey(),
    messageId: text("message_id").notNull(),
    bodyBefore: text("body_before").notNull(),
    /** When the edit replaced `body_before`. */
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("message_edits_message_idx").on(t.messageId, t.createdAt)],
);

/** Saved ("starred") messages per user. */
export const messageStars = sqliteTable(
  "message_stars",
  {
    userId: text("user_id").notNull(),
    messageId: text("message_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.messageId] }),
    // The saved list, newest first.
    index("message_stars_user_created_idx").on(t.userId, t.createdAt),
  ],
);

/**
 * Uploaded images. Created unattached (`message_id` null); a send links it to its message and
 * conversation. Renditions live in `storage_path` (a folder relative to the data folder) as
 * `thumb.webp` and `full.<ext>`. `deleted_at`: removed by the uploader (files are deleted too).
 */
export const messageAttachments = sqliteTable(
  "message_attachments",
  {
    id: text("id").primaryKey(),
    uploaderId: text("uploader_id").notNull(),
    conversationId: text("conversation_id"),
    messageId: text("message_id"),
    mimeType: text("mime_type").notNull(),
    /** Size of the stored full rendition in bytes. */
    sizeBytes: integer("size_bytes").notNull(),
    /** Size of the upload as received. */
    originalBytes: integer("original_bytes").notNull(),
    width: integer("width"),
    height: integer("height"),
    storagePath: text("storage_path").notNull(),
    /** Variant name -> file name inside `storage_path`, e.g. {thumb:"thumb.webp", full:"full.png"}. */
    variants: text("variants", { mode: "json" }).$type<Record<string, string>>().notNull(),
    createdAt: integer("created_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (t) => [
    index("message_attachments_message_idx").on(t.messageId),
    index("message_attachments_uploader_idx").on(t.uploaderId, t.createdAt),
  ],
);

/**
 * Unsent drafts, one per user per conversation target: a direct draft is keyed by the peer
 * (the conversation may not exist yet), a group draft by the conversation.
 */
export const messageDrafts = sqliteTable(
  "message_drafts",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    peerId: text("peer_id"),
    conversationId: text("conversation_id"),
    body: text("body").notNull(),
    replyToId: text("reply_to_id"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("message_drafts_user_peer_idx").on(t.userId, t.peerId),
    uniqueIndex("message_drafts_user_conversation_idx").on(t.userId, t.conversationId),
  ],
);

/** Pinned messages of a group (max 5 per group). */
export const groupPins = sqliteTable(
  "group_pins",
  {
    conversationId: text("conversation_id").notNull(),
    messageId: text("message_id").notNull(),
    pinnedBy: text("pinned_by").notNull(),
    pinnedAt: integer("pinned_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.messageId] }), index("group_pins_conversation_idx").on(t.conversationId, t.pinnedAt)],
);

/**
 * The cold-DM ledger: one row each time a sender opens a cold contact (a first direct message to
 * someone who never messaged them and is not a mutual follow, or a group invite to such a
 * stranger). The budget counts distinct recipients in a rolling window that are still cold.
 */
export const coldContacts = sqliteTable(
  "cold_contacts",
  {
    id: text("id").primaryKey(),
    senderId: text("sender_id").notNull(),
    recipientId: text("recipient_id").notNull(),
    /** "direct" (first message) or "group_invite". */
    source: text("source", { enum: ["direct", "group_invite"] }).notNull(),
    conversationId: text("conversation_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("cold_contacts_sender_created_idx").on(t.senderId, t.createdAt)],
);
