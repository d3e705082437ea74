// The authorization endpoint of MCP clients' OAuth sign-in (docs/decisions.md §190) and the
// connected-clients settings. GET /oauth/authorize checks the request and shows the consent page;
// POST /oauth/authorize (the page's form, CSRF-checked by the sessions plugin) approves it for the
// signed-in person's own account or an agent they operate through a confirmed claim, or for an
// agent whose API key was pasted, and sends the browser back to the client with a one-time code.
import { Elysia, t } from "elysia";
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import { verifyKey } from "../features/auth/service";
import * as twoFactor from "../features/auth/two-factor";
import { confirmedOperatorOf, operatedAgentIds } from "../features/claims/service";
import {
  AUTHORIZE_PARAMS,
  approve,
  checkAuthorizationRequest,
  connectionsOf,
  redirectWith,
  revokeConnection,
  type AuthorizationRequest,
  type AuthorizeParams,
} from "../features/oauth/authorization";
import * as users from "../features/users/service";
import { contentSecurityPolicy } from "../http/html";
import { charge, rateLimitPlugin, subjectOf as limitSubject } from "../http/rate-limit";
import { messagePage } from "./account-pages";
import { refusedPage } from "./account-routes";
import { connectionsPage, consentPage, type Actor } from "./oauth-pages";
import { failure, field, isSignedIn, page, seeOther, toSignIn, webSession, type Web } from "./session";

const PAGE = { detail: { hide: true } };

/** A redirect URI as a CSP source: its origin, or a native app's scheme (`com.example.app:`). */
function redirectSource(uri: string): string {
  const u = new URL(uri);
  return u.protocol === "http:" || u.protocol === "https:" ? u.origin : u.protocol;
}
const FORM = { parse: "none" as const, detail: { hide: true } };
const MAX_PARAM = 2048;


export const oauthWebRoutes = (ctx: Ctx) => {
  /** The accounts a signed-in viewer may connect: their own (if in good standing) and the agents they operate. */
  function actorsOf(web: Web): Actor[] | null {
    if (!web.viewer) return null;
    const own = web.viewer.user;
    const list: Actor[] = users.isActive(own) ? [{ id: own.id, username: own.username, displayName: own.displayName, own: true }] : [];
    for (const id of operatedAgentIds(ctx, own.id)) {
      const agent = users.findById(ctx, id);
      if (agent && users.isActive(agent)) list.push({ id: agent.id, username: agent.username, displayName: agent.displayName, own: false });
    }
    return list;
  }

  function paramsOf(source: (name: string) => string | null | undefined): AuthorizeParams {
    const p: AuthorizeParams = {};
    for (const k of AUTHORIZE_PARAMS) {
      const v = source(k);
      if (typeof v === "string") p[k] = v.slice(0, MAX_PARAM);
    }
    return p;
  }

  const hereOf = (p: AuthorizeParams) => `/oauth/authorize?${new URLSearchParams(p as Record<string, string>).toString()}`;

  /**
   * The consent page. Its form posts here and is answered with a redirect to the client, which a
   * browser follows only if the page's `form-action` allows the client's origin (or app scheme) too.
   */
  function consent(web: Web, request: AuthorizationRequest, params: AuthorizeParams, status = 200, more: { error?: string; ticked?: string[] } = {}): Response {
    const owner = request.client.ownerId ? users.findById(ctx, request.client.ownerId) : null;
    const html = consentPage(web, { request, params, registeredBy: owner?.username ?? null, actors: actorsOf(web), here: hereOf(params), ...more });
    return page(web, html, status, { "content-security-policy": contentSecurityPolicy({ "form-action": `'self' ${redirectSource(request.redirectUri)}` }) });
  }

  /** The checked request, or the answer to a refused one: a page when the client cannot be told, else back to it. */
  function checked(web: Web, params: AuthorizeParams): AuthorizationRequest | Response {
    const c = checkAuthorizationRequest(ctx, params);
    if (c.ok) return c.request;
    if (c.redirect) return seeOther(web, c.redirect);
    return page(web, messagePage(web, "This sign-in cannot go on", `${c.description} Go back to the application and start again.`), 400);
  }

  /** The account the consent form names: a pasted API key's agent, or one the signed-in viewer may connect. */
  function subjectOf(web: Web): { userId: string; approvedBy: string } {
    const key = field(web, "api_key", 200).trim();
    if (key) {
      const user = verifyKey(ctx, key);
      if (twoFactor.isEnabled(ctx, user.id)) {
        const code = field(web, "totp_code", 32).trim();
        if (!code) throw new ApiError(401, "AUTH_2FA_REQUIRED", "This agent has two-factor authentication on: enter its current code too.");
        if (!twoFactor.checkCode(ctx, user.id, code)) throw new ApiError(400, "AUTH_2FA_INVALID", "That two-factor code did not work.");
      }
      if (!users.isActive(user)) throw new ApiError(403, "FORBIDDEN", "This account cannot connect a client now.");
      return { userId: user.id, approvedBy: user.id };
    }
    if (!isSignedIn(web)) throw new ApiError(401, "AUTH_REQUIRED", "Sign in, or paste the agent's API key.");
    const actAs = field(web, "act_as", 64);
    const viewer = web.viewer.user;
    const allowed = actAs === viewer.id ? users.isActive(viewer) : confirmedOperatorOf(ctx, actAs) === viewer.id && users.isActive(users.findById(ctx, actAs));
    if (!allowed) throw new ApiError(403, "FORBIDDEN", "Choose your own account or an agent you operate.");
    return { userId: actAs, approvedBy: viewer.id };
  }

  return new Elysia()
    .use(rateLimitPlugin(ctx))
    .use(webSession(ctx, refusedPage))
    .get(
      "/oauth/authorize",
      ({ web, request }) => {
        const query = new URL(request.url).searchParams;
        const params = paramsOf((k) => query.get(k));
        const request_ = checked(web, params);
        return request_ instanceof Response ? request_ : consent(web, request_, params);
      },
      PAGE,
    )
    .post(
      "/oauth/authorize",
      ({ web, request }) => {
        const params = paramsOf((k) => web.form.get(k));
        const checkedRequest = checked(web, params);
        if (checkedRequest instanceof Response) return checkedRequest;
        const ticked = web.form.getAll("grant");
        if (web.form.get("decision") !== "allow") {
          return seeOther(web, redirectWith(ctx, checkedRequest.redirectUri, { error: "access_denied", error_description: "The person declined", state: checkedRequest.state }));
        }
        try {
          // Pasted keys are charged as the API's key exchange is, per address.
          if (web.form.get("api_key")) charge(ctx, request, limitSubject(null, web.client.ip), ["auth_token"]);
          const { userId, approvedBy } = subjectOf(web);
          const scopes = checkedRequest.scopes.filter((s) => s === "read" || ticked.includes(s));
          return seeOther(web, approve(ctx, checkedRequest, userId, approvedBy, scopes));
        } catch (err) {
          const f = failure(err);
          return consent(web, checkedRequest, params, f.status, { error: f.message, ticked });
        }
      },
      FORM,
    )
    .get(
      "/settings/connections",
      ({ web, query }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/settings/connections");
        const name = (id: string) => users.findById(ctx, id)?.username ?? "deleted";
        const connections = connectionsOf(ctx, web.viewer.user.id).map((c) => ({ ...c, actingAs: name(c.userId), approver: name(c.approvedBy) }));
        const notice = query.notice === "revoked" ? "The client was signed out." : null;
        return page(web, connectionsPage(web, { connections, viewerId: web.viewer.user.id, notice }));
      },
      { query: t.Object({ notice: t.Optional(t.String()) }), ...PAGE },
    )
    .post(
      "/settings/connections/:id/revoke",
      ({ web, params }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/settings/connections");
        if (!revokeConnection(ctx, web.viewer.user.id, params.id)) return page(web, messagePage(web, "Not found", "No such connected client."), 404);
        return seeOther(web, "/settings/connections?notice=revoked");
      },
      { params: t.Object({ id: t.String({ maxLength: 64 }) }), ...FORM },
    );
};
