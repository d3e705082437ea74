// Automod rule management and the dry run (spec Part 2 §4.2; docs/decisions.md §42): what the
// moderators do with a colony's rules. What a rule is and where rules are kept is automod-rules.ts;
// their evaluation on posts and comments is automod.ts. Moderators only (403 FORBIDDEN); a private
// colony is 404 to non-members. As in the reference service, configuring rules writes no audit row
// (firings do).
import type { Ctx } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { isUuid } from "../../core/ids";
import { moderatedColony } from "../colonies/permissions";
import type { Actor, ColonyRow } from "../colonies/service";
import * as comments from "../comments/service";
import * as posts from "../posts/service";
import { POST_TYPES } from "../posts/tables";
import * as users from "../users/service";
import { matchRule, type AutomodSubject } from "./automod";
import {
  automodRules,
  compileRule,
  configOf,
  deleteRuleRow,
  insertRule,
  normaliseRuleConfig,
  RULES_MAX,
  saveRule,
  writeOrder,
  type AutomodRuleRow,
  type RuleConfig,
} from "./automod-rules";
import { excerptOf } from "./queue-store";

export interface RuleInput {
  name: string;
  scope?: string | null;
  triggers: Record<string, unknown>;
  actions: Record<string, unknown>;
}

/** normaliseRuleConfig plus the post types this server knows. */
function validated(input: RuleInput): RuleConfig {
  const config = normaliseRuleConfig(input);
  const unknown = config.triggers.post_type?.find((p) => !(POST_TYPES as readonly string[]).includes(p));
  if (unknown) throw invalid(`triggers.post_type: "${unknown}" is not a post type (${POST_TYPES.join(", ")})`);
  return config;
}

export function listRules(ctx: Ctx, caller: Actor, colonyId: string): AutomodRuleRow[] {
  const colony = moderatedColony(ctx, caller, colonyId);
  return automodRules(ctx, colony.id);
}

function ruleOf(ctx: Ctx, colony: ColonyRow, ruleId: string): AutomodRuleRow {
  const rule = isUuid(ruleId) ? automodRules(ctx, colony.id).find((r) => r.id === ruleId.toLowerCase()) : undefined;
  if (!rule) throw notFound("Automod rule not found");
  return rule;
}

/** Creates a rule at the end of the order, enabled. 400 INVALID_INPUT for a bad config, 400 LIMIT_EXCEEDED past RULES_MAX. */
export function createRule(ctx: Ctx, caller: Actor, colonyId: string, input: RuleInput): AutomodRuleRow {
  const colony = moderatedColony(ctx, caller, colonyId);
  const config = validated(input);
  const existing = automodRules(ctx, colony.id);
  if (existing.length >= RULES_MAX) throw invalid(`A colony can have at most ${RULES_MAX} automod rules`, "LIMIT_EXCEEDED");
  const now = ctx.clock.now();
  const order = existing.reduce((m, r) => Math.max(m, r.orderIndex + 1), 0);
  return ctx.db.transaction(() => insertRule(ctx, colony.id, config, order, caller.id, now));
}

export interface RulePatch {
  name?: string | null;
  scope?: string | null;
  triggers?: Record<string, unknown> | null;
  actions?: Record<string, unknown> | null;
  enabled?: boolean | null;
  order_index?: number | null;
}

/**
 * PATCH: omitted (or null) fields are unchanged; triggers and actions replace the whole object;
 * the merged rule is validated again as a whole. order_index moves the rule to that position.
 */
export function updateRule(ctx: Ctx, caller: Actor, colonyId: string, ruleId: string, patch: RulePatch): AutomodRuleRow {
  const colony = moderatedColony(ctx, caller, colonyId);
  const rule = ruleOf(ctx, colony, ruleId);
  const before = configOf(rule);
  const config = validated({
    name: patch.name ?? before.name,
    scope: patch.scope ?? before.scope,
    triggers: (patch.triggers ?? before.triggers) as Record<string, unknown>,
    actions: (patch.actions ?? before.actions) as Record<string, unknown>,
  });
  const now = ctx.clock.now();
  ctx.db.transaction(() => {
    saveRule(ctx, rule, config, patch.enabled ?? rule.enabled, now);
    if (patch.order_index !== undefined && patch.order_index !== null) {
      const ids = automodRules(ctx, colony.id).map((r) => r.id).filter((id) => id !== rule.id);
      ids.splice(Math.min(patch.order_index, ids.length), 0, rule.id);
      writeOrder(ctx, colony.id, ids, now);
    }
  });
  return ruleOf(ctx, colony, rule.id);
}

export function deleteRule(ctx: Ctx, caller: Actor, colonyId: string, ruleId: string): void {
  const colony = moderatedColony(ctx, caller, colonyId);
  const rule = ruleOf(ctx, colony, ruleId);
  deleteRuleRow(ctx, rule);
}

/**
 * PUT order: `ruleIds` must name every rule of the colony exactly once (a repeated id is 400
 * INVALID_INPUT; a missing, extra or foreign one is 409 CONFLICT: refetch and retry).
 */
export function reorderRules(ctx: Ctx, caller: Actor, colonyId: string, ruleIds: readonly string[]): AutomodRuleRow[] {
  const colony = moderatedColony(ctx, caller, colonyId);
  const ids = ruleIds.map((id) => id.toLowerCase());
  if (new Set(ids).size !== ids.length) throw invalid("rule_ids names a rule more than once");
  const current = automodRules(ctx, colony.id).map((r) => r.id);
  const known = new Set(current);
  if (ids.length !== current.length || ids.some((id) => !known.has(id))) {
    throw conflict("rule_ids must list exactly this colony's current rules; fetch them again and retry");
  }
  ctx.db.transaction(() => writeOrder(ctx, colony.id, ids, ctx.clock.now()));
  return automodRules(ctx, colony.id);
}

export const DRY_RUN_POSTS = 200;
export const DRY_RUN_COMMENTS = 200;

export interface DryRunMatch {
  target_kind: "post" | "comment";
  target_id: string;
  post_id: string;
  author_id: string;
  author_username: string | null;
  excerpt: string;
  created_at: number;
  matched_triggers: string[];
}

/**
 * Runs a rule config over the colony's newest 200 posts and 200 comments (held ones included,
 * deleted ones not) and reports what it would have matched. Writes nothing.
 */
export function dryRun(ctx: Ctx, caller: Actor, colonyId: string, input: RuleInput) {
  const colony = moderatedColony(ctx, caller, colonyId);
  const config = validated(input);
  const rule = compileRule("dry-run", config);
  // Comments are looked for on the newest posts (the comments index is per post).
  const recentPosts = posts.recentColonyPosts(ctx, colony.id, DRY_RUN_POSTS);
  const recentComments = config.scope === "post" ? [] : comments.recentCommentsOnPosts(ctx, recentPosts.map((p) => p.id), DRY_RUN_COMMENTS);
  const postById = new Map(recentPosts.map((p) => [p.id, p]));
  const missingPosts = recentComments.filter((c) => !postById.has(c.postId)).map((c) => c.postId);
  for (const id of missingPosts) {
    const p = posts.findPost(ctx, id);
    if (p) postById.set(p.id, p);
  }
  const authors = users.findManyByIds(ctx, [...recentPosts.map((p) => p.authorId), ...recentComments.map((c) => c.authorId)]);
  const now = ctx.clock.now();
  const subjectAuthor = (id: string): AutomodSubject["author"] | null => {
    const u = authors.get(id);
    return u ? { id: u.id, username: u.username, karma: u.karma, userType: u.userType, createdAt: u.createdAt } : null;
  };
  const matches: DryRunMatch[] = [];
  let scannedPosts = 0;
  let matchedPosts = 0;
  if (config.scope !== "comment") {
    for (const p of recentPosts) {
      const author = subjectAuthor(p.authorId);
      if (!author) continue;
      scannedPosts++;
      const hit = matchRule(rule, { kind: "post", title: p.title, body: p.body, postType: p.postType, author }, now);
      if (!hit) continue;
      matchedPosts++;
      matches.push({ target_kind: "post", target_id: p.id, post_id: p.id, author_id: p.authorId, author_username: author.username, excerpt: excerptOf(`${p.title} — ${p.body}`), created_at: p.createdAt, matched_triggers: hit });
    }
  }
  let scannedComments = 0;
  let matchedComments = 0;
  for (const c of recentComments) {
    const author = subjectAuthor(c.authorId);
    const post = postById.get(c.postId);
    if (!author || !post) continue;
    scannedComments++;
    const hit = matchRule(rule, { kind: "comment", title: post.title, body: c.body, postType: post.postType, author }, now);
    if (!hit) continue;
    matchedComments++;
    matches.push({ target_kind: "comment", target_id: c.id, post_id: c.postId, author_id: c.authorId, author_username: author.username, excerpt: excerptOf(c.body), created_at: c.createdAt, matched_triggers: hit });
  }
  matches.sort((a, b) => b.created_at - a.created_at);
  return { colony, config, scanned: { posts: scannedPosts, comments: scannedComments }, matched: { posts: matchedPosts, comments: matchedComments }, matches };
}
