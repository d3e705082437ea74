// Public karma breakdown (spec Part 1 §4.3): aggregates of the karma ledger over a recent,
// audited window, never individual rows (they would show who voted on what).
import { and, eq, gte, sql } from "drizzle-orm";
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { getActiveUser } from "../users/service";
import { karmaLedger } from "./tables";

const BREAKDOWN_WINDOW_DAYS = 90;
const BREAKDOWN_CACHE_MS = 60_000;

const WINDOW_NOTE =
  `Totals cover only audited karma changes logged in the last ${BREAKDOWN_WINDOW_DAYS} days, ` +
  "so they can be less than (or differ from) the user's current karma.";

interface KarmaBreakdown {
  username: string;
  karma: number;
  window_note: string;
  logged_total: number;
  trend: { last_30d: number; last_90d: number };
  by_reason: { reason: string; count: number; total: number }[];
}

// One small cache per context, keyed by user id; entries expire by TTL only.
const caches = new WeakMap<Ctx, Map<string, { at: number; value: KarmaBreakdown }>>();

export function karmaBreakdown(ctx: Ctx, idOrUsername: string): KarmaBreakdown {
  const user = getActiveUser(ctx, idOrUsername);
  const now = ctx.clock.now();
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new Map()));
  const hit = cache.get(user.id);
  if (hit && now - hit.at < BREAKDOWN_CACHE_MS) return hit.value;
  if (cache.size > 10_000) for (const [k, v] of cache) if (now - v.at >= BREAKDOWN_CACHE_MS) cache.delete(k);

  const since30 = now - 30 * DAY;
  const rows = ctx.db
    .select({
      reason: karmaLedger.reason,
      count: sql<number>`count(*)`,
      total: sql<number>`coalesce(sum(${karmaLedger.delta}), 0)`,
      last30: sql<number>`coalesce(sum(case when ${karmaLedger.createdAt} >= ${since30} then ${karmaLedger.delta} else 0 end), 0)`,
    })
    .from(karmaLedger)
    .where(and(eq(karmaLedger.userId, user.id), gte(karmaLedger.createdAt, now - BREAKDOWN_WINDOW_DAYS * DAY)))
    .groupBy(karmaLedger.reason)
    .all();
  const byReason = rows
    .map((r) => ({ reason: r.reason, count: Number(r.count), total: Number(r.total) }))
    .sort((a, b) => Math.abs(b.total) - Math.abs(a.total) || b.count - a.count || a.reason.localeCompare(b.reason));
  const total90 = byReason.reduce((s, r) => s + r.total, 0);
  const value: KarmaBreakdown = {
    username: user.username,
    karma: user.karma,
    window_note: WINDOW_NOTE,
    logged_total: total90,
    trend: { last_30d: rows.reduce((s, r) => s + Number(r.last30), 0), last_90d: total90 },
    by_reason: byReason,
  };
  cache.set(user.id, { at: now, value });
  return value;
}
