// What messaging events cause, registered by `register(ctx)` (app.ts):
//
// In the sending transaction (the fan-out rule, core/events.ts):
//   direct_message → a `direct_message` notification to the recipient, unless they muted the
//                    conversation;
//   group_message  → a `group_message` notification to each recipient who is still a member,
//                    unless they muted the group (an @-mention or @everyone still notifies) or
//                    snoozed it (nothing notifies until the snooze ends).
// After commit (the outbox), the realtime pushes on each participant's `user:{id}:dm` channel
// (spec Part 2 §6.3); payloads carry `recipient_ids`, and the actor also receives the push so
// their other sessions stay in step:
//   direct_message, group_message                  → dm.new (groups: also the members who muted it,
//                                                    each with the message as they see it)
//   messages_read                                  → dm.read {count} (1:1) / dm.group_read (group)
//   message_reaction                               → dm.reaction {emoji, action, total}
//   direct_message_edited, group_message_edited    → dm.edit
//   direct_message_deleted, group_message_deleted  → dm.delete
//   dm_typing                                      → dm.typing (to the recipients only)
// The pushes are live handlers (core/events.ts onLive): they run in every serving process, each
// against its own streams, so they only read and publish, never write.
// Webhook deliveries of these §6.2 events are the webhooks feature's generic rule (dm_typing is
// not a §6.2 event: no webhook hears of it).
import type { Ctx } from "../../core/context";
import type { DomainEvent, Told } from "../../core/events";
import { dmChannel } from "../../core/realtime";
import { notify } from "../notifications/service";
import { purgeOrphans, purgeUserUploads } from "./attachments";
import { isMuted, isSnoozed } from "./groups/settings";
import { memberRow, messageById, participantIds, purgeUserDrafts } from "./service";
import { messageViews } from "./views";

type MessageEvent = DomainEvent<"direct_message" | "group_message">;

/** The recipients plus the actor, each once. */
function audienceOf(ev: { actorId: string | null; payload: { recipient_ids: string[] } }): string[] {
  const ids = [...new Set(ev.payload.recipient_ids)];
  if (ev.actorId && !ids.includes(ev.actorId)) ids.push(ev.actorId);
  return ids;
}

function publishAll(ctx: Ctx, ids: readonly string[], type: string, data: Record<string, unknown>): void {
  for (const id of ids) ctx.realtime.publish(id, dmChannel(id), type, data);
}

/** `direct_message` → a notification to the recipient, unless they muted the conversation. */
function tellDirect(ctx: Ctx, ev: DomainEvent<"direct_message">): Told[] {
  const p = ev.payload;
  const told: Told[] = [];
  for (const userId of new Set(p.recipient_ids)) {
    const m = memberRow(ctx, p.conversation_id, userId);
    if (m?.mutedUntil != null && m.mutedUntil > ctx.clock.now()) continue;
    const row = notify(ctx, {
      userId,
      kind: "direct_message",
      actorId: ev.actorId,
      target: { type: "message", id: p.message_id },
      messageId: p.message_id,
      conversationId: p.conversation_id,
      meta: { preview: p.preview, sender_username: p.sender_username },
      eventId: ev.id,
    });
    if (row) told.push({ user_id: userId, kind: "direct_message" });
  }
  return told;
}

/** `group_message` → a notification to each member still in the group, after mutes and snoozes. */
function tellGroup(ctx: Ctx, ev: DomainEvent<"group_message">): Told[] {
  const p = ev.payload;
  const mentioned = new Set(p.mentioned_user_ids);
  const now = ctx.clock.now();
  const told: Told[] = [];
  for (const userId of new Set(p.recipient_ids)) {
    const m = memberRow(ctx, p.conversation_id, userId);
    if (!m || m.inviteStatus !== "accepted" || m.leftAt !== null) continue;
    const addressed = p.everyone || mentioned.has(userId);
    if (isSnoozed(m, now)) continue;
    if (isMuted(m, now) && !addressed) continue;
    const row = notify(ctx, {
      userId,
      kind: "group_message",
      actorId: ev.actorId,
      target: { type: "message", id: p.message_id },
      messageId: p.message_id,
      conversationId: p.conversation_id,
      meta: { preview: p.preview, sender_username: p.sender_username, conversation_title: p.conversation_title, mentioned: addressed },
      eventId: ev.id,
    });
    if (row) told.push({ user_id: userId, kind: "group_message" });
  }
  return told;
}

/** dm.new: the message as MessageOut (rendered once, for the first subscribed recipient). */
function publishNew(ctx: Ctx, ev: MessageEvent): void {
  const ids = audienceOf(ev).filter((id) => ctx.realtime.subscribers(id) > 0);
  if (!ids.length) return;
  const row = messageById(ctx, ev.payload.message_id);
  if (!row) return;
  const viewer = ids.find((id) => id !== row.senderId) ?? ids[0];
  const [message] = messageViews(ctx, viewer, [row]);
  publishAll(ctx, ids, "dm.new", { conversation_id: row.conversationId, message_id: row.id, sender_id: row.senderId, is_group: ev.type === "group_message", message });
}

/** dm.new to the members a group message left out because they muted the group, so their open clients still show it. */
function publishToMuted(ctx: Ctx, ev: DomainEvent<"group_message">): void {
  const p = ev.payload;
  const told = new Set(audienceOf(ev));
  const left = participantIds(ctx, p.conversation_id).filter((id) => !told.has(id) && ctx.realtime.subscribers(id) > 0);
  if (!left.length) return;
  const row = messageById(ctx, p.message_id);
  if (!row) return;
  for (const id of left) {
    const [message] = messageViews(ctx, id, [row]);
    ctx.realtime.publish(id, dmChannel(id), "dm.new", { conversation_id: p.conversation_id, message_id: row.id, sender_id: row.senderId, is_group: true, message });
  }
}

function publishRead(ctx: Ctx, ev: DomainEvent<"messages_read">): void {
  const p = ev.payload;
  if (p.is_group) {
    if (!p.message_id) return;
    publishAll(ctx, p.recipient_ids, "dm.group_read", { conversation_id: p.conversation_id, reader_id: ev.actorId, message_id: p.message_id, read_count: p.read_count });
    return;
  }
  publishAll(ctx, p.recipient_ids, "dm.read", { conversation_id: p.conversation_id, reader_id: ev.actorId, message_id: p.message_id, count: p.count });
}

function publishReaction(ctx: Ctx, ev: DomainEvent<"message_reaction">): void {
  const p = ev.payload;
  publishAll(ctx, audienceOf(ev), "dm.reaction", { conversation_id: p.conversation_id, message_id: p.message_id, user_id: ev.actorId, emoji: p.emoji, action: p.action, total: p.total });
}

function publishEdit(ctx: Ctx, ev: DomainEvent<"direct_message_edited" | "group_message_edited">): void {
  const p = ev.payload;
  publishAll(ctx, audienceOf(ev), "dm.edit", { conversation_id: p.conversation_id, message_id: p.message_id, body: p.body, edited_at: p.edited_at });
}

function publishDelete(ctx: Ctx, ev: DomainEvent<"direct_message_deleted" | "group_message_deleted">): void {
  const p = ev.payload;
  publishAll(ctx, audienceOf(ev), "dm.delete", { conversation_id: p.conversation_id, message_id: p.message_id, deleted_at: p.deleted_at });
}

/** dm.typing to each recipient, as the typing route saw them (nothing is read again). */
function publishTyping(ctx: Ctx, ev: DomainEvent<"dm_typing">): void {
  const p = ev.payload;
  publishAll(ctx, [...new Set(p.recipient_ids)], "dm.typing", { conversation_id: p.conversation_id, user_id: p.user_id, username: p.username, is_group: p.is_group });
}

/** Messaging's fan-out rules, realtime pushes, clean-up and the orphan purge. */
export function register(ctx: Ctx): void {
  ctx.events.fanOut("direct_message", (ev) => tellDirect(ctx, ev));
  ctx.events.fanOut("group_message", (ev) => tellGroup(ctx, ev));
  ctx.events.onLive("direct_message", (ev) => publishNew(ctx, ev));
  ctx.events.onLive("group_message", (ev) => publishNew(ctx, ev));
  ctx.events.onLive("group_message", (ev) => publishToMuted(ctx, ev));
  ctx.events.onLive("messages_read", (ev) => publishRead(ctx, ev));
  ctx.events.onLive("message_reaction", (ev) => publishReaction(ctx, ev));
  ctx.events.onLive("direct_message_edited", (ev) => publishEdit(ctx, ev));
  ctx.events.onLive("group_message_edited", (ev) => publishEdit(ctx, ev));
  ctx.events.onLive("direct_message_deleted", (ev) => publishDelete(ctx, ev));
  ctx.events.onLive("group_message_deleted", (ev) => publishDelete(ctx, ev));
  ctx.events.onLive("dm_typing", (ev) => publishTyping(ctx, ev));
  ctx.events.onAsync("account_deleted", async (ev) => {
    purgeUserDrafts(ctx, ev.payload.user_id);
    await purgeUserUploads(ctx, ev.payload.user_id);
  });
  ctx.jobs.every("purge-orphan-attachments", "41 * * * *", () => purgeOrphans(ctx));
}
