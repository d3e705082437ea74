// Colony governance's registration: who is told about invitations, ownership transfers and moved
// posts (the fan-out rules, run in the emitting transaction so the notification is readable the
// moment the action answers), and the expiry jobs of invitations and transfers.
//
// - mod_invite_created → mod_invite to the invitee.
// - mod_invite_resolved → mod_invite_accepted / mod_invite_declined to whoever sent it,
//   mod_invite_revoked to the invitee; an expiry tells nobody.
// - ownership_transfer_proposed → ownership_transfer_proposed to the recipient.
// - ownership_transfer_resolved → ownership_transfer_resolved to both parties, the one who acted
//   included (the spec names both), with the status. Their webhooks (the personal events of the
//   same names) follow `recipient_ids` (webhooks/mapping.ts, the generic rule).
// - post_moved → post_moved to the post's author, naming where it went.
// Modmail's subscriptions are in handlers.ts.
import type { Ctx } from "../../core/context";
import type { DomainEvent, Told } from "../../core/events";
import { tell } from "../notifications/service";
import { EXPIRE_INVITE_JOB, expireInvite } from "./invites";
import { EXPIRE_TRANSFER_JOB, expireTransfer } from "./transfers";

function onInviteCreated(ctx: Ctx, ev: DomainEvent<"mod_invite_created">): Told[] {
  const p = ev.payload;
  return tell(ctx, [
    {
      userId: p.invitee_id,
      kind: "mod_invite",
      actorId: ev.actorId,
      target: { type: "colony", id: p.colony_id },
      meta: { colony_id: p.colony_id, colony_name: p.colony_name, invitation_id: p.invite_id, role_offered: p.role_offered },
      eventId: ev.id,
    },
  ]);
}

function onInviteResolved(ctx: Ctx, ev: DomainEvent<"mod_invite_resolved">): Told[] {
  const p = ev.payload;
  const meta = { colony_id: p.colony_id, colony_name: p.colony_name, invitation_id: p.invite_id, role_offered: p.role_offered, status: p.status };
  const target = { type: "colony", id: p.colony_id };
  if (p.status === "accepted" || p.status === "declined") {
    return tell(ctx, [{ userId: p.invited_by, kind: `mod_invite_${p.status}`, actorId: ev.actorId, target, meta, eventId: ev.id }]);
  }
  if (p.status === "revoked") return tell(ctx, [{ userId: p.invitee_id, kind: "mod_invite_revoked", actorId: ev.actorId, target, meta, eventId: ev.id }]);
  return [];
}

function onTransferProposed(ctx: Ctx, ev: DomainEvent<"ownership_transfer_proposed">): Told[] {
  const p = ev.payload;
  const target = ev.subjectId ? { type: "colony", id: ev.subjectId } : null;
  return tell(
    ctx,
    p.recipient_ids.map((userId) => ({
      userId,
      kind: "ownership_transfer_proposed",
      actorId: ev.actorId,
      target,
      meta: { colony_id: ev.subjectId, colony_name: p.colony, transfer_id: p.transfer_id, initiator: p.initiator },
      eventId: ev.id,
    })),
  );
}

function onTransferResolved(ctx: Ctx, ev: DomainEvent<"ownership_transfer_resolved">): Told[] {
  const p = ev.payload;
  const target = ev.subjectId ? { type: "colony", id: ev.subjectId } : null;
  return tell(
    ctx,
    p.recipient_ids.map((userId) => ({
      userId,
      kind: "ownership_transfer_resolved",
      actorId: ev.actorId,
      target,
      meta: { colony_id: ev.subjectId, colony_name: p.colony, transfer_id: p.transfer_id, status: p.status },
      eventId: ev.id,
      allowSelf: true,
    })),
  );
}

function onPostMoved(ctx: Ctx, ev: DomainEvent<"post_moved">): Told[] {
  const p = ev.payload;
  return tell(ctx, [
    {
      userId: p.author_id,
      kind: "post_moved",
      actorId: ev.actorId,
      target: { type: "post", id: p.post_id },
      postId: p.post_id,
      meta: { post_title: p.post_title, from_colony_id: p.from_colony_id, from_colony_name: p.from_colony_name, to_colony_id: p.to_colony_id, to_colony_name: p.to_colony_name },
      eventId: ev.id,
    },
  ]);
}

export function register(ctx: Ctx): void {
  ctx.events.fanOut("mod_invite_created", (ev) => onInviteCreated(ctx, ev));
  ctx.events.fanOut("mod_invite_resolved", (ev) => onInviteResolved(ctx, ev));
  ctx.events.fanOut("ownership_transfer_proposed", (ev) => onTransferProposed(ctx, ev));
  ctx.events.fanOut("ownership_transfer_resolved", (ev) => onTransferResolved(ctx, ev));
  ctx.events.fanOut("post_moved", (ev) => onPostMoved(ctx, ev));
  // Queued at expires_at by the write that opened them; a no-op once answered.
  ctx.jobs.handle(EXPIRE_INVITE_JOB, (payload) => void expireInvite(ctx, String(payload.invite_id)));
  ctx.jobs.handle(EXPIRE_TRANSFER_JOB, (payload) => void expireTransfer(ctx, String(payload.transfer_id)));
}
