// After-commit work of group conversations (ARCHITECTURE rule 6), registered by
// registerGroupHandlers(ctx) from app.ts:
//   group_message → a `group_message` notification to each recipient who is still a member,
//                   unless they muted the group (an @-mention or @everyone still notifies) or
//                   snoozed it (nothing notifies until the snooze ends);
//                 → dm.new to the members the event left out because they muted the group, so
//                   their open clients still show the message (messages/handlers.ts publishes
//                   dm.new to the sender and the event's recipients).
// Webhook deliveries of the §6.2 group events are the webhooks feature's generic rule
// (payload `recipient_ids`).
import type { Ctx } from "../../../core/context";
import { payloadString, payloadStrings, type DomainEvent } from "../../../core/events";
import { dmChannel } from "../../../core/realtime";
import { notify } from "../../notifications/service";
import { memberRow, messageById, participantIds } from "../service";
import { messageViews } from "../views";
import { isMuted, isSnoozed } from "./service";


function notifyGroupMessage(ctx: Ctx, ev: DomainEvent): void {
  const messageId = payloadString(ev.payload.message_id);
  const conversationId = payloadString(ev.payload.conversation_id);
  if (!messageId || !conversationId) return;
  const mentioned = new Set(payloadStrings(ev.payload.mentioned_user_ids));
  const everyone = ev.payload.everyone === true;
  const now = ctx.clock.now();
  for (const userId of payloadStrings(ev.payload.recipient_ids)) {
    const m = memberRow(ctx, conversationId, userId);
    if (!m || m.inviteStatus !== "accepted" || m.leftAt !== null) continue;
    const addressed = everyone || mentioned.has(userId);
    if (isSnoozed(m, now)) continue;
    if (isMuted(m, now) && !addressed) continue;
    notify(ctx, {
      userId,
      kind: "group_message",
      actorId: ev.actorId,
      target: { type: "message", id: messageId },
      messageId,
      conversationId,
      meta: {
        preview: payloadString(ev.payload.preview) ?? "",
        sender_username: payloadString(ev.payload.sender_username),
        conversation_title: payloadString(ev.payload.conversation_title),
        mentioned: addressed,
      },
      eventId: ev.id,
    });
  }
}

function publishToMuted(ctx: Ctx, ev: DomainEvent): void {
  const messageId = payloadString(ev.payload.message_id);
  const conversationId = payloadString(ev.payload.conversation_id);
  if (!messageId || !conversationId) return;
  const told = new Set(payloadStrings(ev.payload.recipient_ids));
  if (ev.actorId) told.add(ev.actorId);
  const left = participantIds(ctx, conversationId).filter((id) => !told.has(id) && ctx.realtime.subscribers(id) > 0);
  if (!left.length) return;
  const row = messageById(ctx, messageId);
  if (!row) return;
  for (const id of left) {
    const [message] = messageViews(ctx, id, [row]);
    ctx.realtime.publish(id, dmChannel(id), "dm.new", { conversation_id: conversationId, message_id: row.id, sender_id: row.senderId, is_group: true, message });
  }
}

export function registerGroupHandlers(ctx: Ctx): void {
  ctx.events.on("group_message", (ev) => notifyGroupMessage(ctx, ev));
  ctx.events.on("group_message", (ev) => publishToMuted(ctx, ev));
}
