// One-to-one conversations (spec Part 2 §4.5): the inbox list, opening a conversation by the
// other user's username, tail and history pages, drafts, sending and typing.
import { and, asc, count, desc, eq, gt, lt } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import { inGroupCommit, inTransaction, type Db } from "../../db/client";
import { prepared, rowsByIds } from "../../db/statements";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { avatarUrl, userOut } from "../users/views";
import {
  assertCanSend,
  assertNotBlocked,
  otherOf,
  clearDirectDraft,
  directConversation,
  getOrCreateDirect,
  insertMessage,
  isCold,
  mapConversation,
  mapMember,
  markConversationRead,
  messageById,
  participantIds,
  preview,
  recordColdContact,
  replyTargetId,
  requireParticipant,
  unreadDirectTotal,
  userByUsername,
  validateSendInput,
  conversationById,
  type ConversationRow,
  type MemberRow,
  type MessageRow,
  type SendInput,
} from "./service";
import { conversations, messageDrafts, messageReads, messages } from "./tables";
import { messageViews } from "./views";

/** The other user of a 1:1 path; messaging yourself is 400 INVALID_INPUT. */
function peerOf(ctx: Ctx, caller: Caller, username: string): UserRow {
  const peer = userByUsername(ctx, username);
  if (peer.id === caller.id) throw new ApiError(400, "INVALID_INPUT", "You cannot message yourself");
  return peer;
}

// ---------------------------------------------------------------------------------------------
// Sending

/**
 * POST /messages/send/{username}: the recipient, the karma floor, the payload, then one
 * transaction: the conversation (created on the first message; a first contact that is cold goes
 * to the cold-contact ledger), the message, the sender's draft cleared, the `direct_message` event.
 */
export function send(ctx: Ctx, caller: Caller, username: string, input: SendInput, opts: { forwardedFromId?: string | null } = {}): MessageRow {
  return inTransaction(ctx.db, sendWrite(ctx, caller, username, input, opts));
}

/** send committed with the other writes of this turn (db/client.ts inGroupCommit): the API's route. */
export function sendGrouped(ctx: Ctx, caller: Caller, username: string, input: SendInput): Promise<MessageRow> {
  return inGroupCommit(ctx.db, sendWrite(ctx, caller, username, input, {}));
}

/** The checks of a send (refusals are thrown here) and the write that sends it. */
function sendWrite(ctx: Ctx, caller: Caller, username: string, input: SendInput, opts: { forwardedFromId?: string | null }): (tx: Db) => MessageRow {
  const peer = peerOf(ctx, caller, username);
  assertCanSend(caller);
  assertNotBlocked(ctx, caller.id, peer.id);
  const existing = directConversation(ctx, caller.id, peer.id);
  const valid = validateSendInput(ctx, caller.id, existing?.id ?? null, input);
  return (tx) => {
    const { conversation, created } = getOrCreateDirect(tx, ctx, caller.id, peer.id, existing);
    if (created && isCold(ctx, caller.id, peer.id)) recordColdContact(tx, ctx, caller.id, peer.id, conversation.id, "direct");
    const msg = insertMessage(tx, ctx, {
      conversationId: conversation.id,
      senderId: caller.id,
      body: valid.body,
      replyToId: valid.replyToId,
      attachmentIds: valid.attachmentIds,
      forwardedFromId: opts.forwardedFromId ?? null,
    });
    clearDirectDraft(ctx, caller.id, peer.id);
    ctx.events.emit(tx, {
      type: "direct_message",
      actorId: caller.id,
      subject: { type: "message", id: msg.id },
      payload: {
        recipient_ids: [peer.id],
        message_id: msg.id,
        conversation_id: conversation.id,
        sender_id: caller.id,
        sender_username: caller.username,
        sender_display_name: caller.user.displayName,
        sender: caller.user.displayName,
        preview: preview(msg.body),
      },
      activity: true,
    });
    return msg;
  };
}

// ---------------------------------------------------------------------------------------------
// Reading one conversation

/** The newest `limit` messages (after `offset` from the newest), in chronological order. */
function latestPage(ctx: Ctx, conversationId: string, page: Page): MessageRow[] {
  return ctx.db
    .select()
    .from(messages)
    .where(eq(messages.conversationId, conversationId))
    .orderBy(desc(messages.id))
    .limit(page.limit)
    .offset(page.offset)
    .all()
    .reverse();
}

/**
 * Marks the conversation read for `userId` and emits `messages_read` when anything changed
 * (`recipients()`: who is told — the other participant, or the other group members — asked only
 * then; `extra` joins the payload).
 */
export function readConversation(ctx: Ctx, conversation: ConversationRow, userId: string, recipients: () => string[], extra: Record<string, unknown> = {}): number {
  return inTransaction(ctx.db, (tx) => {
    const n = markConversationRead(tx, ctx, conversation.id, userId);
    if (n > 0) {
      // The newest message read, so group members can move their "seen by" marks (dm.group_read).
      const last = tx.select({ id: conversations.lastMessageId }).from(conversations).where(eq(conversations.id, conversation.id)).get()?.id ?? null;
      const readCount = last ? (tx.select({ n: count() }).from(messageReads).where(eq(messageReads.messageId, last)).get()?.n ?? 0) : 0;
      ctx.events.emit(tx, {
        type: "messages_read",
        actorId: userId,
        subject: { type: "conversation", id: conversation.id },
        payload: { conversation_id: conversation.id, reader_id: userId, count: n, message_id: last, read_count: readCount, is_group: conversation.kind === "group", recipient_ids: recipients(), ...extra },
      });
    }
    return n;
  });
}

/** GET /messages/conversations/{username}: messages (newest page, oldest first) and marks them read. */
export function open(ctx: Ctx, caller: Caller, username: string, page: Page) {
  const peer = peerOf(ctx, caller, username);
  const conv = directConversation(ctx, caller.id, peer.id);
  if (!conv) return { id: null, other_user: userOut(ctx, peer), messages: [] };
  readConversation(ctx, conv, caller.id, () => [peer.id]);
  return { id: conv.id, other_user: userOut(ctx, peer), messages: messageViews(ctx, caller.id, latestPage(ctx, conv.id, page)) };
}

/**
 * GET .../tail: messages strictly after `since_id` (the oldest `limit` of them, so polling with the
 * newest id seen never skips any), newest first; without since_id the newest `limit`.
 */
export function tail(ctx: Ctx, caller: Caller, username: string, sinceId: string | undefined, limit: number) {
  const peer = peerOf(ctx, caller, username);
  const conv = directConversation(ctx, caller.id, peer.id);
  if (!conv) return { messages: [], pagination: { total: 0, has_more: false } };
  if (sinceId === undefined) {
    // The conversation keeps its message count: no count over every message per poll.
    const total = conv.messageCount;
    const rows = ctx.db.select().from(messages).where(eq(messages.conversationId, conv.id)).orderBy(desc(messages.id)).limit(limit).all();
    return { messages: messageViews(ctx, caller.id, rows), pagination: { total, has_more: total > rows.length } };
  }
  const after = and(eq(messages.conversationId, conv.id), gt(messages.id, sinceId.toLowerCase()));
  const total = ctx.db.select({ n: count() }).from(messages).where(after).get()?.n ?? 0;
  const rows = ctx.db.select().from(messages).where(after).orderBy(asc(messages.id)).limit(limit).all().reverse();
  return { messages: messageViews(ctx, caller.id, rows), pagination: { total, has_more: total > rows.length } };
}

/**
 * GET .../history: the `limit` messages before `before` (oldest first). An anchor that is not a
 * live message of this conversation gives an empty page with cursor_found false.
 */
export function history(ctx: Ctx, caller: Caller, username: string, before: string, limit: number) {
  const peer = peerOf(ctx, caller, username);
  const conv = directConversation(ctx, caller.id, peer.id);
  const anchor = messageById(ctx, before);
  if (!conv || !anchor || anchor.conversationId !== conv.id || anchor.deletedAt !== null) return { messages: [], has_more: false, cursor_found: false };
  const rows = ctx.db
    .select()
    .from(messages)
    .where(and(eq(messages.conversationId, conv.id), lt(messages.id, anchor.id)))
    .orderBy(desc(messages.id))
    .limit(limit + 1)
    .all();
  const has_more = rows.length > limit;
  return { messages: messageViews(ctx, caller.id, rows.slice(0, limit).reverse()), has_more, cursor_found: true };
}

// ---------------------------------------------------------------------------------------------
// Drafts (a user's unsent text per peer; eligibility is checked at send time, not here)

/** The peer of a draft path: unknown users and the caller themself are 404 USER_NOT_FOUND. */
function draftPeer(ctx: Ctx, caller: Caller, username: string): UserRow {
  const peer = userByUsername(ctx, username);
  if (peer.id === caller.id) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  return peer;
}

const draftOut = (d: typeof messageDrafts.$inferSelect) => ({ body: d.body, reply_to_message_id: d.replyToId, updated_at: iso(d.updatedAt) });

export function getDraft(ctx: Ctx, caller: Caller, username: string) {
  const peer = draftPeer(ctx, caller, username);
  const d = ctx.db.select().from(messageDrafts).where(and(eq(messageDrafts.userId, caller.id), eq(messageDrafts.peerId, peer.id))).get();
  return d ? draftOut(d) : null;
}

/** Saves the draft; an empty or whitespace-only body deletes it (and answers null). */
export function putDraft(ctx: Ctx, caller: Caller, username: string, input: { body?: string; reply_to_message_id?: string | null }) {
  const peer = draftPeer(ctx, caller, username);
  const body = input.body ?? "";
  if (!body.trim()) {
    clearDirectDraft(ctx, caller.id, peer.id);
    return null;
  }
  const replyToId = input.reply_to_message_id ? replyTargetId(ctx, directConversation(ctx, caller.id, peer.id)?.id ?? null, input.reply_to_message_id) : null;
  const now = ctx.clock.now();
  const row = ctx.db
    .insert(messageDrafts)
    .values({ id: uuidv7(now), userId: caller.id, peerId: peer.id, conversationId: null, body, replyToId, updatedAt: now })
    .onConflictDoUpdate({ target: [messageDrafts.userId, messageDrafts.peerId], set: { body, replyToId, updatedAt: now } })
    .returning()
    .get();
  return draftOut(row);
}

export function deleteDraft(ctx: Ctx, caller: Caller, username: string): void {
  const peer = draftPeer(ctx, caller, username);
  clearDirectDraft(ctx, caller.id, peer.id);
}

// ---------------------------------------------------------------------------------------------
// The conversation list (both kinds)

type Raw = Record<string, unknown>;
interface ListRow {
  member: MemberRow;
  conversation: ConversationRow;
  unread: number;
}

const LIST_UNREAD = `case when m.invite_status = 'accepted' then (select count(*) from messages x
   where x.conversation_id = m.conversation_id and x.id > coalesce(m.last_read_message_id, '')
     and x.sender_id <> m.user_id and x.deleted_at is null
     and not exists (select 1 from message_reads r where r.message_id = x.id and r.user_id = m.user_id)) else 0 end`;

function listStatements(ctx: Ctx) {
  const db = ctx.db;
  return prepared(db, "messages:list", () => {
    const cols = (alias: string, table: string) =>
      (db.$client.prepare(`pragma table_info(${table})`).all() as { name: string }[]).map((c) => `${alias}."${c.name}" as "${alias}_${c.name}"`).join(", ");
    const select = `select ${cols("m", "conversation_members")}, ${cols("c", "conversations")}, ${LIST_UNREAD} as unread
      from conversation_members m join conversations c on c.id = m.conversation_id
      where m.user_id = ?1 and m.left_at is null and m.invite_status in ('accepted', 'pending')`;
    return {
      page: db.$client.prepare(`${select} and (?2 = 1 or m.hidden_at is null) order by m.last_message_at desc, m.conversation_id desc limit ?3 offset ?4`),
      total: db.$client.prepare(
        `select count(*) as n from conversation_members m where m.user_id = ?1 and m.left_at is null and m.invite_status in ('accepted', 'pending') and (?2 = 1 or m.hidden_at is null)`,
      ),
      before: db.$client.prepare(
        `${select} and (case ?2 when 'archived' then m.hidden_at is not null when 'all' then 1 else m.hidden_at is null end)
         and m.last_message_at < ?3 order by m.last_message_at desc, m.conversation_id desc limit ?4`,
      ),
    };
  });
}

function splitRow(raw: Raw): ListRow {
  const m: Raw = {};
  const c: Raw = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k.startsWith("m_")) m[k.slice(2)] = v;
    else if (k.startsWith("c_")) c[k.slice(2)] = v;
  }
  return { member: mapMember(m), conversation: mapConversation(c), unread: Number(raw.unread ?? 0) };
}

/** The other member of each direct conversation (from its pair key), and each conversation's last message. */
function decorate(ctx: Ctx, userId: string, rows: ListRow[]) {
  const otherIds = new Map(rows.map((r) => [r.conversation.id, r.conversation.kind === "direct" ? otherOf(r.conversation, userId) : null]));
  const usersById = users.findManyByIds(ctx, [...otherIds.values()].filter((id): id is string => !!id));
  const lastIds = rows.map((r) => r.conversation.lastMessageId).filter((x): x is string => !!x);
  const lastById = rowsByIds<MessageRow>(ctx.db, messages, "messages", lastIds);
  return rows.map((r) => {
    const otherId = otherIds.get(r.conversation.id);
    const other = otherId ? usersById.get(otherId) : undefined;
    // A pending invitee is not a participant yet: no preview of the conversation's messages.
    const last = r.member.inviteStatus === "accepted" && r.conversation.lastMessageId ? (lastById.get(r.conversation.lastMessageId) ?? null) : null;
    return { ...r, other: users.isActive(other) ? other : null, last };
  });
}

/** GET /messages/conversations: the caller's conversations of both kinds, newest activity first. */
export function list(ctx: Ctx, caller: Caller, includeArchived: boolean, page: Page) {
  const s = listStatements(ctx);
  const raws = s.page.all(caller.id, includeArchived ? 1 : 0, page.limit, page.offset) as Raw[];
  const total = Number((s.total.get(caller.id, includeArchived ? 1 : 0) as { n: number }).n);
  const rows = decorate(ctx, caller.id, raws.map(splitRow));
  const items = rows
    .filter((r) => r.conversation.kind === "group" || r.other)
    .map((r) => ({
      id: r.conversation.id,
      other_user: r.other ? userOut(ctx, r.other) : null,
      is_group: r.conversation.kind === "group",
      title: r.conversation.title,
      invite_status: r.member.inviteStatus,
      last_message_at: iso(r.conversation.lastMessageAt ?? r.conversation.createdAt),
      unread_count: r.unread,
      last_message_preview: r.last ? (r.last.deletedAt !== null ? "" : preview(r.last.body)) : null,
      is_archived: r.member.hiddenAt !== null,
    }));
  return { items, total };
}

type InboxShow = "active" | "archived" | "all";

/** GET /messages/conversations/inbox/history: the next conversations whose last message precedes `before`. */
export function inboxHistory(ctx: Ctx, caller: Caller, show: InboxShow, before: number, limit: number) {
  const s = listStatements(ctx);
  const raws = s.before.all(caller.id, show, before, limit + 1) as Raw[];
  const has_more = raws.length > limit;
  const rows = decorate(ctx, caller.id, raws.slice(0, limit).map(splitRow));
  const convIds = rows.map((r) => r.conversation.id);
  const peerIds = rows.map((r) => r.other?.id).filter((x): x is string => !!x);
  const drafts = ctx.db
    .select()
    .from(messageDrafts)
    .where(eq(messageDrafts.userId, caller.id))
    .all()
    .filter((d) => (d.peerId && peerIds.includes(d.peerId)) || (d.conversationId && convIds.includes(d.conversationId)));
  const now = ctx.clock.now();
  return {
    has_more,
    rows: rows.map((r) => {
      const draft = drafts.find((d) => (r.conversation.kind === "direct" ? d.peerId === r.other?.id : d.conversationId === r.conversation.id));
      return {
        conversation: {
          id: r.conversation.id,
          is_group: r.conversation.kind === "group",
          title: r.conversation.title,
          avatar_path: r.conversation.avatarPath ? `${ctx.config.publicUrl}/api/v1/messages/groups/${r.conversation.id}/avatar` : null,
          last_message_at: iso(r.conversation.lastMessageAt),
        },
        other_user: r.other
          ? { id: r.other.id, username: r.other.username, display_name: r.other.displayName, user_type: r.other.userType, avatar_url: avatarUrl(ctx, r.other.username) }
          : null,
        unread_count: r.unread,
        last_message: r.last ? { id: r.last.id, body: r.last.deletedAt !== null ? "" : preview(r.last.body), sender_id: r.last.senderId, created_at: iso(r.last.createdAt) } : null,
        is_archived: r.member.hiddenAt !== null,
        is_muted: r.member.mutedUntil !== null && r.member.mutedUntil > now,
        draft: draft ? { body: draft.body } : null,
        pinned_at: null,
        snoozed_until: r.member.snoozedUntil !== null && r.member.snoozedUntil > now ? iso(r.member.snoozedUntil) : null,
        manually_unread_at: null,
      };
    }),
  };
}

export function unreadCount(ctx: Ctx, caller: Caller): number {
  return unreadDirectTotal(ctx, caller.id);
}

// ---------------------------------------------------------------------------------------------
// Typing (ephemeral: a dm_typing event whose live handler publishes dm.typing; nothing else is kept)

/**
 * Writes the dm_typing event in a short transaction of its own: the outbox carries it to every
 * serving process, whose live handler (handlers.ts) publishes dm.typing to each recipient's open
 * streams there.
 */
function emitTyping(ctx: Ctx, caller: Caller, conversationId: string | null, isGroup: boolean, recipientIds: string[]): void {
  if (!recipientIds.length) return;
  inTransaction(ctx.db, (tx) =>
    ctx.events.emit(tx, {
      type: "dm_typing",
      actorId: caller.id,
      ...(conversationId ? { subject: { type: "conversation", id: conversationId } } : {}),
      payload: { conversation_id: conversationId, user_id: caller.id, username: caller.username, is_group: isGroup, recipient_ids: recipientIds },
      activity: false,
    }),
  );
}

/** POST .../{username}/typing: the send eligibility checks, then dm.typing to the other user. */
export function typing(ctx: Ctx, caller: Caller, username: string): void {
  const peer = peerOf(ctx, caller, username);
  assertCanSend(caller);
  assertNotBlocked(ctx, caller.id, peer.id);
  const conv = directConversation(ctx, caller.id, peer.id);
  emitTyping(ctx, caller, conv?.id ?? null, false, [peer.id]);
}

/** POST .../by-id/{conv_id}/typing: dm.typing to every other participant (1:1 or group). */
export function typingById(ctx: Ctx, caller: Caller, conversationId: string): void {
  const conv = conversationById(ctx, conversationId);
  if (!conv) throw new ApiError(404, "NOT_FOUND", "Conversation not found");
  requireParticipant(ctx, conv.id, caller.id);
  assertCanSend(caller);
  const peer = conv.kind === "direct" ? otherOf(conv, caller.id) : null;
  if (peer) assertNotBlocked(ctx, caller.id, peer);
  emitTyping(ctx, caller, conv.id, conv.kind === "group", participantIds(ctx, conv.id).filter((id) => id !== caller.id));
}
