// Who may see and change a group (spec Part 2 §4.6). A group is visible only to its participants
// (accepted, not left). Everyone else — strangers, former members, invitees who declined and
// pending invitees — gets 404 NOT_FOUND on every group route; a pending invitee may only answer
// the invite (invites.ts). Admins are the members with the admin role and, outside managed groups,
// the creator.
//
// Managed groups (conversations.managed_by; modmail threads, docs/decisions.md §45): another
// feature governs their members and identity, so every membership or identity change through the
// group API goes through requireChangeable, which refuses them with 403 FORBIDDEN. Leaving stays
// open to every participant; reading, sending, pins and the per-member settings work as in any
// group.
import type { Ctx } from "../../../core/context";
import { ApiError } from "../../../core/errors";
import type { Caller } from "../../auth/service";
import { conversationById, memberRow, type ConversationRow, type MemberRow } from "../service";
import type { ManagedBy } from "../tables";

/** What every group route answers to someone who may not see the group. */
export const groupNotFound = () => new ApiError(404, "NOT_FOUND", "Group not found");

export interface GroupAccess {
  conv: ConversationRow;
  member: MemberRow;
}

/** The group when `convId` names one, else null (direct conversations are not groups here). */
export function groupById(ctx: Ctx, convId: string): ConversationRow | null {
  const conv = conversationById(ctx, convId);
  return conv && conv.kind === "group" ? conv : null;
}

/** The group and the caller's member row; 404 NOT_FOUND unless the caller participates. */
export function requireMember(ctx: Ctx, caller: Pick<Caller, "id">, convId: string): GroupAccess {
  const conv = groupById(ctx, convId);
  if (!conv) throw groupNotFound();
  const member = memberRow(ctx, conv.id, caller.id);
  if (!member || member.inviteStatus !== "accepted" || member.leftAt !== null) throw groupNotFound();
  return { conv, member };
}

/**
 * Admins, and the creator (an implicit admin) — except in a managed group, whose creator is the
 * member it exists for (a modmail thread's user) and holds no admin rights there.
 */
export const isAdmin = (conv: Pick<ConversationRow, "creatorId" | "managedBy">, m: Pick<MemberRow, "role" | "userId">) =>
  m.role === "admin" || (conv.managedBy === null && conv.creatorId === m.userId);

/** As requireMember, and the caller must be an admin (403 FORBIDDEN otherwise). */
export function requireAdmin(ctx: Ctx, caller: Pick<Caller, "id">, convId: string): GroupAccess {
  const access = requireMember(ctx, caller, convId);
  if (!isAdmin(access.conv, access.member)) throw new ApiError(403, "FORBIDDEN", "Only group admins can do that");
  return access;
}

/** What a managed group answers to a change of its members or identity through the group API. */
const MANAGED_REFUSAL: Record<ManagedBy, string> = {
  modmail: "This is a modmail thread: its members, title, description and avatar are managed by the colony's moderators, not through the group API",
};

/**
 * The gate of every change to a group's membership or identity — invites, removing someone else,
 * admin flags, the creator role, title, description, avatar: the caller participates (404
 * NOT_FOUND otherwise), the group is not managed by another feature (403 FORBIDDEN, the one
 * refusal of such changes), and with `need: "admin"` the caller is an admin (403 FORBIDDEN).
 */
export function requireChangeable(ctx: Ctx, caller: Pick<Caller, "id">, convId: string, need: "admin" | "member"): GroupAccess {
  const access = requireMember(ctx, caller, convId);
  if (access.conv.managedBy !== null) throw new ApiError(403, "FORBIDDEN", MANAGED_REFUSAL[access.conv.managedBy]);
  if (need === "admin" && !isAdmin(access.conv, access.member)) throw new ApiError(403, "FORBIDDEN", "Only group admins can do that");
  return access;
}
