// Scheduled deletion of an organisation (spec Part 2 §3 "Org deletion", §4.3): an owner asks for
// it and it happens after a cooling-off of 7 days (docs/decisions.md §62), unless an owner cancels
// first. A one-shot job queued at the due instant deletes the organisation with everything it
// holds (members, invitations, challenges, resources, grants); its slug stays reserved for good
// (docs/decisions.md §1). Until then the organisation works as before, but takes no new members.
import { eq } from "drizzle-orm";
import { DAY, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { conflict } from "../../core/errors";
import type { Caller } from "../auth/service";
import * as handles from "../handles/service";
import { findOrg, orgWithRole, type OrgRow } from "./service";
import { orgMembers, orgs } from "./tables";

const DELETION_COOLING_OFF_MS = 7 * DAY;
export const DELETE_ORG_JOB = "delete_org";

/** The deletion status the routes answer. */
export function deletionOut(org: OrgRow) {
  return {
    slug: org.slug,
    scheduled: org.deletionDueAt !== null,
    delete_at: iso(org.deletionDueAt),
    requested_at: iso(org.deletionRequestedAt),
    requested_by: org.deletionRequestedBy,
    reason: org.deletionReason,
    cooling_off_seconds: DELETION_COOLING_OFF_MS / 1000,
  };
}

/** POST /orgs/{slug}/deletion (owners). 409 CONFLICT when one is already scheduled. */
export function scheduleDeletion(ctx: Ctx, caller: Caller, slug: string, reason: string | null | undefined): OrgRow {
  const { org } = orgWithRole(ctx, caller, slug, "owner");
  if (org.deletionDueAt !== null) throw conflict(`This organisation is already scheduled for deletion at ${iso(org.deletionDueAt)}`);
  const now = ctx.clock.now();
  const due = now + DELETION_COOLING_OFF_MS;
  return ctx.db.transaction((tx) => {
    const row = tx
      .update(orgs)
      .set({ deletionRequestedAt: now, deletionRequestedBy: caller.id, deletionReason: reason?.trim() || null, deletionDueAt: due, updatedAt: now })
      .where(eq(orgs.id, org.id))
      .returning()
      .get();
    ctx.jobs.schedule(DELETE_ORG_JOB, due, { org_id: org.id }, tx);
    ctx.events.emit(tx, { type: "org_deletion_scheduled", actorId: caller.id, subject: { type: "org", id: org.id }, payload: { org_id: org.id, slug: org.slug, delete_at: iso(due) } });
    return row;
  });
}

/** DELETE /orgs/{slug}/deletion (owners). 409 CONFLICT when none is scheduled. */
export function cancelDeletion(ctx: Ctx, caller: Caller, slug: string): OrgRow {
  const { org } = orgWithRole(ctx, caller, slug, "owner");
  if (org.deletionDueAt === null) throw conflict("No deletion is scheduled for this organisation");
  return ctx.db.transaction((tx) => {
    const row = tx
      .update(orgs)
      .set({ deletionRequestedAt: null, deletionRequestedBy: null, deletionReason: null, deletionDueAt: null, updatedAt: ctx.clock.now() })
      .where(eq(orgs.id, org.id))
      .returning()
      .get();
    ctx.jobs.cancel(DELETE_ORG_JOB, { org_id: org.id });
    ctx.events.emit(tx, { type: "org_deletion_cancelled", actorId: caller.id, subject: { type: "org", id: org.id }, payload: { org_id: org.id, slug: org.slug } });
    return row;
  });
}

/** GET /orgs/{slug}/deletion (admins and owners; site admins read). */
export function deletionStatus(ctx: Ctx, caller: Caller, slug: string): OrgRow {
  return orgWithRole(ctx, caller, slug, "admin", { read: true }).org;
}

/**
 * The job: deletes the organisation once its deletion is due. A no-op when it was cancelled (and
 * perhaps scheduled again for later) or is already gone, so a job that outlived its schedule is harmless.
 */
export function deleteIfDue(ctx: Ctx, orgId: string): boolean {
  const org = findOrg(ctx, orgId);
  if (!org || org.deletionDueAt === null || org.deletionDueAt > ctx.clock.now()) return false;
  ctx.db.transaction((tx) => {
    const memberIds = tx.select({ userId: orgMembers.userId }).from(orgMembers).where(eq(orgMembers.orgId, org.id)).all().map((m) => m.userId);
    handles.retireHandle(ctx, tx, org.slug, org.id);
    // Members, invitations, challenges, resources and grants go with it (foreign keys cascade).
    tx.delete(orgs).where(eq(orgs.id, org.id)).run();
    ctx.events.emit(tx, { type: "org_deleted", actorId: org.deletionRequestedBy, subject: { type: "org", id: org.id }, payload: { org_id: org.id, slug: org.slug, member_ids: memberIds, reason: org.deletionReason } });
  });
  ctx.log.info("organisation deleted", { org_id: org.id, slug: org.slug });
  return true;
}
