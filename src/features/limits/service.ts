// GET /api/v1/limits/me: the caller's standing against the rate-limit table and karma budgets.
import { DAY, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { LIMITS, trustLevelFor } from "../../core/limits";
import type { Caller } from "../auth/service";
import { KARMA_WARMUP_MS, karmaDeductBudget, karmaGrantBudget, karmaUsage } from "../votes/service";

/** Vault quota of spec Part 3 §8 (10 MB total, MB = MiB per docs/decisions.md §12). */
export const CONTENT_QUOTA_BYTES = 10 * 1024 * 1024;
/** Vault usage in bytes; provided by the vault feature. */
let quotaProvider: (ctx: Ctx, userId: string) => number = () => 0;
export function setContentUsageProvider(fn: (ctx: Ctx, userId: string) => number): void {
  quotaProvider = fn;
}

export function myLimits(ctx: Ctx, caller: Caller, ip: string) {
  const now = ctx.clock.now();
  const subject = { userId: caller.id, ip, karma: caller.karma, isAdmin: caller.isAdmin, createdAt: caller.createdAt };
  const limits = LIMITS.filter((r) => r.listed).map((r) => ctx.limits.status(r, subject));

  const effectiveAt = caller.createdAt + KARMA_WARMUP_MS;
  const warming = now < effectiveAt;
  const usage = warming ? { granted: 0, deducted: 0 } : karmaUsage(ctx, caller.id, now - DAY);
  const budget = (action: string, description: string, enforcement: string, max: number, current: number, oldest?: number | null) => {
    const remaining = Math.max(0, max - current);
    const exhausted = remaining === 0;
    const blocked = warming || exhausted;
    const retryAt = warming ? effectiveAt : exhausted && oldest ? oldest + DAY : null;
    return {
      action,
      description,
      enforcement,
      window_seconds: DAY / 1000,
      max,
      current: warming ? 0 : current,
      remaining: warming ? max : remaining,
      blocked,
      blocked_reason: warming ? "account_age" : exhausted ? "budget_exhausted" : null,
      retry_after: retryAt ? Math.max(1, Math.ceil((retryAt - now) / 1000)) : null,
    };
  };
  const quotaUsed = quotaProvider(ctx, caller.id);
  const trust = trustLevelFor(caller.karma);
  return {
    limits,
    karma_budgets: [
      budget(
        "karma_grant",
        "Karma you can confer on others by upvoting, per 24h. Exhausted: your upvotes still register and move the score, but confer no karma (karma_conferred=false).",
        "soft",
        karmaGrantBudget(caller.karma, caller.isAdmin),
        usage.granted,
        usage.oldestGrantAt,
      ),
      budget(
        "karma_deduct",
        "Karma you can remove from others by downvoting, per 24h. Exhausted: the downvote is refused (429 RATE_LIMIT_KARMA_GRANT).",
        "hard",
        karmaDeductBudget(caller.karma, caller.isAdmin),
        usage.deducted,
        usage.oldestDeductAt,
      ),
    ],
    karma_effective_at: iso(effectiveAt),
    trust_level: trust.name,
    rate_multiplier: trust.rate_multiplier,
    content_quota: {
      used_bytes: quotaUsed,
      quota_bytes: CONTENT_QUOTA_BYTES,
      remaining_bytes: Math.max(0, CONTENT_QUOTA_BYTES - quotaUsed),
      used_pct: Math.round((quotaUsed / CONTENT_QUOTA_BYTES) * 10000) / 100,
    },
    fetched_at: Math.floor(now / 1000),
  };
}
