// Organisations (spec Part 2 §2.6, §3, §4.3): identity groups, not forum actors — nothing here
// touches karma, trust or ranking. Creating (the caller becomes owner; a karma floor and a daily
// cap), the caller's list, the public view, the roster, leaving, role changes, removal, ownership
// transfer, rename, disclosure mode and the member's own visibility. Invitations are in
// invitations.ts, scheduled deletion in deletion.ts, domain verification in domains.ts, resources
// and delegation grants in delegation.ts, the identity-token claim in claims.ts.
//
// Who may do what (docs/decisions.md §58): every route needs an account; a member reads the
// organisation and sets their own visibility; admins and owners read the roster and run
// invitations, domains, resources and grants; owners change roles, transfer, rename, set the
// disclosure mode and schedule deletion. Site admins read everything an admin reads and act on
// nothing. An organisation whose disclosure mode is `none` is private: to anyone who is neither
// a member, an invitee nor a site admin it does not exist (404).
import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError, conflict, forbidden, invalid, notFound } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import type { Tx } from "../../db/client";
import type { Caller } from "../auth/service";
import * as handles from "../handles/service";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { orgInvitations, orgMembers, orgs, type DisclosureMode, type OrgRole } from "./tables";

export type OrgRow = typeof orgs.$inferSelect;
export type MemberRow = typeof orgMembers.$inferSelect;

const RANK: Record<OrgRole, number> = { member: 0, admin: 1, owner: 2 };
/** Whether `role` is `min` or above. */
export const atLeast = (role: OrgRole, min: OrgRole) => RANK[role] >= RANK[min];

// ---------------------------------------------------------------------------------------------
// Slugs

const SLUG_MIN = 3;
const SLUG_MAX = 50;
const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** Names that would shadow the routes under /orgs or pose as the platform. */
const RESERVED_SLUGS = new Set([...users.RESERVED_HANDLES, "invitations", "disclosure-recipients", "orgs", "org", "organisations", "organizations"]);

/** Slugs compare without case (the shared handle space, docs/decisions.md §1). */
const normaliseSlug = (raw: string) => handles.normaliseHandle(raw);

/** Why a (normalised) slug is not well formed, or null: 3-50 lower-case letters, digits and hyphens. */
function slugProblem(slug: string): string | null {
  if (slug.length < SLUG_MIN) return `The slug must be at least ${SLUG_MIN} characters`;
  if (slug.length > SLUG_MAX) return `The slug must be at most ${SLUG_MAX} characters`;
  if (!/^[a-z0-9-]+$/.test(slug)) return "The slug may contain only letters, digits and hyphens";
  if (!SLUG_RE.test(slug)) return "The slug must start and end with a letter or digit";
  if (isUuid(slug)) return "The slug must not look like an id";
  return null;
}

/** A well-formed, unreserved slug the caller may try to claim; 400 or 409 otherwise. */
function checkedSlug(raw: string): string {
  const slug = normaliseSlug(raw);
  const problem = slugProblem(slug);
  if (problem) throw invalid(problem);
  if (RESERVED_SLUGS.has(slug)) throw conflict(`The handle ${slug} is reserved`);
  return slug;
}

const takenMessage = (slug: string) => `The handle ${slug} is already taken (usernames, colony names and organisation slugs share one namespace)`;

/** Claims a slug for an organisation in `tx`; 409 CONFLICT when anything holds it. */
function claimSlug(ctx: Ctx, tx: Tx, slug: string, orgId: string): void {
  try {
    handles.claimHandle(ctx, tx, slug, { kind: "org", id: orgId });
  } catch (err) {
    if (err instanceof handles.HandleTaken) throw conflict(takenMessage(slug));
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Lookups

export function findOrg(ctx: Ctx, id: string): OrgRow | null {
  return ctx.db.select().from(orgs).where(eq(orgs.id, id)).get() ?? null;
}

function findBySlug(ctx: Ctx, raw: string): OrgRow | null {
  return ctx.db.select().from(orgs).where(eq(orgs.slug, normaliseSlug(raw))).get() ?? null;
}

export function membership(ctx: Ctx, orgId: string, userId: string): MemberRow | null {
  return ctx.db.select().from(orgMembers).where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.userId, userId))).get() ?? null;
}

function hasPendingInvitation(ctx: Ctx, orgId: string, userId: string): boolean {
  return !!ctx.db
    .select({ id: orgInvitations.id })
    .from(orgInvitations)
    .where(and(eq(orgInvitations.orgId, orgId), eq(orgInvitations.inviteeId, userId), eq(orgInvitations.status, "pending"), sql`${orgInvitations.expiresAt} > ${ctx.clock.now()}`))
    .get();
}

interface OrgAccess {
  org: OrgRow;
  /** The caller's membership, if any. */
  member: MemberRow | null;
}

/**
 * The organisation a route names, as the caller may see it: 404 NOT_FOUND when there is none, or
 * when it is private (disclosure `none`) and the caller is neither a member, an invitee nor a site
 * admin.
 */
function visibleOrg(ctx: Ctx, caller: Caller, slug: string): OrgAccess {
  const org = findBySlug(ctx, slug);
  if (!org) throw notFound("Organisation not found");
  const member = membership(ctx, org.id, caller.id);
  if (org.disclosureMode === "none" && !member && !caller.isAdmin && !hasPendingInvitation(ctx, org.id, caller.id)) throw notFound("Organisation not found");
  return { org, member };
}

const ROLE_WORDS: Record<OrgRole, string> = { member: "members", admin: "admins and owners", owner: "owners" };

/**
 * The organisation and the caller's membership when the caller holds `min` or above (403
 * FORBIDDEN otherwise). With `read`, a site admin passes too (oversight reads, docs/decisions.md §58).
 */
export function orgWithRole(ctx: Ctx, caller: Caller, slug: string, min: OrgRole, opts: { read?: boolean } = {}): OrgAccess {
  const access = visibleOrg(ctx, caller, slug);
  if (access.member && atLeast(access.member.role, min)) return access;
  if (opts.read && caller.isAdmin) return access;
  throw forbidden(`Only the organisation's ${ROLE_WORDS[min]} may do that`);
}

/** The caller's membership of a visible organisation; 404 NOT_FOUND when not a member. */
function ownMembership(ctx: Ctx, caller: Caller, slug: string): { org: OrgRow; member: MemberRow } {
  const { org, member } = visibleOrg(ctx, caller, slug);
  if (!member) throw notFound("You are not a member of this organisation");
  return { org, member };
}

/** A user named by username (a leading @ ignored) or id; 404 USER_NOT_FOUND unless active. */
export function userByRef(ctx: Ctx, raw: string): UserRow {
  const ref = raw.trim().replace(/^@/, "");
  const u = isUuid(ref) ? users.findById(ctx, ref.toLowerCase()) : users.findByUsername(ctx, users.normaliseUsername(ref));
  if (!users.isActive(u)) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  return u;
}

/** A member of `org` named by username or id: 404 USER_NOT_FOUND for no such user, 404 NOT_FOUND for a non-member. */
function memberByRef(ctx: Ctx, org: OrgRow, raw: string): { user: UserRow; member: MemberRow } {
  const user = userByRef(ctx, raw);
  const member = membership(ctx, org.id, user.id);
  if (!member) throw notFound(`@${user.username} is not a member of this organisation`);
  return { user, member };
}

function ownerCount(ctx: Ctx, orgId: string): number {
  return ctx.db.select({ n: count() }).from(orgMembers).where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.role, "owner"))).get()!.n;
}

/** The words an event carries for who acted (the reference payloads' `actor`: a display name). */
export const actorName = (caller: Caller) => caller.user.displayName || caller.username;

// ---------------------------------------------------------------------------------------------
// Creating and reading

interface CreateOrgInput {
  slug: string;
  name: string;
  description?: string | null;
}

/**
 * POST /orgs. 403 KARMA_TOO_LOW below COLONY_KARMA_CREATE_ORG; 400 INVALID_INPUT for a malformed
 * slug or a blank name; 409 CONFLICT when the slug is reserved or held by any user, colony or
 * organisation (the claim in this transaction is what concurrent creations race for). The daily
 * cap per founder is the `create_org` rate limit on the route.
 */
export function createOrg(ctx: Ctx, caller: Caller, input: CreateOrgInput): { org: OrgRow; member: MemberRow } {
  const floor = ctx.config.karma.createOrg;
  if (caller.karma < floor) throw forbidden(`Creating an organisation needs at least ${floor} karma (you have ${caller.karma})`, "KARMA_TOO_LOW");
  const slug = checkedSlug(input.slug);
  const name = input.name.trim();
  if (!name) throw invalid("name must not be empty");
  if (handles.holderOf(ctx, slug)) throw conflict(takenMessage(slug));
  const now = ctx.clock.now();
  const id = uuidv7(now);
  return ctx.db.transaction((tx) => {
    claimSlug(ctx, tx, slug, id);
    const org = tx
      .insert(orgs)
      .values({ id, slug, name, description: input.description?.trim() || null, createdBy: caller.id, memberCount: 1, createdAt: now, updatedAt: now })
      .returning()
      .get();
    const member = tx.insert(orgMembers).values({ orgId: id, userId: caller.id, role: "owner", joinedAt: now }).returning().get();
    ctx.events.emit(tx, { type: "org_created", actorId: caller.id, subject: { type: "org", id }, payload: { org_id: id, slug, owner_id: caller.id }, activity: true });
    return { org, member };
  });
}

/** GET /orgs: the caller's memberships, oldest first. */
export function listMine(ctx: Ctx, caller: Caller): { org: OrgRow; member: MemberRow }[] {
  return ctx.db
    .select({ org: orgs, member: orgMembers })
    .from(orgMembers)
    .innerJoin(orgs, eq(orgs.id, orgMembers.orgId))
    .where(eq(orgMembers.userId, caller.id))
    .orderBy(asc(orgMembers.joinedAt), asc(orgs.slug))
    .all();
}

/** GET /orgs/{slug}: the organisation's public face (404 for a private one, see visibleOrg). */
export function getOrg(ctx: Ctx, caller: Caller, slug: string): OrgRow {
  return visibleOrg(ctx, caller, slug).org;
}

/** GET /orgs/{slug}/members: accepted members, oldest first (admins and owners; site admins read). */
export function listMembers(ctx: Ctx, caller: Caller, slug: string): { member: MemberRow; user: UserRow }[] {
  const { org } = orgWithRole(ctx, caller, slug, "admin", { read: true });
  const rows = ctx.db.select().from(orgMembers).where(eq(orgMembers.orgId, org.id)).orderBy(asc(orgMembers.joinedAt), asc(orgMembers.userId)).all();
  const people = users.findManyByIds(ctx, rows.map((r) => r.userId));
  return rows.flatMap((member) => {
    const user = people.get(member.userId);
    return user ? [{ member, user }] : [];
  });
}

// ---------------------------------------------------------------------------------------------
// Membership changes

/** Removes a membership row and keeps member_count exact. */
function deleteMembership(tx: Tx, orgId: string, userId: string): boolean {
  const gone = tx.delete(orgMembers).where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.userId, userId))).returning({ userId: orgMembers.userId }).get();
  if (gone) tx.update(orgs).set({ memberCount: sql`${orgs.memberCount} - 1` }).where(eq(orgs.id, orgId)).run();
  return !!gone;
}

/** POST /orgs/{slug}/leave. 404 for a non-member; 409 CONFLICT for the last owner. */
export function leave(ctx: Ctx, caller: Caller, slug: string): OrgRow {
  const { org, member } = ownMembership(ctx, caller, slug);
  if (member.role === "owner" && ownerCount(ctx, org.id) <= 1) {
    throw conflict("You are the last owner: transfer ownership or make another member an owner first, or schedule the organisation's deletion");
  }
  ctx.db.transaction((tx) => {
    deleteMembership(tx, org.id, caller.id);
    ctx.events.emit(tx, { type: "org_member_left", actorId: caller.id, subject: { type: "org", id: org.id }, payload: { org_id: org.id, slug: org.slug, user_id: caller.id } });
  });
  return org;
}

function emitRoleChanged(ctx: Ctx, tx: Tx, caller: Caller, org: OrgRow, userId: string, previous: OrgRole, role: OrgRole, transfer: boolean): void {
  ctx.events.emit(tx, {
    type: "org_role_changed",
    actorId: caller.id,
    subject: { type: "org", id: org.id },
    payload: { org_id: org.id, org_slug: org.slug, org_name: org.name, user_id: userId, new_role: role, previous_role: previous, actor: actorName(caller), transfer },
  });
}

/**
 * PUT /orgs/{slug}/members/{user_id}/role (owners). Any role to any member, the caller included;
 * the last owner is not demoted (409 CONFLICT). Setting the role a member holds changes nothing.
 */
export function setRole(ctx: Ctx, caller: Caller, slug: string, ref: string, role: OrgRole): { org: OrgRow; user: UserRow; previous: OrgRole; role: OrgRole } {
  const { org } = orgWithRole(ctx, caller, slug, "owner");
  const { user, member } = memberByRef(ctx, org, ref);
  if (member.role === role) return { org, user, previous: role, role };
  if (member.role === "owner" && ownerCount(ctx, org.id) <= 1) throw conflict("The last owner cannot be demoted: make another member an owner first");
  ctx.db.transaction((tx) => {
    tx.update(orgMembers).set({ role }).where(and(eq(orgMembers.orgId, org.id), eq(orgMembers.userId, user.id))).run();
    emitRoleChanged(ctx, tx, caller, org, user.id, member.role, role, false);
  });
  return { org, user, previous: member.role, role };
}

/**
 * DELETE /orgs/{slug}/members/{user_id} (admins and owners; an owner is removed by an owner only).
 * Removing yourself is leaving (400 INVALID_INPUT: use POST leave).
 */
export function removeMember(ctx: Ctx, caller: Caller, slug: string, ref: string): { org: OrgRow; user: UserRow; role: OrgRole } {
  const { org, member: mine } = orgWithRole(ctx, caller, slug, "admin");
  const { user, member } = memberByRef(ctx, org, ref);
  if (user.id === caller.id) throw invalid("To remove yourself, leave the organisation (POST /orgs/{slug}/leave)");
  if (member.role === "owner" && mine!.role !== "owner") throw forbidden("Only an owner may remove an owner");
  ctx.db.transaction((tx) => {
    deleteMembership(tx, org.id, user.id);
    ctx.events.emit(tx, {
      type: "org_removed",
      actorId: caller.id,
      subject: { type: "org", id: org.id },
      payload: { org_id: org.id, org_slug: org.slug, org_name: org.name, user_id: user.id, role: member.role, actor: actorName(caller) },
    });
  });
  return { org, user, role: member.role };
}

/**
 * POST /orgs/{slug}/transfer (owners): the member named becomes an owner and the caller an admin
 * (docs/decisions.md §60). 400 INVALID_INPUT for yourself, 409 CONFLICT when they already own it.
 */
export function transferOwnership(ctx: Ctx, caller: Caller, slug: string, ref: string): { org: OrgRow; user: UserRow } {
  const { org } = orgWithRole(ctx, caller, slug, "owner");
  const { user, member } = memberByRef(ctx, org, ref);
  if (user.id === caller.id) throw invalid("You already own this organisation: name another member");
  if (member.role === "owner") throw conflict(`@${user.username} is already an owner`);
  ctx.db.transaction((tx) => {
    tx.update(orgMembers).set({ role: "owner" }).where(and(eq(orgMembers.orgId, org.id), eq(orgMembers.userId, user.id))).run();
    tx.update(orgMembers).set({ role: "admin" }).where(and(eq(orgMembers.orgId, org.id), eq(orgMembers.userId, caller.id))).run();
    emitRoleChanged(ctx, tx, caller, org, user.id, member.role, "owner", true);
  });
  return { org, user };
}

// ---------------------------------------------------------------------------------------------
// Settings

/**
 * POST /orgs/{slug}/rename (owners). The new slug is claimed in the shared namespace and the old
 * one stays reserved for good, though this organisation may take it back (docs/decisions.md §1,
 * §57). 400 INVALID_INPUT for a malformed slug or the current one; 409 CONFLICT when taken.
 */
export function rename(ctx: Ctx, caller: Caller, slug: string, newSlug: string): { org: OrgRow; previous: string } {
  const { org } = orgWithRole(ctx, caller, slug, "owner");
  const next = checkedSlug(newSlug);
  if (next === org.slug) throw invalid("That is already the organisation's slug");
  const holder = handles.holderOf(ctx, next);
  if (holder && holder.ownerId !== org.id) throw conflict(takenMessage(next));
  const updated = ctx.db.transaction((tx) => {
    claimSlug(ctx, tx, next, org.id);
    handles.retireHandle(ctx, tx, org.slug, org.id);
    const row = tx.update(orgs).set({ slug: next, updatedAt: ctx.clock.now() }).where(eq(orgs.id, org.id)).returning().get();
    ctx.events.emit(tx, { type: "org_renamed", actorId: caller.id, subject: { type: "org", id: org.id }, payload: { org_id: org.id, slug: next, previous_slug: org.slug } });
    return row;
  });
  return { org: updated, previous: org.slug };
}

/** PUT /orgs/{slug}/disclosure (owners): public, opaque or none (docs/decisions.md §61). */
export function setDisclosure(ctx: Ctx, caller: Caller, slug: string, mode: DisclosureMode): OrgRow {
  const { org } = orgWithRole(ctx, caller, slug, "owner");
  if (org.disclosureMode === mode) return org;
  return ctx.db.transaction((tx) => {
    const row = tx.update(orgs).set({ disclosureMode: mode, updatedAt: ctx.clock.now() }).where(eq(orgs.id, org.id)).returning().get();
    ctx.events.emit(tx, { type: "org_disclosure_changed", actorId: caller.id, subject: { type: "org", id: org.id }, payload: { org_id: org.id, slug: org.slug, mode, previous_mode: org.disclosureMode } });
    return row;
  });
}

/** PUT /orgs/{slug}/visibility: the caller's own membership named in identity tokens or not. 404 for a non-member. */
export function setVisibility(ctx: Ctx, caller: Caller, slug: string, visible: boolean): { org: OrgRow; member: MemberRow } {
  const { org, member } = ownMembership(ctx, caller, slug);
  if (member.memberVisible === visible) return { org, member };
  const row = ctx.db
    .update(orgMembers)
    .set({ memberVisible: visible })
    .where(and(eq(orgMembers.orgId, org.id), eq(orgMembers.userId, caller.id)))
    .returning()
    .get();
  return { org, member: row };
}

/** Drops a deleted account's memberships and invitations (account_deleted, after commit). */
export function purgeUser(ctx: Ctx, userId: string): void {
  ctx.db.transaction((tx) => {
    for (const m of tx.select({ orgId: orgMembers.orgId }).from(orgMembers).where(eq(orgMembers.userId, userId)).all()) deleteMembership(tx, m.orgId, userId);
    tx.delete(orgInvitations).where(eq(orgInvitations.inviteeId, userId)).run();
  });
}
