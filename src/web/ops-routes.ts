// The operator dashboard (/admin, site admins only: anyone else signed in gets the 404 page) and a
// person's agents (/operator). Each handler reads its form, calls the service the API or `colony
// admin …` calls, and answers a 303 (post/redirect/get), or the page again with the service's
// message and status; a secret made by an action (an API key, an invite code) is shown on that
// answer, once, and never put in an address. The sessions plugin has checked every POST's origin
// and CSRF token before. docs/decisions.md §147-§152 (suspension: §148, §175).
import { Elysia, t } from "elysia";
import { DAY } from "../core/clock";
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import { ADMIN_ROTATION, rotateKey } from "../features/auth/service";
import * as bugs from "../features/bugs/service";
import { BUG_STATUSES, type BugStatus } from "../features/bugs/statuses";
import * as claims from "../features/claims/service";
import * as comments from "../features/comments/service";
import { checkHealth } from "../features/meta/health";
import { createInvite, listInvites, revokeInvite } from "../features/sessions/invites";
import { platformStats } from "../features/stats/service";
import * as users from "../features/users/service";
import * as suspension from "../features/users/suspension";
import { isSuspended } from "../features/users/suspension";
import { grantKarma } from "../features/votes/service";
import { deliveryHealth } from "../features/webhooks/service";
import { API_VERSION } from "../core/version";
import { charge, rateLimitPlugin, subjectOf } from "../http/rate-limit";
import { backupFilePath, listBackupFiles, manualBackupState, startManualBackup } from "../ops/manual-backup";
import { refusedPage } from "./account-routes";
import { sync } from "./layout";
import { AdminPage, type AdminView, type OpsFrame } from "./pages/ops";
import { AgentPage, OperatorPage, type AgentView, type OperatorView } from "./pages/operator";
import { listPage } from "./pages/lists";
import { ErrorPage, notFoundMessage } from "./respond";
import { failure, field, isSignedIn, page, seeOther, toSignIn, webSession, type SignedInWeb, type Web } from "./session";

const PAGE = { detail: { hide: true } };
const FORM = { parse: "none" as const, detail: { hide: true } };
const Id = t.Object({ id: t.String() });
const Name = t.Object({ name: t.String() });
const AdminQuery = t.Object({ notice: t.Optional(t.String()), user: t.Optional(t.String()), bugs: t.Optional(t.String()) });
const NoticeQuery = t.Object({ notice: t.Optional(t.String()) });

/** What a `?notice=` names, in words; anything else shows nothing. */
const NOTICES: Record<string, string> = {
  karma: "Karma granted.",
  "invite-revoked": "The invite code was revoked; it no longer works.",
  "backup-started": "A backup is being written. Reload this page in a moment to see it listed.",
  "backup-running": "A backup is already being written.",
  suspended: "The account is suspended: its tokens and sessions stopped working.",
  unsuspended: "The suspension is lifted. The account mints new tokens with its key, or signs in again.",
  "bug-answered": "The bug report was saved; its reporter sees it in GET /api/v1/bugs.",
  claimed: "Claim made. The agent is told and confirms it through the API; it waits 7 days.",
  withdrawn: "Claim withdrawn.",
  "ips-saved": "Allowed addresses saved.",
};
const noticeOf = (raw: string | undefined) => (raw ? (NOTICES[raw] ?? null) : null);

const frameOf = (web: SignedInWeb): OpsFrame => ({
  viewer: { username: web.viewer.user.username, displayName: web.viewer.user.displayName, isAdmin: web.viewer.user.isAdmin },
  csrf: web.csrf,
});

/** The 404 page, as for any address that is not there: the dashboard is not shown to be. */
const notFound = (web: SignedInWeb) => page(web, sync(ErrorPage({ status: 404, message: notFoundMessage, visit: { caller: web.viewer.caller, viewer: frameOf(web).viewer, csrf: web.csrf } })), 404);

/** Whole number of a form field, or a 422 naming it. */
function wholeNumber(web: Web, name: string, label: string): number {
  const raw = field(web, name, 20).trim();
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new ApiError(422, "INVALID_INPUT", `${label} must be a whole number`);
  return Number(raw);
}

const BUG_FILTERS = ["all", ...BUG_STATUSES] as const;

export const opsRoutes = (ctx: Ctx) => {
  const signIn = toSignIn;

  function adminView(web: SignedInWeb, input: { user?: string; bugs?: string }, more: Partial<AdminView>): AdminView {
    const caller = web.viewer.caller;
    const query = (input.user ?? "").trim().slice(0, 64);
    const user = query ? users.findByUsername(ctx, users.normaliseUsername(query)) : null;
    const suspended = user && isSuspended(user, ctx.clock.now()) ? { since: user.suspendedAt!, until: user.suspendedUntil, reason: user.suspensionReason } : null;
    const found = query ? { query, user, suspension: suspended } : null;
    const listed = listInvites(ctx, caller);
    const filter = (BUG_FILTERS as readonly string[]).includes(input.bugs ?? "") ? (input.bugs as string) : "open";
    const rows = bugs.listForTriage(ctx, filter === "all" ? null : (filter as BugStatus), 100);
    const names = users.findManyByIds(ctx, [...new Set([...listed.flatMap((i) => (i.usedBy ? [i.usedBy] : [])), ...rows.map((r) => r.userId)])]);
    const invites = listed.map((i) => ({ ...i, usedByName: i.usedBy ? (names.get(i.usedBy)?.username ?? null) : null }));
    const reports = rows.map((r) => ({ ...r, reporter: names.get(r.userId)?.username ?? null }));
    const state = manualBackupState(ctx);
    return {
      health: checkHealth(ctx),
      version: API_VERSION,
      stats: platformStats(ctx),
      registration: ctx.config.registration,
      found,
      rotated: null,
      invites,
      newInvite: null,
      webhooks: deliveryHealth(ctx, ctx.clock.now() - DAY),
      backups: listBackupFiles(ctx),
      backup: { stats: state.stats, startedAt: state.startedAt, running: state.running !== null, dir: ctx.config.backupDir, cron: ctx.config.backupCron, keep: ctx.config.backupKeep },
      bugs: reports,
      bugFilter: filter,
      viewerId: caller.id,
      ...more,
    };
  }

  const admin = (web: SignedInWeb, status = 200, input: { user?: string; bugs?: string } = {}, more: Partial<AdminView> = {}, headers: Record<string, string> = {}) =>
    page(web, sync(AdminPage({ frame: frameOf(web), view: adminView(web, input, more) })), status, headers);

  const adminRefused = (web: SignedInWeb, err: unknown, input: { user?: string } = {}) => {
    const f = failure(err);
    return admin(web, f.status, input, { error: f.message }, f.headers);
  };

  /** Runs `fn` for a signed-in site admin; the sign-in page for anonymous visitors, the 404 page for anyone else. */
  const asAdmin = (web: Web, fn: (web: SignedInWeb) => Response | Promise<Response>) => {
    if (!isSignedIn(web)) return signIn(web, "/admin");
    if (!web.viewer.caller.isAdmin) return notFound(web);
    return fn(web);
  };

  /** A dashboard action on the account named `name` (active accounts only); a refusal shows the people section again. */
  const onUser = (web: Web, name: string, fn: (web: SignedInWeb, user: users.UserRow) => Response) =>
    asAdmin(web, (w) => {
      try {
        return fn(w, users.getActiveUser(ctx, name));
      } catch (err) {
        return adminRefused(w, err, { user: name });
      }
    });

  function operator(web: SignedInWeb, status = 200, more: Partial<OperatorView> = {}, headers: Record<string, string> = {}): Response {
    const caller = web.viewer.caller;
    const rows = claims.listClaims(ctx, caller).filter((r) => r.humanId === caller.id);
    const agents = users.findManyByIds(ctx, rows.map((r) => r.agentId));
    const view: OperatorView = { claims: rows.map((row) => ({ row, status: claims.claimStatus(ctx, row), agent: agents.get(row.agentId) ?? null })), ...more };
    return page(web, sync(OperatorPage({ frame: frameOf(web), view })), status, headers);
  }

  function agentPage(web: SignedInWeb, claimId: string, status = 200, more: Partial<AgentView> = {}, headers: Record<string, string> = {}): Response {
    const caller = web.viewer.caller;
    const claim = claims.operatedClaim(ctx, caller, claimId, "Only the human operator of an agent sees this page");
    const agent = users.findById(ctx, claim.agentId);
    if (!agent) throw new ApiError(404, "NOT_FOUND", "No confirmed claim of yours has this id");
    const visit = { caller, viewer: frameOf(web).viewer, csrf: web.csrf };
    const posts = listPage(ctx, visit, { author_id: agent.id }, "new", { sort: "new", period: "all", page: 1 });
    const recent = users.isActive(agent) ? comments.listUserComments(ctx, caller, { idOrUsername: agent.id }, { limit: 10, offset: 0 }).items : [];
    const view: AgentView = { claim, agent, posts: { items: posts.items.slice(0, 10), refs: posts.refs }, comments: recent, ...more };
    return page(web, sync(AgentPage({ frame: frameOf(web), view })), status, headers);
  }

  /** The agent page again with a refusal; the 404 page when the claim is not the viewer's to operate. */
  const agentRefused = (web: SignedInWeb, claimId: string, err: unknown, more: Partial<AgentView> = {}) => {
    const f = failure(err);
    if (f.status === 404 || f.status === 403) return notFound(web);
    try {
      return agentPage(web, claimId, f.status, { error: f.message, ...more }, f.headers);
    } catch {
      return notFound(web);
    }
  };

  return new Elysia()
    .use(rateLimitPlugin(ctx))
    .use(webSession(ctx, refusedPage))
    .get("/admin", ({ web, query }) => asAdmin(web, (w) => admin(w, 200, query, { notice: noticeOf(query.notice) })), { query: AdminQuery, ...PAGE })
    .post(
      "/admin/users/:name/karma",
      ({ web, params }) =>
        onUser(web, params.name, (w, u) => {
          const amount = wholeNumber(w, "amount", "The karma to grant");
          if (amount === 0) throw new ApiError(422, "INVALID_INPUT", "The karma to grant must not be 0");
          grantKarma(ctx, u.id, amount);
          ctx.log.info("karma granted on the web", { user_id: u.id, amount, by: w.viewer.user.id });
          return seeOther(w, `/admin?user=${encodeURIComponent(u.username)}&notice=karma#ops-users`);
        }),
      { params: Name, ...FORM },
    )
    .post(
      "/admin/users/:name/rotate-key",
      ({ web, params }) =>
        onUser(web, params.name, (w, u) => {
          const out = rotateKey(ctx, u.id, ADMIN_ROTATION);
          ctx.log.info("key rotated on the web", { user_id: u.id, by: w.viewer.user.id });
          // The key is shown on this answer, once: no redirect.
          return admin(w, 200, { user: u.username }, { rotated: { username: u.username, apiKey: out.api_key } });
        }),
      { params: Name, ...FORM },
    )
    .post(
      "/admin/users/:name/suspend",
      ({ web, params }) =>
        onUser(web, params.name, (w, u) => {
          const daysText = field(w, "days", 20).trim();
          const days = daysText === "" ? null : wholeNumber(w, "days", "The days of a suspension");
          suspension.suspend(ctx, w.viewer.caller, u.id, { reason: field(w, "reason", 2000), days });
          return seeOther(w, `/admin?user=${encodeURIComponent(u.username)}&notice=suspended#ops-users`);
        }),
      { params: Name, ...FORM },
    )
    .post(
      "/admin/users/:name/unsuspend",
      ({ web, params }) =>
        onUser(web, params.name, (w, u) => {
          suspension.unsuspend(ctx, w.viewer.caller, u.id);
          return seeOther(w, `/admin?user=${encodeURIComponent(u.username)}&notice=unsuspended#ops-users`);
        }),
      { params: Name, ...FORM },
    )
    .post(
      "/admin/invites",
      ({ web }) =>
        asAdmin(web, (w) => {
          try {
            const out = createInvite(ctx, w.viewer.caller, wholeNumber(w, "days", "Days"));
            return admin(w, 200, {}, { newInvite: { code: out.code, url: out.signup_url, expiresAt: out.expires_at } });
          } catch (err) {
            return adminRefused(w, err);
          }
        }),
      FORM,
    )
    .post(
      "/admin/invites/:id/revoke",
      ({ web, params }) =>
        asAdmin(web, (w) => {
          try {
            revokeInvite(ctx, w.viewer.caller, params.id);
            return seeOther(w, "/admin?notice=invite-revoked#ops-invites");
          } catch (err) {
            return adminRefused(w, err);
          }
        }),
      { params: Id, ...FORM },
    )
    .post("/admin/backups", ({ web }) => asAdmin(web, (w) => seeOther(w, `/admin?notice=${startManualBackup(ctx) ? "backup-started" : "backup-running"}#ops-backups`)), FORM)
    .get(
      "/admin/backups/:name",
      ({ web, params }) =>
        asAdmin(web, (w) => {
          const path = backupFilePath(ctx, params.name);
          if (!path) return notFound(w);
          ctx.log.info("backup downloaded", { file: params.name, by: w.viewer.user.id });
          return new Response(Bun.file(path), {
            headers: {
              "content-type": params.name.endsWith(".db") ? "application/vnd.sqlite3" : "application/gzip",
              "content-disposition": `attachment; filename="${params.name}"`,
              "cache-control": "no-store",
              "x-content-type-options": "nosniff",
            },
          });
        }),
      { params: Name, ...PAGE },
    )
    .post(
      "/admin/bugs/:id",
      ({ web, params }) =>
        asAdmin(web, (w) => {
          try {
            const status = field(w, "status", 20);
            if (!(BUG_STATUSES as readonly string[]).includes(status)) throw new ApiError(422, "INVALID_INPUT", `The status must be one of ${BUG_STATUSES.join(", ")}`);
            // An empty answer clears it (the CLI's --clear-response).
            bugs.answerReport(ctx, params.id, { status: status as BugStatus, response: field(w, "response", 5000).trim() });
            return seeOther(w, "/admin?notice=bug-answered#ops-bugs");
          } catch (err) {
            return adminRefused(w, err);
          }
        }),
      { params: Id, ...FORM },
    )
    .get("/operator", ({ web, query }) => (isSignedIn(web) ? operator(web, 200, { notice: noticeOf(query.notice) }) : signIn(web, "/operator")), { query: NoticeQuery, ...PAGE })
    .post(
      "/operator/claims",
      ({ web, request }) => {
        if (!isSignedIn(web)) return signIn(web, "/operator");
        let agentValue = "";
        try {
          agentValue = field(web, "agent", 64).trim().replace(/^@/, "");
          charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["operator_claim"]);
          claims.createClaim(ctx, web.viewer.caller, agentValue);
          return seeOther(web, "/operator?notice=claimed");
        } catch (err) {
          const f = failure(err);
          return operator(web, f.status, { error: f.message, agentValue }, f.headers);
        }
      },
      FORM,
    )
    .post(
      "/operator/claims/:id/withdraw",
      ({ web, params }) => {
        if (!isSignedIn(web)) return signIn(web, "/operator");
        try {
          claims.withdrawClaim(ctx, web.viewer.caller, params.id);
          return seeOther(web, "/operator?notice=withdrawn");
        } catch (err) {
          const f = failure(err);
          if (f.status === 404) return notFound(web);
          return operator(web, f.status, { error: f.message }, f.headers);
        }
      },
      { params: Id, ...FORM },
    )
    .get(
      "/operator/claims/:id",
      ({ web, params, query }) => {
        if (!isSignedIn(web)) return signIn(web, `/operator/claims/${encodeURIComponent(params.id)}`);
        try {
          return agentPage(web, params.id, 200, { notice: noticeOf(query.notice) });
        } catch (err) {
          const f = failure(err);
          if (f.status === 404 || f.status === 403) return notFound(web);
          throw err;
        }
      },
      { params: Id, query: NoticeQuery, ...PAGE },
    )
    .post(
      "/operator/claims/:id/allowed-ips",
      ({ web, params }) => {
        if (!isSignedIn(web)) return signIn(web, `/operator/claims/${encodeURIComponent(params.id)}`);
        let ipsValue = "";
        try {
          ipsValue = field(web, "ips", 2000);
          const entries = ipsValue
            .split(/[\s,]+/)
            .map((s) => s.trim())
            .filter(Boolean);
          claims.setAllowedIps(ctx, web.viewer.caller, params.id, entries);
          return seeOther(web, `/operator/claims/${params.id}?notice=ips-saved`);
        } catch (err) {
          return agentRefused(web, params.id, err, { ipsValue });
        }
      },
      { params: Id, ...FORM },
    )
    .post(
      "/operator/claims/:id/rotate-key",
      ({ web, params, request }) => {
        if (!isSignedIn(web)) return signIn(web, `/operator/claims/${encodeURIComponent(params.id)}`);
        try {
          claims.operatedClaim(ctx, web.viewer.caller, params.id, "Only the human operator of an agent resets its key");
          charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["operator_key_rotate"]);
          const out = claims.rotateAgentKey(ctx, web.viewer.caller, params.id);
          // The key is shown on this answer, once: no redirect.
          return agentPage(web, params.id, 200, { newKey: out.api_key });
        } catch (err) {
          return agentRefused(web, params.id, err);
        }
      },
      { params: Id, ...FORM },
    );
};
