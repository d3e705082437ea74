// Groups another feature opens and fills on its members' behalf (modmail threads: a user and a
// colony's moderators). The group messages API reads and sends in them as in any group, but their
// members are added accepted, without an invite to answer, the first message goes out with the
// group, and `managed_by` marks them: their membership and identity change only through the
// functions here, called by the managing feature (the group API refuses, groups/access.ts
// requireChangeable; docs/decisions.md §45). Call these inside the caller's transaction.
import { and, eq, inArray, isNotNull, isNull } from "drizzle-orm";
import type { Ctx } from "../../../core/context";
import { uuidv7 } from "../../../core/ids";
import * as users from "../../users/service";
import { insertMessage, memberRow, participantIds, type ConversationRow, type MessageRow, type Tx } from "../service";
import { conversationMembers, conversations, messageDrafts, type ManagedBy } from "../tables";
import { MAX_DESCRIPTION, MAX_TITLE } from "./metadata";
import { setMember } from "./rows";
import { messageFacts } from "./send";

export interface ManagedGroupInput {
  /** The feature that governs the group (conversations.managed_by). */
  managedBy: ManagedBy;
  /** The member the group is for (its creator); a plain member, not an admin. */
  ownerId: string;
  /** Added accepted, as group admins (pins; members and identity stay the managing feature's). */
  adminIds: readonly string[];
  title: string;
  description?: string | null;
}

/** Creates the group with every member accepted; no event (the caller's own event marks the write). */
export function createManagedGroup(tx: Tx, ctx: Ctx, input: ManagedGroupInput): ConversationRow {
  const now = ctx.clock.now();
  const conv: ConversationRow = {
    id: uuidv7(now),
    kind: "group",
    pairKey: null,
    title: input.title.slice(0, MAX_TITLE),
    description: input.description ? input.description.slice(0, MAX_DESCRIPTION) : null,
    avatarPath: null,
    avatarUploadedAt: null,
    creatorId: input.ownerId,
    createdAt: now,
    lastMessageAt: null,
    lastMessageId: null,
    messageCount: 0,
    managedBy: input.managedBy,
  };
  tx.insert(conversations).values(conv).run();
  tx.insert(conversationMembers).values({ conversationId: conv.id, userId: input.ownerId, role: "member", inviteStatus: "accepted", joinedAt: now, lastMessageAt: now, createdAt: now }).run();
  for (const id of new Set(input.adminIds)) {
    if (id === input.ownerId) continue;
    tx.insert(conversationMembers).values({ conversationId: conv.id, userId: id, role: "admin", inviteStatus: "accepted", joinedAt: now, lastMessageAt: now, createdAt: now }).run();
  }
  return conv;
}

/**
 * Makes `userId` an accepted participant (a new row, or a former member or decliner back in);
 * returns false when they already participate.
 */
export function addAcceptedMember(tx: Tx, ctx: Ctx, conv: Pick<ConversationRow, "id" | "lastMessageAt">, userId: string, role: "admin" | "member"): boolean {
  const now = ctx.clock.now();
  const existing = memberRow(ctx, conv.id, userId);
  if (existing && existing.inviteStatus === "accepted" && existing.leftAt === null) return false;
  const values = { role, inviteStatus: "accepted" as const, joinedAt: now, leftAt: null, hiddenAt: null, lastMessageAt: conv.lastMessageAt ?? now };
  if (existing) setMember(tx, conv.id, userId, values);
  else tx.insert(conversationMembers).values({ conversationId: conv.id, userId, createdAt: now, ...values }).run();
  return true;
}

/**
 * Sends `body` from `senderId` into the group and emits group_message to every other participant,
 * as POST /messages/groups/{id}/send does (no mentions are parsed: a managed group's first
 * message addresses everyone in it).
 */
export function sendManaged(tx: Tx, ctx: Ctx, conv: Pick<ConversationRow, "id" | "title">, sender: { id: string; username: string; displayName: string }, body: string): MessageRow {
  const msg = insertMessage(tx, ctx, { conversationId: conv.id, senderId: sender.id, body }, "group");
  const recipients = participantIds(ctx, conv.id).filter((id) => id !== sender.id && users.isActive(users.findById(ctx, id)));
  ctx.events.emit(tx, {
    type: "group_message",
    actorId: sender.id,
    subject: { type: "message", id: msg.id },
    payload: { recipient_ids: recipients, ...messageFacts(msg, conv, sender), mentioned_user_ids: [], everyone: false },
    activity: true,
  });
  return msg;
}

/** The groups managed by `managedBy` that `userId` participates in (accepted, not left), by id. */
export function managedGroupsOf(ctx: Ctx, userId: string, managedBy: ManagedBy): string[] {
  return ctx.db
    .select({ id: conversations.id })
    .from(conversationMembers)
    .innerJoin(conversations, eq(conversations.id, conversationMembers.conversationId))
    .where(and(eq(conversationMembers.userId, userId), eq(conversationMembers.inviteStatus, "accepted"), isNull(conversationMembers.leftAt), eq(conversations.managedBy, managedBy)))
    .all()
    .map((r) => r.id);
}

/**
 * Takes `userId` out of the listed managed groups they participate in, as a group leave marks
 * them (left now, no longer an admin, their draft there gone), without an event: the managing
 * feature's own event marks the write. Nobody is promoted and the creator stays (the managing
 * feature decides who is in). Groups that are not managed are left alone. Returns the groups
 * they left.
 */
export function removeFromManaged(tx: Tx, ctx: Ctx, convIds: readonly string[], userId: string): string[] {
  if (!convIds.length) return [];
  const now = ctx.clock.now();
  const managed = tx
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(inArray(conversations.id, [...convIds]), isNotNull(conversations.managedBy)))
    .all()
    .map((r) => r.id);
  if (!managed.length) return [];
  const left = tx
    .update(conversationMembers)
    .set({ leftAt: now, role: "member" })
    .where(and(inArray(conversationMembers.conversationId, managed), eq(conversationMembers.userId, userId), eq(conversationMembers.inviteStatus, "accepted"), isNull(conversationMembers.leftAt)))
    .returning({ id: conversationMembers.conversationId })
    .all()
    .map((r) => r.id);
  if (left.length) tx.delete(messageDrafts).where(and(eq(messageDrafts.userId, userId), inArray(messageDrafts.conversationId, left))).run();
  return left;
}
