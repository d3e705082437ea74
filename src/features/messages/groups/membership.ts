// Who is in a group and in what role (spec Part 2 §4.6, §6.2): the members list and counts,
// leaving and removal (last-admin promotion, creator succession, lapsing invites), admin flags and
// the creator role, each with its group_* event. Getting in is invites.ts.
import { and, count, eq, isNull } from "drizzle-orm";
import type { Ctx } from "../../../core/context";
import { ApiError } from "../../../core/errors";
import type { Caller } from "../../auth/service";
import * as users from "../../users/service";
import type { UserRow } from "../../users/service";
import { memberRow, type ConversationRow, type MemberRow } from "../service";
import { conversationMembers, conversations, messageDrafts } from "../tables";
import { isAdmin, requireChangeable, requireMember } from "./access";
import { acceptedOf, currentMembers, setMember, userByRef } from "./rows";

/** Accepted members, then pending invitees, each as {user, member}; accounts no longer live are left out. */
export function listMembers(ctx: Ctx, caller: Caller, convId: string) {
  const { conv } = requireMember(ctx, caller, convId);
  const rows = currentMembers(ctx, conv.id);
  const byId = users.findManyByIds(ctx, rows.map((r) => r.userId));
  const order = (m: MemberRow) => (m.inviteStatus === "accepted" ? [0, m.joinedAt ?? 0] : [1, m.invitedAt ?? 0]);
  const sorted = rows.sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    return x[0] - y[0] || x[1] - y[1] || (a.userId < b.userId ? -1 : 1);
  });
  return {
    conv,
    members: sorted.flatMap((member) => {
      const user = byId.get(member.userId);
      return users.isActive(user) ? [{ user, member }] : [];
    }),
  };
}

/** How many accepted and pending members the group has. */
export function memberCounts(ctx: Ctx, convId: string): { accepted: number; pending: number } {
  const rows = ctx.db
    .select({ status: conversationMembers.inviteStatus, n: count() })
    .from(conversationMembers)
    .where(and(eq(conversationMembers.conversationId, convId), isNull(conversationMembers.leftAt)))
    .groupBy(conversationMembers.inviteStatus)
    .all();
  return { accepted: rows.find((r) => r.status === "accepted")?.n ?? 0, pending: rows.find((r) => r.status === "pending")?.n ?? 0 };
}

/** The target of a member path: a user id or a username of someone currently in the group (else 404). */
function targetMember(ctx: Ctx, conv: ConversationRow, ref: string): { user: UserRow | null; member: MemberRow } {
  const user = userByRef(ctx, ref);
  const member = user ? memberRow(ctx, conv.id, user.id) : null;
  if (!member || member.leftAt !== null || member.inviteStatus === "declined") throw new ApiError(404, "NOT_FOUND", "Member not found in this group");
  return { user, member };
}

/**
 * DELETE /messages/groups/{id}/members/{user}: a member leaves (their own id) or an admin removes
 * someone (a pending invite is withdrawn the same way). Nobody but the creator can remove the
 * creator (403). When no admin is left, the longest-tenured remaining member is promoted; when
 * the creator leaves, the creator role passes to the longest-tenured remaining admin (the newly
 * promoted one when there was no other). When the last member leaves, pending invites lapse.
 * Emits `group_member_left` or `group_member_removed` to the remaining members. A managed group
 * only lets its participants leave (requireChangeable refuses removing anyone else), and nobody is
 * promoted and the creator role stays where it is when they do: the managing feature decides.
 */
export function removeMember(ctx: Ctx, caller: Caller, convId: string, ref: string) {
  const leaving = userByRef(ctx, ref)?.id === caller.id;
  const { conv, member: me } = leaving ? requireMember(ctx, caller, convId) : requireChangeable(ctx, caller, convId, "member");
  const { member: target } = targetMember(ctx, conv, ref);
  const self = target.userId === caller.id;
  if (!self) {
    if (!isAdmin(conv, me)) throw new ApiError(403, "FORBIDDEN", "Only group admins can remove other members");
    if (target.userId === conv.creatorId) throw new ApiError(403, "FORBIDDEN", "The group's creator cannot be removed by others");
  }
  return ctx.db.transaction((tx) => {
    const now = ctx.clock.now();
    setMember(tx, conv.id, target.userId, { leftAt: now, role: "member" });
    tx.delete(messageDrafts).where(and(eq(messageDrafts.userId, target.userId), eq(messageDrafts.conversationId, conv.id))).run();
    const remaining = currentMembers(ctx, conv.id);
    const accepted = acceptedOf(remaining).sort((a, b) => (a.joinedAt ?? 0) - (b.joinedAt ?? 0) || (a.userId < b.userId ? -1 : 1));
    let promoted: string | null = null;
    let creatorId = conv.creatorId;
    if (accepted.length === 0) {
      // Nobody is left to answer to: withdraw the open invites.
      for (const p of remaining) setMember(tx, conv.id, p.userId, { leftAt: now });
    } else if (target.inviteStatus === "accepted" && conv.managedBy === null) {
      let admins = accepted.filter((m) => m.role === "admin");
      if (!admins.length) {
        promoted = accepted[0].userId;
        setMember(tx, conv.id, promoted, { role: "admin" });
        admins = [accepted[0]];
      }
      if (target.userId === conv.creatorId) {
        creatorId = admins[0].userId;
        tx.update(conversations).set({ creatorId }).where(eq(conversations.id, conv.id)).run();
      }
    }
    const remainingIds = accepted.map((m) => m.userId);
    const targetUser = users.findById(ctx, target.userId);
    if (self) {
      ctx.events.emit(tx, {
        type: "group_member_left",
        actorId: caller.id,
        subject: { type: "conversation", id: conv.id },
        payload: { recipient_ids: remainingIds, conversation_id: conv.id, leaver: caller.username, leaver_id: caller.id, promoted_user_id: promoted, creator_id: creatorId },
      });
    } else {
      ctx.events.emit(tx, {
        type: "group_member_removed",
        actorId: caller.id,
        subject: { type: "conversation", id: conv.id },
        payload: {
          recipient_ids: remainingIds,
          conversation_id: conv.id,
          actor: caller.username,
          actor_id: caller.id,
          removed: targetUser?.username ?? null,
          removed_user_id: target.userId,
          was_pending: target.inviteStatus === "pending",
        },
      });
    }
    return { removed: true, left: self, promoted_user_id: promoted, creator_id: creatorId };
  });
}

/**
 * PUT /messages/groups/{id}/members/{user}/admin: an admin promotes or demotes an accepted member.
 * The creator is always an admin: others demoting them is 403 FORBIDDEN, the creator demoting
 * themself is 409 CONFLICT (transfer the creator role first). Demoting the last admin is 409.
 */
export function setAdmin(ctx: Ctx, caller: Caller, convId: string, ref: string, makeAdmin: boolean) {
  const { conv } = requireChangeable(ctx, caller, convId, "admin");
  const { member: target } = targetMember(ctx, conv, ref);
  if (target.inviteStatus !== "accepted") throw new ApiError(409, "CONFLICT", "Only members who accepted their invite can be admins");
  if (!makeAdmin && target.userId === conv.creatorId) {
    if (caller.id !== conv.creatorId) throw new ApiError(403, "FORBIDDEN", "The group's creator cannot be demoted by others");
    throw new ApiError(409, "CONFLICT", "The creator is always an admin; transfer the creator role first");
  }
  if (!makeAdmin && target.role === "admin") {
    const admins = acceptedOf(currentMembers(ctx, conv.id)).filter((m) => isAdmin(conv, m));
    if (admins.length <= 1) throw new ApiError(409, "CONFLICT", "A group must keep at least one admin");
  }
  const role = makeAdmin ? ("admin" as const) : ("member" as const);
  if (target.role !== role) {
    ctx.db.transaction((tx) => {
      setMember(tx, conv.id, target.userId, { role });
      ctx.events.emit(tx, {
        type: "group_admin_changed",
        actorId: caller.id,
        subject: { type: "conversation", id: conv.id },
        payload: { conversation_id: conv.id, user_id: target.userId, is_admin: makeAdmin },
      });
    });
  }
  return { user_id: target.userId, is_admin: makeAdmin };
}

/**
 * POST /messages/groups/{id}/transfer-creator: the creator hands the role to an accepted member
 * (made admin if not already); the old creator stays an admin. 403 for anyone but the creator,
 * 404 for someone not in the group, 409 for a pending invitee, 400 for the creator themself.
 */
export function transferCreator(ctx: Ctx, caller: Caller, convId: string, ref: string) {
  const { conv } = requireChangeable(ctx, caller, convId, "member");
  if (conv.creatorId !== caller.id) throw new ApiError(403, "FORBIDDEN", "Only the group's creator can transfer the creator role");
  const { user, member: target } = targetMember(ctx, conv, ref);
  if (target.userId === caller.id) throw new ApiError(400, "INVALID_INPUT", "You are already the creator");
  if (target.inviteStatus !== "accepted") throw new ApiError(409, "CONFLICT", "The new creator must have accepted their invite");
  ctx.db.transaction((tx) => {
    tx.update(conversations).set({ creatorId: target.userId }).where(eq(conversations.id, conv.id)).run();
    setMember(tx, conv.id, target.userId, { role: "admin" });
    setMember(tx, conv.id, caller.id, { role: "admin" });
    ctx.events.emit(tx, {
      type: "group_creator_transferred",
      actorId: caller.id,
      subject: { type: "conversation", id: conv.id },
      payload: { conversation_id: conv.id, from_user_id: caller.id, to_user_id: target.userId },
    });
  });
  return { creator_id: target.userId, creator_username: user!.username };
}
