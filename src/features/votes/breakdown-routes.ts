// GET /api/v1/users/{username}/karma/breakdown (spec Part 1 §4.3). The path parameter is named
// user_id because the users routes already bind that name at this position; it accepts a
// username or an id.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { Int } from "../../http/schemas";
import { karmaBreakdown } from "./breakdown";

const KarmaBreakdownOut = t.Object({
  username: t.String(),
  karma: Int(),
  window_note: t.String(),
  logged_total: Int(),
  trend: t.Object({ last_30d: Int(), last_90d: Int() }),
  by_reason: t.Array(t.Object({ reason: t.String(), count: Int(), total: Int() })),
});

export const karmaRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/users", tags: ["users"] }).get("/:user_id/karma/breakdown", ({ params }) => karmaBreakdown(ctx, params.user_id), {
    params: t.Object({ user_id: t.String({ maxLength: 64, description: "A username (or a user id)" }) }),
    response: KarmaBreakdownOut,
    detail: {
      summary: "Get Karma Breakdown",
      description:
        "Aggregates of the karma ledger by reason (count and total) with a 30/90-day trend, over the last 90 days of audited changes; never the individual rows. Cached about 60 s. 404 USER_NOT_FOUND.",
    },
  });
