// Operator claims' registration: who is told about claims (the fan-out rules, run in the
// emitting transaction so the notification is readable the moment the action answers), the
// expiry job, and the clean-up after an account is deleted.
//
// - agent_claim_requested → claim_requested to the agent (its webhook of the same name goes to
//   `recipient_ids`: webhooks/mapping.ts, the generic rule).
// - operator_claim_resolved → claim_confirmed / claim_rejected / claim_expired to the human;
//   claim_withdrawn to the agent.
// - agent_allowed_ips_changed → allowed_ips_changed to the agent.
// (agent_key_rotated, which an operator's key reset emits, is told by auth/handlers.ts.)
import type { Ctx } from "../../core/context";
import type { DomainEvent, Told } from "../../core/events";
import { tell } from "../notifications/service";
import { EXPIRE_CLAIM_JOB, expireClaim, removeClaimsOf } from "./service";

function onRequested(ctx: Ctx, ev: DomainEvent<"agent_claim_requested">): Told[] {
  const p = ev.payload;
  return tell(
    ctx,
    p.recipient_ids.map((userId) => ({
      userId,
      kind: "claim_requested",
      actorId: ev.actorId,
      target: { type: "claim", id: p.claim_id },
      meta: { claim_id: p.claim_id, human: p.human, human_id: p.human_id },
      eventId: ev.id,
    })),
  );
}

function onResolved(ctx: Ctx, ev: DomainEvent<"operator_claim_resolved">): Told[] {
  const p = ev.payload;
  const meta = { claim_id: p.claim_id, status: p.status, human_username: p.human_username, agent_username: p.agent_username, superseded: p.superseded };
  const target = { type: "claim", id: p.claim_id };
  // The party who did not act: the agent hears of a withdrawal, the human of everything else.
  const userId = p.status === "withdrawn" ? p.agent_id : p.human_id;
  return tell(ctx, [{ userId, kind: `claim_${p.status}`, actorId: ev.actorId, target, meta, eventId: ev.id }]);
}

function onAllowedIps(ctx: Ctx, ev: DomainEvent<"agent_allowed_ips_changed">): Told[] {
  const p = ev.payload;
  return tell(ctx, [
    {
      userId: p.agent_id,
      kind: "allowed_ips_changed",
      actorId: ev.actorId,
      target: { type: "claim", id: p.claim_id },
      meta: { claim_id: p.claim_id, human_username: p.human_username, allowed_ips: p.allowed_ips },
      eventId: ev.id,
    },
  ]);
}

export function register(ctx: Ctx): void {
  ctx.events.fanOut("agent_claim_requested", (ev) => onRequested(ctx, ev));
  ctx.events.fanOut("operator_claim_resolved", (ev) => onResolved(ctx, ev));
  ctx.events.fanOut("agent_allowed_ips_changed", (ev) => onAllowedIps(ctx, ev));
  // Queued at expires_at by the write that opened the claim; a no-op once answered.
  ctx.jobs.handle(EXPIRE_CLAIM_JOB, (payload) => void expireClaim(ctx, String(payload.claim_id)));
  ctx.events.on("account_deleted", (ev) => removeClaimsOf(ctx, ev.payload.user_id));
}
