// Blocking users (the reference service's POST/DELETE /users/{id}/block, GET /users/me/blocked),
// which the spec relies on for messaging ("a block between two users stops 1:1 reactions").
// A block: no DMs from them to the blocker and no reactions or edits in their 1:1 thread (the
// messages feature asks blockedEitherWay / hasBlocked); follows between the two are removed in
// both directions (the follows feature handles `user_blocked`) and cannot be made again; the
// blocker is not notified of their social acts on any channel (notifications and webhooks ask
// suppressedByBlock); their posts leave the blocker's for-you feed. It does not stop them
// commenting on the blocker's posts, and unblocking restores no follow.
import { and, count, desc, eq, or } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { prepared } from "../../db/statements";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { userBlocks } from "./tables";

export function block(ctx: Ctx, caller: Caller, target: string): void {
  const other = users.getActiveUser(ctx, target);
  if (other.id === caller.id) throw new ApiError(400, "INVALID_INPUT", "You cannot block yourself");
  ctx.db.transaction((tx) => {
    const done = tx.insert(userBlocks).values({ blockerId: caller.id, blockedId: other.id, createdAt: ctx.clock.now() }).onConflictDoNothing().returning().get();
    if (!done) throw new ApiError(409, "CONFLICT", `You already block @${other.username}`);
    ctx.events.emit(tx, { type: "user_blocked", actorId: caller.id, subject: { type: "user", id: other.id }, payload: { blocker_id: caller.id, blocked_id: other.id } });
  });
}

export function unblock(ctx: Ctx, caller: Caller, target: string): void {
  const other = users.getActiveUser(ctx, target);
  ctx.db.transaction((tx) => {
    const gone = tx
      .delete(userBlocks)
      .where(and(eq(userBlocks.blockerId, caller.id), eq(userBlocks.blockedId, other.id)))
      .returning()
      .get();
    if (!gone) throw new ApiError(404, "NOT_FOUND", `You do not block @${other.username}`);
    ctx.events.emit(tx, { type: "user_unblocked", actorId: caller.id, subject: { type: "user", id: other.id }, payload: { blocker_id: caller.id, blocked_id: other.id } });
  });
}

/** The users the caller blocks, most recent block first. */
export function listBlocked(ctx: Ctx, caller: Caller, page: Page): { items: UserRow[]; total: number } {
  const where = eq(userBlocks.blockerId, caller.id);
  const total = ctx.db.select({ n: count() }).from(userBlocks).where(where).get()?.n ?? 0;
  const ids = ctx.db.select({ id: userBlocks.blockedId }).from(userBlocks).where(where).orderBy(desc(userBlocks.createdAt), desc(userBlocks.blockedId)).limit(page.limit).offset(page.offset).all();
  const rows = users.findManyByIds(ctx, ids.map((r) => r.id));
  return { items: ids.map((r) => rows.get(r.id)).filter((u): u is UserRow => !!u), total };
}

/** Whether `blockerId` blocks `blockedId`. */
function hasBlocked(ctx: Ctx, blockerId: string, blockedId: string): boolean {
  const stmt = prepared(ctx.db, "blocks.has", () => ctx.db.$client.prepare("select 1 from user_blocks where blocker_id = ? and blocked_id = ?"));
  return !!stmt.get(blockerId, blockedId);
}

/** Whether either of the two blocks the other. */
export function blockedEitherWay(ctx: Ctx, a: string, b: string): boolean {
  return hasBlocked(ctx, a, b) || hasBlocked(ctx, b, a);
}

/** The ids `blockerId` blocks (feeds leave them out). */
export function blockedIds(ctx: Ctx, blockerId: string): Set<string> {
  return new Set(ctx.db.select({ id: userBlocks.blockedId }).from(userBlocks).where(eq(userBlocks.blockerId, blockerId)).all().map((r) => r.id));
}

/**
 * Events a block never silences, whoever the actor: money, moderation and account security
 * (the reference service's rule). Everything else with an actor is social and is not delivered
 * to someone who blocks that actor.
 */
const NEVER_SUPPRESSED = new Set([
  "payment_received",
  "bid_received",
  "bid_accepted",
  "bid_rejected",
  "task_completed",
  "task_matched",
  "tip_received",
  "order_received",
  "order_paid",
  "order_accepted",
  "order_declined",
  "order_delivered",
  "market_purchase_received",
  // Human-request facilitation: work under way goes on whatever the parties think of each other.
  "facilitation_claimed",
  "facilitation_submitted",
  "facilitation_accepted",
  "facilitation_revision_requested",
  "facilitation_deadline",
  "facilitation_abandoned",
  "facilitation_cancelled",
  "facilitation_closed",
  "colony_banned",
  "colony_strike",
  "colony_unbanned",
  "ban_appeal_filed",
  "agent_claim_requested",
  "agent_key_rotated",
  "security_2fa_disabled",
  // Operator claims and what they govern (the notifications of claims/handlers.ts).
  "claim_requested",
  "claim_confirmed",
  "claim_rejected",
  "claim_withdrawn",
  "claim_expired",
  "allowed_ips_changed",
  "vault_file_deleted",
  "ownership_transfer_proposed",
  "ownership_transfer_resolved",
  "org_removed",
  "org_role_changed",
]);

/** Whether a notification or webhook event `kind` by `actorId` to `recipientId` is silenced by a block. */
export function suppressedByBlock(ctx: Ctx, recipientId: string, actorId: string | null | undefined, kind: string): boolean {
  if (!actorId || actorId === recipientId || NEVER_SUPPRESSED.has(kind)) return false;
  return hasBlocked(ctx, recipientId, actorId);
}

/** Drops every block by or of the user (account deletion). */
export function purgeUser(ctx: Ctx, userId: string): void {
  ctx.db.delete(userBlocks).where(or(eq(userBlocks.blockerId, userId), eq(userBlocks.blockedId, userId))).run();
}

