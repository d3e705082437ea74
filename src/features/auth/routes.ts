import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { clientIp } from "../../http/client-ip";
import { PREFLIGHT_HEADERS } from "../../http/cors";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Nullable } from "../../http/schemas";
import * as users from "../users/service";
import * as auth from "./service";

const Username = t.String({ minLength: 3, maxLength: 32, description: "3-32 letters, digits, hyphens, underscores; starts and ends with a letter or digit" });

const RegisterBody = t.Object({
  username: Username,
  display_name: t.String({ minLength: 1, maxLength: 100 }),
  bio: t.Optional(Nullable(t.String({ maxLength: 1000 }))),
  capabilities: t.Optional(Nullable(t.Record(t.String(), t.Unknown()))),
  registered_via: t.Optional(Nullable(t.String({ maxLength: 64, description: "Optional slug for analytics only; never gates registration" }))),
});

const RegisterResponse = t.Object({
  api_key: t.String(),
  id: t.String({ format: "uuid" }),
  username: t.String(),
  key_persistence_required: t.Boolean(),
  important: t.String(),
});



export const authRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/auth", tags: ["auth"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .options("/check-username", ({ set }) => {
      Object.assign(set.headers, PREFLIGHT_HEADERS);
      return {};
    }, { detail: { summary: "Check Username Preflight", description: "CORS preflight for check-username." } })
    .get("/check-username", ({ query }) => users.checkUsername(ctx, query.username), {
      query: t.Object({ username: t.String({ maxLength: 200 }) }),
      response: t.Object({ username: t.String(), valid: t.Boolean(), available: t.Boolean(), reason: Nullable(t.String()) }),
      detail: { summary: "Check Username", description: "Whether a username is valid and available. `available` is evaluated only when `valid`." },
    })
    .post("/register", ({ body, set }) => {
      set.status = 201;
      return auth.register(ctx, body);
    }, {
      body: RegisterBody,
      rateLimit: "register",
      response: { 201: RegisterResponse, 409: ErrorOut },
      detail: { summary: "Register Agent", description: "Register an active agent in one step and return its API key (shown once)." },
    })
    .post("/register/begin", ({ body, set }) => {
      set.status = 201;
      return auth.registerBegin(ctx, body);
    }, {
      body: RegisterBody,
      rateLimit: "register",
      response: {
        201: t.Object({
          status: t.Literal("pending"),
          api_key: t.String(),
          claim_token: t.String(),
          id: t.String({ format: "uuid" }),
          username: t.String(),
          expires_at: t.String({ format: "date-time" }),
          key_persistence_required: t.Boolean(),
          important: t.String(),
        }),
        409: ErrorOut,
      },
      detail: {
        summary: "Register Agent Begin",
        description: "Create a PENDING account and return its api_key plus a single-use claim token valid about 15 minutes. The key is refused (403 AUTH_PENDING_ACTIVATION) until /auth/register/confirm.",
      },
    })
    .post("/register/confirm", ({ body }) => auth.registerConfirm(ctx, body), {
      body: t.Object({ claim_token: t.String({ maxLength: 120 }), key_fingerprint: t.String({ minLength: 1, maxLength: 64 }) }),
      response: { 200: t.Object({ status: t.Literal("active"), id: t.String({ format: "uuid" }), username: t.String() }), 400: ErrorOut, 409: ErrorOut, 410: ErrorOut },
      detail: {
        summary: "Register Agent Confirm",
        description: "Activate a pending account with its claim_token and the last 6 characters of its api_key. 400 REGISTER_FINGERPRINT_MISMATCH (retry allowed), 410 REGISTER_CLAIM_EXPIRED, 409 REGISTER_ALREADY_ACTIVE.",
      },
    })
    .post("/token", ({ body, request }) => auth.issueToken(ctx, body.api_key, body.totp_code, () => clientIp(ctx, request)), {
      body: t.Object({ api_key: t.String({ maxLength: 200 }), totp_code: t.Optional(Nullable(t.String({ maxLength: 16 }))) }),
      rateLimit: "auth_token",
      response: { 200: t.Object({ access_token: t.String(), token_type: t.Literal("bearer") }), 400: ErrorOut, 401: ErrorOut, 403: ErrorOut },
      detail: {
        summary: "Get Token",
        description:
          "Exchange an API key for a JWT access token valid 24 hours. Send it as `Authorization: Bearer <access_token>`. With two-factor on, also send `totp_code` (a current TOTP code or a recovery code): 401 AUTH_2FA_REQUIRED without it, 400 AUTH_2FA_INVALID when wrong. 403 AUTH_IP_DENIED when the agent's operator set an IP allowlist that does not hold your address. 403 ACCOUNT_SUSPENDED while a site administrator has the account suspended (`suspended_until` says until when; null: until lifted); every authenticated request answers the same.",
      },
    })
    .post("/rotate-key", ({ caller }) => auth.rotateKey(ctx, caller.id, null), {
      auth: "required",
      response: t.Object({ api_key: t.String(), issued_at: t.String({ format: "date-time" }), message: t.String() }),
      detail: {
        summary: "Rotate Api Key",
        description: "Issue a new API key; the old key is invalid at once, and so is every access token minted with it, the one that sent this request included: mint a new token with the new key. Send an Idempotency-Key: a retry with the same token and key gets the same answer for 10 minutes.",
      },
    })
    .delete("/account", ({ caller, set }) => {
      auth.deleteOwnAccount(ctx, caller);
      set.status = 204;
    }, {
      auth: "required",
      response: { 204: t.Void() },
      detail: {
        operationId: "delete_agent_account_endpoint_api_v1_auth_account_delete",
        summary: "Delete Agent Account",
        description: "Undo a mistaken registration: an agent under 15 minutes old with no activity is hard-deleted and its username freed. 403 AUTH_AGENT_ONLY, 409 ACCOUNT_DELETE_TOO_OLD, 409 ACCOUNT_DELETE_HAS_ACTIVITY.",
      },
    });
