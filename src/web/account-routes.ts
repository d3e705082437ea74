// The pages of signing up, in and out: /signup, /login (the password step, the second-factor
// step, a link by email), /login/link/<token>, /logout, /reset and /reset/<token>. Each handler
// reads its form, calls one service of features/sessions and answers a page, or a 303 after a
// success (post/redirect/get); a refusal shows the form again with the service's message and
// status. The sessions plugin has checked every POST's origin and CSRF token before.
import { Elysia, t } from "elysia";
import type { Ctx } from "../core/context";
import { registrationMode } from "../features/instance/service";
import { resetLinkUsable, resetPassword, signUp } from "../features/sessions/account";
import { mailReachesPeople, mailSignInLink } from "../features/sessions/links";
import { hasPassword } from "../features/sessions/passwords";
import { revokeSession } from "../features/sessions/service";
import { peekSignInLink, redeemSignInLink, signInSecondFactor, signInWithPassword, type SignIn } from "../features/sessions/sign-in";
import { invalidLinkPage, messagePage, noticeText, resetFormPage, resetRequestPage, secondFactorPage, signInLinkPage, signInPage, signUpPage, type SignUpValues } from "./account-pages";
import { clearedSessionCookie, failure, field, page, safeNext, seeOther, sessionCookie, webSession, type Web } from "./session";

/** Web pages are not part of the API's OpenAPI document. */
const PAGE = { detail: { hide: true } };
/** Forms are read (and checked) by the sessions plugin, not by Elysia's parser. */
const FORM = { parse: "none" as const, detail: { hide: true } };
const Token = t.Object({ token: t.String() });
const NoticeQuery = t.Object({ notice: t.Optional(t.String()), next: t.Optional(t.String()), invite: t.Optional(t.String()) });

const TITLES: Record<number, string> = { 403: "Not allowed", 413: "Too large", 415: "Not a form" };

/** The page of a request the sessions plugin refused. */
export const refusedPage = (web: Web, status: number, message: string) => page(web, messagePage(web, TITLES[status] ?? "Refused", message), status);

const invalidLink = (web: Web, kind: "sign-in" | "reset") => page(web, invalidLinkPage(web, kind), 400);

export const accountRoutes = (ctx: Ctx) => {
  const signInOptions = () => ({ emailLinks: mailReachesPeople(ctx), signUp: registrationMode(ctx) !== "closed" });

  /** Where a sign-in goes next: the session's cookie and `next`, or the second-factor step. */
  function signedIn(web: Web, r: SignIn, next: string): Response {
    if (r.kind === "second_factor") return page(web, secondFactorPage(web, { ticket: r.ticket, next }));
    // Signing in as someone ends the session this browser had.
    if (web.viewer) revokeSessionQuietly(web);
    return seeOther(web, next, [sessionCookie(ctx, r.token)]);
  }

  function revokeSessionQuietly(web: Web): void {
    try {
      revokeSession(ctx, web.viewer!.user.id, web.viewer!.sessionId);
    } catch {
      // Already signed out.
    }
  }

  return new Elysia()
    .use(webSession(ctx, refusedPage))
    .get(
      "/signup",
      ({ web, query }) => (web.viewer ? seeOther(web, "/settings/account") : page(web, signUpPage(web, { mode: registrationMode(ctx), values: { invite: query.invite?.slice(0, 100) } }))),
      { query: NoticeQuery, ...PAGE },
    )
    .post(
      "/signup",
      async ({ web }) => {
        if (web.viewer) return seeOther(web, "/settings/account");
        let values: SignUpValues = {};
        try {
          const sent = { username: field(web, "username", 64), display_name: field(web, "display_name", 200), email: field(web, "email", 255), invite: field(web, "invite", 100) };
          values = sent;
          const r = await signUp(ctx, { ...sent, password: field(web, "password", 1024) }, web.client);
          return seeOther(web, "/settings/account?notice=welcome", [sessionCookie(ctx, r.token)]);
        } catch (err) {
          const f = failure(err);
          return page(web, signUpPage(web, { mode: registrationMode(ctx), values, error: f.message }), f.status, f.headers);
        }
      },
      FORM,
    )
    .get(
      "/login",
      ({ web, query }) => {
        const next = safeNext(query.next);
        if (web.viewer) return seeOther(web, next);
        return page(web, signInPage(web, { next, notice: noticeText(query.notice), ...signInOptions() }));
      },
      { query: NoticeQuery, ...PAGE },
    )
    .post(
      "/login",
      async ({ web }) => {
        const next = safeNext(web.form.get("next"));
        if (web.viewer) return seeOther(web, next);
        let login = "";
        try {
          login = field(web, "login", 255);
          return signedIn(web, await signInWithPassword(ctx, { login, password: field(web, "password", 1024) }, web.client), next);
        } catch (err) {
          const f = failure(err);
          return page(web, signInPage(web, { next, login, error: f.message, ...signInOptions() }), f.status, f.headers);
        }
      },
      FORM,
    )
    .post(
      "/login/second-factor",
      ({ web }) => {
        const next = safeNext(web.form.get("next"));
        const ticket = web.form.get("ticket") ?? "";
        try {
          return signedIn(web, signInSecondFactor(ctx, { ticket, code: field(web, "code", 64) }, web.client), next);
        } catch (err) {
          const f = failure(err);
          const restart = (err as { code?: string }).code === "SIGN_IN_EXPIRED";
          const html = restart ? signInPage(web, { next, error: f.message, ...signInOptions() }) : secondFactorPage(web, { ticket, next, error: f.message });
          return page(web, html, f.status, f.headers);
        }
      },
      FORM,
    )
    .post(
      "/login/email-link",
      ({ web }) => {
        let login = "";
        try {
          login = field(web, "login", 255);
          mailSignInLink(ctx, "magic", login, web.client.ip);
          return seeOther(web, "/login?notice=link-sent");
        } catch (err) {
          const f = failure(err);
          return page(web, signInPage(web, { next: "/", login, error: f.message, ...signInOptions() }), f.status, f.headers);
        }
      },
      FORM,
    )
    .get(
      "/login/link/:token",
      ({ web, params }) => {
        const live = peekSignInLink(ctx, params.token);
        if (!live) return invalidLink(web, "sign-in");
        return page(web, signInLinkPage(web, { token: params.token, username: live.user.username, operator: live.purpose === "operator" }));
      },
      { params: Token, ...PAGE },
    )
    .post(
      "/login/link/:token",
      ({ web, params }) => {
        try {
          const r = redeemSignInLink(ctx, params.token, web.client);
          const next = r.kind === "signed_in" && r.purpose === "operator" && !hasPassword(ctx, r.user.id) ? "/settings/account?notice=set-password" : "/";
          return signedIn(web, r, next);
        } catch (err) {
          const f = failure(err);
          if (f.status === 400) return invalidLink(web, "sign-in");
          const title = (err as { code?: string }).code === "ACCOUNT_SUSPENDED" ? "Account suspended" : "Try again later";
          return page(web, messagePage(web, title, f.message), f.status, f.headers);
        }
      },
      { params: Token, ...FORM },
    )
    .post(
      "/logout",
      ({ web }) => {
        if (web.viewer) revokeSessionQuietly(web);
        return seeOther(web, "/login?notice=signed-out", web.viewer ? [clearedSessionCookie(ctx)] : []);
      },
      FORM,
    )
    .get("/reset", ({ web, query }) => page(web, resetRequestPage(web, { notice: noticeText(query.notice), mail: mailReachesPeople(ctx) })), { query: NoticeQuery, ...PAGE })
    .post(
      "/reset",
      ({ web }) => {
        try {
          mailSignInLink(ctx, "reset", field(web, "login", 255), web.client.ip);
          return seeOther(web, "/reset?notice=reset-sent");
        } catch (err) {
          const f = failure(err);
          return page(web, resetRequestPage(web, { error: f.message, mail: mailReachesPeople(ctx) }), f.status, f.headers);
        }
      },
      FORM,
    )
    .get(
      "/reset/:token",
      ({ web, params }) => (resetLinkUsable(ctx, params.token) ? page(web, resetFormPage(web, { token: params.token })) : invalidLink(web, "reset")),
      { params: Token, ...PAGE },
    )
    .post(
      "/reset/:token",
      async ({ web, params }) => {
        try {
          const user = await resetPassword(ctx, params.token, field(web, "password", 1024), web.client);
          // Every session of the account ended, this browser's too if it was signed in to it.
          return seeOther(web, "/login?notice=password-reset", web.viewer?.user.id === user.id ? [clearedSessionCookie(ctx)] : []);
        } catch (err) {
          const f = failure(err);
          if (f.status === 400) return invalidLink(web, "reset");
          return page(web, resetFormPage(web, { token: params.token, error: f.message }), f.status, f.headers);
        }
      },
      { params: Token, ...FORM },
    );
};
