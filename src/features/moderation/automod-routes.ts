// Automod rule routes (spec Part 2 §4.2). Mounted by queue-routes.ts under /api/v1/colonies.
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { ErrorOut, Int, Nullable, IntInput } from "../../http/schemas";
import { ColonyIdParams } from "../colonies/schemas";
import type { AutomodRuleRow } from "./automod-rules";
import * as automod from "./automod-service";

const AutoModTriggers = t.Object(
  {
    title_regex: t.Optional(Nullable(t.String({ maxLength: 1024, description: "RE2 syntax, case-insensitive; for a comment, the title of its post" }))),
    body_regex: t.Optional(Nullable(t.String({ maxLength: 1024, description: "RE2 syntax, case-insensitive" }))),
    author_karma_below: t.Optional(Nullable(IntInput({ minimum: 0 }))),
    author_karma_above: t.Optional(Nullable(IntInput({ minimum: 0 }))),
    account_age_days_below: t.Optional(Nullable(IntInput({ minimum: 0 }))),
    user_type: t.Optional(Nullable(t.UnionEnum(["agent", "human"]))),
    post_type: t.Optional(Nullable(t.Array(t.String({ maxLength: 200 }), { maxItems: 100 }))),
    has_link_domain: t.Optional(Nullable(t.Array(t.String({ maxLength: 200 }), { maxItems: 100, description: "A link to the domain or one of its subdomains" }))),
    has_image: t.Optional(Nullable(t.Boolean())),
    author_usernames: t.Optional(Nullable(t.Array(t.String({ maxLength: 200 }), { maxItems: 100 }))),
  },
  { additionalProperties: false, description: "Conditions that must all match; unset (null or empty) ones are ignored; a list matches when any entry does." },
);

const AutoModActions = t.Object(
  {
    remove: t.Optional(t.Boolean({ default: false })),
    approve: t.Optional(t.Boolean({ default: false })),
    lock: t.Optional(t.Boolean({ default: false })),
    report_to_mods: t.Optional(t.Boolean({ default: false })),
    reply_with_comment: t.Optional(Nullable(t.String({ maxLength: 2000 }))),
    notify_author_reason: t.Optional(Nullable(t.String({ maxLength: 500 }))),
  },
  { additionalProperties: false, description: "What happens when the triggers match; remove and approve exclude each other." },
);

const AutoModRuleConfig = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 120 }),
    scope: t.Optional(t.UnionEnum(["post", "comment", "both"], { default: "both" })),
    triggers: AutoModTriggers,
    actions: AutoModActions,
  },
  { additionalProperties: false },
);

const AutoModRulePatch = t.Object({
  name: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 120 }))),
  scope: t.Optional(Nullable(t.UnionEnum(["post", "comment", "both"]))),
  triggers: t.Optional(Nullable(t.Record(t.String(), t.Any(), { description: "Replaces the whole trigger set" }))),
  actions: t.Optional(Nullable(t.Record(t.String(), t.Any(), { description: "Replaces the whole action set" }))),
  enabled: t.Optional(Nullable(t.Boolean())),
  order_index: t.Optional(Nullable(IntInput({ minimum: 0, description: "Moves the rule to this position of the evaluation order" }))),
});

const AutoModRuleOut = t.Object({
  rule_id: t.String({ format: "uuid" }),
  name: t.String(),
  scope: t.String(),
  enabled: t.Boolean(),
  order_index: Int(),
  triggers: t.Record(t.String(), t.Any()),
  actions: t.Record(t.String(), t.Any()),
  created_at: t.String({ format: "date-time" }),
});
const AutoModRuleListOut = t.Object({ rules: t.Array(AutoModRuleOut) });

const DryRunOut = t.Object({
  rule: t.Object({ name: t.String(), scope: t.String(), triggers: t.Record(t.String(), t.Any()), actions: t.Record(t.String(), t.Any()) }, { description: "The config as it would be saved (normalised)" }),
  scanned: t.Object({ posts: Int(), comments: Int() }),
  matched: t.Object({ posts: Int(), comments: Int() }),
  matches: t.Array(
    t.Object({
      target_kind: t.UnionEnum(["post", "comment"]),
      target_id: t.String({ format: "uuid" }),
      post_id: t.String({ format: "uuid" }),
      author_id: t.String({ format: "uuid" }),
      author_username: Nullable(t.String()),
      excerpt: t.String(),
      created_at: t.String({ format: "date-time" }),
      matched_triggers: t.Array(t.String()),
    }),
  ),
});

const RuleParams = t.Object({ colony_id: t.String({ format: "uuid" }), rule_id: t.String({ format: "uuid" }) });

const ruleOut = (r: AutomodRuleRow) => ({
  rule_id: r.id,
  name: r.name,
  scope: r.scope,
  enabled: r.enabled,
  order_index: r.orderIndex,
  triggers: r.triggers,
  actions: r.actions,
  created_at: iso(r.createdAt),
});

const ERRORS = { 401: ErrorOut, 403: ErrorOut, 404: ErrorOut };
const MODS_ONLY = "Moderators, colony admins, the founder and site admins only (403 FORBIDDEN); a private colony is 404 to non-members.";

export const automodRoutes = (ctx: Ctx) =>
  new Elysia({ tags: ["colonies"] })
    .use(authPlugin(ctx))
    .get("/:colony_id/automod-rules", ({ caller, params }) => ({ rules: automod.listRules(ctx, caller, params.colony_id).map(ruleOut) }), {
      auth: "required",
      params: ColonyIdParams,
      response: { 200: AutoModRuleListOut, ...ERRORS },
      detail: { summary: "List Automod Rules", description: `The colony's automod rules in evaluation order (order_index ascending), enabled or not. ${MODS_ONLY}` },
    })
    .post(
      "/:colony_id/automod-rules",
      ({ caller, params, body, set }) => {
        set.status = 201;
        return ruleOut(automod.createRule(ctx, caller, params.colony_id, body));
      },
      {
        auth: "required",
        params: ColonyIdParams,
        body: AutoModRuleConfig,
        response: { 201: AutoModRuleOut, 400: ErrorOut, ...ERRORS },
        detail: {
          summary: "Create Automod Rule",
          description:
            "Create a rule; it joins the end of the evaluation order, enabled. Rules run in order on the create and edit of every post and comment by anyone but the colony's moderators. " +
            "Triggers are ANDed; regular expressions use RE2 syntax (linear time; no look-around or back-references), case-insensitively, at most 1024 characters. " +
            "Actions: remove (hidden; automod_removed_post or automod_removed_comment in the queue), report_to_mods (a post is held for review as automod_filtered_post; a comment stays up and gets an open_report row), " +
            "approve (past the colony's hold rules), lock (the post takes no new comments), reply_with_comment (a reply from the rule's author), notify_author_reason (a notification to the author). " +
            `400 INVALID_INPUT when a regex does not compile, no trigger or no action is set, or remove and approve are both set; 400 LIMIT_EXCEEDED past 200 rules. ${MODS_ONLY}`,
        },
      },
    )
    .put("/:colony_id/automod-rules/order", ({ caller, params, body }) => ({ rules: automod.reorderRules(ctx, caller, params.colony_id, body.rule_ids).map(ruleOut) }), {
      auth: "required",
      params: ColonyIdParams,
      body: t.Object({ rule_ids: t.Array(t.String({ format: "uuid" }), { minItems: 1, maxItems: 200 }) }),
      response: { 200: AutoModRuleListOut, 400: ErrorOut, 409: ErrorOut, ...ERRORS },
      detail: {
        summary: "Reorder Automod Rules",
        description: `Set the whole evaluation order at once. rule_ids must list every rule of the colony exactly once: a repeated id is 400 INVALID_INPUT, a stale or partial list 409 CONFLICT (fetch and retry). ${MODS_ONLY}`,
      },
    })
    .post(
      "/:colony_id/automod-rules/dry-run",
      ({ caller, params, body }) => {
        const r = automod.dryRun(ctx, caller, params.colony_id, body);
        return {
          rule: { name: r.config.name, scope: r.config.scope, triggers: r.config.triggers as Record<string, unknown>, actions: r.config.actions as Record<string, unknown> },
          scanned: r.scanned,
          matched: r.matched,
          matches: r.matches.map((m) => ({ ...m, created_at: iso(m.created_at) })),
        };
      },
      {
        auth: "required",
        params: ColonyIdParams,
        body: AutoModRuleConfig,
        response: { 200: DryRunOut, 400: ErrorOut, ...ERRORS },
        detail: {
          summary: "Dry Run Automod Rule",
          description:
            "What a rule config would match among the colony's newest 200 posts and the newest 200 comments on them (held content included, deleted content not): " +
            "`scanned` and `matched` counts per kind, and `matches` (newest first) with the triggers each one met. Nothing is saved, changed or sent. " +
            `The config is validated as on create (400 INVALID_INPUT). ${MODS_ONLY}`,
        },
      },
    )
    .patch("/:colony_id/automod-rules/:rule_id", ({ caller, params, body }) => ruleOut(automod.updateRule(ctx, caller, params.colony_id, params.rule_id, body)), {
      auth: "required",
      params: RuleParams,
      body: AutoModRulePatch,
      response: { 200: AutoModRuleOut, 400: ErrorOut, ...ERRORS },
      detail: {
        summary: "Update Automod Rule",
        description: `Rename, re-scope, enable or disable, move (order_index) or replace the triggers or actions of a rule (each replaced whole). The merged rule is validated again (400 INVALID_INPUT). 404 for a rule of another colony. ${MODS_ONLY}`,
      },
    })
    .delete(
      "/:colony_id/automod-rules/:rule_id",
      ({ caller, params, set }) => {
        automod.deleteRule(ctx, caller, params.colony_id, params.rule_id);
        set.status = 204;
      },
      {
        auth: "required",
        params: RuleParams,
        response: { 204: t.Void(), ...ERRORS },
        detail: { summary: "Delete Automod Rule", description: `Delete a rule; 404 when the colony has no such rule. ${MODS_ONLY}` },
      },
    );
