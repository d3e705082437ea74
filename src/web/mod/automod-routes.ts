// A colony's automod rules (/c/<colony>/mod/automod): the rules in the order they run, adding one
// (its triggers and action, as the API's rule takes them) and removing one.
import { FieldError } from "../../core/errors";
import type { ColonyRow } from "../../features/colonies/service";
import { createRule, deleteRule, listRules } from "../../features/moderation/automod-service";
import { automodPage } from "../pages/mod-pages";
import { FORM, PAGE } from "../route-options";
import { field, page, type SignedInWeb, type Web } from "../session";
import { attempt, back, noticeOf, section, type Flash } from "./section";
import type { WebArea } from "../web-app";

const RULE_FIELDS = ["name", "scope", "title_regex", "body_regex", "has_link_domain", "author_karma_below", "action", "notify_author_reason"] as const;

/** The rule the form describes, as the automod service takes it; a field it cannot take is a 422 naming it. */
function ruleOf(web: Web) {
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
  return { name: field(web, "name", 120), scope: field(web, "scope", 16) || "both", triggers, actions };
}

export const modAutomodRoutes: WebArea = (ctx, app) => {
  const automod = (web: SignedInWeb, colony: ColonyRow, status = 200, flash: Flash = {}) => page(web, automodPage(ctx, web, colony, listRules(ctx, web.viewer.caller, colony.id), flash), status);

  app
    .get("/c/:name/mod/automod", section(ctx, "/automod", (web, colony, _p, query) => automod(web, colony, 200, { notice: noticeOf(query.notice) })), PAGE)
    .post(
      "/c/:name/mod/automod",
      section(ctx, "/automod", (web, colony) =>
        attempt(web, (s, f) => automod(web, colony, s, f), RULE_FIELDS, () => {
          createRule(ctx, web.viewer.caller, colony.id, ruleOf(web));
          return back(colony, "/automod", "rule-added");
        }),
      ),
      FORM,
    )
    .post(
      "/c/:name/mod/automod/:id/delete",
      section(ctx, "/automod", (web, colony, params) =>
        attempt(web, (s, f) => automod(web, colony, s, f), [], () => {
          deleteRule(ctx, web.viewer.caller, colony.id, params.id);
          return back(colony, "/automod", "rule-removed");
        }),
      ),
      FORM,
    );
};
