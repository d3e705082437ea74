// Moderator invitations (spec Part 2 §2.5, §3 "Mod invite", §4.2, §8): a manager (the founder, a
// colony admin, a moderator holding can_manage_mods, or a site admin) offers a user the moderator
// role (or, founder only, the colony admin role) with a permission list; the invitee gains
// nothing until they accept, within 7 days. Accepting grants the role and the permissions and
// joins the colony when needed. Expiry is derived at read time (a pending invite past expires_at
// answers `expired`); a one-shot job queued at expires_at writes the state and its event.
// The choices the specification leaves open: docs/decisions.md §38.
import { and, desc, eq } from "drizzle-orm";
import { DAY, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, conflict, forbidden, invalid, notFound } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import type { Tx } from "../../db/client";
import { prepared, rowMapper } from "../../db/statements";
import type { Caller } from "../auth/service";
import { recordModAction } from "../colonies/audit";
import { grantModRole } from "../colonies/governance";
import { isFounder, MODERATOR_DEFAULT_PERMISSIONS, requireModPower } from "../colonies/permissions";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import { MOD_PERMISSIONS } from "../colonies/tables";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { colonyModInvites } from "./tables";

const INVITE_TTL_MS = 7 * DAY;
export const EXPIRE_INVITE_JOB = "expire_mod_invite";

export type InviteRow = typeof colonyModInvites.$inferSelect;
type InviteStatus = InviteRow["status"];
const mapInvite = rowMapper<InviteRow>(colonyModInvites);

/** The state a reader sees: a pending invite past its expiry is expired, whether or not the job has run. */
const inviteStatus = (ctx: Ctx, row: InviteRow): InviteStatus =>
  row.status === "pending" && row.expiresAt <= ctx.clock.now() ? "expired" : row.status;

/** ModInviteOut: `invitation_id` and its deprecated duplicate `invite_id` (spec Part 2 §9). */
export function inviteOut(ctx: Ctx, row: InviteRow) {
  return {
    invitation_id: row.id,
    invite_id: row.id,
    colony_id: row.colonyId,
    invitee_id: row.inviteeId,
    invited_by: row.invitedBy,
    role_offered: row.roleOffered,
    permissions: row.permissions,
    status: inviteStatus(ctx, row),
    expires_at: iso(row.expiresAt),
    created_at: iso(row.createdAt),
    responded_at: iso(row.respondedAt),
  };
}

/** A user named by username (a leading @ ignored) or by id; 404 USER_NOT_FOUND unless active. */
export function userByHandle(ctx: Ctx, raw: string): UserRow {
  const ref = raw.trim().replace(/^@/, "");
  const u = isUuid(ref) ? users.findById(ctx, ref.toLowerCase()) : users.findByUsername(ctx, users.normaliseUsername(ref));
  if (!users.isActive(u)) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  return u;
}

function findInvite(ctx: Ctx, id: string): InviteRow | null {
  if (!isUuid(id)) return null;
  const stmt = prepared(ctx.db, "moderation.invite.byId", () => ctx.db.$client.prepare<Record<string, unknown>, [string]>("select * from colony_mod_invites where id = ?"));
  const raw = stmt.get(id.toLowerCase());
  return raw ? mapInvite(raw) : null;
}

/** The colony a manager route names (404 when the caller cannot read it) and the manager check (403). */
function managedColony(ctx: Ctx, caller: Caller, colonyId: string): ColonyRow {
  const colony = colonies.getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller, "can_manage_mods");
  return colony;
}

interface CreateInviteInput {
  invitee_username: string;
  role_offered?: "moderator" | "admin";
  permissions?: string[] | null;
}

const ROLE_RANK = { member: 0, moderator: 1, admin: 2, founder_moderator: 3 } as const;

/**
 * POST /colonies/{id}/mod-invites. 403 FORBIDDEN for a non-manager, or `admin` offered by anyone
 * but the founder or a site admin; 404 USER_NOT_FOUND; 400 INVALID_INPUT for yourself or an
 * unknown permission key; 409 CONFLICT when the invitee already holds the role (or a higher one),
 * is banned from the colony, or has a pending invite here.
 */
export function createInvite(ctx: Ctx, caller: Caller, colonyId: string, input: CreateInviteInput): InviteRow {
  const colony = managedColony(ctx, caller, colonyId);
  const role = input.role_offered ?? "moderator";
  if (role === "admin" && !caller.isAdmin && !isFounder(ctx, colony, caller.id)) throw forbidden("Only the founder can offer the colony admin role");
  const invitee = userByHandle(ctx, input.invitee_username);
  if (invitee.id === caller.id) throw invalid("You cannot invite yourself");
  const unknown = (input.permissions ?? []).filter((k) => !(MOD_PERMISSIONS as readonly string[]).includes(k));
  if (unknown.length) throw invalid(`Unknown permission keys: ${unknown.join(", ")} (valid: ${MOD_PERMISSIONS.join(", ")})`);
  // An admin holds every key; a moderator offered no list gets the moderator defaults.
  const permissions = role === "admin" ? [...MOD_PERMISSIONS] : input.permissions != null ? [...new Set(input.permissions)] : [...MODERATOR_DEFAULT_PERMISSIONS];
  const m = colonies.memberRow(ctx, colony.id, invitee.id);
  if (m && m.approved && ROLE_RANK[m.role] >= ROLE_RANK[role]) throw conflict(`@${invitee.username} already holds the ${m.role} role here`);
  if (colonies.activeBan(ctx, colony.id, invitee.id)) throw conflict(`@${invitee.username} is banned from this colony: lift the ban first`);
  const now = ctx.clock.now();
  const pending = ctx.db
    .select()
    .from(colonyModInvites)
    .where(and(eq(colonyModInvites.colonyId, colony.id), eq(colonyModInvites.inviteeId, invitee.id), eq(colonyModInvites.status, "pending")))
    .get();
  if (pending && pending.expiresAt > now) throw conflict(`@${invitee.username} already has a pending invitation to moderate this colony`);
  const row: InviteRow = {
    id: uuidv7(now),
    colonyId: colony.id,
    inviteeId: invitee.id,
    invitedBy: caller.id,
    roleOffered: role,
    permissions,
    status: "pending",
    expiresAt: now + INVITE_TTL_MS,
    respondedAt: null,
    createdAt: now,
  };
  return ctx.db.transaction((tx) => {
    // A lapsed invite the job has not reached yet gives way to the new one.
    if (pending) expireInTx(ctx, tx, pending, colony);
    tx.insert(colonyModInvites).values(row).run();
    ctx.jobs.schedule(EXPIRE_INVITE_JOB, row.expiresAt, { invite_id: row.id }, tx);
    recordModAction(ctx, { colonyId: colony.id, actorId: caller.id, action: "mod_invite", targetType: "invite", targetId: row.id, targetUserId: invitee.id, meta: { role_offered: role, permissions } });
    ctx.events.emit(tx, {
      type: "mod_invite_created",
      actorId: caller.id,
      subject: { type: "colony", id: colony.id },
      payload: { colony_id: colony.id, colony_name: colony.name, invite_id: row.id, invitee_id: invitee.id, invited_by: caller.id, role_offered: role },
    });
    return row;
  });
}

/** GET /colonies/{id}/mod-invites: the outstanding (pending, unexpired) invites, newest first. Managers only. */
export function listColonyInvites(ctx: Ctx, caller: Caller, colonyId: string): InviteRow[] {
  const colony = managedColony(ctx, caller, colonyId);
  return ctx.db
    .select()
    .from(colonyModInvites)
    .where(and(eq(colonyModInvites.colonyId, colony.id), eq(colonyModInvites.status, "pending")))
    .orderBy(desc(colonyModInvites.createdAt))
    .all()
    .filter((r) => inviteStatus(ctx, r) === "pending");
}

/** GET /colonies/mod-invites/received: the caller's pending invites across live colonies, newest first. */
export function listReceived(ctx: Ctx, caller: Caller): InviteRow[] {
  return ctx.db
    .select()
    .from(colonyModInvites)
    .where(and(eq(colonyModInvites.inviteeId, caller.id), eq(colonyModInvites.status, "pending")))
    .orderBy(desc(colonyModInvites.createdAt))
    .all()
    .filter((r) => inviteStatus(ctx, r) === "pending" && colonies.findColony(ctx, r.colonyId)?.deletedAt === null);
}

/** A pending, unexpired invite or 409 CONFLICT naming its state. */
function assertPending(ctx: Ctx, row: InviteRow): void {
  const status = inviteStatus(ctx, row);
  if (status !== "pending") throw conflict(`This invitation is ${status}${status === "expired" ? ": ask a manager to send a new one" : ""}`);
}

/** The invite addressed to the caller (anyone else, like an unknown id, gets 404) and its live colony. */
function ownInvite(ctx: Ctx, caller: Caller, inviteId: string): { row: InviteRow; colony: ColonyRow } {
  const row = findInvite(ctx, inviteId);
  const colony = row ? colonies.findColony(ctx, row.colonyId) : null;
  if (!row || row.inviteeId !== caller.id || !colony || colony.deletedAt !== null) throw notFound("Invitation not found");
  return { row, colony };
}

/**
 * POST /colonies/mod-invites/{id}/accept (the invitee): the role and permissions are granted and
 * a non-member joins, approved, in one transaction. 409 CONFLICT when it is no longer pending
 * (expired included), when the invitee meanwhile holds the role or a higher one, is banned, or
 * is not a member of a colony since archived.
 */
export function acceptInvite(ctx: Ctx, caller: Caller, inviteId: string): InviteRow {
  const { row, colony } = ownInvite(ctx, caller, inviteId);
  assertPending(ctx, row);
  if (colonies.activeBan(ctx, colony.id, caller.id)) throw conflict("You are banned from this colony");
  const m = colonies.memberRow(ctx, colony.id, caller.id);
  if (m && m.approved && ROLE_RANK[m.role] >= ROLE_RANK[row.roleOffered]) throw conflict(`You already hold the ${m.role} role here`);
  if (!m && colony.archivedAt !== null) throw conflict("This colony is archived and closed to new members");
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const updated = tx.update(colonyModInvites).set({ status: "accepted", respondedAt: now }).where(eq(colonyModInvites.id, row.id)).returning().get();
    const permissions = row.roleOffered === "admin" ? null : row.permissions;
    const { joined } = grantModRole(ctx, tx, colony, caller.id, row.roleOffered, permissions);
    recordModAction(ctx, { colonyId: colony.id, actorId: caller.id, action: "mod_invite_accepted", targetType: "invite", targetId: row.id, targetUserId: caller.id, meta: { role: row.roleOffered, permissions: row.permissions, joined } });
    if (joined) {
      ctx.events.emit(tx, {
        type: "member_joined",
        actorId: caller.id,
        subject: { type: "colony", id: colony.id },
        payload: { colony_id: colony.id, colony_name: colony.name, user_id: caller.id, username: caller.username, user_type: caller.userType, approved: true, members_only: colony.communityType === "private" },
        activity: true,
      });
    }
    emitResolved(ctx, tx, caller.id, updated, colony, "accepted", joined);
    return updated;
  });
}

/** POST /colonies/mod-invites/{id}/decline (the invitee): terminal. 409 CONFLICT unless pending. */
export function declineInvite(ctx: Ctx, caller: Caller, inviteId: string): InviteRow {
  const { row, colony } = ownInvite(ctx, caller, inviteId);
  assertPending(ctx, row);
  return ctx.db.transaction((tx) => {
    const updated = tx.update(colonyModInvites).set({ status: "declined", respondedAt: ctx.clock.now() }).where(eq(colonyModInvites.id, row.id)).returning().get();
    recordModAction(ctx, { colonyId: colony.id, actorId: caller.id, action: "mod_invite_declined", targetType: "invite", targetId: row.id, targetUserId: caller.id });
    emitResolved(ctx, tx, caller.id, updated, colony, "declined", false);
    return updated;
  });
}

/** POST /colonies/{id}/mod-invites/{invite}/revoke (a manager). 404 for another colony's invite; 409 unless pending. */
export function revokeInvite(ctx: Ctx, caller: Caller, colonyId: string, inviteId: string): InviteRow {
  const colony = managedColony(ctx, caller, colonyId);
  const row = findInvite(ctx, inviteId);
  if (!row || row.colonyId !== colony.id) throw notFound("Invitation not found");
  assertPending(ctx, row);
  return ctx.db.transaction((tx) => {
    const updated = tx.update(colonyModInvites).set({ status: "revoked", respondedAt: ctx.clock.now() }).where(eq(colonyModInvites.id, row.id)).returning().get();
    recordModAction(ctx, { colonyId: colony.id, actorId: caller.id, action: "mod_invite_revoked", targetType: "invite", targetId: row.id, targetUserId: row.inviteeId });
    emitResolved(ctx, tx, caller.id, updated, colony, "revoked", false);
    return updated;
  });
}

function emitResolved(ctx: Ctx, tx: Tx, actorId: string | null, row: InviteRow, colony: ColonyRow, status: "accepted" | "declined" | "revoked" | "expired", joined: boolean): void {
  ctx.events.emit(tx, {
    type: "mod_invite_resolved",
    actorId,
    subject: { type: "colony", id: colony.id },
    payload: { colony_id: colony.id, colony_name: colony.name, invite_id: row.id, invitee_id: row.inviteeId, invited_by: row.invitedBy, role_offered: row.roleOffered, status, joined },
  });
}

function expireInTx(ctx: Ctx, tx: Tx, row: InviteRow, colony: ColonyRow): void {
  tx.update(colonyModInvites).set({ status: "expired" }).where(and(eq(colonyModInvites.id, row.id), eq(colonyModInvites.status, "pending"))).run();
  recordModAction(ctx, { colonyId: colony.id, actorId: null, action: "mod_invite_expired", targetType: "invite", targetId: row.id, targetUserId: row.inviteeId });
  emitResolved(ctx, tx, null, row, colony, "expired", false);
}

/** The expiry job: marks the invite expired once its 7 days are over (a no-op once answered). */
export function expireInvite(ctx: Ctx, inviteId: string): boolean {
  const row = findInvite(ctx, inviteId);
  if (!row || row.status !== "pending" || row.expiresAt > ctx.clock.now()) return false;
  const colony = colonies.findColony(ctx, row.colonyId);
  if (!colony) return false;
  ctx.db.transaction((tx) => expireInTx(ctx, tx, row, colony));
  return true;
}
