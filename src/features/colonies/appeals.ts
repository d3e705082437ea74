// Ban appeals (spec Part 2 §2.5, §3, §4.2): one pending appeal per colony per user.
import type { Ctx } from "../../core/context";
import { prepared } from "../../db/statements";

/** Pending appeals of a colony (the moderation queue shows the count). */
export function pendingAppealCount(ctx: Ctx, colonyId: string): number {
  const stmt = prepared(ctx.db, "colonies.appeals.pendingCount", () =>
    ctx.db.$client.prepare<{ n: number }, [string]>("select count(*) as n from colony_ban_appeals where colony_id = ? and status = 'pending'"),
  );
  return stmt.get(colonyId)?.n ?? 0;
}
