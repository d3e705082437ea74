// Per-message operations (spec Part 2 §4.7) for participants of either conversation kind: read,
// reads, reactions, edit and its history, soft delete, star, forward, and the saved list.
// A message in a conversation the caller does not participate in is 404 NOT_FOUND.
import { and, asc, count, desc, eq, isNull } from "drizzle-orm";
import { MINUTE, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import * as users from "../users/service";
import { send } from "./direct";
import { MAX_BODY, assertNotBlocked, otherOf, participantIds, receiptsOffIn, visibleMessage, type ConversationRow, type MessageRow, type Tx } from "./service";
import { conversationMembers, conversations, messageAttachments, messageEdits, messageReactions, messageReads, messageStars, messages } from "./tables";
import { messageViews } from "./views";

/** Edits are allowed this long after sending (spec Part 2 §8). */
export const EDIT_WINDOW_MS = 5 * MINUTE;
/** Distinct emojis one user may put on one message (spec Part 2 §8). */
export const MAX_REACTIONS_PER_USER = 6;
/** Forwarded text is cut to this many characters (spec Part 2 §8). */
export const FORWARD_SOURCE_CHARS = 2000;

/**
 * The curated reaction set (the reference names `ALLOWED_REACTIONS` without listing it; its
 * examples are 👍 and 🎉). The post-reaction keys are accepted as aliases and stored as the emoji.
 */
export const MESSAGE_REACTIONS = ["👍", "👎", "❤️", "😂", "😮", "😢", "🎉", "🔥", "👀", "🚀", "🤔", "👏", "🙏", "✅", "💯"] as const;
const ALIASES: Record<string, string> = { thumbs_up: "👍", thumbs_down: "👎", heart: "❤️", laugh: "😂", wow: "😮", sad: "😢", tada: "🎉", fire: "🔥", eyes: "👀", rocket: "🚀", thinking: "🤔", clap: "👏", pray: "🙏", check: "✅", hundred: "💯" };

/** The stored form of an emoji parameter, or null when it is not in the curated set. */
function normaliseEmoji(raw: string): string | null {
  const s = raw.trim();
  if ((MESSAGE_REACTIONS as readonly string[]).includes(s)) return s;
  // "❤" without the variation selector is the same heart.
  if (s === "❤") return "❤️";
  return ALIASES[s.toLowerCase()] ?? null;
}

/** Every accepted member of a group, or the other side of a 1:1, for event fan-out. */
function audience(ctx: Ctx, conv: ConversationRow, actorId: string, includeActor: boolean): string[] {
  return participantIds(ctx, conv.id).filter((id) => includeActor || id !== actorId);
}

// ---------------------------------------------------------------------------------------------
// Reads

/** POST /messages/{id}/read: idempotent; the caller's own message is `{already:true, self_authored:true}`. */
export function markRead(ctx: Ctx, caller: Caller, messageId: string) {
  const { message, conversation } = liveMessage(ctx, caller, messageId);
  if (message.senderId === caller.id) return { already: true, self_authored: true };
  return ctx.db.transaction((tx) => {
    const now = ctx.clock.now();
    const inserted = tx.insert(messageReads).values({ messageId: message.id, userId: caller.id, readAt: now }).onConflictDoNothing().returning().get();
    if (!inserted) return { already: true, self_authored: false };
    const readCount = tx.select({ n: count() }).from(messageReads).where(eq(messageReads.messageId, message.id)).get()?.n ?? 1;
    ctx.events.emit(tx, {
      type: "messages_read",
      actorId: caller.id,
      subject: { type: "message", id: message.id },
      payload: {
        conversation_id: conversation.id,
        message_id: message.id,
        reader_id: caller.id,
        count: 1,
        read_count: readCount,
        is_group: conversation.kind === "group",
        recipient_ids: audience(ctx, conversation, caller.id, false),
      },
    });
    return { already: false, self_authored: false };
  });
}

/** GET /messages/{id}/reads: who of the other participants has read it, and who has not. */
export function reads(ctx: Ctx, caller: Caller, messageId: string) {
  const { message, conversation } = visibleMessage(ctx, caller.id, messageId);
  const others = participantIds(ctx, conversation.id).filter((id) => id !== message.senderId);
  // Readers who turned receipts off count as unseen to everyone but themselves.
  const hidden = receiptsOffIn(ctx, conversation.id);
  const readRows = ctx.db.select().from(messageReads).where(eq(messageReads.messageId, message.id)).orderBy(asc(messageReads.readAt)).all();
  const readAt = new Map(readRows.filter((r) => r.userId === caller.id || !hidden.has(r.userId)).map((r) => [r.userId, r.readAt]));
  const byId = users.findManyByIds(ctx, others);
  const entry = (id: string) => {
    const u = byId.get(id);
    return { user_id: id, username: u?.username ?? "[deleted]", display_name: u?.displayName ?? "[deleted]", read_at: iso(readAt.get(id) ?? null) };
  };
  const seen = others.filter((id) => readAt.has(id)).sort((a, b) => readAt.get(a)! - readAt.get(b)!).map(entry);
  const unseen = others.filter((id) => !readAt.has(id)).map(entry);
  return { is_group: conversation.kind === "group", total_others: others.length, seen_count: seen.length, seen, unseen };
}

// ---------------------------------------------------------------------------------------------
// Reactions

function liveMessage(ctx: Ctx, caller: Caller, messageId: string) {
  const v = visibleMessage(ctx, caller.id, messageId);
  if (v.message.deletedAt !== null) throw new ApiError(404, "NOT_FOUND", "Message not found");
  return v;
}

/** message_reaction for the other participants, with the emoji's count after the change. */
function emitReaction(tx: Tx, ctx: Ctx, caller: Caller, messageId: string, conversation: ConversationRow, emoji: string, action: "add" | "remove"): void {
  const total = tx.select({ n: count() }).from(messageReactions).where(and(eq(messageReactions.messageId, messageId), eq(messageReactions.emoji, emoji))).get()?.n ?? 0;
  ctx.events.emit(tx, {
    type: "message_reaction",
    actorId: caller.id,
    subject: { type: "message", id: messageId },
    payload: { conversation_id: conversation.id, message_id: messageId, emoji, action, total, user_id: caller.id, recipient_ids: audience(ctx, conversation, caller.id, true) },
    // Adding a reaction counts as the caller's activity; taking one back does not.
    activity: action === "add",
  });
}

/**
 * POST /messages/{id}/reactions: a curated emoji (422 INVALID_INPUT otherwise), at most 6
 * distinct per user per message (400 LIMIT_EXCEEDED). Re-adding the same emoji is a no-op that
 * answers the existing reaction (`created: false`).
 */
export function addReaction(ctx: Ctx, caller: Caller, messageId: string, rawEmoji: string) {
  const emoji = normaliseEmoji(rawEmoji);
  if (!emoji) throw new ApiError(422, "INVALID_INPUT", `Unsupported reaction; use one of ${MESSAGE_REACTIONS.join(" ")}`);
  const { message, conversation } = liveMessage(ctx, caller, messageId);
  const peer = conversation.kind === "direct" ? otherOf(conversation, caller.id) : null;
  if (peer) assertNotBlocked(ctx, caller.id, peer);
  return ctx.db.transaction((tx) => {
    const mine = tx.select().from(messageReactions).where(and(eq(messageReactions.messageId, message.id), eq(messageReactions.userId, caller.id))).all();
    const existing = mine.find((r) => r.emoji === emoji);
    if (existing) return { created: false, reaction: { emoji, user_id: caller.id, username: caller.username, created_at: iso(existing.createdAt) } };
    if (mine.length >= MAX_REACTIONS_PER_USER) {
      throw new ApiError(400, "LIMIT_EXCEEDED", `At most ${MAX_REACTIONS_PER_USER} different reactions per message`);
    }
    const now = ctx.clock.now();
    tx.insert(messageReactions).values({ messageId: message.id, userId: caller.id, emoji, createdAt: now }).run();
    emitReaction(tx, ctx, caller, message.id, conversation, emoji, "add");
    return { created: true, reaction: { emoji, user_id: caller.id, username: caller.username, created_at: iso(now) } };
  });
}

/** DELETE /messages/{id}/reactions/{emoji}: idempotent, `{removed}`. */
export function removeReaction(ctx: Ctx, caller: Caller, messageId: string, rawEmoji: string) {
  const { message, conversation } = liveMessage(ctx, caller, messageId);
  const emoji = normaliseEmoji(rawEmoji);
  if (!emoji) return { removed: false };
  return ctx.db.transaction((tx) => {
    const gone = tx
      .delete(messageReactions)
      .where(and(eq(messageReactions.messageId, message.id), eq(messageReactions.userId, caller.id), eq(messageReactions.emoji, emoji)))
      .returning()
      .get();
    if (!gone) return { removed: false };
    emitReaction(tx, ctx, caller, message.id, conversation, emoji, "remove");
    return { removed: true };
  });
}

// ---------------------------------------------------------------------------------------------
// Edit and delete (sender only)

/** A visible message the caller sent, a tombstone included (delete answers it idempotently). */
function ownMessage(ctx: Ctx, caller: Caller, messageId: string, verb: string) {
  const v = visibleMessage(ctx, caller.id, messageId);
  if (v.message.senderId !== caller.id) throw new ApiError(403, "FORBIDDEN", `Only the sender can ${verb} a message`);
  return v;
}

function changeFacts(ctx: Ctx, conv: ConversationRow, caller: Caller, message: MessageRow) {
  return {
    conversation_id: conv.id,
    message_id: message.id,
    sender_id: caller.id,
    sender_username: caller.username,
    // Groups: every accepted member (spec §6.2); 1:1: the other participant.
    recipient_ids: audience(ctx, conv, caller.id, conv.kind === "group"),
  };
}

/**
 * PATCH /messages/{id}: the sender, within 5 minutes of sending (403 EDIT_WINDOW_EXPIRED after),
 * a live message. The previous body goes to the edit history; an unchanged body changes nothing.
 */
export function edit(ctx: Ctx, caller: Caller, messageId: string, body: string) {
  const { message, conversation } = ownMessage(ctx, caller, messageId, "edit");
  if (message.deletedAt !== null) throw new ApiError(404, "NOT_FOUND", "Message not found");
  if (!body.trim()) throw new FieldError(["body", "body"], "body must not be empty", body, "missing");
  if (body.length > MAX_BODY) throw new FieldError(["body", "body"], `body must be at most ${MAX_BODY} characters`, body.length, "string_too_long");
  const now = ctx.clock.now();
  if (now - message.createdAt > EDIT_WINDOW_MS) throw new ApiError(403, "EDIT_WINDOW_EXPIRED", "Messages can only be edited within 5 minutes of sending");
  const peer = conversation.kind === "direct" ? otherOf(conversation, caller.id) : null;
  if (peer) assertNotBlocked(ctx, caller.id, peer);
  if (body !== message.body) {
    ctx.db.transaction((tx) => {
      tx.insert(messageEdits).values({ id: uuidv7(now), messageId: message.id, bodyBefore: message.body, createdAt: now }).run();
      tx.update(messages).set({ body, editedAt: now }).where(eq(messages.id, message.id)).run();
      const payload = { ...changeFacts(ctx, conversation, caller, message), body, edited_at: iso(now) };
      const subject = { type: "message", id: message.id };
      if (conversation.kind === "group") ctx.events.emit(tx, { type: "group_message_edited", actorId: caller.id, subject, payload });
      else ctx.events.emit(tx, { type: "direct_message_edited", actorId: caller.id, subject, payload });
    });
  }
  const current = body !== message.body ? { ...message, body, editedAt: now } : message;
  return messageViews(ctx, caller.id, [current])[0];
}

/**
 * GET /messages/{id}/edits: the current body first, then every earlier body newest first; each
 * version's created_at is when it became the body (sending, or the edit that produced it).
 */
export function edits(ctx: Ctx, caller: Caller, messageId: string) {
  const { message } = liveMessage(ctx, caller, messageId);
  const rows = ctx.db.select().from(messageEdits).where(eq(messageEdits.messageId, message.id)).orderBy(asc(messageEdits.createdAt), asc(messageEdits.id)).all();
  // rows[i].bodyBefore was the body from (rows[i-1].createdAt, or sending) until rows[i].createdAt.
  const older = rows.map((r, i) => ({ body: r.bodyBefore, at: i === 0 ? message.createdAt : rows[i - 1].createdAt }));
  const currentAt = rows.length ? rows[rows.length - 1].createdAt : message.createdAt;
  const versions = [{ body: message.body, at: currentAt, is_current: true }, ...older.reverse().map((v) => ({ ...v, is_current: false }))];
  return {
    message_id: message.id,
    versions: versions.map((v) => ({ body: v.body, created_at: iso(v.at), is_current: v.is_current })),
  };
}

/**
 * DELETE /messages/{id}: the sender soft-deletes; the row stays as a tombstone with its body,
 * edit history, reactions, stars and attachments removed. Deleting a tombstone again answers
 * `{deleted:true}` and changes nothing. Returns the attachment folders to remove after commit.
 */
export function remove(ctx: Ctx, caller: Caller, messageId: string): { deleted: true; storagePaths: string[] } {
  const { message, conversation } = ownMessage(ctx, caller, messageId, "delete");
  if (message.deletedAt !== null) return { deleted: true, storagePaths: [] };
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    tx.update(messages).set({ deletedAt: now, body: "" }).where(eq(messages.id, message.id)).run();
    tx.delete(messageEdits).where(eq(messageEdits.messageId, message.id)).run();
    tx.delete(messageReactions).where(eq(messageReactions.messageId, message.id)).run();
    tx.delete(messageStars).where(eq(messageStars.messageId, message.id)).run();
    const gone = tx
      .update(messageAttachments)
      .set({ deletedAt: now })
      .where(and(eq(messageAttachments.messageId, message.id), isNull(messageAttachments.deletedAt)))
      .returning({ path: messageAttachments.storagePath })
      .all();
    const payload = { ...changeFacts(ctx, conversation, caller, message), deleted_at: iso(now) };
    const subject = { type: "message", id: message.id };
    if (conversation.kind === "group") ctx.events.emit(tx, { type: "group_message_deleted", actorId: caller.id, subject, payload });
    else ctx.events.emit(tx, { type: "direct_message_deleted", actorId: caller.id, subject, payload });
    return { deleted: true as const, storagePaths: gone.map((g) => g.path) };
  });
}

// ---------------------------------------------------------------------------------------------
// Stars and the saved list

/** POST /messages/{id}/star: toggles the caller's saved mark. */
export function toggleStar(ctx: Ctx, caller: Caller, messageId: string) {
  const { message } = liveMessage(ctx, caller, messageId);
  return ctx.db.transaction((tx) => {
    const gone = tx.delete(messageStars).where(and(eq(messageStars.userId, caller.id), eq(messageStars.messageId, message.id))).returning().get();
    if (gone) return { saved: false };
    tx.insert(messageStars).values({ userId: caller.id, messageId: message.id, createdAt: ctx.clock.now() }).run();
    return { saved: true };
  });
}

/**
 * GET /messages/saved: saved messages newest-saved first, in conversations the caller still
 * participates in; group entries carry is_group and conversation_title.
 */
export function saved(ctx: Ctx, caller: Caller, page: Page) {
  const visible = and(
    eq(messageStars.userId, caller.id),
    eq(conversationMembers.userId, caller.id),
    eq(conversationMembers.inviteStatus, "accepted"),
    isNull(conversationMembers.leftAt),
    isNull(messages.deletedAt),
  );
  const base = () =>
    ctx.db
      .select({ star: messageStars, message: messages, conversation: conversations })
      .from(messageStars)
      .innerJoin(messages, eq(messages.id, messageStars.messageId))
      .innerJoin(conversations, eq(conversations.id, messages.conversationId))
      .innerJoin(conversationMembers, eq(conversationMembers.conversationId, messages.conversationId));
  const rows = base().where(visible).orderBy(desc(messageStars.createdAt), desc(messageStars.messageId)).limit(page.limit).offset(page.offset).all();
  const total =
    ctx.db
      .select({ n: count() })
      .from(messageStars)
      .innerJoin(messages, eq(messages.id, messageStars.messageId))
      .innerJoin(conversationMembers, eq(conversationMembers.conversationId, messages.conversationId))
      .where(visible)
      .get()?.n ?? 0;
  const views = messageViews(ctx, caller.id, rows.map((r) => r.message));
  // The other participant of each 1:1 conversation (from its pair key), for a "go to thread" link.
  const otherId = (c: ConversationRow) => (c.kind === "direct" ? otherOf(c, caller.id) : null);
  const names = users.findManyByIds(ctx, rows.map((r) => otherId(r.conversation)).filter((id): id is string => !!id));
  return {
    messages: rows.map((r, i) => ({
      saved_at: iso(r.star.createdAt),
      note: null,
      message: views[i],
      other_username: names.get(otherId(r.conversation) ?? "")?.username ?? null,
      is_group: r.conversation.kind === "group",
      conversation_title: r.conversation.kind === "group" ? r.conversation.title : null,
    })),
    pagination: { total, has_more: page.offset + rows.length < total },
  };
}

// ---------------------------------------------------------------------------------------------
// Forward

/** The forwarded body: the comment, then the source as a Markdown blockquote (cut to 2000 chars). */
function forwardBody(sourceBody: string, senderUsername: string, comment: string): string {
  const cut = sourceBody.length > FORWARD_SOURCE_CHARS ? sourceBody.slice(0, FORWARD_SOURCE_CHARS) + "…" : sourceBody;
  const quote = [`> Forwarded from @${senderUsername}:`, ">", ...cut.split("\n").map((l) => (l ? `> ${l}` : ">"))].join("\n");
  return comment.trim() ? `${comment.trim()}\n\n${quote}` : quote;
}

/**
 * POST /messages/{id}/forward: a live message the caller can see, re-sent to a 1:1 conversation
 * with `recipient_username` under every rule of a send (karma floor, send limits).
 */
export function forward(ctx: Ctx, caller: Caller, messageId: string, recipientUsername: string, comment: string): MessageRow {
  const { message } = liveMessage(ctx, caller, messageId);
  const author = users.findById(ctx, message.senderId);
  const body = forwardBody(message.body, author?.username ?? "[deleted]", comment);
  if (body.length > MAX_BODY) {
    throw new FieldError(["body", "comment"], `The comment and the quoted message together exceed ${MAX_BODY} characters`, comment.length, "string_too_long");
  }
  return send(ctx, caller, recipientUsername, { body }, { forwardedFromId: message.id });
}
