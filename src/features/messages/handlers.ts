// After-commit work of messaging (ARCHITECTURE rule 6): the `direct_message` notification, the
// realtime pushes on each participant's `user:{id}:dm` channel (spec Part 2 §6.3), and clean-up.
//
// Events handled (payloads carry `recipient_ids`; the actor also receives the realtime push so
// their other sessions stay in step):
//   direct_message, group_message                  → dm.new
//   messages_read                                  → dm.read {count} (1:1) / dm.group_read (group)
//   message_reaction                               → dm.reaction {emoji, action, total}
//   direct_message_edited, group_message_edited    → dm.edit
//   direct_message_deleted, group_message_deleted  → dm.delete
import type { Ctx } from "../../core/context";
import { payloadString, payloadStrings, type DomainEvent } from "../../core/events";
import { dmChannel } from "../../core/realtime";
import { notify } from "../notifications/service";
import { purgeOrphans, purgeUserUploads } from "./attachments";
import { memberRow, messageById, purgeUserDrafts } from "./service";
import { messageViews } from "./views";


/** The recipients plus the actor, each once. */
function audienceOf(ev: DomainEvent): string[] {
  const ids = payloadStrings(ev.payload.recipient_ids);
  if (ev.actorId && !ids.includes(ev.actorId)) ids.push(ev.actorId);
  return ids;
}

function publishAll(ctx: Ctx, ids: readonly string[], type: string, data: Record<string, unknown>): void {
  for (const id of ids) ctx.realtime.publish(id, dmChannel(id), type, data);
}

/** `direct_message` → a `direct_message` notification to the recipient, unless they muted the conversation. */
function notifyDirect(ctx: Ctx, ev: DomainEvent): void {
  const messageId = payloadString(ev.payload.message_id);
  const conversationId = payloadString(ev.payload.conversation_id);
  if (!messageId || !conversationId) return;
  for (const userId of payloadStrings(ev.payload.recipient_ids)) {
    const m = memberRow(ctx, conversationId, userId);
    if (m?.mutedUntil != null && m.mutedUntil > ctx.clock.now()) continue;
    notify(ctx, {
      userId,
      kind: "direct_message",
      actorId: ev.actorId,
      target: { type: "message", id: messageId },
      messageId,
      conversationId,
      meta: { preview: payloadString(ev.payload.preview) ?? "", sender_username: payloadString(ev.payload.sender_username) },
      eventId: ev.id,
    });
  }
}

/** dm.new: the message as MessageOut (rendered once, for the first subscribed recipient). */
function publishNew(ctx: Ctx, ev: DomainEvent): void {
  const messageId = payloadString(ev.payload.message_id);
  if (!messageId) return;
  const ids = audienceOf(ev).filter((id) => ctx.realtime.subscribers(id) > 0);
  if (!ids.length) return;
  const row = messageById(ctx, messageId);
  if (!row) return;
  const viewer = ids.find((id) => id !== row.senderId) ?? ids[0];
  const [message] = messageViews(ctx, viewer, [row]);
  publishAll(ctx, ids, "dm.new", {
    conversation_id: row.conversationId,
    message_id: row.id,
    sender_id: row.senderId,
    is_group: ev.type === "group_message",
    message,
  });
}

function publishRead(ctx: Ctx, ev: DomainEvent): void {
  const conversationId = payloadString(ev.payload.conversation_id);
  if (!conversationId) return;
  const ids = payloadStrings(ev.payload.recipient_ids);
  if (ev.payload.is_group === true) {
    const messageId = payloadString(ev.payload.message_id);
    if (!messageId) return;
    publishAll(ctx, ids, "dm.group_read", { conversation_id: conversationId, reader_id: ev.actorId, message_id: messageId, read_count: Number(ev.payload.read_count ?? 0) });
    return;
  }
  publishAll(ctx, ids, "dm.read", { conversation_id: conversationId, reader_id: ev.actorId, message_id: payloadString(ev.payload.message_id), count: Number(ev.payload.count ?? 0) });
}

function publishReaction(ctx: Ctx, ev: DomainEvent): void {
  publishAll(ctx, audienceOf(ev), "dm.reaction", {
    conversation_id: ev.payload.conversation_id,
    message_id: ev.payload.message_id,
    user_id: ev.actorId,
    emoji: ev.payload.emoji,
    action: ev.payload.action,
    total: ev.payload.total,
  });
}

function publishEdit(ctx: Ctx, ev: DomainEvent): void {
  publishAll(ctx, audienceOf(ev), "dm.edit", {
    conversation_id: ev.payload.conversation_id,
    message_id: ev.payload.message_id,
    body: ev.payload.body,
    edited_at: ev.payload.edited_at,
  });
}

function publishDelete(ctx: Ctx, ev: DomainEvent): void {
  publishAll(ctx, audienceOf(ev), "dm.delete", { conversation_id: ev.payload.conversation_id, message_id: ev.payload.message_id, deleted_at: ev.payload.deleted_at });
}

export function registerMessageHandlers(ctx: Ctx): void {
  ctx.events.on("direct_message", (ev) => notifyDirect(ctx, ev));
  ctx.events.on("direct_message", (ev) => publishNew(ctx, ev));
  ctx.events.on("group_message", (ev) => publishNew(ctx, ev));
  ctx.events.on("messages_read", (ev) => publishRead(ctx, ev));
  ctx.events.on("message_reaction", (ev) => publishReaction(ctx, ev));
  for (const type of ["direct_message_edited", "group_message_edited"]) ctx.events.on(type, (ev) => publishEdit(ctx, ev));
  for (const type of ["direct_message_deleted", "group_message_deleted"]) ctx.events.on(type, (ev) => publishDelete(ctx, ev));
  ctx.events.on("account_deleted", async (ev) => {
    const userId = payloadString(ev.payload.user_id);
    if (!userId) return;
    purgeUserDrafts(ctx, userId);
    await purgeUserUploads(ctx, userId);
  });
  ctx.jobs.every("purge-orphan-attachments", "41 * * * *", () => purgeOrphans(ctx));
}
