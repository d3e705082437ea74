// The moderation pages (docs/decisions.md §161, §162): /mod (the colonies the signed-in person
// moderates, and invitations to moderate) and /c/<colony>/mod/… (the unified queue, reports,
// bans, strikes, appeals, automod rules, mod invites, colony settings). Each handler calls the
// same moderation service as the API, as the signed-in person; a refusal shows the section again
// with the service's message and status; a success answers 303 back to the section. A colony the
// person does not moderate (or cannot see) is the 404 page, as is any unknown colony.
import { Value } from "@sinclair/typebox/value";
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import { FieldError } from "../core/errors";
import { pendingAppealCount, pendingAppeals, resolveAppeal } from "../features/colonies/appeals";
import { banFromColony, listBans, unbanFromColony } from "../features/colonies/bans";
import { openCounts } from "../features/colonies/mod-queue";
import { ColonyUpdate } from "../features/colonies/schemas";
import { canModerate, canRead, findColony, findColonyByName, type ColonyRow } from "../features/colonies/service";
import { updateColony, type ColonyPatch } from "../features/colonies/settings";
import { issueStrike, memberStrikes } from "../features/colonies/strikes";
import { MOD_QUEUE_SOURCES } from "../features/colonies/tables";
import { createRule, deleteRule, listRules } from "../features/moderation/automod-service";
import { acceptInvite, createInvite, declineInvite, listColonyInvites, listReceived, revokeInvite } from "../features/moderation/invites";
import { act, listQueue, QUEUE_ACTIONS, QUEUE_FILTER_SOURCES, type QueueAction } from "../features/moderation/queue-service";
import * as users from "../features/users/service";
import { refusedPage } from "./account-routes";
import { sync } from "./layout";
import { appealsPage, automodPage, bansPage, EDITABLE_FLAGS, EDITABLE_TEXT, invitesPage, modBase, modHomePage, queuePage, settingsPage, strikesPage, type ModTab, type QueueFilters } from "./pages/mod-pages";
import { moderatedColonies, moderatesSomething } from "./moderates";
import { ErrorPage, notFoundMessage } from "./respond";
import { failure, field, isSignedIn, page, safeNext, seeOther, toSignIn, webSession, type SignedInWeb, type Web } from "./session";

const PAGE = { detail: { hide: true } };
const FORM = { parse: "none" as const, detail: { hide: true } };
const PER_PAGE = 25;

type Flash = { error?: string | null; notice?: string | null; values?: Record<string, string> };

/** The notices a 303 back to a section names (`?notice=`), in a person's words. */
const NOTICES: Record<string, string> = {
  acted: "Done: the queue item was handled.",
  banned: "The member is banned.",
  unbanned: "The ban is lifted.",
  struck: "The strike was given; the member is told.",
  appeal: "The appeal is decided; the member is told.",
  "rule-added": "The rule was added.",
  "rule-removed": "The rule was removed.",
  invited: "The invitation was sent.",
  revoked: "The invitation was withdrawn.",
  saved: "The settings were saved.",
  accepted: "You accepted the invitation: you moderate that colony now.",
  declined: "You declined the invitation.",
};
const noticeOf = (raw: unknown) => (typeof raw === "string" ? (NOTICES[raw] ?? null) : null);

const str = (v: unknown) => (typeof v === "string" ? v : Array.isArray(v) && typeof v[0] === "string" ? v[0] : undefined);

/** The fields of the form as they were sent, to fill the form again after a refusal. */
const valuesOf = (web: Web, names: readonly string[]) => Object.fromEntries(names.map((n) => [n, (web.form.get(n) ?? "").slice(0, 2000)]));

export const modRoutes = (ctx: Ctx) => {
  const signIn = toSignIn;

  function notFound(web: Web): Response {
    const u = web.viewer?.user;
    const viewer = u ? { username: u.username, displayName: u.displayName, isAdmin: u.isAdmin, moderates: moderatesSomething(ctx, u) } : null;
    return page(web, sync(ErrorPage({ status: 404, message: notFoundMessage, visit: { caller: web.viewer?.caller ?? null, viewer, csrf: web.csrf } })), 404);
  }

  /** The colony named in the path if the person moderates it; null: the 404 page. */
  function moderated(web: SignedInWeb, name: string): ColonyRow | null {
    const colony = findColonyByName(ctx, name.trim().toLowerCase());
    if (!colony || !canRead(ctx, colony, web.viewer.caller) || !canModerate(ctx, colony, web.viewer.caller)) return null;
    return colony;
  }

  /** A moderation section: signed in, a colony the person moderates, then `run`. */
  const section =
    (path: string, run: (web: SignedInWeb, colony: ColonyRow, params: Record<string, string>, query: Record<string, unknown>) => Response) =>
    ({ web, params, query }: { web: Web; params: Record<string, string>; query: Record<string, unknown> }) => {
      if (!isSignedIn(web)) return signIn(web, `/c/${params.name}/mod${path}`);
      const colony = moderated(web, params.name);
      if (!colony) return notFound(web);
      return run(web, colony, params, query);
    };

  /** A section's form: `render` shows the section again after a refusal (with its status). */
  function attempt(web: SignedInWeb, render: (status: number, flash: Flash) => Response, values: readonly string[], work: () => string): Response {
    try {
      return seeOther(web, work());
    } catch (err) {
      const f = failure(err);
      const res = render(f.status, { error: f.message, values: valuesOf(web, values) });
      for (const [k, v] of Object.entries(f.headers)) res.headers.set(k, v);
      return res;
    }
  }

  // ---- renderers of each section (also used after a refused form)

  function queue(web: SignedInWeb, colony: ColonyRow, tab: ModTab, query: Record<string, unknown>, status = 200, flash: Flash = {}): Response {
    const rawStatus = str(query.status);
    const rawSource = tab === "/reports" ? "open_report" : str(query.source);
    const f: QueueFilters = {
      status: rawStatus === "resolved" ? "resolved" : "open",
      source: (QUEUE_FILTER_SOURCES as readonly string[]).includes(rawSource ?? "") ? (rawSource as QueueFilters["source"]) : null,
      page: Math.min(Math.max(1, Math.floor(Number(str(query.page) ?? 1)) || 1), 4000),
    };
    const r = listQueue(ctx, web.viewer.caller, colony.id, { status: f.status, source: f.source ?? undefined }, { limit: PER_PAGE, offset: (f.page - 1) * PER_PAGE, page: f.page });
    return page(web, queuePage(ctx, web, r, f, { tab, perPage: PER_PAGE, notice: flash.notice ?? noticeOf(query.notice), error: flash.error }), status);
  }

  const bans = (web: SignedInWeb, colony: ColonyRow, status = 200, flash: Flash = {}) =>
    page(web, bansPage(ctx, web, colony, listBans(ctx, web.viewer.caller, colony.id, { limit: 100, offset: 0 }).items, flash), status);

  function strikes(web: SignedInWeb, colony: ColonyRow, who: string, status = 200, flash: Flash = {}): Response {
    let found = null;
    let error = flash.error;
    if (who) {
      try {
        found = memberStrikes(ctx, web.viewer.caller, colony.id, who);
      } catch (err) {
        const f = failure(err);
        error ??= f.message;
        if (status === 200) status = f.status;
      }
    }
    return page(web, strikesPage(ctx, web, colony, { username: who, strikes: found }, { ...flash, error }), status);
  }

  const appeals = (web: SignedInWeb, colony: ColonyRow, status = 200, flash: Flash = {}) => page(web, appealsPage(ctx, web, colony, pendingAppeals(ctx, web.viewer.caller, colony.id), flash), status);

  const automod = (web: SignedInWeb, colony: ColonyRow, status = 200, flash: Flash = {}) =>
    page(web, automodPage(ctx, web, colony, listRules(ctx, web.viewer.caller, colony.id), flash), status);

  function invites(web: SignedInWeb, colony: ColonyRow, status = 200, flash: Flash = {}): Response {
    let rows: Parameters<typeof invitesPage>[3] = [];
    try {
      const list = listColonyInvites(ctx, web.viewer.caller, colony.id);
      const people = users.findManyByIds(ctx, list.map((i) => i.inviteeId));
      rows = list.map((invite) => ({ invite, invitee: people.get(invite.inviteeId) ?? null }));
    } catch (err) {
      // A moderator who may not manage the crew sees the page, with why they cannot.
      const f = failure(err);
      flash = { ...flash, error: flash.error ?? f.message };
    }
    return page(web, invitesPage(ctx, web, colony, rows, flash), status);
  }

  const settings = (web: SignedInWeb, colony: ColonyRow, status = 200, flash: Flash = {}) => page(web, settingsPage(ctx, web, colony, flash), status);

  function home(web: SignedInWeb, status = 200, flash: Flash = {}): Response {
    const rows = moderatedColonies(ctx, web.viewer.user.id).map((c) => {
      const counts = openCounts(ctx, c.id);
      return { colony: c, open: MOD_QUEUE_SOURCES.reduce((n, s) => n + counts[s], 0), appeals: pendingAppealCount(ctx, c.id) };
    });
    const received = listReceived(ctx, web.viewer.caller).flatMap((invite) => {
      const colony = findColony(ctx, invite.colonyId);
      return colony ? [{ invite, colony }] : [];
    });
    return page(web, modHomePage(ctx, web, rows, received, flash), status);
  }

  const back = (colony: ColonyRow, path: string, notice: string) => `${modBase(colony)}${path}?notice=${notice}`;

  return new Elysia()
    .use(webSession(ctx, refusedPage))
    .get("/mod", ({ web, query }) => (isSignedIn(web) ? home(web, 200, { notice: noticeOf(query.notice) }) : signIn(web, "/mod")), PAGE)
    .post(
      "/mod/invites/:id/:answer",
      ({ web, params }) => {
        if (!isSignedIn(web)) return signIn(web, "/mod");
        if (params.answer !== "accept" && params.answer !== "decline") return notFound(web);
        try {
          if (params.answer === "accept") acceptInvite(ctx, web.viewer.caller, params.id);
          else declineInvite(ctx, web.viewer.caller, params.id);
          return seeOther(web, `/mod?notice=${params.answer === "accept" ? "accepted" : "declined"}`);
        } catch (err) {
          const f = failure(err);
          return home(web, f.status, { error: f.message });
        }
      },
      FORM,
    )
    // The queue, and its reports-only view.
    .get("/c/:name/mod", section("", (web, colony, _p, query) => queue(web, colony, "", query)), PAGE)
    .get("/c/:name/mod/reports", section("/reports", (web, colony, _p, query) => queue(web, colony, "/reports", query)), PAGE)
    .post(
      "/c/:name/mod/queue/action",
      section("", (web, colony) => {
        const backTo = safeNext(web.form.get("back"));
        const base = modBase(colony);
        const returnTo = backTo.startsWith(base) ? backTo : base;
        const tab: ModTab = returnTo.startsWith(`${base}/reports`) ? "/reports" : "";
        const query = Object.fromEntries(new URL(returnTo, "http://x").searchParams);
        return attempt(
          web,
          (status, flash) => queue(web, colony, tab, query, status, flash),
          [],
          () => {
            const action = field(web, "action", 32);
            if (!(QUEUE_ACTIONS as readonly string[]).includes(action)) throw new FieldError(["body", "action"], "Choose one of the actions offered");
            const days = field(web, "duration_days", 4);
            act(ctx, web.viewer.caller, colony.id, {
              source: field(web, "source", 64) as never,
              source_id: field(web, "source_id", 64),
              action: action as QueueAction,
              reason_text: field(web, "reason_text", 500) || null,
              duration_days: action === "ban_author" ? Number(days) : null,
            });
            return `${returnTo}${returnTo.includes("?") ? "&" : "?"}notice=acted`;
          },
        );
      }),
      FORM,
    )
    // Bans.
    .get("/c/:name/mod/bans", section("/bans", (web, colony, _p, query) => bans(web, colony, 200, { notice: noticeOf(query.notice) })), PAGE)
    .post(
      "/c/:name/mod/bans",
      section("/bans", (web, colony) =>
        attempt(web, (s, f) => bans(web, colony, s, f), ["username", "duration_days", "reason"], () => {
          const days = field(web, "duration_days", 4);
          const username = field(web, "username", 64).trim().replace(/^@/, "");
          if (!username) throw new FieldError(["body", "username"], "Enter the username of the member to ban");
          banFromColony(ctx, web.viewer.caller, colony.id, username, { durationDays: days ? Number(days) : null, reason: field(web, "reason", 500).trim() || null });
          return back(colony, "/bans", "banned");
        }),
      ),
      FORM,
    )
    .post(
      "/c/:name/mod/bans/:user/unban",
      section("/bans", (web, colony, params) =>
        attempt(web, (s, f) => bans(web, colony, s, f), [], () => {
          unbanFromColony(ctx, web.viewer.caller, colony.id, params.user);
          return back(colony, "/bans", "unbanned");
        }),
      ),
      FORM,
    )
    // Strikes.
    .get("/c/:name/mod/strikes", section("/strikes", (web, colony, _p, query) => strikes(web, colony, (str(query.user) ?? "").trim().replace(/^@/, "").slice(0, 64), 200, { notice: noticeOf(query.notice) })), PAGE)
    .post(
      "/c/:name/mod/strikes",
      section("/strikes", (web, colony) => {
        const username = (web.form.get("username") ?? "").trim().replace(/^@/, "").slice(0, 64);
        return attempt(web, (s, f) => strikes(web, colony, "", s, f), ["username", "severity", "reason"], () => {
          const severity = field(web, "severity", 8);
          if (severity !== "minor" && severity !== "major") throw new FieldError(["body", "severity"], "Choose minor or major");
          const reason = field(web, "reason", 500).trim();
          if (!reason) throw new FieldError(["body", "reason"], "Say why: the member is told");
          if (!username) throw new FieldError(["body", "username"], "Enter the username of the member");
          issueStrike(ctx, web.viewer.caller, colony.id, username, { reason, severity });
          return `${modBase(colony)}/strikes?user=${encodeURIComponent(username)}&notice=struck`;
        });
      }),
      FORM,
    )
    // Appeals.
    .get("/c/:name/mod/appeals", section("/appeals", (web, colony, _p, query) => appeals(web, colony, 200, { notice: noticeOf(query.notice) })), PAGE)
    .post(
      "/c/:name/mod/appeals/:id",
      section("/appeals", (web, colony, params) =>
        attempt(web, (s, f) => appeals(web, colony, s, f), [], () => {
          const decision = field(web, "decision", 8);
          if (decision !== "accept" && decision !== "reject") throw new FieldError(["body", "decision"], "Choose to accept or reject the appeal");
          resolveAppeal(ctx, web.viewer.caller, colony.id, params.id, { accept: decision === "accept", note: field(web, "note", 1000).trim() || null });
          return back(colony, "/appeals", "appeal");
        }),
      ),
      FORM,
    )
    // Automod rules.
    .get("/c/:name/mod/automod", section("/automod", (web, colony, _p, query) => automod(web, colony, 200, { notice: noticeOf(query.notice) })), PAGE)
    .post(
      "/c/:name/mod/automod",
      section("/automod", (web, colony) =>
        attempt(web, (s, f) => automod(web, colony, s, f), ["name", "scope", "title_regex", "body_regex", "has_link_domain", "author_karma_below", "action", "notify_author_reason"], () => {
          const triggers: Record<string, unknown> = {};
          for (const k of ["title_regex", "body_regex"]) {
            const v = field(web, k, 500).trim();
            if (v) triggers[k] = v;
          }
          const domains = field(web, "has_link_domain", 1000)
            .split(",")
            .map((d) => d.trim())
            .filter(Boolean);
          if (domains.length) triggers.has_link_domain = domains;
          const karma = field(web, "author_karma_below", 12).trim();
          if (karma) {
            if (!/^\d{1,9}$/.test(karma)) throw new FieldError(["body", "author_karma_below"], "Karma must be a whole number of at least 0");
            triggers.author_karma_below = Number(karma);
          }
          const action = field(web, "action", 32);
          if (!["remove", "report_to_mods", "lock", "approve"].includes(action)) throw new FieldError(["body", "action"], "Choose one of the actions offered");
          const actions: Record<string, unknown> = { [action]: true };
          const why = field(web, "notify_author_reason", 500).trim();
          if (why) actions.notify_author_reason = why;
          createRule(ctx, web.viewer.caller, colony.id, { name: field(web, "name", 120), scope: field(web, "scope", 16) || "both", triggers, actions });
          return back(colony, "/automod", "rule-added");
        }),
      ),
      FORM,
    )
    .post(
      "/c/:name/mod/automod/:id/delete",
      section("/automod", (web, colony, params) =>
        attempt(web, (s, f) => automod(web, colony, s, f), [], () => {
          deleteRule(ctx, web.viewer.caller, colony.id, params.id);
          return back(colony, "/automod", "rule-removed");
        }),
      ),
      FORM,
    )
    // Mod invites.
    .get("/c/:name/mod/invites", section("/invites", (web, colony, _p, query) => invites(web, colony, 200, { notice: noticeOf(query.notice) })), PAGE)
    .post(
      "/c/:name/mod/invites",
      section("/invites", (web, colony) =>
        attempt(web, (s, f) => invites(web, colony, s, f), ["username", "role"], () => {
          const role = field(web, "role", 16);
          if (role !== "moderator" && role !== "admin") throw new FieldError(["body", "role"], "Choose moderator or admin");
          const username = field(web, "username", 64).trim().replace(/^@/, "");
          if (!username) throw new FieldError(["body", "username"], "Enter the username to invite");
          createInvite(ctx, web.viewer.caller, colony.id, { invitee_username: username, role_offered: role });
          return back(colony, "/invites", "invited");
        }),
      ),
      FORM,
    )
    .post(
      "/c/:name/mod/invites/:id/revoke",
      section("/invites", (web, colony, params) =>
        attempt(web, (s, f) => invites(web, colony, s, f), [], () => {
          revokeInvite(ctx, web.viewer.caller, colony.id, params.id);
          return back(colony, "/invites", "revoked");
        }),
      ),
      FORM,
    )
    // Colony settings: the API's PATCH, checked against the API's own schema.
    .get("/c/:name/mod/settings", section("/settings", (web, colony, _p, query) => settings(web, colony, 200, { notice: noticeOf(query.notice) })), PAGE)
    .post(
      "/c/:name/mod/settings",
      section("/settings", (web, colony) =>
        attempt(web, (s, f) => settings(web, colony, s, f), [], () => {
          const patch: Record<string, unknown> = {};
          for (const k of EDITABLE_TEXT) patch[k] = field(web, k, 20000);
          if (!String(patch.display_name).trim()) throw new FieldError(["body", "display_name"], "The display name must not be empty");
          for (const k of EDITABLE_FLAGS) patch[k] = field(web, k, 8) === "on";
          patch.community_type = field(web, "community_type", 16);
          const threshold = field(web, "strike_threshold", 4).trim();
          patch.strike_threshold = /^\d+$/.test(threshold) ? Number(threshold) : threshold;
          patch.strike_action = field(web, "strike_action", 16);
          const problem = Value.Errors(ColonyUpdate, patch).First();
          if (problem) throw new FieldError(["body", problem.path.slice(1)], `${problem.path.slice(1).replaceAll("_", " ")}: ${problem.message}`);
          updateColony(ctx, web.viewer.caller, colony.id, patch as ColonyPatch);
          return back(colony, "/settings", "saved");
        }),
      ),
      FORM,
    );
};
