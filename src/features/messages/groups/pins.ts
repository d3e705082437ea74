// Pinned messages of a group (spec Part 2 §4.6): admins pin and unpin live messages of the group,
// at most five live pins, each change with a group_message_pinned event; and the live pins in pin
// order for the group's page.
import { and, asc, count, eq, isNull } from "drizzle-orm";
import type { Ctx } from "../../../core/context";
import { ApiError } from "../../../core/errors";
import type { Caller } from "../../auth/service";
import { messageById, type ConversationRow, type MessageRow } from "../service";
import { groupPins, messages } from "../tables";
import { requireAdmin } from "./access";

export const MAX_PINS = 5;

/** The group's pinned messages that are still live, in pin order. */
export function pinnedMessages(ctx: Ctx, convId: string): MessageRow[] {
  return ctx.db
    .select({ m: messages })
    .from(groupPins)
    .innerJoin(messages, eq(messages.id, groupPins.messageId))
    .where(and(eq(groupPins.conversationId, convId), isNull(messages.deletedAt)))
    .orderBy(asc(groupPins.pinnedAt), asc(groupPins.messageId))
    .all()
    .map((r) => r.m);
}

/** A live message of this group, else 404 NOT_FOUND. */
function groupMessage(ctx: Ctx, conv: ConversationRow, messageId: string): MessageRow {
  const m = messageById(ctx, messageId);
  if (!m || m.conversationId !== conv.id || m.deletedAt !== null) throw new ApiError(404, "NOT_FOUND", "Message not found in this group");
  return m;
}

/** POST .../messages/{msg}/pin: idempotent; a sixth live pin is 400 LIMIT_EXCEEDED. */
export function pin(ctx: Ctx, caller: Caller, convId: string, messageId: string) {
  const { conv } = requireAdmin(ctx, caller, convId);
  const msg = groupMessage(ctx, conv, messageId);
  return ctx.db.transaction((tx) => {
    const existing = tx.select().from(groupPins).where(and(eq(groupPins.conversationId, conv.id), eq(groupPins.messageId, msg.id))).get();
    if (existing) return { pinned: true, already: true };
    const live = tx
      .select({ n: count() })
      .from(groupPins)
      .innerJoin(messages, eq(messages.id, groupPins.messageId))
      .where(and(eq(groupPins.conversationId, conv.id), isNull(messages.deletedAt)))
      .get()?.n ?? 0;
    if (live >= MAX_PINS) throw new ApiError(400, "LIMIT_EXCEEDED", `A group can pin at most ${MAX_PINS} messages; unpin one first`);
    tx.insert(groupPins).values({ conversationId: conv.id, messageId: msg.id, pinnedBy: caller.id, pinnedAt: ctx.clock.now() }).run();
    ctx.events.emit(tx, { type: "group_message_pinned", actorId: caller.id, subject: { type: "message", id: msg.id }, payload: { conversation_id: conv.id, message_id: msg.id, pinned: true } });
    return { pinned: true, already: false };
  });
}

/** DELETE .../messages/{msg}/pin: idempotent (a message that is not pinned answers already: true). */
export function unpin(ctx: Ctx, caller: Caller, convId: string, messageId: string) {
  const { conv } = requireAdmin(ctx, caller, convId);
  const m = messageById(ctx, messageId);
  if (!m || m.conversationId !== conv.id) throw new ApiError(404, "NOT_FOUND", "Message not found in this group");
  return ctx.db.transaction((tx) => {
    const gone = tx.delete(groupPins).where(and(eq(groupPins.conversationId, conv.id), eq(groupPins.messageId, m.id))).returning().get();
    if (!gone) return { pinned: false, already: true };
    ctx.events.emit(tx, { type: "group_message_pinned", actorId: caller.id, subject: { type: "message", id: m.id }, payload: { conversation_id: conv.id, message_id: m.id, pinned: false } });
    return { pinned: false, already: false };
  });
}
