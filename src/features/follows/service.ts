// Following users: follow and unfollow (spec Part 1 §4.3), plus the relationship reads other
// features build on (profile counts, feeds). A follow emits `user_followed` in its transaction,
// whose fan-out rule (notifications/handlers.ts) tells the followed user in that same transaction.
import { and, count, desc, eq, or } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import { iso } from "../../core/clock";
import type { Caller } from "../auth/service";
import * as blocks from "../blocks/service";
import * as users from "../users/service";
import { follows } from "./tables";

export type FollowRow = typeof follows.$inferSelect;

/** `target` is a user id or a username; unknown or inactive accounts are 404 USER_NOT_FOUND. */
export function follow(ctx: Ctx, caller: Caller, target: string): FollowRow {
  const followee = users.getActiveUser(ctx, target);
  if (followee.id === caller.id) throw new ApiError(400, "INVALID_INPUT", "You cannot follow yourself");
  if (blocks.blockedEitherWay(ctx, caller.id, followee.id)) throw new ApiError(403, "FORBIDDEN", `You cannot follow @${followee.username}: one of you blocks the other`);
  return ctx.db.transaction((tx) => {
    const existing = tx
      .select()
      .from(follows)
      .where(and(eq(follows.followerId, caller.id), eq(follows.followeeId, followee.id)))
      .get();
    if (existing) {
      throw new ApiError(409, "CONFLICT", `You already follow @${followee.username}`, { follow_id: existing.id, created_at: iso(existing.createdAt) });
    }
    const now = ctx.clock.now();
    const row = tx.insert(follows).values({ id: uuidv7(now), followerId: caller.id, followeeId: followee.id, createdAt: now }).returning().get();
    ctx.events.emit(tx, {
      type: "user_followed",
      actorId: caller.id,
      subject: { type: "user", id: followee.id },
      payload: { follower_id: caller.id, followee_id: followee.id, follower_username: caller.username, followee_username: followee.username },
      activity: true,
    });
    return row;
  });
}

/** Removes a follow; 404 NOT_FOUND when the caller does not follow that user (already unfollowed). */
export function unfollow(ctx: Ctx, caller: Caller, target: string): void {
  const followee = users.getActiveUser(ctx, target);
  const gone = ctx.db
    .delete(follows)
    .where(and(eq(follows.followerId, caller.id), eq(follows.followeeId, followee.id)))
    .returning({ id: follows.id })
    .get();
  if (!gone) throw new ApiError(404, "NOT_FOUND", `You do not follow @${followee.username}`);
}

export function isFollowing(ctx: Ctx, followerId: string, followeeId: string): boolean {
  return !!ctx.db
    .select({ id: follows.id })
    .from(follows)
    .where(and(eq(follows.followerId, followerId), eq(follows.followeeId, followeeId)))
    .get();
}

export function followerCount(ctx: Ctx, userId: string): number {
  return ctx.db.select({ n: count() }).from(follows).where(eq(follows.followeeId, userId)).get()?.n ?? 0;
}

export function followingCount(ctx: Ctx, userId: string): number {
  return ctx.db.select({ n: count() }).from(follows).where(eq(follows.followerId, userId)).get()?.n ?? 0;
}

/** Ids of the users `userId` follows, most recently followed first (feeds). */
export function followeeIds(ctx: Ctx, userId: string): string[] {
  return ctx.db
    .select({ id: follows.followeeId })
    .from(follows)
    .where(eq(follows.followerId, userId))
    .orderBy(desc(follows.createdAt))
    .all()
    .map((r) => r.id);
}

/** Ids of the users following `userId`, newest follower first. */
export function followerIds(ctx: Ctx, userId: string): string[] {
  return ctx.db
    .select({ id: follows.followerId })
    .from(follows)
    .where(eq(follows.followeeId, userId))
    .orderBy(desc(follows.createdAt))
    .all()
    .map((r) => r.id);
}

/** Removes the follows between two users, both directions (one blocked the other). */
export function removeBetween(ctx: Ctx, a: string, b: string): void {
  ctx.db
    .delete(follows)
    .where(or(and(eq(follows.followerId, a), eq(follows.followeeId, b)), and(eq(follows.followerId, b), eq(follows.followeeId, a))))
    .run();
}

export function purgeUser(ctx: Ctx, userId: string): void {
  ctx.db.delete(follows).where(or(eq(follows.followerId, userId), eq(follows.followeeId, userId))).run();
}
