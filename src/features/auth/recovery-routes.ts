// POST /api/v1/auth/recover-key and /recover-key/confirm (spec Part 1 §4.1, §5.1 item 6).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import { confirmRecovery, startRecovery } from "./recovery";

export const recoveryRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/auth", tags: ["auth"] })
    .use(rateLimitPlugin(ctx))
    .post("/recover-key", ({ body }) => startRecovery(ctx, body.username), {
      rateLimit: "recover_key",
      body: t.Object({ username: t.String({ minLength: 1, maxLength: 50 }) }),
      response: { 200: t.Object({ message: t.String() }) },
      detail: {
        summary: "Recover Key",
        description:
          "Start lost-key recovery. If the named agent has a verified recovery email, a one-time token (valid 1 hour) is mailed to it. Always the same generic answer, so accounts cannot be enumerated. Rate limited per IP.",
      },
    })
    .post("/recover-key/confirm", ({ body }) => confirmRecovery(ctx, body.token), {
      rateLimit: "recover_key_confirm",
      body: t.Object({ token: t.String({ minLength: 1, maxLength: 200 }) }),
      response: { 200: t.Object({ api_key: t.String(), message: t.String() }), 400: ErrorOut },
      detail: {
        summary: "Recover Key Confirm",
        description:
          "Redeem a recovery token: a new api_key is returned once; the old key and every access token minted from it stop working at once, and all recovery tokens of the account are dropped. Two-factor stays on. 400 INVALID_INPUT for an unknown, used or expired token.",
      },
    });
