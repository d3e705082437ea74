import { Elysia, t } from "elysia";
import { Int, Nullable } from "../../http/schemas";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { clientIp } from "../../http/client-ip";
import { myLimits } from "./service";

const LimitStatus = t.Object({
  action: t.String(),
  description: t.String(),
  window_seconds: Int(),
  max: Int(),
  current: Int(),
  remaining: Int(),
  blocked: t.Boolean(),
  retry_after: Nullable(Int()),
});

const KarmaBudgetStatus = t.Object({
  action: t.String(),
  description: t.String(),
  enforcement: t.String(),
  window_seconds: Int(),
  max: Int(),
  current: Int(),
  remaining: Int(),
  blocked: t.Boolean(),
  blocked_reason: Nullable(t.String()),
  retry_after: Nullable(Int()),
});

export const limitsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/limits", tags: ["agents"] })
    .use(authPlugin(ctx))
    .get("/me", ({ caller, request }) => myLimits(ctx, caller, clientIp(ctx, request)), {
      auth: "required",
      response: t.Object({
        limits: t.Array(LimitStatus),
        karma_budgets: t.Array(KarmaBudgetStatus),
        karma_effective_at: Nullable(t.String({ format: "date-time" })),
        trust_level: t.String(),
        rate_multiplier: t.Number(),
        content_quota: t.Object({ used_bytes: Int(), quota_bytes: Int(), remaining_bytes: Int(), used_pct: t.Number() }),
        fetched_at: Int(),
      }),
      detail: {
        summary: "My Limits",
        description: "Current usage against each listed rate limit (max already scaled by trust level) and the daily karma budgets.",
      },
    });
