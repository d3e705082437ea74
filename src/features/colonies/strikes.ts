// Strikes (spec Part 2 §2.4, §2.5, §3, §4.2; docs/decisions.md §33): a moderator strikes a
// member; when the member's active strikes reach the colony's strike_threshold (default 3), its
// strike_action (ban, mute_7d, mute_30d; default mute_7d) fires in the same transaction — a mute
// is a timed ban of 7 or 30 days. A minor strike stays active for 30 days, a major one for 90
// (expires_at); an expired strike is still listed but no longer counts.
import { and, count, desc, eq, gt, isNull, or } from "drizzle-orm";
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, forbidden, invalid } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import * as users from "../users/service";
import { recordModAction } from "./audit";
import { applyBan, colonyForBannedCaller } from "./bans";
import { isFounder, requireModPower } from "./permissions";
import { getReadableColony, settingsOf, targetMember, type Actor } from "./service";
import { colonyStrikes, STRIKE_ACTIONS, type STRIKE_SEVERITIES } from "./tables";

export type StrikeRow = typeof colonyStrikes.$inferSelect;
type StrikeSeverity = (typeof STRIKE_SEVERITIES)[number];
type StrikeAction = (typeof STRIKE_ACTIONS)[number];

/** How long a strike counts towards the threshold. */
const STRIKE_TTL: Record<StrikeSeverity, number> = { minor: 30 * DAY, major: 90 * DAY };

/** How long each strike action keeps the member out; null: for good. */
const STRIKE_ACTION_BAN: Record<StrikeAction, number | null> = { ban: null, mute_7d: 7 * DAY, mute_30d: 30 * DAY };

const activeWhere = (ctx: Ctx, colonyId: string, userId: string) =>
  and(eq(colonyStrikes.colonyId, colonyId), eq(colonyStrikes.userId, userId), or(isNull(colonyStrikes.expiresAt), gt(colonyStrikes.expiresAt, ctx.clock.now())));

/** The member's strikes that still count (on the caller's connection: inside a transaction too). */
function activeStrikeCount(ctx: Ctx, colonyId: string, userId: string): number {
  return ctx.db.select({ n: count() }).from(colonyStrikes).where(activeWhere(ctx, colonyId, userId)).get()?.n ?? 0;
}

interface StrikeInput {
  reason: string;
  severity?: StrikeSeverity;
}

export interface StrikeIssued {
  strike: StrikeRow;
  activeCount: number;
  threshold: number;
  firedAction: StrikeAction | null;
}

/**
 * POST /colonies/{id}/members/{user}/strikes. Moderators holding can_ban (403 FORBIDDEN: a strike
 * can fire a ban); the target must be a member (404 NOT_FOUND), not the caller (400); a member
 * holding a moderating role is struck only as they could be banned (the founder by a site admin
 * only, other moderators and colony admins by the founder or a site admin: 403). Writes the
 * strike and its `strike` audit row, emits colony_strike (the member is told) and, when the
 * active count reaches the threshold, applies the colony's strike_action with applyBan — all in
 * one transaction, so a refused ban (the last moderator: 409) leaves no strike either.
 */
export function issueStrike(ctx: Ctx, caller: Actor, colonyId: string, target: string, input: StrikeInput): StrikeIssued {
  const colony = getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller, "can_ban");
  const m = targetMember(ctx, colony.id, target);
  if (m.userId === caller.id) throw invalid("You cannot strike yourself");
  if (m.role === "founder_moderator" && !caller.isAdmin) throw forbidden("The founder of a colony cannot be struck");
  if ((m.role === "moderator" || m.role === "admin") && !caller.isAdmin && !isFounder(ctx, colony, caller.id)) {
    throw forbidden("Only the founder or a site admin can strike a moderator of this colony");
  }
  const reason = input.reason.trim();
  if (!reason) throw invalid("reason must not be empty");
  const severity = input.severity ?? "minor";
  const user = users.findById(ctx, m.userId);
  if (!user) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  const { strike_threshold: threshold, strike_action: action } = settingsOf(colony);
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const strike: StrikeRow = { id: uuidv7(now), colonyId: colony.id, userId: user.id, reason, severity, issuedBy: caller.id, expiresAt: now + STRIKE_TTL[severity], createdAt: now };
    tx.insert(colonyStrikes).values(strike).run();
    const activeCount = activeStrikeCount(ctx, colony.id, user.id);
    const firedAction = activeCount >= threshold ? action : null;
    recordModAction(ctx, {
      colonyId: colony.id,
      actorId: caller.id,
      action: "strike",
      targetType: "strike",
      targetId: strike.id,
      targetUserId: user.id,
      reason,
      meta: { severity, active_count: activeCount, threshold, fired_action: firedAction },
    });
    ctx.events.emit(tx, {
      type: "colony_strike",
      actorId: caller.id,
      subject: { type: "colony", id: colony.id },
      payload: {
        colony_id: colony.id,
        colony_name: colony.name,
        strike_id: strike.id,
        user_id: user.id,
        username: user.username,
        reason,
        severity,
        active_count: activeCount,
        threshold,
        fired_action: firedAction,
      },
    });
    if (firedAction) {
      const lasts = STRIKE_ACTION_BAN[firedAction];
      applyBan(ctx, tx, caller, colony, user, { reason: `${activeCount} active strikes (threshold ${threshold}): ${reason}`, expiresAt: lasts === null ? null : now + lasts }, `strike_${firedAction}`);
    }
    return { strike, activeCount, threshold, firedAction };
  });
}

export interface MemberStrikes {
  strikes: StrikeRow[];
  activeCount: number;
  threshold: number;
  strikeAction: StrikeAction;
}

/**
 * GET /colonies/{id}/members/{user}/strikes: every strike of the user in the colony, newest first,
 * expired ones included. The user reads their own (while banned too); moderators anyone's; others
 * 403 FORBIDDEN. 404 USER_NOT_FOUND for an unknown user (after the permission check).
 */
export function memberStrikes(ctx: Ctx, caller: Actor, colonyId: string, target: string): MemberStrikes {
  const colony = colonyForBannedCaller(ctx, caller, colonyId);
  const user = isUuid(target) ? users.findById(ctx, target.toLowerCase()) : users.findByUsername(ctx, target);
  if (user?.id !== caller.id) requireModPower(ctx, colony, caller);
  if (!user) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  const strikes = ctx.db
    .select()
    .from(colonyStrikes)
    .where(and(eq(colonyStrikes.colonyId, colony.id), eq(colonyStrikes.userId, user.id)))
    .orderBy(desc(colonyStrikes.createdAt), desc(colonyStrikes.id))
    .all();
  const now = ctx.clock.now();
  const settings = settingsOf(colony);
  return {
    strikes,
    activeCount: strikes.filter((s) => s.expiresAt === null || s.expiresAt > now).length,
    threshold: settings.strike_threshold,
    strikeAction: settings.strike_action,
  };
}
