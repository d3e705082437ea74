// Colony bans (spec Part 2 §2.3, §3; docs/decisions.md §32): banning removes the membership and
// keeps the user out (join is 403, posting, commenting and voting are 403); lifting a ban does not
// re-add them.
// Timed bans (1, 7 or 30 days, or the mutes a strike fires) stop applying at expires_at
// (activeBan reads the clock), and the job that lifts them emits colony_unbanned.
import { and, asc, count, desc, eq, isNotNull, lte } from "drizzle-orm";
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, conflict, forbidden, invalid, notFound } from "../../core/errors";
import { isUuid } from "../../core/ids";
import type { Page } from "../../core/paging";
import type { Tx } from "../../db/client";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { prepared } from "../../db/statements";
import { recordModAction } from "./audit";
import { moderatorExited } from "./moderator-exits";
import { requireModPower } from "./permissions";
import { activeBan, canRead, findColony, getReadableColony, memberRow, moderatorCount, MODERATOR_ROLES, recountMembers, type Actor, type ColonyRow } from "./service";
import { colonyBans, colonyMembers } from "./tables";

export const BAN_DURATIONS = [1, 7, 30] as const;
export type BanRow = typeof colonyBans.$inferSelect;

interface BanInput {
  /** 1, 7 or 30 days; null or absent: permanent. */
  durationDays?: number | null;
  reason?: string | null;
}

/** Who the ban is for: an active account by id or username, else 404 USER_NOT_FOUND. */
const banTarget = (ctx: Ctx, idOrUsername: string): UserRow => users.getActiveUser(ctx, idOrUsername);

/**
 * Bans `target` from the colony. The caller needs can_ban (403 FORBIDDEN); nobody bans
 * themselves (400 INVALID_INPUT); the founder cannot be banned, and a colony admin or moderator
 * only by the founder or a site admin (403 FORBIDDEN); banning the last moderator is 409
 * CONFLICT. A second ban replaces the first (its reason and expiry). Writes the ban, removes the
 * membership (a moderator's is a moderator exit), records `ban` in the audit trail and emits
 * colony_banned, in one transaction.
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
    if (MODERATOR_ROLES.includes(m.role)) moderatorExited(ctx, tx, { colonyId: colony.id, userId: target.id, role: m.role, how: "banned" });
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
function unbanUser(ctx: Ctx, caller: Actor, colony: ColonyRow, target: UserRow, how: "moderator" | "appeal" = "moderator"): void {
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

// ---------------------------------------------------------------------------------------------
// The routes' entry points: the colony by id (404 when the caller cannot read it), the caller's
// standing (403), then the user (404).

/** POST /colonies/{id}/bans/{user}: bans a user by id or username (see banUser). */
export function banFromColony(ctx: Ctx, caller: Actor, colonyId: string, target: string, input: BanInput): { ban: BanRow; user: UserRow } {
  const colony = getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller, "can_ban");
  const user = banTarget(ctx, target);
  return { ban: banUser(ctx, caller, colony, user, input), user };
}

/**
 * DELETE /colonies/{id}/bans/{user}: lifts a ban in force. Any account may be unbanned, a deleted
 * one too (404 USER_NOT_FOUND only when there is no such account); 404 NOT_FOUND without a ban.
 */
export function unbanFromColony(ctx: Ctx, caller: Actor, colonyId: string, target: string): void {
  const colony = getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller, "can_ban");
  const user = isUuid(target) ? users.findById(ctx, target.toLowerCase()) : users.findByUsername(ctx, target);
  if (!user) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  unbanUser(ctx, caller, colony, user);
}

export interface BanListing {
  ban: BanRow;
  /** Null only for an account that no longer exists. */
  user: UserRow | null;
}

/**
 * GET /colonies/{id}/bans: the colony's ban rows, newest first; moderators only (403). A timed ban
 * past its expiry is listed with is_active false until the sweep lifts it.
 */
export function listBans(ctx: Ctx, caller: Actor, colonyId: string, page: Page): { items: BanListing[]; total: number } {
  const colony = getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller);
  const where = eq(colonyBans.colonyId, colony.id);
  const total = ctx.db.select({ n: count() }).from(colonyBans).where(where).get()?.n ?? 0;
  const rows = ctx.db.select().from(colonyBans).where(where).orderBy(desc(colonyBans.createdAt), asc(colonyBans.userId)).limit(page.limit).offset(page.offset).all();
  const people = users.findManyByIds(ctx, rows.map((r) => r.userId));
  return { items: rows.map((ban) => ({ ban, user: people.get(ban.userId) ?? null })), total };
}

/** The name of the recurring task that lifts expired bans (registered by handlers.ts). */
export const LIFT_EXPIRED_BANS_TASK = "lift-expired-colony-bans";

/**
 * Lifts every timed ban whose expiry has passed, oldest expiry first, at most `limit` per run:
 * each in its own transaction, with an `unban` audit row by nobody and colony_unbanned (how
 * "expired"), so the user is told. A ban replaced or lifted meanwhile is left alone. Returns how
 * many were lifted.
 */
export function liftExpiredBans(ctx: Ctx, limit = 200): number {
  const now = ctx.clock.now();
  const due = ctx.db
    .select()
    .from(colonyBans)
    .where(and(isNotNull(colonyBans.expiresAt), lte(colonyBans.expiresAt, now)))
    .orderBy(asc(colonyBans.expiresAt))
    .limit(limit)
    .all();
  let lifted = 0;
  for (const ban of due) {
    const colony = findColony(ctx, ban.colonyId);
    if (!colony) continue;
    const user = users.findById(ctx, ban.userId);
    ctx.db.transaction((tx) => {
      const still = tx
        .select({ expiresAt: colonyBans.expiresAt })
        .from(colonyBans)
        .where(and(eq(colonyBans.colonyId, ban.colonyId), eq(colonyBans.userId, ban.userId)))
        .get();
      if (!still || still.expiresAt === null || still.expiresAt > ctx.clock.now()) return;
      liftBan(ctx, tx, null, colony, { id: ban.userId, username: user?.username ?? "" }, "expired");
      lifted++;
    });
  }
  return lifted;
}

/**
 * A colony by id as a user it banned sees it: one they may read, or one holding their ban or an
 * appeal of theirs (a private colony they were removed from by the ban stays reachable for GET and
 * POST /appeal and their own strikes). Else 404 NOT_FOUND, deleted colonies included.
 */
export function colonyForBannedCaller(ctx: Ctx, caller: Actor, colonyId: string): ColonyRow {
  const colony = findColony(ctx, colonyId);
  if (colony && colony.deletedAt === null && (canRead(ctx, colony, caller) || hasBanOrAppeal(ctx, colony.id, caller.id))) return colony;
  throw notFound("Colony not found");
}

function hasBanOrAppeal(ctx: Ctx, colonyId: string, userId: string): boolean {
  const stmt = prepared(ctx.db, "colonies.bans.banOrAppeal", () =>
    ctx.db.$client.prepare<{ n: number }, [string, string, string, string]>(
      "select exists(select 1 from colony_bans where colony_id = ? and user_id = ?) or exists(select 1 from colony_ban_appeals where colony_id = ? and user_id = ?) as n",
    ),
  );
  return !!stmt.get(colonyId, userId, colonyId, userId)?.n;
}
