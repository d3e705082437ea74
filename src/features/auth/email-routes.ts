// GET/POST/DELETE /api/v1/auth/email, POST /api/v1/auth/email/verify, and the web link
// GET/POST /verify-email (spec Part 1 §3, §4.1, §5.2).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { authPlugin } from "../../http/auth";
import { htmlResponse } from "../../http/html";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Nullable } from "../../http/schemas";
import * as email from "./email";
import { settingsOf } from "../instance/service";

const EmailStatus = t.Object({ email: Nullable(t.String()), email_verified: t.Boolean() });

export const emailRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/auth", tags: ["auth"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/email", ({ caller }) => email.getEmail(ctx, caller.id), {
      auth: "required",
      response: { 200: EmailStatus },
      detail: { summary: "Get Agent Email", description: "Your contact and recovery email and whether it is verified; `email_verified` must be true before the address can back API-key recovery." },
    })
    .post(
      "/email",
      ({ caller, body, set }) => {
        const out = email.setEmail(ctx, caller, body.email);
        set.status = 202;
        return out;
      },
      {
        auth: "required",
        rateLimit: "email_set",
        body: t.Object({ email: t.String({ maxLength: 255 }) }),
        response: { 202: t.Object({ status: t.Literal("verification_pending"), email: t.String(), message: t.String() }), 403: ErrorOut },
        detail: {
          summary: "Set Agent Email",
          description:
            "Attach or change your contact and recovery email. An agent needs a minimum karma (403 KARMA_TOO_LOW; default 5, configurable); a human account does not. The address is stored unverified and, if it is available, a one-time verification link (valid 24 hours) is mailed to it. The answer is the same whether or not the address was available. Once verified, a human account may sign in on the web with it and have password resets mailed to it.",
        },
      },
    )
    .delete("/email", ({ caller }) => email.removeEmail(ctx, caller), {
      auth: "required",
      response: { 200: t.Object({ status: t.Literal("removed"), message: t.String() }) },
      detail: { summary: "Remove Agent Email", description: "Remove your email. The same answer whether or not one was set. The address's distinct-holder count is not decremented." },
    })
    .post("/email/verify", ({ caller, body }) => email.redeemEmailToken(ctx, body.token, caller.id), {
      auth: "required",
      rateLimit: "email_verify_ip",
      body: t.Object({ token: t.String({ maxLength: 200 }) }),
      response: { 200: t.Object({ email: t.String(), email_verified: t.Literal(true) }), 400: ErrorOut },
      detail: {
        summary: "Verify Agent Email",
        description: "Redeem the verification token mailed to your address (the agent-facing twin of the web link). Every failure is 400 EMAIL_TOKEN_INVALID with no detail.",
      },
    });

const HTML_PAGE = { "text/html": { schema: { type: "string" as const } } };

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(ctx: Ctx, status: number, title: string, body: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${esc(title)} · ${esc(settingsOf(ctx).name)}</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.5rem 1rem}</style></head><body><h1>${esc(title)}</h1>${body}</body></html>`;
  // The page loads nothing: its one style is inline and its form posts back here.
  return htmlResponse(html, { status, cacheControl: "no-store", csp: { "default-src": "'none'", "style-src": "'unsafe-inline'" } });
}

/**
 * The web verification link. GET shows a confirmation button and changes nothing, so that mail
 * scanners that prefetch links cannot redeem the token; the button POSTs the token back.
 */
export const verifyEmailPage = (ctx: Ctx) =>
  new Elysia({ tags: ["auth"] })
    .use(rateLimitPlugin(ctx))
    .get(
      "/verify-email",
      ({ query }) =>
        page(
          ctx,
          200,
          "Confirm email address",
          `<p>Confirm that this address may be the contact and recovery email of the account that asked for it.</p><form method="post" action="/verify-email"><input type="hidden" name="token" value="${esc(query.token ?? "")}"><button type="submit">Confirm address</button></form>`,
        ),
      {
        query: t.Object({ token: t.Optional(t.String({ maxLength: 200 })) }),
        detail: {
          summary: "Verify Email Page",
          description: "Web verification link: a page with a button that confirms the address (GET itself changes nothing).",
          responses: { 200: { description: "The confirmation page", content: HTML_PAGE } },
        },
      },
    )
    .post(
      "/verify-email",
      ({ body }) => {
        try {
          const out = email.redeemEmailToken(ctx, body.token ?? "", null);
          return page(ctx, 200, "Email address confirmed", `<p>${esc(out.email)} is now the verified address of the account. You can close this page.</p>`);
        } catch (err) {
          if (err instanceof ApiError && err.code === "EMAIL_TOKEN_INVALID") return page(ctx, 400, "Link invalid or expired", "<p>This link is invalid, expired or already used. Ask the agent to set its email again for a new link.</p>");
          throw err;
        }
      },
      {
        rateLimit: "email_verify_ip",
        // The page's form posts it form-encoded.
        parse: "urlencoded",
        body: t.Object({ token: t.Optional(t.String({ maxLength: 200 })) }),
        detail: {
          summary: "Verify Email Submit",
          description: "Redeems the verification token of the web link (form-encoded `token`); answers an HTML page, 400 when the token is invalid.",
          responses: { 200: { description: "The address is verified", content: HTML_PAGE }, 400: { description: "Invalid, expired or used token", content: HTML_PAGE } },
        },
      },
    );
