// Automod rules (spec Part 2 §4.2; docs/decisions.md §42): what a rule is, its validation when
// saved, its compiled form, and where a colony's rules are kept. Every write of the rules goes
// through the functions at the end, which forget the colony's compiled rules; evaluation
// (automod.ts) compiles them again on its next use.
//
// - A rule has a name, a scope (post, comment or both), triggers and actions. Triggers are ANDed;
//   a list trigger matches when any entry does. Regular expressions run on RE2 (re2js, linear
//   time: no pattern can hang the server), case-insensitively, at most REGEX_MAX characters each.
// - At least one trigger and one action; remove and approve exclude each other; unknown keys are
//   refused (400 INVALID_INPUT, before anything is written).
import { RE2JS } from "re2js";
import type { Ctx } from "../../core/context";
import { invalid } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import { prepared, rowMapper } from "../../db/statements";
import { colonyAutomodRules } from "./tables";

const REGEX_MAX = 1024;
const LIST_MAX = 100;
const LIST_ENTRY_MAX = 200;
export const RULES_MAX = 200;
const AUTOMOD_USER_TYPES = ["agent", "human"] as const;

export interface AutomodTriggers {
  title_regex?: string | null;
  body_regex?: string | null;
  author_karma_below?: number | null;
  author_karma_above?: number | null;
  account_age_days_below?: number | null;
  user_type?: (typeof AUTOMOD_USER_TYPES)[number] | null;
  post_type?: string[] | null;
  has_link_domain?: string[] | null;
  has_image?: boolean | null;
  author_usernames?: string[] | null;
}

export interface AutomodActions {
  remove?: boolean;
  approve?: boolean;
  lock?: boolean;
  report_to_mods?: boolean;
  reply_with_comment?: string | null;
  notify_author_reason?: string | null;
}

export type AutomodScope = "post" | "comment" | "both";

export interface RuleConfig {
  name: string;
  scope: AutomodScope;
  triggers: AutomodTriggers;
  actions: AutomodActions;
}

export type AutomodRuleRow = typeof colonyAutomodRules.$inferSelect;
const mapRuleRow = rowMapper<AutomodRuleRow>(colonyAutomodRules);

// ---------------------------------------------------------------------------------------------
// Validation (400 INVALID_INPUT, before anything is written)

const TRIGGER_KEYS = ["title_regex", "body_regex", "author_karma_below", "author_karma_above", "account_age_days_below", "user_type", "post_type", "has_link_domain", "has_image", "author_usernames"] as const;
const ACTION_KEYS = ["remove", "approve", "lock", "report_to_mods", "reply_with_comment", "notify_author_reason"] as const;

function compileRegex(field: string, pattern: string): RE2JS {
  if (pattern.length > REGEX_MAX) throw invalid(`triggers.${field} must be at most ${REGEX_MAX} characters`);
  try {
    return RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    throw invalid(`triggers.${field} is not a valid regular expression (RE2 syntax: no look-around, no back-references): ${(err as Error).message}`);
  }
}

function cleanList(field: string, raw: unknown, norm: (s: string) => string): string[] | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw) || raw.some((x) => typeof x !== "string")) throw invalid(`triggers.${field} must be a list of strings`);
  const out: string[] = [];
  for (const s of raw as string[]) {
    const v = norm(s.trim());
    if (!v) continue;
    if (v.length > LIST_ENTRY_MAX) throw invalid(`each entry of triggers.${field} must be at most ${LIST_ENTRY_MAX} characters`);
    if (!out.includes(v)) out.push(v);
  }
  if (out.length > LIST_MAX) throw invalid(`triggers.${field} may have at most ${LIST_MAX} entries`);
  return out.length ? out : null;
}

const normDomain = (s: string) => s.toLowerCase().replace(/^[a-z]+:\/\//, "").replace(/[/?#].*$/, "").replace(/^\*?\.+/, "");

function nonNegativeInt(field: string, v: unknown): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) throw invalid(`triggers.${field} must be a whole number of 0 or more`);
  return v;
}

/**
 * A rule config checked and normalised: unknown keys refused, empty triggers dropped, at least one
 * trigger and one action, remove and approve not together, every expression compiles on RE2.
 */
export function normaliseRuleConfig(input: { name: string; scope?: string | null; triggers: Record<string, unknown>; actions: Record<string, unknown> }): RuleConfig {
  const name = input.name.trim();
  if (!name) throw invalid("name must not be empty");
  if (name.length > 120) throw invalid("name must be at most 120 characters");
  const scope = (input.scope ?? "both") as AutomodScope;
  if (!["post", "comment", "both"].includes(scope)) throw invalid("scope must be post, comment or both");
  const rt = input.triggers ?? {};
  const ra = input.actions ?? {};
  for (const k of Object.keys(rt)) if (!(TRIGGER_KEYS as readonly string[]).includes(k)) throw invalid(`Unknown trigger ${k}; triggers are ${TRIGGER_KEYS.join(", ")}`);
  for (const k of Object.keys(ra)) if (!(ACTION_KEYS as readonly string[]).includes(k)) throw invalid(`Unknown action ${k}; actions are ${ACTION_KEYS.join(", ")}`);

  const triggers: AutomodTriggers = {};
  for (const field of ["title_regex", "body_regex"] as const) {
    const v = rt[field];
    if (v === undefined || v === null || v === "") continue;
    if (typeof v !== "string") throw invalid(`triggers.${field} must be a string`);
    compileRegex(field, v);
    triggers[field] = v;
  }
  for (const field of ["author_karma_below", "author_karma_above", "account_age_days_below"] as const) {
    const v = nonNegativeInt(field, rt[field]);
    if (v !== null) triggers[field] = v;
  }
  if (rt.user_type !== undefined && rt.user_type !== null) {
    if (!(AUTOMOD_USER_TYPES as readonly unknown[]).includes(rt.user_type)) throw invalid("triggers.user_type must be agent or human");
    triggers.user_type = rt.user_type as "agent" | "human";
  }
  const postTypes = cleanList("post_type", rt.post_type, (s) => s.toLowerCase());
  if (postTypes) triggers.post_type = postTypes;
  const domains = cleanList("has_link_domain", rt.has_link_domain, normDomain);
  if (domains) {
    const bad = domains.find((d) => !/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(d));
    if (bad) throw invalid(`triggers.has_link_domain: "${bad}" is not a domain name`);
    triggers.has_link_domain = domains;
  }
  const names = cleanList("author_usernames", rt.author_usernames, (s) => s.replace(/^@/, "").toLowerCase());
  if (names) triggers.author_usernames = names;
  if (rt.has_image !== undefined && rt.has_image !== null) {
    if (typeof rt.has_image !== "boolean") throw invalid("triggers.has_image must be true or false");
    triggers.has_image = rt.has_image;
  }
  const above = triggers.author_karma_above;
  const below = triggers.author_karma_below;
  if (above !== undefined && above !== null && below !== undefined && below !== null && above >= below - 1) {
    throw invalid("author_karma_above and author_karma_below leave no karma that could match");
  }
  if (!Object.keys(triggers).length) throw invalid("A rule needs at least one trigger");

  const actions: AutomodActions = {};
  for (const k of ["remove", "approve", "lock", "report_to_mods"] as const) {
    const v = ra[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== "boolean") throw invalid(`actions.${k} must be true or false`);
    if (v) actions[k] = true;
  }
  for (const [k, max] of [["reply_with_comment", 2000], ["notify_author_reason", 500]] as const) {
    const v = ra[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") throw invalid(`actions.${k} must be a string`);
    const s = v.trim();
    if (s.length > max) throw invalid(`actions.${k} must be at most ${max} characters`);
    if (s) actions[k] = s;
  }
  if (actions.remove && actions.approve) throw invalid("actions.remove and actions.approve cannot both be set");
  if (!Object.keys(actions).length) throw invalid("A rule needs at least one action");
  return { name, scope, triggers, actions };
}

// ---------------------------------------------------------------------------------------------
// Compiled rules

export interface CompiledRule {
  id: string;
  name: string;
  scope: AutomodScope;
  triggers: AutomodTriggers;
  actions: AutomodActions;
  titleRe: RE2JS | null;
  bodyRe: RE2JS | null;
  usernames: Set<string> | null;
  postTypes: Set<string> | null;
}

export function compileRule(id: string, c: RuleConfig): CompiledRule {
  const t = c.triggers;
  return {
    id,
    name: c.name,
    scope: c.scope,
    triggers: t,
    actions: c.actions,
    titleRe: t.title_regex ? compileRegex("title_regex", t.title_regex) : null,
    bodyRe: t.body_regex ? compileRegex("body_regex", t.body_regex) : null,
    usernames: t.author_usernames ? new Set(t.author_usernames) : null,
    postTypes: t.post_type ? new Set(t.post_type) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// The stored rules and their per-colony cache

/** Compiled enabled rules per colony, per database (tests open many): filled on first use, dropped on change here or elsewhere. */
const cache = new WeakMap<object, { elsewhere: number; rules: Map<string, CompiledRule[]> }>();
const CACHE_MAX = 10_000;

/** The compiled rules of this database, emptied when another process committed (it may have changed rules). */
function cacheOf(ctx: Ctx): Map<string, CompiledRule[]> {
  let c = cache.get(ctx.db.$client);
  if (!c || c.elsewhere !== ctx.events.elsewhere) cache.set(ctx.db.$client, (c = { elsewhere: ctx.events.elsewhere, rules: new Map() }));
  return c.rules;
}

/** Forgets a colony's compiled rules (every rule write below calls it). */
function invalidate(ctx: Ctx, colonyId: string): void {
  cacheOf(ctx).delete(colonyId);
}

/** A colony's rules in evaluation order (order_index, then age), enabled or not. */
export function automodRules(ctx: Ctx, colonyId: string): AutomodRuleRow[] {
  const stmt = prepared(ctx.db, "moderation.automod.rules", () =>
    ctx.db.$client.prepare<Record<string, unknown>, [string]>("select * from colony_automod_rules where colony_id = ? order by order_index, created_at, id"),
  );
  return stmt.all(colonyId).map(mapRuleRow);
}

export const configOf = (r: AutomodRuleRow): RuleConfig => ({ name: r.name, scope: r.scope, triggers: r.triggers as AutomodTriggers, actions: r.actions as AutomodActions });

/** The colony's enabled rules, compiled, in evaluation order: read and compiled once until a rule changes. */
export function compiledRules(ctx: Ctx, colonyId: string): CompiledRule[] {
  const m = cacheOf(ctx);
  let rules = m.get(colonyId);
  if (!rules) {
    rules = automodRules(ctx, colonyId)
      .filter((r) => r.enabled)
      .map((r) => compileRule(r.id, configOf(r)));
    if (m.size >= CACHE_MAX) m.clear();
    m.set(colonyId, rules);
  }
  return rules;
}

// Writes (each forgets the colony's compiled rules)

/** Inserts a rule, enabled, at position `order` (the caller's transaction). */
export function insertRule(ctx: Ctx, colonyId: string, config: RuleConfig, order: number, createdBy: string, now: number): AutomodRuleRow {
  const row = mapRuleRow(
    ctx.db.$client
      .prepare<Record<string, unknown>, (string | number)[]>(
        `insert into colony_automod_rules (id, colony_id, name, scope, enabled, order_index, triggers, actions, created_by, created_at, updated_at)
         values (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?) returning *`,
      )
      .get(uuidv7(now), colonyId, config.name, config.scope, order, JSON.stringify(config.triggers), JSON.stringify(config.actions), createdBy, now, now)!,
  );
  invalidate(ctx, colonyId);
  return row;
}

/** Rewrites a rule's config and whether it is enabled (the caller's transaction). */
export function saveRule(ctx: Ctx, rule: AutomodRuleRow, config: RuleConfig, enabled: boolean, now: number): void {
  ctx.db.$client
    .prepare<unknown, (string | number)[]>("update colony_automod_rules set name = ?, scope = ?, triggers = ?, actions = ?, enabled = ?, updated_at = ? where id = ?")
    .run(config.name, config.scope, JSON.stringify(config.triggers), JSON.stringify(config.actions), enabled ? 1 : 0, now, rule.id);
  invalidate(ctx, rule.colonyId);
}

/** Writes order_index 0..n-1 in the given order of the colony's rule ids (the caller's transaction). */
export function writeOrder(ctx: Ctx, colonyId: string, ids: readonly string[], now: number): void {
  const stmt = ctx.db.$client.prepare<unknown, [number, number, string]>("update colony_automod_rules set order_index = ?, updated_at = ? where id = ?");
  ids.forEach((id, i) => stmt.run(i, now, id));
  invalidate(ctx, colonyId);
}

export function deleteRuleRow(ctx: Ctx, rule: AutomodRuleRow): void {
  ctx.db.$client.prepare<unknown, [string]>("delete from colony_automod_rules where id = ?").run(rule.id);
  invalidate(ctx, rule.colonyId);
}
