// Wire schemas of the messaging routes (field names from the reference service).
import { t } from "elysia";
import type { PagingSpec } from "../../http/paging";
import { DateTime, Int, Nullable, Uuid } from "../../http/schemas";
import { UserOut } from "../users/schemas";

export { DateTime, Uuid };

/** A page of one conversation's messages (1:1 open and group GET). */
export const CONVERSATION_PAGING: PagingSpec = { max: 200, default: 50 };

export const MessageReactionOut = t.Object({ emoji: t.String(), user_id: Uuid, username: t.String(), created_at: DateTime });

/** The fields of an attachment after its id (views.attachmentOut). */
const AttachmentFields = {
  mime_type: t.String(),
  size_bytes: Int(),
  width: Nullable(Int()),
  height: Nullable(Int()),
  thumb_url: t.String(),
  full_url: t.String(),
};

const MessageAttachmentOut = t.Object({ id: Uuid, ...AttachmentFields });

export const MessageOut = t.Object({
  id: Uuid,
  conversation_id: Uuid,
  sender: UserOut,
  body: t.String({ description: "Empty for a deleted message (tombstone)" }),
  is_read: t.Boolean(),
  read_at: Nullable(DateTime),
  edited_at: Nullable(DateTime),
  reactions: t.Array(MessageReactionOut),
  reply_to: Nullable(
    t.Object({ id: Uuid, sender_id: Uuid, sender_username: t.String(), body_preview: t.String(), deleted: t.Boolean() }),
  ),
  attachments: t.Array(MessageAttachmentOut),
  forwarded_from_id: Nullable(Uuid),
  deleted: t.Boolean({ description: "True for a tombstone left by DELETE" }),
  created_at: DateTime,
});

export const PageMeta = t.Object({ total: Int(), has_more: t.Boolean() });

export const ConversationOut = t.Object({
  id: Uuid,
  other_user: Nullable(UserOut, { description: "The other participant of a 1:1 conversation; null for a group" }),
  is_group: t.Boolean(),
  title: Nullable(t.String()),
  invite_status: t.String({ description: "accepted, or pending for a group invitation not yet answered" }),
  last_message_at: DateTime,
  unread_count: Int(),
  last_message_preview: Nullable(t.String()),
  is_archived: t.Boolean(),
});

export const ConversationDetail = t.Object({
  id: Nullable(Uuid, { description: "Null until a message has been exchanged" }),
  other_user: UserOut,
  messages: t.Array(MessageOut),
});

export const ConversationTailOut = t.Object({ messages: t.Array(MessageOut), pagination: PageMeta });
export const ConversationHistoryOut = t.Object({ messages: t.Array(MessageOut), has_more: t.Boolean(), cursor_found: t.Boolean() });

export const DraftIn = t.Object({
  body: t.Optional(t.String({ maxLength: 10000, default: "" })),
  reply_to_message_id: t.Optional(Nullable(Uuid)),
});
export const DraftOut = t.Object({ body: t.String(), reply_to_message_id: Nullable(Uuid), updated_at: DateTime });

export const MessageCreate = t.Object({
  body: t.Optional(t.String({ maxLength: 10000, default: "" })),
  reply_to_message_id: t.Optional(Nullable(Uuid)),
  attachment_ids: t.Optional(t.Array(Uuid, { maxItems: 10 })),
});

const InboxRowOut = t.Object({
  conversation: t.Object({ id: Uuid, is_group: t.Boolean(), title: Nullable(t.String()), avatar_path: Nullable(t.String()), last_message_at: Nullable(DateTime) }),
  other_user: Nullable(t.Object({ id: Uuid, username: t.String(), display_name: t.String(), user_type: t.String(), avatar_url: Nullable(t.String()) })),
  unread_count: Int(),
  last_message: Nullable(t.Object({ id: Uuid, body: t.String(), sender_id: Uuid, created_at: DateTime })),
  is_archived: t.Boolean(),
  is_muted: t.Boolean(),
  draft: Nullable(t.Object({ body: t.String() })),
  pinned_at: Nullable(DateTime),
  snoozed_until: Nullable(DateTime),
  manually_unread_at: Nullable(DateTime),
});
export const InboxHistoryOut = t.Object({ rows: t.Array(InboxRowOut), has_more: t.Boolean() });

export const UnreadCountOut = t.Object({
  unread_direct_messages: Int(),
  unread_count: t.Optional(Int({ deprecated: true, description: "Deprecated: use unread_direct_messages, which carries the same value." })),
});

export const MarkMessageReadOut = t.Object({ already: t.Boolean(), self_authored: t.Boolean() });

const MessageReadEntry = t.Object({ user_id: Uuid, username: t.String(), display_name: t.String(), read_at: Nullable(DateTime) });
export const MessageReadsOut = t.Object({
  is_group: t.Boolean(),
  total_others: Int(),
  seen_count: Int(),
  seen: t.Array(MessageReadEntry),
  unseen: t.Array(MessageReadEntry),
});

export const MessageEditHistoryOut = t.Object({
  message_id: Uuid,
  versions: t.Array(
    t.Object({
      body: t.String(),
      created_at: DateTime,
      at: t.Optional(Nullable(t.String({ format: "date-time", deprecated: true, description: "Deprecated: use created_at, which carries the same value." }))),
      is_current: t.Boolean(),
    }),
  ),
});

export const SavedMessagesOut = t.Object({
  messages: t.Array(
    t.Object({
      saved_at: DateTime,
      note: Nullable(t.String()),
      message: MessageOut,
      other_username: Nullable(t.String()),
      is_group: t.Boolean(),
      conversation_title: Nullable(t.String()),
    }),
  ),
  pagination: PageMeta,
});

export const AttachmentUploadOut = t.Object({ attachment_id: Uuid, ...AttachmentFields, deduped: t.Boolean() });

const ColdBudgetWindow = t.Object({ cap: Int(), remaining: Int(), window_seconds: Int(), earliest_send_in_window_at: Nullable(DateTime) });
export const ColdBudgetResponse = t.Object({
  tier: t.String(),
  tier_label: t.String(),
  daily: ColdBudgetWindow,
  hourly: ColdBudgetWindow,
  inbox_mode: t.String(),
  inbox_quiet_min_karma: Nullable(Int()),
  next_tier: Nullable(t.Object({ tier: t.String(), requires: t.Record(t.String(), Int()) })),
});
export const ColdPeersResponse = t.Object({
  items: t.Array(t.Object({ handle: t.String(), warm: t.Boolean(), awaiting_reply: t.Boolean(), last_outbound_at: Nullable(DateTime) })),
  next_cursor: Nullable(t.String()),
  has_more: t.Boolean(),
});
