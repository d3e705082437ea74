// Ban appeals (spec Part 2 §2.5, §3, §4.2): one pending appeal per colony per user.
import { and, asc, desc, eq } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import { prepared } from "../../db/statements";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { recordModAction } from "./audit";
import { colonyForBannedCaller, liftBan, type BanRow } from "./bans";
import { requireModPower } from "./permissions";
import { activeBan, getReadableColony, type Actor } from "./service";
import { colonyBanAppeals } from "./tables";

/** Pending appeals of a colony (the moderation queue shows the count). */
export function pendingAppealCount(ctx: Ctx, colonyId: string): number {
  const stmt = prepared(ctx.db, "colonies.appeals.pendingCount", () =>
    ctx.db.$client.prepare<{ n: number }, [string]>("select count(*) as n from colony_ban_appeals where colony_id = ? and status = 'pending'"),
  );
  return stmt.get(colonyId)?.n ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Filing, reading and resolving appeals (docs/decisions.md §34)

export type AppealRow = typeof colonyBanAppeals.$inferSelect;

/** The user's most recent appeal in the colony, whatever its outcome. */
function latestAppeal(ctx: Ctx, colonyId: string, userId: string): AppealRow | null {
  return (
    ctx.db
      .select()
      .from(colonyBanAppeals)
      .where(and(eq(colonyBanAppeals.colonyId, colonyId), eq(colonyBanAppeals.userId, userId)))
      .orderBy(desc(colonyBanAppeals.createdAt), desc(colonyBanAppeals.id))
      .limit(1)
      .get() ?? null
  );
}

/**
 * GET /colonies/{id}/appeal: the caller's ban in force (null when none, a lapsed timed ban
 * included) and their latest appeal. A banned user reaches a private colony they were removed
 * from; anyone else who cannot read the colony gets 404.
 */
export function myBanStatus(ctx: Ctx, caller: Actor, colonyId: string): { ban: BanRow | null; appeal: AppealRow | null } {
  const colony = colonyForBannedCaller(ctx, caller, colonyId);
  return { ban: activeBan(ctx, colony.id, caller.id), appeal: latestAppeal(ctx, colony.id, caller.id) };
}

/**
 * POST /colonies/{id}/appeal: files an appeal against the caller's ban in force (404 NOT_FOUND
 * without one, as the reference service answers); a second pending appeal is 409 CONFLICT; an
 * empty body after trimming is 400. Emits ban_appeal_filed: every moderator and colony admin is
 * told.
 */
export function fileAppeal(ctx: Ctx, caller: Actor, colonyId: string, rawBody: string): AppealRow {
  const colony = colonyForBannedCaller(ctx, caller, colonyId);
  if (!activeBan(ctx, colony.id, caller.id)) throw notFound("You have no active ban in this colony to appeal");
  const body = rawBody.trim();
  if (!body) throw invalid("body must not be empty");
  const pending = ctx.db
    .select({ id: colonyBanAppeals.id })
    .from(colonyBanAppeals)
    .where(and(eq(colonyBanAppeals.colonyId, colony.id), eq(colonyBanAppeals.userId, caller.id), eq(colonyBanAppeals.status, "pending")))
    .get();
  if (pending) throw conflict("You already have a pending appeal in this colony");
  const user = users.findById(ctx, caller.id);
  const now = ctx.clock.now();
  const row: AppealRow = { id: uuidv7(now), colonyId: colony.id, userId: caller.id, body, status: "pending", resolutionNote: null, resolvedBy: null, resolvedAt: null, createdAt: now };
  try {
    ctx.db.transaction((tx) => {
      tx.insert(colonyBanAppeals).values(row).run();
      ctx.events.emit(tx, {
        type: "ban_appeal_filed",
        actorId: caller.id,
        subject: { type: "colony", id: colony.id },
        payload: {
          colony_id: colony.id,
          colony_name: colony.name,
          appeal_id: row.id,
          user_id: caller.id,
          username: user?.username ?? "",
          display_name: user?.displayName ?? user?.username ?? "",
        },
      });
    });
  } catch (err) {
    // The one-pending index: a concurrent appeal got there first.
    if (/UNIQUE constraint failed/.test(String(err))) throw conflict("You already have a pending appeal in this colony");
    throw err;
  }
  return row;
}

export interface PendingAppeal {
  appeal: AppealRow;
  user: UserRow | null;
  /** The appellant's ban in force; null when it lapsed or was lifted since. */
  ban: BanRow | null;
}

/** GET /colonies/{id}/appeals: pending appeals, oldest first; moderators only (403). */
export function pendingAppeals(ctx: Ctx, caller: Actor, colonyId: string): PendingAppeal[] {
  const colony = getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller);
  const rows = ctx.db
    .select()
    .from(colonyBanAppeals)
    .where(and(eq(colonyBanAppeals.colonyId, colony.id), eq(colonyBanAppeals.status, "pending")))
    .orderBy(asc(colonyBanAppeals.createdAt), asc(colonyBanAppeals.id))
    .all();
  const people = users.findManyByIds(ctx, rows.map((r) => r.userId));
  return rows.map((appeal) => ({ appeal, user: people.get(appeal.userId) ?? null, ban: activeBan(ctx, colony.id, appeal.userId) }));
}

interface ResolveInput {
  accept: boolean;
  note?: string | null;
}

/**
 * POST /colonies/{id}/appeals/{appeal_id}/resolve: moderators holding can_ban (403; accepting
 * lifts a ban, as DELETE /bans does). 404 NOT_FOUND for an appeal not of this colony, 409
 * CONFLICT once resolved. Accepting lifts the ban in force with liftBan (how "appeal": an `unban`
 * audit row and colony_unbanned); rejecting closes the appeal. Either way a `resolve_appeal`
 * audit row (opened at the appeal's filing) and ban_appeal_resolved, which tells the appellant
 * unless colony_unbanned already did.
 */
export function resolveAppeal(ctx: Ctx, caller: Actor, colonyId: string, appealId: string, input: ResolveInput): { appeal: AppealRow; unbanned: boolean } {
  const colony = getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller, "can_ban");
  const appeal = ctx.db
    .select()
    .from(colonyBanAppeals)
    .where(and(eq(colonyBanAppeals.id, appealId.toLowerCase()), eq(colonyBanAppeals.colonyId, colony.id)))
    .get();
  if (!appeal) throw notFound("Appeal not found");
  if (appeal.status !== "pending") throw conflict(`This appeal was already ${appeal.status}`);
  const note = input.note?.trim() || null;
  const status = input.accept ? "accepted" : "rejected";
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const updated = tx
      .update(colonyBanAppeals)
      .set({ status, resolutionNote: note, resolvedBy: caller.id, resolvedAt: now })
      .where(and(eq(colonyBanAppeals.id, appeal.id), eq(colonyBanAppeals.status, "pending")))
      .returning()
      .get();
    if (!updated) throw conflict("This appeal was already resolved");
    let unbanned = false;
    if (input.accept && activeBan(ctx, colony.id, appeal.userId)) {
      const user = users.findById(ctx, appeal.userId);
      liftBan(ctx, tx, caller.id, colony, { id: appeal.userId, username: user?.username ?? "" }, "appeal");
      unbanned = true;
    }
    recordModAction(ctx, {
      colonyId: colony.id,
      actorId: caller.id,
      action: "resolve_appeal",
      targetType: "appeal",
      targetId: appeal.id,
      targetUserId: appeal.userId,
      reason: note,
      meta: { accepted: input.accept, unbanned },
      openedAt: appeal.createdAt,
    });
    ctx.events.emit(tx, {
      type: "ban_appeal_resolved",
      actorId: caller.id,
      subject: { type: "colony", id: colony.id },
      payload: { colony_id: colony.id, colony_name: colony.name, appeal_id: appeal.id, user_id: appeal.userId, accepted: input.accept, unbanned, note },
    });
    return { appeal: updated, unbanned };
  });
}
