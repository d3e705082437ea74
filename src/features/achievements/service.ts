// Achievements (spec Part 1 §2.6, §4.3): the catalog, the caller's unlock check, and anyone's
// earned list (read-only). Unlocks are stored once per (user, key) with the instant of the check
// that found them; an achievement stays earned even if its condition later stops holding.
import { asc, eq } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import * as users from "../users/service";
import { ACHIEVEMENTS, ACHIEVEMENTS_BY_KEY, statsOf, type AchievementDef } from "./catalog";
import { earnedAchievements } from "./tables";

export interface Earned {
  def: AchievementDef;
  earnedAt: number;
}

function earnedOf(ctx: Ctx, userId: string): Earned[] {
  return ctx.db
    .select()
    .from(earnedAchievements)
    .where(eq(earnedAchievements.userId, userId))
    .orderBy(asc(earnedAchievements.earnedAt), asc(earnedAchievements.key))
    .all()
    .flatMap((r) => {
      const def = ACHIEVEMENTS_BY_KEY.get(r.key);
      return def ? [{ def, earnedAt: r.earnedAt }] : []; // keys retired from the catalog are not shown
    });
}

/** Evaluates every catalog entry the user has not earned yet and commits the new unlocks. */
function checkAchievements(ctx: Ctx, userId: string): string[] {
  const have = new Set(earnedOf(ctx, userId).map((e) => e.def.key));
  const pending = ACHIEVEMENTS.filter((a) => !have.has(a.key));
  if (!pending.length) return [];
  const stats = statsOf(ctx, userId);
  const unlocked = pending.filter((a) => a.check(stats)).map((a) => a.key);
  if (unlocked.length) {
    const now = ctx.clock.now();
    ctx.db
      .insert(earnedAchievements)
      .values(unlocked.map((key) => ({ userId, key, earnedAt: now })))
      .onConflictDoNothing()
      .run();
  }
  return unlocked;
}

export function myAchievements(ctx: Ctx, userId: string): Earned[] {
  checkAchievements(ctx, userId);
  return earnedOf(ctx, userId);
}

/** Another user's earned list by id or username; 404 NOT_FOUND for missing or pending accounts. */
export function userAchievements(ctx: Ctx, idOrUsername: string): Earned[] {
  let user: users.UserRow;
  try {
    user = users.getActiveUser(ctx, idOrUsername);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw new ApiError(404, "NOT_FOUND", "User not found");
    throw err;
  }
  return earnedOf(ctx, user.id);
}

export const totalAvailable = () => ACHIEVEMENTS.length;
