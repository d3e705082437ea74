// Getting into a group (spec Part 2 §3 "Group invite", §4.6, §8): the rules of an invite (no
// blocks either way, at most 50 members counting pending invites, a stranger costs the inviter's
// cold-contact budget), the pending member row an invite writes (a new group's invitees too),
// an admin's invite (POST .../members), the invitee's answer (POST .../invite/respond) and what a
// pending invitee may see before answering.
import * as blocks from "../../blocks/service";
import type { Ctx } from "../../../core/context";
import { ApiError } from "../../../core/errors";
import type { Caller } from "../../auth/service";
import type { UserRow } from "../../users/service";
import { assertCanSend, isCold, memberRow, participantIds, recordColdContact, type ConversationRow, type MemberRow, type Tx } from "../service";
import { conversationMembers } from "../tables";
import { groupById, groupNotFound, requireChangeable, type GroupAccess } from "./access";
import { acceptedOf, currentMembers, findUser, setMember } from "./rows";

/** Members of a group, the creator included (spec Part 2 §2.8, §8). */
export const MAX_MEMBERS = 50;

/** Nobody is put in a group with someone they block or who blocks them: 403 FORBIDDEN. */
export function assertInvitable(ctx: Ctx, caller: Caller, u: UserRow): void {
  if (blocks.blockedEitherWay(ctx, caller.id, u.id)) throw new ApiError(403, "FORBIDDEN", `You cannot add @${u.username}: one of you blocks the other`);
}

/** The pending member row of an invitee (a new row, or a former member/decliner invited again). */
export function writeInvite(tx: Tx, ctx: Ctx, conv: Pick<ConversationRow, "id" | "lastMessageAt">, inviterId: string, userId: string, existing: MemberRow | null): void {
  const now = ctx.clock.now();
  const values = {
    role: "member" as const,
    inviteStatus: "pending" as const,
    invitedBy: inviterId,
    invitedAt: now,
    joinedAt: null,
    leftAt: null,
    hiddenAt: null,
    mutedUntil: null,
    snoozedUntil: null,
    lastMessageAt: conv.lastMessageAt ?? now,
  };
  if (existing) setMember(tx, conv.id, userId, values);
  else tx.insert(conversationMembers).values({ conversationId: conv.id, userId, createdAt: now, ...values }).run();
  // An invite to a stranger spends the inviter's cold-contact budget (spec Part 2 §8).
  if (isCold(ctx, inviterId, userId)) recordColdContact(tx, ctx, inviterId, userId, conv.id, "group_invite");
}

/**
 * POST /messages/groups/{id}/members: an admin invites `username` (pending). Already accepted or
 * pending: nothing changes (`added: false, already_member: true`). A former member or one who
 * declined is invited again. The group holds at most 50 members counting pending invites
 * (400 LIMIT_EXCEEDED). Emits `group_member_added` to every accepted member.
 */
export function invite(ctx: Ctx, caller: Caller, convId: string, username: string) {
  const { conv } = requireChangeable(ctx, caller, convId, "admin");
  assertCanSend(caller);
  const target = findUser(ctx, username);
  if (!target) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  assertInvitable(ctx, caller, target);
  const existing = memberRow(ctx, conv.id, target.id);
  if (existing && existing.leftAt === null && (existing.inviteStatus === "accepted" || existing.inviteStatus === "pending")) {
    return { added: false, already_member: true, username: target.username, invite_status: existing.inviteStatus };
  }
  const current = currentMembers(ctx, conv.id);
  if (current.length >= MAX_MEMBERS) throw new ApiError(400, "LIMIT_EXCEEDED", `A group has at most ${MAX_MEMBERS} members, pending invites included`);
  return ctx.db.transaction((tx) => {
    writeInvite(tx, ctx, conv, caller.id, target.id, existing);
    ctx.events.emit(tx, {
      type: "group_member_added",
      actorId: caller.id,
      subject: { type: "conversation", id: conv.id },
      payload: {
        recipient_ids: acceptedOf(current).map((m) => m.userId),
        conversation_id: conv.id,
        actor: caller.username,
        actor_id: caller.id,
        added: target.username,
        added_user_id: target.id,
      },
    });
    return { added: true, already_member: false, username: target.username, invite_status: "pending" };
  });
}

/**
 * POST /messages/groups/{id}/invite/respond: the invitee accepts (member from now on; emits
 * `group_invite_accepted` to every accepted member, the accepter included) or declines
 * (terminal: only a new invite brings them back). 404 NOT_FOUND without a pending invite;
 * 409 CONFLICT for a member who already accepted.
 */
export function respond(ctx: Ctx, caller: Caller, convId: string, accept: boolean) {
  const conv = groupById(ctx, convId);
  if (!conv) throw groupNotFound();
  const m = memberRow(ctx, conv.id, caller.id);
  if (!m || m.leftAt !== null || m.inviteStatus === "declined") throw groupNotFound();
  if (m.inviteStatus === "accepted") throw new ApiError(409, "CONFLICT", "You are already a member of this group");
  return ctx.db.transaction((tx) => {
    const now = ctx.clock.now();
    if (!accept) {
      setMember(tx, conv.id, caller.id, { inviteStatus: "declined" });
      ctx.events.emit(tx, {
        type: "group_invite_declined",
        actorId: caller.id,
        subject: { type: "conversation", id: conv.id },
        payload: { conversation_id: conv.id, user: caller.username, user_id: caller.id },
      });
      return { invite_status: "declined" as const };
    }
    setMember(tx, conv.id, caller.id, { inviteStatus: "accepted", joinedAt: now, lastMessageAt: conv.lastMessageAt ?? now });
    // Same connection as the transaction: the accepter is among them.
    const accepted = participantIds(ctx, conv.id);
    ctx.events.emit(tx, {
      type: "group_invite_accepted",
      actorId: caller.id,
      subject: { type: "conversation", id: conv.id },
      payload: { recipient_ids: accepted, conversation_id: conv.id, user: caller.username, user_id: caller.id },
    });
    return { invite_status: "accepted" as const };
  });
}

/**
 * The group `convId` when the caller holds a pending invite to it, with their member row (who
 * invited them, when): what an invitee may see before answering (the web's invitation page).
 * 404 NOT_FOUND otherwise, as respond answers.
 */
export function pendingInvite(ctx: Ctx, caller: Pick<Caller, "id">, convId: string): GroupAccess {
  const conv = groupById(ctx, convId);
  if (!conv) throw groupNotFound();
  const member = memberRow(ctx, conv.id, caller.id);
  if (!member || member.leftAt !== null || member.inviteStatus !== "pending") throw groupNotFound();
  return { conv, member };
}
