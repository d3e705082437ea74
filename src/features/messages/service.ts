// The messaging model's shared rules (MODEL.md): participation, the direct-conversation pair,
// inserting a message (used by 1:1 sends, forwards and group sends), read state and unread
// counts, message lookups and the cold-contact ledger. Routes of both conversation kinds build on
// these; nothing here knows about HTTP.
import * as blocks from "../blocks/service";
import { and, eq, inArray, isNull, ne } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import type { Db, Tx } from "../../db/client";
import { prepared, rowMapper } from "../../db/statements";
import { oldestAfter, type Window } from "../../db/window";
import type { Caller } from "../auth/service";
import * as claims from "../claims/service";
import * as follows from "../follows/service";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import {
  coldContacts,
  conversationMembers,
  conversations,
  messageAttachments,
  messageDrafts,
  messages,
} from "./tables";

export type { Tx };
export type ConversationRow = typeof conversations.$inferSelect;
export type MemberRow = typeof conversationMembers.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
export type AttachmentRow = typeof messageAttachments.$inferSelect;

/** Message body limit (spec Part 2 §2.8, §8). */
export const MAX_BODY = 10_000;
/** Sending needs at least this much karma (spec Part 2 §8, "DM floor"). */
const DM_KARMA_FLOOR = -5;
/** Attachments per message (spec silent; a careful default). */
const MAX_ATTACHMENTS_PER_MESSAGE = 10;
/** Length of the plain-text preview carried by events, notifications and inbox rows. */
const PREVIEW_CHARS = 200;

type Raw = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Hot lookups (prepared once per database)

/** Raw rows of the messaging tables (hand-written statements) to their drizzle row types. */
export const mapConversation = rowMapper<ConversationRow>(conversations);
export const mapMember = rowMapper<MemberRow>(conversationMembers);
export const mapMessage = rowMapper<MessageRow>(messages);

function hot(db: Db) {
  return prepared(db, "messages:hot", () => ({
    convByPair: db.$client.prepare("select * from conversations where pair_key = ?"),
    convById: db.$client.prepare("select * from conversations where id = ?"),
    member: db.$client.prepare("select * from conversation_members where conversation_id = ? and user_id = ?"),
    message: db.$client.prepare("select * from messages where id = ?"),
    insertMessage: db.$client.prepare(
      "insert into messages (id, conversation_id, sender_id, body, reply_to_id, forwarded_from_id, created_at, edited_at, deleted_at) values (?, ?, ?, ?, ?, ?, ?, null, null)",
    ),
    bumpConversation: db.$client.prepare("update conversations set last_message_at = ?, last_message_id = ?, message_count = message_count + 1 where id = ?"),
    bumpMembersDirect: db.$client.prepare("update conversation_members set last_message_at = ?, hidden_at = null where conversation_id = ?"),
    bumpMembersGroup: db.$client.prepare("update conversation_members set last_message_at = ? where conversation_id = ?"),
    clearPeerDraft: db.$client.prepare("delete from message_drafts where user_id = ? and peer_id = ?"),
  }));
}

/**
 * A live account addressed by username in a messaging path. A UUID in the username slot is not a
 * username (spec §4.5: 404 USER_NOT_FOUND), nor is a pending or unknown account.
 */
export function userByUsername(ctx: Ctx, username: string): UserRow {
  const u = isUuid(users.normaliseUsername(username)) ? null : users.findByUsername(ctx, username);
  if (!users.isActive(u)) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  return u;
}

const pairKey = (a: string, b: string) => (a < b ? `${a}:${b}` : `${b}:${a}`);

/** The direct conversation between two users, or null when they have never exchanged a message. */
export function directConversation(ctx: Ctx, a: string, b: string): ConversationRow | null {
  const h = hot(ctx.db);
  const raw = h.convByPair.get(pairKey(a, b)) as Raw | null;
  return raw ? mapConversation(raw) : null;
}

export function conversationById(ctx: Ctx, id: string): ConversationRow | null {
  if (!isUuid(id)) return null;
  const h = hot(ctx.db);
  const raw = h.convById.get(id.toLowerCase()) as Raw | null;
  return raw ? mapConversation(raw) : null;
}

export function messageById(ctx: Ctx, id: string): MessageRow | null {
  if (!isUuid(id)) return null;
  const h = hot(ctx.db);
  const raw = h.message.get(id.toLowerCase()) as Raw | null;
  return raw ? mapMessage(raw) : null;
}

export function memberRow(ctx: Ctx, conversationId: string, userId: string): MemberRow | null {
  const h = hot(ctx.db);
  const raw = h.member.get(conversationId, userId) as Raw | null;
  return raw ? mapMember(raw) : null;
}

const isParticipantRow = (m: MemberRow | null | undefined): m is MemberRow => !!m && m.inviteStatus === "accepted" && m.leftAt === null;

/** The caller's member row when they are a participant (accepted, not left), else null. */
export function participant(ctx: Ctx, conversationId: string, userId: string): MemberRow | null {
  const m = memberRow(ctx, conversationId, userId);
  return isParticipantRow(m) ? m : null;
}

/** As `participant`, but a non-participant gets 404 NOT_FOUND (they may not know it exists). */
export function requireParticipant(ctx: Ctx, conversationId: string, userId: string): MemberRow {
  const m = participant(ctx, conversationId, userId);
  if (!m) throw new ApiError(404, "NOT_FOUND", "Conversation not found");
  return m;
}

/** Accepted, present members of a conversation (ids). */
export function participantIds(ctx: Ctx, conversationId: string): string[] {
  return ctx.db
    .select({ id: conversationMembers.userId })
    .from(conversationMembers)
    .where(and(eq(conversationMembers.conversationId, conversationId), eq(conversationMembers.inviteStatus, "accepted"), isNull(conversationMembers.leftAt)))
    .all()
    .map((r) => r.id);
}

/** A message the caller may act on: it exists and the caller participates in its conversation. */
export function visibleMessage(ctx: Ctx, userId: string, messageId: string): { message: MessageRow; conversation: ConversationRow; member: MemberRow } {
  const notFound = new ApiError(404, "NOT_FOUND", "Message not found");
  const message = messageById(ctx, messageId);
  if (!message) throw notFound;
  const member = participant(ctx, message.conversationId, userId);
  if (!member) throw notFound;
  const conversation = conversationById(ctx, message.conversationId);
  if (!conversation) throw notFound;
  return { message, conversation, member };
}

// ---------------------------------------------------------------------------------------------
// Sending

/**
 * A block between the two users of a 1:1 conversation (either way) stops sends, typing, reactions
 * and edits there: 403 FORBIDDEN. Group conversations are not affected.
 */
export function assertNotBlocked(ctx: Ctx, a: string, b: string): void {
  if (blocks.blockedEitherWay(ctx, a, b)) throw new ApiError(403, "FORBIDDEN", "One of you blocks the other: no messages, reactions or edits in this conversation");
}

/** The other user of a direct conversation (from its pair key). */
export const otherOf = (conversation: Pick<ConversationRow, "pairKey">, userId: string): string | null =>
  conversation.pairKey?.split(":").find((id) => id !== userId) ?? null;

/**
 * Members of a conversation who turned read receipts off (PATCH .../receipts show=off): their
 * reads are recorded for their own unread counts but shown to nobody else.
 */
export function receiptsOffIn(ctx: Ctx, conversationId: string): Set<string> {
  const stmt = prepared(ctx.db, "messages.receiptsOff", () => ctx.db.$client.prepare("select user_id as id from conversation_members where conversation_id = ? and receipts = 'off'"));
  return new Set((stmt.all(conversationId) as { id: string }[]).map((r) => r.id));
}

/** The DM karma floor (spec Part 2 §8): 403 KARMA_TOO_LOW below -5. */
export function assertCanSend(caller: Pick<Caller, "karma">): void {
  if (caller.karma < DM_KARMA_FLOOR) {
    throw new ApiError(403, "KARMA_TOO_LOW", `Sending messages needs at least ${DM_KARMA_FLOOR} karma (you have ${caller.karma})`);
  }
}

export interface SendInput {
  body?: string | null;
  attachment_ids?: string[] | null;
  reply_to_message_id?: string | null;
}

interface ValidSend {
  body: string;
  attachmentIds: string[];
  replyToId: string | null;
}

/**
 * Checks a send's payload against a conversation (null: a direct conversation not yet created):
 * a body or at least one attachment (422), at most 10 attachments, each an unattached, live upload
 * of the sender (404 NOT_FOUND otherwise; 409 CONFLICT once attached elsewhere), and a reply
 * target that is a live message of the same conversation (404 NOT_FOUND).
 */
export function validateSendInput(ctx: Ctx, senderId: string, conversationId: string | null, input: SendInput): ValidSend {
  const body = input.body ?? "";
  if (body.length > MAX_BODY) throw new FieldError(["body", "body"], `body must be at most ${MAX_BODY} characters`, body.length, "string_too_long");
  const attachmentIds = [...new Set((input.attachment_ids ?? []).map((id) => id.toLowerCase()))];
  if (attachmentIds.length > MAX_ATTACHMENTS_PER_MESSAGE) {
    throw new FieldError(["body", "attachment_ids"], `at most ${MAX_ATTACHMENTS_PER_MESSAGE} attachments per message`, attachmentIds.length, "too_long");
  }
  if (!body.trim() && !attachmentIds.length) throw new FieldError(["body", "body"], "body must not be empty unless attachments are sent", body, "missing");
  if (attachmentIds.length) {
    const rows = ctx.db.select().from(messageAttachments).where(inArray(messageAttachments.id, attachmentIds)).all();
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of attachmentIds) {
      const a = byId.get(id);
      if (!a || a.uploaderId !== senderId || a.deletedAt !== null) throw new ApiError(404, "NOT_FOUND", `Attachment ${id} not found`);
      if (a.messageId !== null) throw new ApiError(409, "CONFLICT", `Attachment ${id} is already attached to a message`);
    }
  }
  return { body, attachmentIds, replyToId: replyTargetId(ctx, conversationId, input.reply_to_message_id) };
}

/**
 * The id of a reply target (null when none is given): a live message of the conversation (null:
 * a direct conversation not yet created), else 404 NOT_FOUND. Used by sends and drafts.
 */
export function replyTargetId(ctx: Ctx, conversationId: string | null, messageId: string | null | undefined): string | null {
  if (!messageId) return null;
  const target = messageById(ctx, messageId);
  if (!target || conversationId === null || target.conversationId !== conversationId || target.deletedAt !== null) {
    throw new ApiError(404, "NOT_FOUND", "The message replied to was not found in this conversation");
  }
  return target.id;
}

interface NewMessage {
  conversationId: string;
  senderId: string;
  body: string;
  replyToId?: string | null;
  attachmentIds?: readonly string[];
  forwardedFromId?: string | null;
}

/**
 * Inserts a message inside the caller's transaction: links its attachments, bumps the
 * conversation's and every member row's `last_message_at` and un-hides a direct conversation for
 * both sides. Sending does not mark anything read (own messages never count as unread). Emit the
 * event in the same transaction.
 */
export function insertMessage(tx: Tx, ctx: Ctx, input: NewMessage, kind: "direct" | "group" = "direct"): MessageRow {
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const row: MessageRow = {
    id,
    conversationId: input.conversationId,
    senderId: input.senderId,
    body: input.body,
    replyToId: input.replyToId ?? null,
    forwardedFromId: input.forwardedFromId ?? null,
    createdAt: now,
    editedAt: null,
    deletedAt: null,
  };
  // Prepared statements on the transaction's own connection: the send path is the hottest write.
  const h = hot(ctx.db);
  h.insertMessage.run(id, row.conversationId, row.senderId, row.body, row.replyToId, row.forwardedFromId, now);
  if (input.attachmentIds?.length) {
    const linked = tx
      .update(messageAttachments)
      .set({ messageId: id, conversationId: input.conversationId })
      .where(and(inArray(messageAttachments.id, [...input.attachmentIds]), eq(messageAttachments.uploaderId, input.senderId), isNull(messageAttachments.messageId), isNull(messageAttachments.deletedAt)))
      .returning({ id: messageAttachments.id })
      .all();
    // A concurrent send took one of them between validation and here.
    if (linked.length !== input.attachmentIds.length) throw new ApiError(409, "CONFLICT", "An attachment is already attached to a message");
  }
  h.bumpConversation.run(now, id, input.conversationId);
  (kind === "direct" ? h.bumpMembersDirect : h.bumpMembersGroup).run(now, input.conversationId);
  return row;
}

/**
 * The direct conversation of two users, created (with both members) when it does not exist yet.
 * `created` tells the caller this send opens the conversation (a first contact). A caller that
 * has just read directConversation() in the same synchronous stretch passes its answer as
 * `known` (a row or null), and the pair is not looked up again.
 */
export function getOrCreateDirect(tx: Tx, ctx: Ctx, senderId: string, recipientId: string, known?: ConversationRow | null): { conversation: ConversationRow; created: boolean } {
  const existing = known === undefined ? directConversation(ctx, senderId, recipientId) : known;
  if (existing) return { conversation: existing, created: false };
  const key = pairKey(senderId, recipientId);
  const now = ctx.clock.now();
  const conversation: ConversationRow = {
    id: uuidv7(now),
    kind: "direct",
    pairKey: key,
    title: null,
    description: null,
    avatarPath: null,
    avatarUploadedAt: null,
    creatorId: senderId,
    createdAt: now,
    lastMessageAt: null,
    lastMessageId: null,
    messageCount: 0,
    managedBy: null,
  };
  tx.insert(conversations).values(conversation).run();
  const member = (userId: string) => ({
    conversationId: conversation.id,
    userId,
    role: "member" as const,
    inviteStatus: "accepted" as const,
    joinedAt: now,
    createdAt: now,
    lastMessageAt: now,
  });
  tx.insert(conversationMembers).values([member(senderId), member(recipientId)]).run();
  return { conversation, created: true };
}

// ---------------------------------------------------------------------------------------------
// Read state

/**
 * Marks every message from others in the conversation read for `userId` (a read row each, then
 * the watermark to the newest message). Returns how many were newly read.
 */
export function markConversationRead(tx: Tx, ctx: Ctx, conversationId: string, userId: string): number {
  const now = ctx.clock.now();
  const m = tx
    .select({ watermark: conversationMembers.lastReadMessageId })
    .from(conversationMembers)
    .where(and(eq(conversationMembers.conversationId, conversationId), eq(conversationMembers.userId, userId)))
    .get();
  if (!m) return 0;
  const conv = tx.select({ last: conversations.lastMessageId }).from(conversations).where(eq(conversations.id, conversationId)).get();
  if (!conv?.last || (m.watermark !== null && m.watermark >= conv.last)) return 0;
  // Same connection as the drizzle transaction, so this runs inside it.
  const insertReads = prepared(ctx.db, "messages:readAll", () =>
    ctx.db.$client.prepare(
      `insert or ignore into message_reads (message_id, user_id, read_at)
       select id, ?1, ?2 from messages where conversation_id = ?3 and id > ?4 and id <= ?5 and sender_id <> ?1 and deleted_at is null`,
    ),
  );
  const { changes } = insertReads.run(userId, now, conversationId, m.watermark ?? "", conv.last);
  tx.update(conversationMembers)
    .set({ lastReadMessageId: conv.last, lastReadAt: now })
    .where(and(eq(conversationMembers.conversationId, conversationId), eq(conversationMembers.userId, userId)))
    .run();
  return changes;
}

const UNREAD_SQL = `(select count(*) from messages x
   where x.conversation_id = m.conversation_id and x.id > coalesce(m.last_read_message_id, '')
     and x.sender_id <> m.user_id and x.deleted_at is null
     and not exists (select 1 from message_reads r where r.message_id = x.id and r.user_id = m.user_id))`;

/** Unread messages across the user's direct conversations (GET /messages/unread-count, /me/unread). */
export function unreadDirectTotal(ctx: Ctx, userId: string): number {
  const stmt = prepared(ctx.db, "messages:unreadDirect", () =>
    ctx.db.$client.prepare(
      `select coalesce(sum(${UNREAD_SQL}), 0) as n from conversation_members m join conversations c on c.id = m.conversation_id
       where m.user_id = ? and c.kind = 'direct' and m.invite_status = 'accepted' and m.left_at is null`,
    ),
  );
  return Number((stmt.get(userId) as { n: number } | null)?.n ?? 0);
}

// ---------------------------------------------------------------------------------------------
// Drafts

/** Deletes a user's draft to a peer (inside the caller's transaction when there is one: same connection). */
export function clearDirectDraft(ctx: Ctx, userId: string, peerId: string): void {
  hot(ctx.db).clearPeerDraft.run(userId, peerId);
}

// ---------------------------------------------------------------------------------------------
// Cold contacts (spec Part 2 §8, phase one: recorded and reported, never enforced)

/**
 * Whether `recipientId` is a cold contact for `senderId` right now: they never wrote to the
 * sender in a direct conversation, the two do not follow each other, and no confirmed operator
 * claim ties them — sibling agents (one operator) and a human and the agent they operate are
 * never cold to each other, in either direction (spec Part 2 §8; docs/decisions.md §56).
 */
export function isCold(ctx: Ctx, senderId: string, recipientId: string): boolean {
  if (follows.isFollowing(ctx, senderId, recipientId) && follows.isFollowing(ctx, recipientId, senderId)) return false;
  if (claims.operatorTie(ctx, senderId, recipientId)) return false;
  const conv = directConversation(ctx, senderId, recipientId);
  if (!conv) return true;
  return !hasWritten(ctx, conv.id, recipientId);
}

/** Whether `userId` has ever sent a message in the conversation. */
export function hasWritten(ctx: Ctx, conversationId: string, userId: string): boolean {
  const stmt = prepared(ctx.db, "messages:hasWritten", () =>
    ctx.db.$client.prepare("select 1 as x from messages where conversation_id = ? and sender_id = ? limit 1"),
  );
  return !!stmt.get(conversationId, userId);
}

/** Writes a cold-contact ledger row (a first direct message, or a group invite to a stranger). */
export function recordColdContact(tx: Tx, ctx: Ctx, senderId: string, recipientId: string, conversationId: string, source: "direct" | "group_invite"): void {
  const now = ctx.clock.now();
  tx.insert(coldContacts).values({ id: uuidv7(now), senderId, recipientId, conversationId, source, createdAt: now }).run();
}

// ---------------------------------------------------------------------------------------------
// Account removal

/** Drops a self-deleted account's drafts (its uploads go through attachments.purgeUserUploads). */
export function purgeUserDrafts(ctx: Ctx, userId: string): void {
  ctx.db.delete(messageDrafts).where(eq(messageDrafts.userId, userId)).run();
}

/** Plain one-line preview of a body. */
export function preview(body: string, max = PREVIEW_CHARS): string {
  const flat = body.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max - 1) + "…" : flat;
}

// ---------------------------------------------------------------------------------------------
// Waiting for a reply (GET /conversations/waiting, kind dm)

/**
 * 1:1 conversations of `userId` (not archived) whose last message is from the other user, live,
 * and created after `since`: the oldest `limit` of them, and how many there are.
 */
export function waitingDirect(ctx: Ctx, userId: string, since: number, limit: number): { rows: MessageRow[]; total: number } {
  const s = prepared(ctx.db, "messages:waiting", () => {
    const from = `from conversation_members m join conversations c on c.id = m.conversation_id join messages x on x.id = c.last_message_id
      where m.user_id = ?1 and c.kind = 'direct' and m.left_at is null and m.hidden_at is null
        and x.sender_id <> ?1 and x.deleted_at is null and x.created_at > ?2`;
    return {
      page: ctx.db.$client.prepare(`select x.* ${from} order by x.created_at asc, x.id asc limit ?3`),
      total: ctx.db.$client.prepare(`select count(*) as n ${from}`),
    };
  });
  const rows = (s.page.all(userId, since, limit) as Raw[]).map(mapMessage);
  const total = Number((s.total.get(userId, since) as { n: number }).n);
  return { rows, total };
}

// ---------------------------------------------------------------------------------------------
// GET /since (the DM part)

/**
 * Live messages from others in the conversations `userId` participates in (1:1 and group),
 * created in the window: the oldest `limit`, never splitting a millisecond (db/window.ts).
 */
export function messagesAfter(ctx: Ctx, userId: string, w: Window, limit: number) {
  const mine = ctx.db
    .select({ id: conversationMembers.conversationId })
    .from(conversationMembers)
    .where(and(eq(conversationMembers.userId, userId), eq(conversationMembers.inviteStatus, "accepted"), isNull(conversationMembers.leftAt)));
  return oldestAfter<MessageRow>(
    ctx.db,
    messages,
    messages.createdAt,
    messages.id,
    and(inArray(messages.conversationId, mine), ne(messages.senderId, userId), isNull(messages.deletedAt)),
    w,
    limit,
  );
}
