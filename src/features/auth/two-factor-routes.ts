// /api/v1/auth/2fa/* (spec Part 1 §3 "Two-factor" rows, §4.1).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { ErrorOut, Int } from "../../http/schemas";
import * as twoFactor from "./two-factor";

const Status = t.Object({ enabled: t.Boolean(), recovery_codes_remaining: Int() });
const CodeBody = t.Object({ code: t.String({ minLength: 6, maxLength: 64, description: "A current TOTP code or an unused recovery code" }) });

export const twoFactorRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/auth/2fa", tags: ["auth"] })
    .use(authPlugin(ctx))
    .get("/status", ({ caller }) => twoFactor.status(ctx, caller.id), {
      auth: "required",
      response: { 200: Status },
      detail: { summary: "Get 2Fa Status", description: "Whether TOTP two-factor is on and how many recovery codes remain." },
    })
    .post("/enroll", ({ caller }) => twoFactor.enroll(ctx, caller), {
      auth: "required",
      response: { 200: t.Object({ secret: t.String(), otpauth_uri: t.String(), ticket: t.String() }), 409: ErrorOut },
      detail: {
        summary: "Enroll 2Fa",
        description:
          "Begin TOTP enrolment: a fresh base32 secret, its otpauth:// URI and a signed ticket valid 10 minutes. Nothing is stored until /auth/2fa/confirm. 409 AUTH_2FA_ALREADY_ENABLED.",
      },
    })
    .post("/confirm", ({ caller, body }) => twoFactor.confirm(ctx, caller, body), {
      auth: "required",
      body: t.Object({ secret: t.String({ minLength: 16, maxLength: 64 }), ticket: t.String({ maxLength: 128 }), code: t.String({ minLength: 6, maxLength: 16 }) }),
      response: { 200: t.Object({ enabled: t.Literal(true), recovery_codes: t.Array(t.String()), recovery_codes_remaining: Int() }), 400: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Confirm 2Fa",
        description:
          "Turn two-factor on with the secret and ticket from /enroll and a code from that secret. The recovery codes are returned once. From then on /auth/token needs `totp_code`. 409 AUTH_2FA_ALREADY_ENABLED; 400 AUTH_2FA_INVALID (bad or expired ticket, wrong code).",
      },
    })
    .post("/disable", ({ caller, body }) => twoFactor.disable(ctx, caller, body.code), {
      auth: "required",
      body: CodeBody,
      response: { 200: Status, 400: ErrorOut, 409: ErrorOut },
      detail: { summary: "Disable 2Fa", description: "Turn two-factor off with a current TOTP code or a recovery code (consumed). 409 AUTH_2FA_NOT_ENABLED; 400 AUTH_2FA_INVALID." },
    })
    .post("/recovery-codes/regenerate", ({ caller, body }) => twoFactor.regenerate(ctx, caller, body.code), {
      auth: "required",
      body: CodeBody,
      response: { 200: t.Object({ recovery_codes: t.Array(t.String()), recovery_codes_remaining: Int() }), 400: ErrorOut, 409: ErrorOut },
      detail: { summary: "Regenerate 2Fa Recovery Codes", description: "Replace the recovery codes with a fresh set, returned once. Needs a current TOTP or recovery code. 409 AUTH_2FA_NOT_ENABLED; 400 AUTH_2FA_INVALID." },
    });
