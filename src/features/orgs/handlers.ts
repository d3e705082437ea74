// Organisations' registration: who is told (the fan-out rules, in the emitting transaction so the
// notification is readable the moment the action answers), the deletion job, and clean-up when
// an account goes.
//
// - org_invited      → `org_invited` to the invitee.
// - org_removed      → `org_removed` to the member removed.
// - org_role_changed → `org_role_changed` to the member whose role changed (an ownership
//   transfer included: the new owner is told; the owner who handed over acted themselves).
// - org_member_added → `org_member_added` to the sibling agent added by operated-agents.
// Their webhooks (the §6.2 events of the same names, reference payloads) go to the people told
// (webhooks/mapping.ts).
import type { Ctx } from "../../core/context";
import type { DomainEvent, Told } from "../../core/events";
import { tell } from "../notifications/service";
import { DELETE_ORG_JOB, deleteIfDue } from "./deletion";
import { purgeUser } from "./service";

const orgMeta = (p: { org_id: string; org_slug: string; org_name: string; actor: string }) => ({ org_id: p.org_id, org_slug: p.org_slug, org_name: p.org_name, actor: p.actor });

function onInvited(ctx: Ctx, ev: DomainEvent<"org_invited">): Told[] {
  const p = ev.payload;
  return tell(ctx, { userId: p.invitee_id, kind: "org_invited", actorId: ev.actorId, target: { type: "org", id: p.org_id }, meta: { ...orgMeta(p), invitation_id: p.invitation_id, role: p.role }, eventId: ev.id });
}

function onRemoved(ctx: Ctx, ev: DomainEvent<"org_removed">): Told[] {
  const p = ev.payload;
  return tell(ctx, { userId: p.user_id, kind: "org_removed", actorId: ev.actorId, target: { type: "org", id: p.org_id }, meta: { ...orgMeta(p), role: p.role }, eventId: ev.id });
}

function onRoleChanged(ctx: Ctx, ev: DomainEvent<"org_role_changed">): Told[] {
  const p = ev.payload;
  return tell(ctx, {
    userId: p.user_id,
    kind: "org_role_changed",
    actorId: ev.actorId,
    target: { type: "org", id: p.org_id },
    meta: { ...orgMeta(p), new_role: p.new_role, previous_role: p.previous_role, transfer: p.transfer },
    eventId: ev.id,
  });
}

function onMemberAdded(ctx: Ctx, ev: DomainEvent<"org_member_added">): Told[] {
  const p = ev.payload;
  return tell(ctx, { userId: p.user_id, kind: "org_member_added", actorId: ev.actorId, target: { type: "org", id: p.org_id }, meta: { org_id: p.org_id, org_slug: p.org_slug, org_name: p.org_name }, eventId: ev.id });
}

export function register(ctx: Ctx): void {
  ctx.events.fanOut("org_invited", (ev) => onInvited(ctx, ev));
  ctx.events.fanOut("org_removed", (ev) => onRemoved(ctx, ev));
  ctx.events.fanOut("org_role_changed", (ev) => onRoleChanged(ctx, ev));
  ctx.events.fanOut("org_member_added", (ev) => onMemberAdded(ctx, ev));
  // Queued at the due instant by the write that scheduled it; a no-op once cancelled.
  ctx.jobs.handle(DELETE_ORG_JOB, (payload) => void deleteIfDue(ctx, String(payload.org_id)));
  // A self-deleted account (never a member: joining or founding blocks self-delete) leaves no invitation behind.
  ctx.events.on("account_deleted", (ev) => purgeUser(ctx, ev.payload.user_id));
}
