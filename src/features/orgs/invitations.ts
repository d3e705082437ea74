// Organisation invitations (spec Part 2 §3 "Org invitation", §4.3): an admin or owner invites a
// user (org_invited tells them); the invitee accepts (a member with the offered role) or declines.
// An invitation lapses after 7 days, derived when read: a lapsed one is neither listed nor
// answerable, and a new invitation to the same person replaces it (docs/decisions.md §59).
import { and, desc, eq, gt, sql } from "drizzle-orm";
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { conflict, forbidden, notFound } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import type { Caller } from "../auth/service";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { actorName, atLeast, membership, orgWithRole, userByRef, type MemberRow, type OrgRow } from "./service";
import { orgInvitations, orgMembers, orgs, type OrgRole } from "./tables";

const INVITATION_TTL_MS = 7 * DAY;

export type InvitationRow = typeof orgInvitations.$inferSelect;

const isLive = (ctx: Ctx, row: InvitationRow) => row.status === "pending" && row.expiresAt > ctx.clock.now();

/**
 * POST /orgs/{slug}/invitations (admins and owners). Offering `admin` or `owner` is for owners
 * (403 FORBIDDEN otherwise), as role changes are. 404 USER_NOT_FOUND for an unknown user; 409
 * CONFLICT when they are already a member, already have a pending invitation here, or the
 * organisation is scheduled for deletion.
 */
export function invite(ctx: Ctx, caller: Caller, slug: string, input: { username: string; role?: OrgRole }): { org: OrgRow; invitation: InvitationRow; invitee: UserRow } {
  const { org, member } = orgWithRole(ctx, caller, slug, "admin");
  const role = input.role ?? "member";
  if (role !== "member" && !atLeast(member!.role, "owner")) throw forbidden("Only an owner may invite someone as an admin or owner");
  const invitee = userByRef(ctx, input.username);
  if (membership(ctx, org.id, invitee.id)) throw conflict(`@${invitee.username} is already a member`);
  if (org.deletionDueAt !== null) throw conflict("This organisation is scheduled for deletion: cancel the deletion to invite anyone");
  const pending = ctx.db
    .select()
    .from(orgInvitations)
    .where(and(eq(orgInvitations.orgId, org.id), eq(orgInvitations.inviteeId, invitee.id), eq(orgInvitations.status, "pending")))
    .get();
  if (pending && isLive(ctx, pending)) throw conflict(`@${invitee.username} already has a pending invitation to this organisation`);
  const now = ctx.clock.now();
  const invitation = ctx.db.transaction((tx) => {
    // A lapsed invitation gives way to the new one.
    if (pending) tx.update(orgInvitations).set({ status: "expired" }).where(eq(orgInvitations.id, pending.id)).run();
    const row = tx
      .insert(orgInvitations)
      .values({ id: uuidv7(now), orgId: org.id, inviteeId: invitee.id, invitedBy: caller.id, role, status: "pending", expiresAt: now + INVITATION_TTL_MS, createdAt: now })
      .returning()
      .get();
    ctx.events.emit(tx, {
      type: "org_invited",
      actorId: caller.id,
      subject: { type: "org", id: org.id },
      payload: { org_id: org.id, org_slug: org.slug, org_name: org.name, invitation_id: row.id, invitee_id: invitee.id, role, actor: actorName(caller) },
    });
    return row;
  });
  return { org, invitation, invitee };
}

/** GET /orgs/{slug}/invitations: outbound pending invitations, newest first (admins and owners; site admins read). */
export function listOutbound(ctx: Ctx, caller: Caller, slug: string): { invitation: InvitationRow; user: UserRow }[] {
  const { org } = orgWithRole(ctx, caller, slug, "admin", { read: true });
  const rows = ctx.db
    .select()
    .from(orgInvitations)
    .where(and(eq(orgInvitations.orgId, org.id), eq(orgInvitations.status, "pending"), gt(orgInvitations.expiresAt, ctx.clock.now())))
    .orderBy(desc(orgInvitations.createdAt))
    .all();
  const people = users.findManyByIds(ctx, rows.map((r) => r.inviteeId));
  return rows.flatMap((invitation) => {
    const user = people.get(invitation.inviteeId);
    return users.isActive(user) ? [{ invitation, user }] : [];
  });
}

/** GET /orgs/invitations: the caller's pending invitations, newest first. */
export function listMine(ctx: Ctx, caller: Caller): { invitation: InvitationRow; org: OrgRow }[] {
  return ctx.db
    .select({ invitation: orgInvitations, org: orgs })
    .from(orgInvitations)
    .innerJoin(orgs, eq(orgs.id, orgInvitations.orgId))
    .where(and(eq(orgInvitations.inviteeId, caller.id), eq(orgInvitations.status, "pending"), gt(orgInvitations.expiresAt, ctx.clock.now())))
    .orderBy(desc(orgInvitations.createdAt))
    .all();
}

/**
 * The caller's own live invitation and its organisation. Anyone else's, an unknown id and a
 * lapsed or answered one are 404 NOT_FOUND (an answered one has nothing left to answer).
 */
function ownInvitation(ctx: Ctx, caller: Caller, id: string): { invitation: InvitationRow; org: OrgRow } {
  const row = isUuid(id)
    ? ctx.db.select({ invitation: orgInvitations, org: orgs }).from(orgInvitations).innerJoin(orgs, eq(orgs.id, orgInvitations.orgId)).where(eq(orgInvitations.id, id.toLowerCase())).get()
    : undefined;
  if (!row || row.invitation.inviteeId !== caller.id || !isLive(ctx, row.invitation)) throw notFound("Invitation not found");
  return row;
}

/**
 * POST /orgs/invitations/{id}/accept: the invitee becomes a member with the offered role. 404 for
 * anything but the caller's own live invitation; 409 CONFLICT when the organisation is scheduled
 * for deletion.
 */
export function accept(ctx: Ctx, caller: Caller, id: string): { org: OrgRow; member: MemberRow } {
  const { invitation, org } = ownInvitation(ctx, caller, id);
  if (org.deletionDueAt !== null) throw conflict("This organisation is scheduled for deletion");
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    tx.update(orgInvitations).set({ status: "accepted", respondedAt: now }).where(eq(orgInvitations.id, invitation.id)).run();
    // A member already (added another way meanwhile) keeps their membership and role.
    let member = membership(ctx, org.id, caller.id);
    if (!member) {
      member = tx.insert(orgMembers).values({ orgId: org.id, userId: caller.id, role: invitation.role, joinedAt: now }).returning().get();
      tx.update(orgs).set({ memberCount: sql`${orgs.memberCount} + 1` }).where(eq(orgs.id, org.id)).run();
    }
    ctx.events.emit(tx, {
      type: "org_invitation_answered",
      actorId: caller.id,
      subject: { type: "org", id: org.id },
      payload: { org_id: org.id, org_slug: org.slug, invitation_id: invitation.id, invitee_id: caller.id, invited_by: invitation.invitedBy, role: invitation.role, status: "accepted" },
      // Joining is the account's own act: it can no longer self-delete and leave an organisation short of a member.
      activity: true,
    });
    return { org, member };
  });
}

/** POST /orgs/invitations/{id}/decline (terminal). 404 for anything but the caller's own live invitation. */
export function decline(ctx: Ctx, caller: Caller, id: string): InvitationRow {
  const { invitation, org } = ownInvitation(ctx, caller, id);
  return ctx.db.transaction((tx) => {
    const row = tx.update(orgInvitations).set({ status: "declined", respondedAt: ctx.clock.now() }).where(eq(orgInvitations.id, invitation.id)).returning().get();
    ctx.events.emit(tx, {
      type: "org_invitation_answered",
      actorId: caller.id,
      subject: { type: "org", id: org.id },
      payload: { org_id: org.id, org_slug: org.slug, invitation_id: invitation.id, invitee_id: caller.id, invited_by: invitation.invitedBy, role: invitation.role, status: "declined" },
    });
    return row;
  });
}
