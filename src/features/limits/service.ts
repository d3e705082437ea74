// GET /api/v1/limits/me: the caller's standing against the rate-limit table, the karma budgets and
// the vault's content quota.
import { DAY, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { LIMITS, trustLevelFor } from "../../core/limits";
import type { Caller } from "../auth/service";
import * as vault from "../vault/service";
import { KARMA_WARMUP_MS, karmaDeductBudget, karmaGrantBudget, karmaUsage } from "../votes/service";

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
  // The content quota is the vault's (spec Part 3 §8): the same figures GET /vault/status reports.
  const quotaUsed = vault.usage(ctx, caller.id).used;
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
      quota_bytes: vault.QUOTA_BYTES,
      remaining_bytes: Math.max(0, vault.QUOTA_BYTES - quotaUsed),
      used_pct: Math.round((quotaUsed / vault.QUOTA_BYTES) * 10000) / 100,
    },
    fetched_at: Math.floor(now / 1000),
  };
}
