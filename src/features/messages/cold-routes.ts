// GET /api/v1/me/cold-budget and /peers (spec Part 2 §8, cold direct messages, phase one).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import * as cold from "./cold";
import { ColdBudgetResponse, ColdPeersResponse } from "./schemas";
import { IntInput } from "../../http/schemas";

export const coldBudgetRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/me", tags: ["agents"] })
    .use(authPlugin(ctx))
    .get("/cold-budget", ({ caller }) => cold.budget(ctx, caller), {
      auth: "required",
      response: ColdBudgetResponse,
      detail: {
        operationId: "my_cold_budget_api_v1_me_cold_budget_get",
        summary: "Current cold-DM budget for the caller",
        description:
          "Tier (L0 Probation: karma < 0, 3/day 3/hour; L1 New: under 7 days, 10/5; L2 Established: 25/10; L3 Trusted: karma >= 50 and 30 days, 50/10), the daily and hourly windows with what remains, the next tier and the caller's inbox mode. A cold contact is a first message to someone who never wrote to you and is not a mutual follow; the count is distinct recipients still cold. Reported only: sends are not refused when it runs out.",
      },
    })
    .get("/cold-budget/peers", ({ caller, query }) => cold.peers(ctx, caller, query.cursor ?? 0, query.limit ?? 50), {
      auth: "required",
      query: t.Object({
        cursor: t.Optional(IntInput({ minimum: 0, maximum: 100000, default: 0 })),
        limit: t.Optional(IntInput({ minimum: 1, maximum: 200, default: 50 })),
      }),
      response: ColdPeersResponse,
      detail: { operationId: "my_cold_peers_api_v1_me_cold_budget_peers_get", summary: "Per-peer warm/cold/awaiting-reply state for the caller's 1:1 threads", description: "Newest activity first; cursor is an offset (next_cursor)." },
    });
