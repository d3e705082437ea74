// The signed-in person's settings: /settings/account (password, email, where they are signed in)
// and /settings/security (two-factor authentication through the same service as the API's
// /auth/2fa routes). Anonymous visitors are sent to sign in first.
import { Elysia, t } from "elysia";
import type { Ctx } from "../core/context";
import * as email from "../features/auth/email";
import * as twoFactor from "../features/auth/two-factor";
import { changePassword } from "../features/sessions/account";
import { hasPassword } from "../features/sessions/passwords";
import { listSessions, revokeAllSessions, revokeSession } from "../features/sessions/service";
import { charge, rateLimitPlugin, subjectOf } from "../http/rate-limit";
import { accountPage, noticeText, securityPage, type SecurityView } from "./account-pages";
import { refusedPage } from "./account-routes";
import { clearedSessionCookie, failure, field, isSignedIn, page, seeOther, toSignIn, webSession, type SignedInWeb } from "./session";

const PAGE = { detail: { hide: true } };
const FORM = { parse: "none" as const, detail: { hide: true } };
const NoticeQuery = t.Object({ notice: t.Optional(t.String()) });

/** Two-factor's refusals in a person's words (the service's speak to API clients). */
const CODE_REFUSED = "That code did not work. Enter the code your app shows now; if setting up took more than 10 minutes, start again.";

export const settingsRoutes = (ctx: Ctx) => {
  const signIn = toSignIn;

  function account(web: SignedInWeb, status = 200, more: { error?: string | null; notice?: string | null } = {}, headers: Record<string, string> = {}): Response {
    const id = web.viewer.user.id;
    const view = { hasPassword: hasPassword(ctx, id), email: email.getEmail(ctx, id), sessions: listSessions(ctx, id), ...more };
    return page(web, accountPage(web, view), status, headers);
  }

  function security(web: SignedInWeb, status = 200, more: Partial<SecurityView> = {}, headers: Record<string, string> = {}): Response {
    const s = twoFactor.status(ctx, web.viewer.user.id);
    return page(web, securityPage(web, { enabled: s.enabled, remaining: s.recovery_codes_remaining, ...more }), status, headers);
  }

  /** A refused account form: the account page again with the message and status. */
  const accountRefused = (web: SignedInWeb, err: unknown) => {
    const f = failure(err);
    return account(web, f.status, { error: f.message }, f.headers);
  };

  return new Elysia()
    .use(rateLimitPlugin(ctx))
    .use(webSession(ctx, refusedPage))
    .get("/settings/account", ({ web, query }) => (isSignedIn(web) ? account(web, 200, { notice: noticeText(query.notice) }) : signIn(web, "/settings/account")), { query: NoticeQuery, ...PAGE })
    .post(
      "/settings/account/password",
      async ({ web }) => {
        if (!isSignedIn(web)) return signIn(web, "/settings/account");
        try {
          await changePassword(ctx, web.viewer.caller, { current: field(web, "current", 1024), password: field(web, "password", 1024) }, web.viewer.sessionId);
          return seeOther(web, "/settings/account?notice=password-changed");
        } catch (err) {
          return accountRefused(web, err);
        }
      },
      FORM,
    )
    .post(
      "/settings/account/email",
      ({ web, request }) => {
        if (!isSignedIn(web)) return signIn(web, "/settings/account");
        try {
          // Each change mails a link: the API route's limit, charged to the same account.
          charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["email_set"]);
          email.setEmail(ctx, web.viewer.caller, field(web, "email", 255));
          return seeOther(web, "/settings/account?notice=email-sent");
        } catch (err) {
          return accountRefused(web, err);
        }
      },
      FORM,
    )
    .post(
      "/settings/account/sessions/:id/revoke",
      ({ web, params }) => {
        if (!isSignedIn(web)) return signIn(web, "/settings/account");
        try {
          revokeSession(ctx, web.viewer.user.id, params.id);
        } catch (err) {
          return accountRefused(web, err);
        }
        if (params.id === web.viewer.sessionId) return seeOther(web, "/login?notice=signed-out", [clearedSessionCookie(ctx)]);
        return seeOther(web, "/settings/account?notice=session-ended");
      },
      { params: t.Object({ id: t.String() }), ...FORM },
    )
    .post(
      "/settings/account/sessions/revoke-all",
      ({ web }) => {
        if (!isSignedIn(web)) return signIn(web, "/settings/account");
        revokeAllSessions(ctx, web.viewer.user.id);
        return seeOther(web, "/login?notice=signed-out-everywhere", [clearedSessionCookie(ctx)]);
      },
      FORM,
    )
    .get("/settings/security", ({ web, query }) => (isSignedIn(web) ? security(web, 200, { notice: noticeText(query.notice) }) : signIn(web, "/settings/security")), { query: NoticeQuery, ...PAGE })
    .post(
      "/settings/security/2fa/enroll",
      ({ web }) => {
        if (!isSignedIn(web)) return signIn(web, "/settings/security");
        try {
          // The key is shown on this answer (never stored until confirmed), so no redirect.
          return security(web, 200, { enrolment: twoFactor.enroll(ctx, web.viewer.caller) });
        } catch (err) {
          const f = failure(err);
          return security(web, f.status, { error: f.message }, f.headers);
        }
      },
      FORM,
    )
    .post(
      "/settings/security/2fa/confirm",
      ({ web }) => {
        if (!isSignedIn(web)) return signIn(web, "/settings/security");
        let enrolment = { secret: "", otpauth_uri: "", ticket: "" };
        try {
          enrolment = { secret: field(web, "secret", 128), otpauth_uri: field(web, "otpauth_uri", 512), ticket: field(web, "ticket", 256) };
          const out = twoFactor.confirm(ctx, web.viewer.caller, { secret: enrolment.secret, ticket: enrolment.ticket, code: field(web, "code", 64) });
          // The recovery codes are shown on this answer, once.
          return security(web, 200, { codes: out.recovery_codes, notice: "Two-factor authentication is on." });
        } catch (err) {
          const f = failure(err);
          const again = (err as { code?: string }).code === "AUTH_2FA_INVALID" && enrolment.secret;
          return security(web, f.status, { error: again ? CODE_REFUSED : f.message, enrolment: again ? enrolment : null }, f.headers);
        }
      },
      FORM,
    )
    .post(
      "/settings/security/2fa/disable",
      ({ web }) => {
        if (!isSignedIn(web)) return signIn(web, "/settings/security");
        try {
          twoFactor.disable(ctx, web.viewer.caller, field(web, "code", 64));
          return seeOther(web, "/settings/security?notice=2fa-off");
        } catch (err) {
          const f = failure(err);
          return security(web, f.status, { error: f.status === 400 ? CODE_REFUSED : f.message }, f.headers);
        }
      },
      FORM,
    )
    .post(
      "/settings/security/2fa/recovery-codes",
      ({ web }) => {
        if (!isSignedIn(web)) return signIn(web, "/settings/security");
        try {
          const out = twoFactor.regenerate(ctx, web.viewer.caller, field(web, "code", 64));
          return security(web, 200, { codes: out.recovery_codes, notice: "New recovery codes made; the old ones no longer work." });
        } catch (err) {
          const f = failure(err);
          return security(web, f.status, { error: f.status === 400 ? CODE_REFUSED : f.message }, f.headers);
        }
      },
      FORM,
    );
};
