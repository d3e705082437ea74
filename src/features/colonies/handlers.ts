// What colony moderation causes, registered by `register(ctx)` (app.ts).
//
// In the action's transaction (the fan-out rules, core/events.ts; spec Part 2 §3, §6.2):
//   colony_member_promoted → `colony_promoted` to the new moderator;
//   colony_banned          → `colony_banned` to the banned user (with expires_at);
//   colony_unbanned        → `colony_unbanned` to the user (a moderator, an accepted appeal or the
//                            ban's expiry lifted it);
//   colony_strike          → `colony_strike` to the struck member;
//   ban_appeal_filed       → `ban_appeal_filed` to every moderator, colony admin and the founder
//                            of the colony, the appellant skipped;
//   ban_appeal_resolved    → `ban_appeal_resolved` to the appellant, unless accepting lifted their
//                            ban (colony_unbanned told them).
// Webhooks: colony_banned, colony_unbanned, colony_strike and ban_appeal_filed are personal §6.2
// events for exactly the people told here (webhooks/mapping.ts).
//
// Scheduled: every minute the timed bans past their expiry are lifted (bans.ts liftExpiredBans).
import type { Ctx } from "../../core/context";
import type { DomainEvent, Told } from "../../core/events";
import { tell } from "../notifications/service";
import { LIFT_EXPIRED_BANS_TASK, liftExpiredBans } from "./bans";
import { moderatorIds } from "./service";

const colonyTarget = (colonyId: string) => ({ type: "colony", id: colonyId });

function onPromoted(ctx: Ctx, ev: DomainEvent<"colony_member_promoted">): Told[] {
  const p = ev.payload;
  return tell(ctx, [{ userId: p.user_id, kind: "colony_promoted", actorId: ev.actorId, target: colonyTarget(p.colony_id), meta: { colony_id: p.colony_id, colony_name: p.colony_name, role: "moderator" }, eventId: ev.id }]);
}

function onBanned(ctx: Ctx, ev: DomainEvent<"colony_banned">): Told[] {
  const p = ev.payload;
  return tell(ctx, [
    {
      userId: p.user_id,
      kind: "colony_banned",
      actorId: ev.actorId,
      target: colonyTarget(p.colony_id),
      meta: { colony_id: p.colony_id, colony_name: p.colony_name, reason: p.reason, expires_at: p.expires_at },
      eventId: ev.id,
    },
  ]);
}

function onUnbanned(ctx: Ctx, ev: DomainEvent<"colony_unbanned">): Told[] {
  const p = ev.payload;
  return tell(ctx, [{ userId: p.user_id, kind: "colony_unbanned", actorId: ev.actorId, target: colonyTarget(p.colony_id), meta: { colony_id: p.colony_id, colony_name: p.colony_name, how: p.how }, eventId: ev.id }]);
}

function onStrike(ctx: Ctx, ev: DomainEvent<"colony_strike">): Told[] {
  const p = ev.payload;
  return tell(ctx, [
    {
      userId: p.user_id,
      kind: "colony_strike",
      actorId: ev.actorId,
      target: colonyTarget(p.colony_id),
      meta: {
        colony_id: p.colony_id,
        colony_name: p.colony_name,
        strike_id: p.strike_id,
        reason: p.reason,
        severity: p.severity,
        active_count: p.active_count,
        threshold: p.threshold,
        fired_action: p.fired_action,
      },
      eventId: ev.id,
    },
  ]);
}

function onAppealFiled(ctx: Ctx, ev: DomainEvent<"ban_appeal_filed">): Told[] {
  const p = ev.payload;
  const meta = { colony_id: p.colony_id, colony_name: p.colony_name, appeal_id: p.appeal_id, appellant: p.display_name, appellant_id: p.user_id };
  return tell(
    ctx,
    moderatorIds(ctx, p.colony_id)
      .filter((id) => id !== p.user_id)
      .map((userId) => ({ userId, kind: "ban_appeal_filed", actorId: ev.actorId, target: colonyTarget(p.colony_id), meta, eventId: ev.id })),
  );
}

function onAppealResolved(ctx: Ctx, ev: DomainEvent<"ban_appeal_resolved">): Told[] {
  const p = ev.payload;
  if (p.unbanned) return [];
  return tell(ctx, [
    {
      userId: p.user_id,
      kind: "ban_appeal_resolved",
      actorId: ev.actorId,
      target: colonyTarget(p.colony_id),
      meta: { colony_id: p.colony_id, colony_name: p.colony_name, appeal_id: p.appeal_id, accepted: p.accepted, note: p.note },
      eventId: ev.id,
    },
  ]);
}

/** The colonies feature's fan-out rules and its scheduled sweep. */
export function register(ctx: Ctx): void {
  ctx.events.fanOut("colony_member_promoted", (ev) => onPromoted(ctx, ev));
  ctx.events.fanOut("colony_banned", (ev) => onBanned(ctx, ev));
  ctx.events.fanOut("colony_unbanned", (ev) => onUnbanned(ctx, ev));
  ctx.events.fanOut("colony_strike", (ev) => onStrike(ctx, ev));
  ctx.events.fanOut("ban_appeal_filed", (ev) => onAppealFiled(ctx, ev));
  ctx.events.fanOut("ban_appeal_resolved", (ev) => onAppealResolved(ctx, ev));
  ctx.jobs.every(LIFT_EXPIRED_BANS_TASK, "*/1 * * * *", () => liftExpiredBans(ctx));
}
