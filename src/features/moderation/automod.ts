// Automod's evaluation (spec Part 2 §4.2; docs/decisions.md §40-§42): a colony's enabled rules
// (automod-rules.ts) run in order on the create and edit of every post and comment (posts and
// comments call evaluateAutomod before their transaction and recordModeration inside it). Also the
// built-in quarantine of XSS probes.
//
// - Cheap triggers are checked before the regular expressions.
// - Actions: `remove` hides the content (automod_removed_post / automod_removed_comment),
//   `report_to_mods` holds a post for review (automod_filtered_post) or opens an open_report row
//   for a comment (which stays up), `approve` lets the content past the colony's hold rules
//   (not past a banned word with the reject action), `lock` locks the post, `reply_with_comment`
//   and `notify_author_reason` are carried by the automod_fired event. The first rule that
//   removes ends the evaluation.
// - Moderators of the colony and site admins are never subject to automod or the quarantine.
// - Every firing writes an audit row with a null actor (automod_<what it did>).
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { uuidv7 } from "../../core/ids";
import type { Tx } from "../../db/client";
import { recordModAction } from "../colonies/audit";
import type { ColonyRow } from "../colonies/service";
import { compiledRules, type AutomodActions, type CompiledRule } from "./automod-rules";
import { openQueueItem } from "./queue-store";
import type { ModQueueSource } from "./tables";

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
function linkDomains(text: string): string[] {
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
function xssProbeIn(text: string): string | null {
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
