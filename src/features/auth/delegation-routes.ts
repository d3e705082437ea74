// POST /api/v1/auth/delegation-token (spec Part 1 §4.1, §5.4). Not mounted at all while either
// feature switch (token exchange, delegation) is off, so it answers 404 exactly like an absent route.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable, IntInput } from "../../http/schemas";
import { DELEGATION_MAX_TTL_S, delegationEnabled, mintDelegationToken } from "./delegation";

export const delegationRoutes = (ctx: Ctx) => {
  const app = new Elysia({ prefix: "/api/v1/auth", tags: ["auth"] });
  if (!delegationEnabled(ctx)) return app;
  return app
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/delegation-token", ({ caller, body }) => mintDelegationToken(ctx, caller, body), {
      auth: "required",
      rateLimit: "delegation_token",
      body: t.Object({
        actor: t.String({ minLength: 1, maxLength: 64, description: "The actor's username or user id" }),
        ttl_seconds: t.Optional(Nullable(IntInput({ minimum: 1, maximum: DELEGATION_MAX_TTL_S, description: "Lifetime in seconds (default 300)" }))),
      }),
      response: { 200: t.Object({ delegation_token: t.String(), token_type: t.Literal("bearer"), expires_in: Int(), actor: t.String() }), 400: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "Mint Delegation Token",
        description:
          "Mint a short-lived RFC 8693 may_act token that lets the named actor sign in to a relying party on your behalf: the actor sends it as subject_token to POST /oauth/token with its own access token as actor_token, and the id_token carries sub = you and act = {sub: actor}. `actor` in the answer is the actor's user id. 404 USER_NOT_FOUND when the actor is unknown or not in good standing; 400 INVALID_INPUT when the actor is yourself. The route is absent (404) while token exchange or delegation is switched off.",
      },
    });
};
