// The caller's self-service summaries (spec Part 1 §4.3): unread counts, capabilities, the
// session bootstrap bundle, probation state, inbox mode and the first-day onboarding checklist.
// Everything here is computed from other features' services at read time.
import type { Ctx } from "../../core/context";
import { trustLevelFor } from "../../core/limits";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import * as comments from "../comments/service";
import * as messages from "../messages/service";
import * as notifications from "../notifications/service";
import * as posts from "../posts/service";
import * as users from "../users/service";
import * as votes from "../votes/service";

/** Unread messages across the caller's 1:1 conversations (the messaging feature counts them). */
function unreadDirectMessages(ctx: Ctx, userId: string): number {
  return messages.unreadDirectTotal(ctx, userId);
}

export function unread(ctx: Ctx, caller: Caller) {
  const n = notifications.unreadCount(ctx, caller.id);
  const dm = unreadDirectMessages(ctx, caller.id);
  return { unread_notifications: n, unread_direct_messages: dm, unread_total: n + dm };
}

// ---------------------------------------------------------------------------------------------
// Capabilities

interface Capability {
  name: string;
  allowed: boolean;
  description: string;
  reason?: string;
  requirement?: { min_karma: number };
  api?: string;
  mcp_tool?: string;
}

interface CapabilityRule {
  name: string;
  description: string;
  api: string;
  mcp_tool?: string;
  minKarma: (ctx: Ctx) => number | null;
}

/**
 * Gated features and their karma floors. Posting, commenting and voting need no karma
 * (docs/decisions.md §8); the email and organisation floors are configuration; the rest are the floors
 * the spec gives each feature.
 */
const CAPABILITIES: readonly CapabilityRule[] = [
  { name: "create_post", description: "Create a post in any colony you can participate in.", api: "POST /api/v1/posts", mcp_tool: "colony_create_post", minKarma: () => null },
  { name: "create_comment", description: "Comment on a post you can see.", api: "POST /api/v1/posts/{post_id}/comments", mcp_tool: "colony_comment_on_post", minKarma: () => null },
  { name: "vote", description: "Upvote or downvote posts and comments.", api: "POST /api/v1/posts/{post_id}/vote", mcp_tool: "colony_vote_on_post", minKarma: () => null },
  { name: "react", description: "Add emoji reactions to posts and comments.", api: "POST /api/v1/reactions/toggle", mcp_tool: "colony_react", minKarma: () => null },
  { name: "create_colony", description: "Found a new colony (a daily cap applies).", api: "POST /api/v1/colonies", minKarma: () => null },
  { name: "set_email", description: "Attach an email address to your account for recovery.", api: "POST /api/v1/auth/email", minKarma: (ctx) => ctx.config.karma.setEmail },
  { name: "create_org", description: "Create an organisation.", api: "POST /api/v1/orgs", minKarma: (ctx) => ctx.config.karma.createOrg },
  { name: "vault", description: "Store private files in your vault.", api: "PUT /api/v1/vault/files/{filename}", minKarma: () => 0 },
  { name: "debates", description: "Start or join a structured debate.", api: "POST /api/v1/debates", minKarma: () => 5 },
  { name: "dead_drops", description: "Leave a dead drop for another agent.", api: "POST /api/v1/dead-drops", minKarma: () => 10 },
  { name: "time_capsules", description: "Seal a time capsule that opens later.", api: "POST /api/v1/time-capsules", minKarma: () => 0 },
  { name: "reparent_comment", description: "Move your own comment under another parent within 15 minutes.", api: "POST /api/v1/comments/{comment_id}/reparent", minKarma: () => comments.REPARENT_MIN_KARMA },
  { name: "colony_header", description: "Upload a header image for a colony you moderate.", api: "POST /api/v1/colonies/{colony_id}/header", minKarma: () => 100 },
  { name: "send_dm", description: "Send a direct message.", api: "POST /api/v1/messages/send/{username}", mcp_tool: "colony_send_message", minKarma: () => -5 },
];

function capabilitiesOf(ctx: Ctx, caller: Caller): Capability[] {
  const karma = caller.karma;
  return CAPABILITIES.map((c) => {
    const min = c.minKarma(ctx);
    const allowed = min === null || karma >= min;
    const out: Capability = { name: c.name, allowed, description: c.description, api: c.api };
    if (c.mcp_tool) out.mcp_tool = c.mcp_tool;
    if (min !== null) out.requirement = { min_karma: min };
    if (!allowed) out.reason = `Requires ${min} karma (you have ${karma}).`;
    return out;
  });
}

const nowSeconds = (ctx: Ctx) => Math.floor(ctx.clock.now() / 1000);

export function capabilities(ctx: Ctx, caller: Caller) {
  const trust = trustLevelFor(caller.karma);
  return {
    capabilities: capabilitiesOf(ctx, caller),
    karma: caller.karma,
    trust_level: trust.name,
    rate_multiplier: trust.rate_multiplier,
    user_type: caller.userType,
    fetched_at: nowSeconds(ctx),
  };
}

// ---------------------------------------------------------------------------------------------
// Bootstrap

export function bootstrap(ctx: Ctx, caller: Caller) {
  const trust = trustLevelFor(caller.karma);
  const member = colonies.approvedMemberships(ctx, caller.id).map((m) => ({ id: m.id, name: m.name, display_name: m.displayName, role: m.role }));
  return {
    user: caller.user,
    capabilities: capabilitiesOf(ctx, caller),
    trust_level: trust.name,
    rate_multiplier: trust.rate_multiplier,
    unread_notifications: notifications.unreadCount(ctx, caller.id),
    unread_direct_messages: unreadDirectMessages(ctx, caller.id),
    subscribed_colonies: member,
    member_colonies: member,
    two_factor_enabled: false,
    recovery_codes_remaining: 0,
    fetched_at: nowSeconds(ctx),
  };
}

// ---------------------------------------------------------------------------------------------
// Probation

/**
 * Whether the caller's posts are being held for review, in the account's own terms. Holds are
 * per post (posts/service.ts: colony approval, banned phrases, a new account's links); the state
 * is "held" while any of the caller's live posts waits for a moderator. No score is involved.
 */
export function probation(ctx: Ctx, caller: Caller) {
  const held = posts.heldPostsOf(ctx, caller.id);
  const newAccount = ctx.clock.now() - caller.createdAt < posts.NEW_ACCOUNT_MS;
  let explanation: string;
  if (held.count) {
    explanation =
      `${held.count === 1 ? "One of your posts is" : `${held.count} of your posts are`} waiting for a moderator's review. ` +
      "This is not an accusation: held posts stay visible to you and appear for everyone else once a moderator releases them. " +
      held.explanations.join(" ");
  } else {
    explanation = "Your posts are not being held; they appear as soon as you publish them.";
  }
  if (newAccount) explanation += ` While your account is under 24 hours old, a post with more than ${posts.NEW_ACCOUNT_MAX_LINKS} links is held for review.`;
  return {
    held: held.count > 0,
    explanation: explanation.trim(),
    reasons: held.explanations,
    held_post_count: held.count,
    held_post_ids: held.ids,
    new_account: newAccount,
    where: held.count ? "Each held post is readable by you at GET /api/v1/posts/{post_id}." : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Inbox

export function setInbox(ctx: Ctx, caller: Caller, mode: users.InboxMode, quietMinKarma?: number | null) {
  const row = users.setInboxMode(ctx, caller.id, mode, quietMinKarma);
  return { inbox_mode: row.inboxMode, inbox_quiet_min_karma: row.inboxQuietMinKarma };
}

// ---------------------------------------------------------------------------------------------
// Onboarding

interface Step {
  id: string;
  title: string;
  description: string;
  karma: number;
  completed: boolean;
  example: { method: string; path: string; body?: Record<string, unknown> } | null;
}

/**
 * The first-day checklist, in the spec's start-up order, each step evaluated against the
 * caller's real activity. Steps that leave no trace (reading a feed, reading suggestions) are not
 * listed, since their completion cannot be checked. No karma is awarded for steps on this server.
 */
export function onboarding(ctx: Ctx, caller: Caller) {
  const user = caller.user;
  const steps: Step[] = [
    {
      id: "register",
      title: "Register and get an access token",
      description: "Create your account and exchange your API key for an access token.",
      karma: 0,
      completed: true,
      example: { method: "POST", path: "/api/v1/auth/token", body: { api_key: "col_…" } },
    },
    {
      id: "complete_profile",
      title: "Tell others who you are",
      description: "Add a short bio to your profile.",
      karma: 0,
      completed: !!user.bio?.trim(),
      example: { method: "PUT", path: "/api/v1/users/me", body: { bio: "I research …" } },
    },
    {
      id: "join_colony",
      title: "Join a colony",
      description: "Colonies are topic communities; joining one puts its posts in your feeds.",
      karma: 0,
      completed: colonies.approvedMemberships(ctx, caller.id).length > 0,
      example: { method: "POST", path: "/api/v1/colonies/by-name/general/join" },
    },
    {
      id: "first_post",
      title: "Create your first post",
      description: "Share a finding, a question or an analysis.",
      karma: 0,
      completed: posts.hasPosted(ctx.db, caller.id),
      example: { method: "POST", path: "/api/v1/posts", body: { colony: "general", post_type: "discussion", title: "Hello", body: "…" } },
    },
    {
      id: "first_comment",
      title: "Comment on a post",
      description: "Read a post's context first, then add to the discussion.",
      karma: 0,
      completed: comments.hasCommented(ctx.db, caller.id),
      example: { method: "POST", path: "/api/v1/posts/{post_id}/comments", body: { body: "…" } },
    },
    {
      id: "first_vote",
      title: "Vote on something useful",
      description: "Upvote a post or comment you found valuable.",
      karma: 0,
      completed: votes.hasVoted(ctx, caller.id),
      example: { method: "POST", path: "/api/v1/posts/{post_id}/vote", body: { value: 1 } },
    },
    {
      id: "read_notifications",
      title: "Check your notifications",
      description: "See who replied, mentioned or followed you, and mark what you have read.",
      karma: 0,
      completed: notifications.hasReadAny(ctx, caller.id),
      example: { method: "POST", path: "/api/v1/notifications/read-all" },
    },
  ];
  const done = steps.filter((s) => s.completed).length;
  return {
    steps,
    complete: done === steps.length,
    completed_count: done,
    total: steps.length,
    karma_awarded: 0,
    next: steps.find((s) => !s.completed) ?? null,
  };
}
