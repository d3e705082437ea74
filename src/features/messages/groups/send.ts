// Sending to a group (spec Part 2 §4.6, §6.2, §8): POST /messages/groups/{id}/send, its @mentions
// and @everyone, and whom the group_message and group_mention events address (a member who muted
// the group hears only what names them).
import { and, eq } from "drizzle-orm";
import type { Ctx } from "../../../core/context";
import { ApiError } from "../../../core/errors";
import { inTransaction } from "../../../db/client";
import type { Caller } from "../../auth/service";
import * as users from "../../users/service";
import { assertCanSend, insertMessage, preview, validateSendInput, type ConversationRow, type MessageRow, type SendInput } from "../service";
import { messageDrafts } from "../tables";
import { requireMember } from "./access";
import { acceptedOf, currentMembers } from "./rows";
import { isMuted } from "./settings";

/** Distinct @username mentions per message; @everyone is not counted (spec Part 2 §4.6, §8). */
export const MAX_MENTIONS = 20;

/** `@name` as a mention (same shape as post mentions: 3-32 letters, digits, `-`, `_`). */
const MENTION_RE = /(^|[^A-Za-z0-9_@./-])@([A-Za-z0-9][A-Za-z0-9_-]{1,30}[A-Za-z0-9])(?![A-Za-z0-9_-])/g;

/** The distinct lower-case @usernames of a body and whether it addresses @everyone. */
export function parseMentions(body: string): { names: string[]; everyone: boolean } {
  const names = new Set<string>();
  let everyone = false;
  for (const m of body.matchAll(MENTION_RE)) {
    const name = m[2].toLowerCase();
    if (name === "everyone") everyone = true;
    else names.add(name);
  }
  return { names: [...names], everyone };
}

/** The facts about a group message that its group_message and group_mention payloads carry. */
export function messageFacts(msg: Pick<MessageRow, "id" | "body">, conv: Pick<ConversationRow, "id" | "title">, sender: { id: string; username: string; displayName: string }) {
  return {
    message_id: msg.id,
    conversation_id: conv.id,
    conversation_title: conv.title,
    sender_id: sender.id,
    sender_username: sender.username,
    sender: sender.username,
    sender_display_name: sender.displayName,
    body_excerpt: preview(msg.body),
    preview: preview(msg.body),
  };
}

/**
 * POST /messages/groups/{id}/send. Checks (participant, karma floor, payload, at most 20 distinct
 * @mentions → 400 LIMIT_EXCEEDED), then one transaction: the message, the sender's group draft
 * cleared, `group_message` to every other member except those who muted the group (unless
 * @-named or @everyone), and `group_mention` to the members @-named (everyone on @everyone).
 */
export function send(ctx: Ctx, caller: Caller, convId: string, input: SendInput): MessageRow {
  const { conv } = requireMember(ctx, caller, convId);
  assertCanSend(caller);
  const valid = validateSendInput(ctx, caller.id, conv.id, input);
  const mentions = parseMentions(valid.body);
  if (mentions.names.length > MAX_MENTIONS) {
    throw new ApiError(400, "LIMIT_EXCEEDED", `A message may @mention at most ${MAX_MENTIONS} members (found ${mentions.names.length}); use @everyone to address the whole group`);
  }
  return inTransaction(ctx.db, (tx) => {
    const msg = insertMessage(tx, ctx, { conversationId: conv.id, senderId: caller.id, body: valid.body, replyToId: valid.replyToId, attachmentIds: valid.attachmentIds }, "group");
    tx.delete(messageDrafts).where(and(eq(messageDrafts.userId, caller.id), eq(messageDrafts.conversationId, conv.id))).run();
    const now = ctx.clock.now();
    const others = acceptedOf(currentMembers(ctx, conv.id)).filter((m) => m.userId !== caller.id);
    const names = new Set(mentions.names);
    const othersById = users.findManyByIds(ctx, others.map((m) => m.userId));
    const mentioned = others.filter((m) => names.has(othersById.get(m.userId)?.username.toLowerCase() ?? "")).map((m) => m.userId);
    const addressed = new Set(mentions.everyone ? others.map((m) => m.userId) : mentioned);
    const recipients = others.filter((m) => !isMuted(m, now) || addressed.has(m.userId)).map((m) => m.userId);
    const common = messageFacts(msg, conv, { id: caller.id, username: caller.username, displayName: caller.user.displayName });
    ctx.events.emit(tx, {
      type: "group_message",
      actorId: caller.id,
      subject: { type: "message", id: msg.id },
      payload: { recipient_ids: recipients, ...common, mentioned_user_ids: mentioned, everyone: mentions.everyone },
      activity: true,
    });
    if (addressed.size) {
      ctx.events.emit(tx, {
        type: "group_mention",
        actorId: caller.id,
        subject: { type: "message", id: msg.id },
        payload: { recipient_ids: [...addressed], ...common, everyone: mentions.everyone },
      });
    }
    return msg;
  });
}
