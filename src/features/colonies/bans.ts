// Colony bans (spec Part 2 §2.3, §3): banning removes the membership and keeps the user out
// (join is 403, posting, commenting and voting are 403); lifting a ban does not re-add them.
// Timed bans (1, 7 or 30 days, or the mutes a strike fires) stop applying at expires_at
// (activeBan reads the clock), and the job that lifts them emits colony_unbanned.
import { and, eq } from "drizzle-orm";
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { conflict, forbidden, invalid, notFound } from "../../core/errors";
import type { Tx } from "../../db/client";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { recordModAction } from "./audit";
import { requireModPower } from "./permissions";
import { activeBan, memberRow, moderatorCount, MODERATOR_ROLES, recountMembers, type Actor, type ColonyRow } from "./service";
import { colonyBans, colonyMembers } from "./tables";

export const BAN_DURATIONS = [1, 7, 30] as const;
export type BanRow = typeof colonyBans.$inferSelect;

export interface BanInput {
  /** 1, 7 or 30 days; null or absent: permanent. */
  durationDays?: number | null;
  reason?: string | null;
}

/** Who the ban is for: an active account by id or username, else 404 USER_NOT_FOUND. */
export const banTarget = (ctx: Ctx, idOrUsername: string): UserRow => users.getActiveUser(ctx, idOrUsername);

/**
 * Bans `target` from the colony. The caller needs can_ban (403 FORBIDDEN); nobody bans
 * themselves (400 INVALID_INPUT); the founder cannot be banned, and a colony admin or moderator
 * only by the founder or a site admin (403 FORBIDDEN); banning the last moderator is 409
 * CONFLICT. A second ban replaces the first (its reason and expiry). Writes the ban, removes the
 * membership, records `ban` in the audit trail and emits colony_banned, in one transaction.
 * `action` names the audit row (ban, or the strike or queue action that fired it).
 */
export function banUser(ctx: Ctx, caller: Actor, colony: ColonyRow, target: UserRow, input: BanInput, action = "ban"): BanRow {
  requireModPower(ctx, colony, caller, "can_ban");
  const durationDays = input.durationDays ?? null;
  if (durationDays !== null && !(BAN_DURATIONS as readonly number[]).includes(durationDays)) {
    throw invalid("duration_days must be 1, 7, 30 or null (permanent)");
  }
  if (target.id === caller.id) throw invalid("You cannot ban yourself");
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => applyBan(ctx, tx, caller, colony, target, { reason: input.reason ?? null, expiresAt: durationDays === null ? null : now + durationDays * DAY }, action));
}

/**
 * The write of a ban inside the caller's transaction (banUser, and the strike that fires a ban
 * or a mute). Checks the target's role; see banUser.
 */
export function applyBan(ctx: Ctx, tx: Tx, caller: Actor, colony: ColonyRow, target: UserRow, ban: { reason: string | null; expiresAt: number | null }, action = "ban"): BanRow {
  const m = memberRow(ctx, colony.id, target.id);
  if (m && MODERATOR_ROLES.includes(m.role)) {
    if (m.role === "founder_moderator" && !caller.isAdmin) throw forbidden("The founder of a colony cannot be banned");
    const callerRole = memberRow(ctx, colony.id, caller.id)?.role;
    if (!caller.isAdmin && callerRole !== "founder_moderator") throw forbidden("Only the founder or a site admin can ban a moderator of this colony");
    if (moderatorCount(ctx, colony.id) <= 1) throw conflict("That user is the last moderator of this colony");
  }
  const now = ctx.clock.now();
  const row: BanRow = { colonyId: colony.id, userId: target.id, reason: ban.reason, expiresAt: ban.expiresAt, bannedBy: caller.id, createdAt: now };
  tx.insert(colonyBans)
    .values(row)
    .onConflictDoUpdate({ target: [colonyBans.colonyId, colonyBans.userId], set: { reason: row.reason, expiresAt: row.expiresAt, bannedBy: row.bannedBy, createdAt: now } })
    .run();
  if (m) {
    tx.delete(colonyMembers).where(and(eq(colonyMembers.colonyId, colony.id), eq(colonyMembers.userId, target.id))).run();
    recountMembers(tx, colony.id, now);
  }
  recordModAction(ctx, {
    colonyId: colony.id,
    actorId: caller.id,
    action,
    targetType: "user",
    targetId: target.id,
    targetUserId: target.id,
    reason: ban.reason,
    meta: { expires_at: ban.expiresAt },
  });
  ctx.events.emit(tx, {
    type: "colony_banned",
    actorId: caller.id,
    subject: { type: "colony", id: colony.id },
    payload: {
      colony_id: colony.id,
      colony_name: colony.name,
      user_id: target.id,
      username: target.username,
      reason: ban.reason,
      expires_at: ban.expiresAt === null ? null : new Date(ban.expiresAt).toISOString(),
      was_member: !!m,
    },
  });
  return row;
}

/**
 * Lifts a ban in force (the caller needs can_ban; 404 NOT_FOUND when there is none). The user is
 * not re-added and may join again. `how` says why (a moderator, an accepted appeal).
 */
export function unbanUser(ctx: Ctx, caller: Actor, colony: ColonyRow, target: UserRow, how: "moderator" | "appeal" = "moderator"): void {
  requireModPower(ctx, colony, caller, "can_ban");
  if (!activeBan(ctx, colony.id, target.id)) throw notFound("That user is not banned from this colony");
  ctx.db.transaction((tx) => liftBan(ctx, tx, caller.id, colony, target, how));
}

/** Deletes the ban row, records `unban` and emits colony_unbanned, in the caller's transaction. */
export function liftBan(ctx: Ctx, tx: Tx, actorId: string | null, colony: ColonyRow, target: { id: string; username: string }, how: "moderator" | "appeal" | "expired"): void {
  tx.delete(colonyBans).where(and(eq(colonyBans.colonyId, colony.id), eq(colonyBans.userId, target.id))).run();
  recordModAction(ctx, { colonyId: colony.id, actorId, action: "unban", targetType: "user", targetId: target.id, targetUserId: target.id, meta: { how } });
  ctx.events.emit(tx, {
    type: "colony_unbanned",
    actorId,
    subject: { type: "colony", id: colony.id },
    payload: { colony_id: colony.id, colony_name: colony.name, user_id: target.id, username: target.username, how },
  });
}
