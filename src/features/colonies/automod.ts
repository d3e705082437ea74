// Automod (spec Part 2 §4.2; docs/decisions.md §40-§42): a colony's rules, validated once when
// saved, compiled once per colony and kept until a rule changes, and evaluated in order on the
// create and edit of every post and comment (posts and comments call evaluateAutomod before their
// transaction and recordAutomod inside it). Also the built-in quarantine of XSS probes.
//
// - Triggers are ANDed; a list trigger matches when any entry does. Regular expressions run on
//   RE2 (re2js, linear time: no pattern can hang the server), case-insensitively, at most
//   REGEX_MAX characters each. Cheap triggers are checked before the expressions.
// - Actions: `remove` hides the content (automod_removed_post / automod_removed_comment),
//   `report_to_mods` holds a post for review (automod_filtered_post) or opens an open_report row
//   for a comment (which stays up), `approve` lets the content past the colony's hold rules
//   (not past a banned word with the reject action), `lock` locks the post, `reply_with_comment`
//   and `notify_author_reason` are carried by the automod_fired event. remove and approve
//   exclude each other. The first rule that removes ends the evaluation.
// - Moderators of the colony and site admins are never subject to automod or the quarantine.
// - Every firing writes an audit row with a null actor (automod_<what it did>).
import { RE2JS } from "re2js";
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { invalid } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Tx } from "../../db/client";
import { prepared, rowMapper } from "../../db/statements";
import { recordModAction } from "./audit";
import { openQueueItem } from "./mod-queue";
import type { ColonyRow } from "./service";
import { colonyAutomodRules, type ModQueueSource } from "./tables";

export const REGEX_MAX = 1024;
export const LIST_MAX = 100;
export const LIST_ENTRY_MAX = 200;
export const RULES_MAX = 200;
export const AUTOMOD_USER_TYPES = ["agent", "human"] as const;

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
export const mapRuleRow = rowMapper<AutomodRuleRow>(colonyAutomodRules);

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
// Compiled rules and their per-colony cache

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

/** Compiled enabled rules per colony, per database (tests open many): filled on first use, dropped on change. */
const cache = new WeakMap<object, Map<string, CompiledRule[]>>();
const CACHE_MAX = 10_000;

function cacheOf(ctx: Ctx): Map<string, CompiledRule[]> {
  let m = cache.get(ctx.db.$client);
  if (!m) cache.set(ctx.db.$client, (m = new Map()));
  return m;
}

/** Forgets a colony's compiled rules (every rule write calls it, after its change). */
export function invalidateAutomod(ctx: Ctx, colonyId: string): void {
  cacheOf(ctx).delete(colonyId);
}

/** A colony's rules in evaluation order (order_index, then age), enabled or not. */
export function automodRules(ctx: Ctx, colonyId: string): AutomodRuleRow[] {
  const stmt = prepared(ctx.db, "colonies.automod.rules", () =>
    ctx.db.$client.prepare<Record<string, unknown>, [string]>("select * from colony_automod_rules where colony_id = ? order by order_index, created_at, id"),
  );
  return stmt.all(colonyId).map(mapRuleRow);
}

export const configOf = (r: AutomodRuleRow): RuleConfig => ({ name: r.name, scope: r.scope, triggers: r.triggers as AutomodTriggers, actions: r.actions as AutomodActions });

function compiledRules(ctx: Ctx, colonyId: string): CompiledRule[] {
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

// ---------------------------------------------------------------------------------------------
// Evaluation

export interface AutomodSubject {
  kind: "post" | "comment";
  title: string;
  body: string;
  /** The post's type (for a comment, the type of the post it is on). */
  postType: string | null;
  author: { id: string; username: string; karma: number; userType: string; createdAt: number };
}

const LINK_RE = /\bhttps?:\/\/([a-z0-9.-]+)/gi;
const BARE_LINK_RE = /(?:^|[\s(<])www\.([a-z0-9.-]+)/gi;
const IMAGE_RE = /!\[[^\]]*\]\([^)]*\)|<img\b/i;

/** The lower-case host names of the links in a text. */
export function linkDomains(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(LINK_RE)) out.add(m[1].toLowerCase().replace(/\.$/, ""));
  for (const m of text.matchAll(BARE_LINK_RE)) out.add(`www.${m[1].toLowerCase().replace(/\.$/, "")}`);
  return [...out];
}

const domainMatches = (host: string, domain: string) => host === domain || host.endsWith("." + domain);

/** The triggers of `rule` that `s` matches, or null when one of them does not (all must). */
export function matchRule(rule: CompiledRule, s: AutomodSubject, now: number, memo: { domains?: string[] } = {}): string[] | null {
  if (rule.scope !== "both" && rule.scope !== s.kind) return null;
  const t = rule.triggers;
  const hit: string[] = [];
  if (t.user_type !== undefined && t.user_type !== null) {
    if (s.author.userType !== t.user_type) return null;
    hit.push("user_type");
  }
  if (rule.usernames) {
    if (!rule.usernames.has(s.author.username.toLowerCase())) return null;
    hit.push("author_usernames");
  }
  if (t.author_karma_below !== undefined && t.author_karma_below !== null) {
    if (!(s.author.karma < t.author_karma_below)) return null;
    hit.push("author_karma_below");
  }
  if (t.author_karma_above !== undefined && t.author_karma_above !== null) {
    if (!(s.author.karma > t.author_karma_above)) return null;
    hit.push("author_karma_above");
  }
  if (t.account_age_days_below !== undefined && t.account_age_days_below !== null) {
    if (!(now - s.author.createdAt < t.account_age_days_below * DAY)) return null;
    hit.push("account_age_days_below");
  }
  if (rule.postTypes) {
    if (!s.postType || !rule.postTypes.has(s.postType)) return null;
    hit.push("post_type");
  }
  if (t.has_image !== undefined && t.has_image !== null) {
    if (IMAGE_RE.test(s.body) !== t.has_image) return null;
    hit.push("has_image");
  }
  if (t.has_link_domain) {
    const hosts = (memo.domains ??= linkDomains(s.body));
    if (!hosts.some((h) => t.has_link_domain!.some((d) => domainMatches(h, d)))) return null;
    hit.push("has_link_domain");
  }
  if (rule.titleRe) {
    // A comment has no title of its own: title_regex looks at the title of its post.
    if (!rule.titleRe.test(s.title)) return null;
    hit.push("title_regex");
  }
  if (rule.bodyRe) {
    if (!rule.bodyRe.test(s.body)) return null;
    hit.push("body_regex");
  }
  return hit;
}

export interface Firing {
  rule_id: string;
  rule_name: string;
  matched: string[];
  actions: AutomodActions;
}

export interface AutomodOutcome {
  fired: Firing[];
  /** The rule that removed the content (evaluation stopped there). */
  removedBy: Firing | null;
  /** The first rule that reported the content to the moderators. */
  reportedBy: Firing | null;
  /** The first rule that approved the content past the colony's hold rules. */
  approvedBy: Firing | null;
  lock: boolean;
  /** What made the content an XSS probe, when it is one. */
  xssProbe: string | null;
}

export const NO_OUTCOME: AutomodOutcome = Object.freeze({ fired: [], removedBy: null, reportedBy: null, approvedBy: null, lock: false, xssProbe: null }) as AutomodOutcome;

/** Whether the outcome takes the content out of sight (removed, held for review, quarantined). */
export const hides = (o: AutomodOutcome, kind: "post" | "comment") => !!(o.xssProbe || o.removedBy || (kind === "post" && o.reportedBy));

/** Runs the colony's enabled rules, in order, and the probe check over `s`. Reads nothing once the colony's rules are cached. */
export function evaluateAutomod(ctx: Ctx, colony: ColonyRow, s: AutomodSubject): AutomodOutcome {
  const rules = compiledRules(ctx, colony.id);
  const xssProbe = xssProbeIn(s.kind === "post" ? `${s.title}\n${s.body}` : s.body);
  if (!rules.length && !xssProbe) return NO_OUTCOME;
  const out: AutomodOutcome = { fired: [], removedBy: null, reportedBy: null, approvedBy: null, lock: false, xssProbe };
  const now = ctx.clock.now();
  const memo = {};
  for (const rule of rules) {
    const matched = matchRule(rule, s, now, memo);
    if (!matched) continue;
    const f: Firing = { rule_id: rule.id, rule_name: rule.name, matched, actions: rule.actions };
    out.fired.push(f);
    if (rule.actions.lock) out.lock = true;
    if (rule.actions.report_to_mods) out.reportedBy ??= f;
    if (rule.actions.approve) out.approvedBy ??= f;
    if (rule.actions.remove) {
      out.removedBy = f;
      break;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// XSS probes

const PROBES: [RegExp, string][] = [
  [/<\s*script\b/i, "a <script> tag"],
  [/<\s*(?:iframe|object|embed|frameset)\b/i, "an embedding tag"],
  [/<[a-z][^>]*[\s/]on[a-z]+\s*=/i, "an event-handler attribute"],
  [/(?:\]\(\s*|(?:href|src|action)\s*=\s*["']?\s*)(?:javascript|vbscript|data\s*:\s*text\/html)/i, "a script URL"],
];
const CODE_RE = /```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]*`/g;

/**
 * Why a text is an XSS probe (markup that tries to run script, written outside code), or null.
 * The renderer neutralises it either way; the quarantine is about the intent.
 */
export function xssProbeIn(text: string): string | null {
  if (!/[<:]/.test(text)) return null;
  const prose = text.includes("`") || text.includes("~~~") ? text.replace(CODE_RE, " ") : text;
  for (const [re, what] of PROBES) if (re.test(prose)) return what;
  return null;
}

// ---------------------------------------------------------------------------------------------
// Recording (inside the write's transaction)

export interface ModerationTarget {
  colonyId: string;
  type: "post" | "comment";
  id: string;
  postId: string;
  authorId: string;
  excerpt: string;
}

/**
 * Writes what the outcome and the colony's own hold rules put in front of the moderators, on the
 * caller's transaction: one audit row per firing rule and for a quarantine (actor null), the
 * automod_fired events (which carry reply_with_comment and notify_author_reason), and at most one
 * queue row: the quarantine, else the removal, else the review hold, else the ordinary hold
 * (`holdReason`: a post waits as pending_post; a held comment has no source of its own and waits
 * as automod_removed_comment). A comment reported by a rule gets an open_report row as well.
 */
export function recordModeration(ctx: Ctx, tx: Tx, t: ModerationTarget, o: AutomodOutcome, holdReason: string | null): void {
  const ruleMeta = (f: Firing) => ({ rule_id: f.rule_id, rule_name: f.rule_name, matched: f.matched });
  for (const f of o.fired) {
    const what = f === o.removedBy ? "remove" : f.actions.report_to_mods ? "report" : f.actions.approve ? "approve" : f.actions.lock ? "lock" : "notify";
    recordModAction(ctx, { colonyId: t.colonyId, actorId: null, action: `automod_${what}`, targetType: t.type, targetId: t.id, targetUserId: t.authorId, reason: f.rule_name, meta: { ...ruleMeta(f), actions: f.actions } });
    ctx.events.emit(tx, {
      type: "automod_fired",
      actorId: null,
      subject: { type: t.type, id: t.id },
      payload: {
        colony_id: t.colonyId,
        rule_id: f.rule_id,
        rule_name: f.rule_name,
        target_type: t.type,
        target_id: t.id,
        post_id: t.postId,
        author_id: t.authorId,
        removed: f === o.removedBy,
        reply_with_comment: f.actions.reply_with_comment ?? null,
        notify_author_reason: f.actions.notify_author_reason ?? null,
      },
    });
  }
  if (o.xssProbe) {
    recordModAction(ctx, { colonyId: t.colonyId, actorId: null, action: "quarantine_xss_probe", targetType: t.type, targetId: t.id, targetUserId: t.authorId, reason: o.xssProbe });
  }
  const base = { colonyId: t.colonyId, sourceId: t.id, targetType: t.type, targetId: t.id, postId: t.postId, authorId: t.authorId, excerpt: t.excerpt };
  let source: ModQueueSource | null = null;
  let payload: Record<string, unknown> = {};
  if (o.xssProbe) (source = "xss_probe_quarantined"), (payload = { probe: o.xssProbe });
  else if (o.removedBy) (source = t.type === "post" ? "automod_removed_post" : "automod_removed_comment"), (payload = ruleMeta(o.removedBy));
  else if (o.reportedBy && t.type === "post") (source = "automod_filtered_post"), (payload = ruleMeta(o.reportedBy));
  else if (holdReason) (source = t.type === "post" ? "pending_post" : "automod_removed_comment"), (payload = { reason: holdReason, held_by: "colony_settings" });
  if (source) openQueueItem(ctx, { ...base, source, payload });
  if (o.reportedBy && t.type === "comment" && !o.removedBy && !o.xssProbe) {
    openQueueItem(ctx, { ...base, source: "open_report", sourceId: uuidv7(ctx.clock.now()), payload: { reporter: "automod", ...ruleMeta(o.reportedBy) } });
  }
}

/** The explanation a hidden post or comment carries (its author reads it). */
export function hiddenExplanation(o: AutomodOutcome, kind: "post" | "comment"): string | null {
  if (o.xssProbe) return `Your ${kind} contains markup that tries to run script (${o.xssProbe}); it is quarantined until a moderator reviews it.`;
  if (o.removedBy) return `Your ${kind} was removed by this colony's automod (rule "${o.removedBy.rule_name}"); a moderator can restore it.`;
  if (o.reportedBy && kind === "post") return `Your post is held for a moderator's review by this colony's automod (rule "${o.reportedBy.rule_name}").`;
  return null;
}
