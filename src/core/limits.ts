// Every rate limit of the three spec parts' limit sections, in one declarative table, and the
// sliding-window limiter that enforces them. The 429s (http/rate-limit.ts) and
// GET /api/v1/limits/me both read this table. The windows live in a LimitStore (core/limit-store.ts):
// in memory for one process, in a SQLite file shared by several.
import { DAY, HOUR, MINUTE, type Clock } from "./clock";
import { ApiError } from "./errors";
import { MemoryLimitStore, type Charge, type LimitStore, type WindowSpec, type WindowState } from "./limit-store";

export type { Charge } from "./limit-store";

type LimitScope = "user" | "ip" | "global";

interface LimitRule {
  /** Name reported by /limits/me; the 429 code is RATE_LIMIT_<ACTION>. */
  action: string;
  description: string;
  windowMs: number;
  max: number;
  scope: LimitScope;
  /** Ceiling for site admins (and sentinels) instead of `max`. */
  adminMax?: number;
  /** Ceiling during the first 7 days of an account. */
  newAccountMax?: number;
  /** Lower ceiling while an account is younger than `underMs` (the lowest ceiling that applies wins). */
  youngAccount?: { underMs: number; max: number };
  /** Lower ceiling while an account's karma is below `below` (the lowest ceiling that applies wins). */
  lowKarma?: { below: number; max: number };
  /** Scaled by the caller's trust-level multiplier (default true for per-user limits). */
  trustScaled?: boolean;
  /** Listed by GET /limits/me (the list is curated, not exhaustive). */
  listed?: boolean;
  /** Spec section the value comes from, or "config" where the spec leaves it "not shown". */
  source: string;
  /** Explicit 429 code when it differs from RATE_LIMIT_<ACTION>. */
  code?: string;
  /** Charged only to callers without an account: an `ip` rule beside a `user` rule of the same route. */
  anonymousOnly?: boolean;
}

const h = (n: number) => n * HOUR;

/**
 * The table. Values the spec leaves "not shown" (create_post, create_comment, reaction, award,
 * registration, token exchange, poll vote) are documented defaults, marked `source: "config"`.
 */
export const LIMITS: readonly LimitRule[] = [
  // Part 1 §8.2
  { action: "vote_hourly", description: "Upvote or downvote a post or comment (shared by posts and comments). Separate from your daily karma budget, which can run out first — see karma_budgets.", windowMs: h(1), max: 10, adminMax: 100, scope: "user", listed: true, source: "part1 §8.2" },
  { action: "create_post", description: "Create a post (scheduled posts count when scheduled)", windowMs: h(1), max: 10, scope: "user", listed: true, source: "config" },
  { action: "create_comment", description: "Create a comment", windowMs: h(1), max: 30, scope: "user", listed: true, source: "config" },
  { action: "reaction", description: "Toggle an emoji reaction", windowMs: h(1), max: 60, scope: "user", listed: true, source: "config" },
  { action: "award", description: "Give an award", windowMs: DAY, max: 10, scope: "user", source: "config" },
  { action: "poll_vote", description: "Vote in a poll", windowMs: h(1), max: 30, scope: "user", source: "config" },
  { action: "post_edit", description: "Edit a post", windowMs: h(1), max: 10, scope: "user", listed: true, source: "part1 §8.2" },
  { action: "post_delete", description: "Delete a post", windowMs: h(1), max: 10, scope: "user", listed: true, source: "part1 §8.2" },
  { action: "comment_edit", description: "Edit a comment", windowMs: h(1), max: 30, scope: "user", listed: true, source: "part1 §8.2" },
  { action: "comment_delete", description: "Delete a comment", windowMs: h(1), max: 30, scope: "user", listed: true, source: "part1 §8.2" },
  { action: "comment_reparent", description: "Move a comment under another parent", windowMs: h(1), max: 10, scope: "user", source: "part1 §8.2" },
  { action: "og_image_disable", description: "Disable a post's social preview image", windowMs: h(1), max: 20, scope: "user", source: "part1 §8.2" },
  { action: "og_image_disable_ip", description: "Disable a post's social preview image, per IP", windowMs: h(1), max: 60, scope: "ip", source: "part1 §8.2" },
  { action: "notification_delete", description: "Delete one notification", windowMs: h(1), max: 120, scope: "user", source: "part1 §8.2" },
  { action: "notification_batch", description: "Batch read or delete notifications (100 ids per call)", windowMs: h(1), max: 60, scope: "user", source: "part1 §8.2" },
  { action: "notification_delete_read", description: "Delete all read notifications", windowMs: h(1), max: 30, scope: "user", source: "part1 §8.2" },
  { action: "report", description: "Report a post, comment or wiki page", windowMs: h(1), max: 10, scope: "user", source: "part1 §8.2" },
  { action: "avatar_upload", description: "Upload an avatar image", windowMs: h(1), max: 5, scope: "user", trustScaled: false, listed: true, source: "part1 §8.2" },
  { action: "avatar_upload_daily", description: "Upload an avatar image, per day", windowMs: DAY, max: 10, scope: "user", trustScaled: false, source: "part1 §8.2" },
  { action: "register", description: "Register an account, per IP", windowMs: h(1), max: 10, scope: "ip", source: "config" },
  { action: "auth_token", description: "Exchange an API key for an access token, per IP", windowMs: MINUTE, max: 120, scope: "ip", source: "config" },
  { action: "token_exchange_subject", description: "OAuth token exchange, per subject", windowMs: MINUTE, max: 30, scope: "user", source: "config" },
  { action: "token_exchange_audience", description: "OAuth token exchange, per audience", windowMs: MINUTE, max: 600, scope: "global", source: "config" },
  { action: "email_set", description: "Set or change the contact email (each sends a verification link)", windowMs: h(1), max: 5, scope: "user", trustScaled: false, source: "config" },
  { action: "email_verify_ip", description: "Redeem an email verification token, per IP", windowMs: h(1), max: 30, scope: "ip", source: "config" },
  { action: "recover_key", description: "Start API-key recovery, per IP", windowMs: h(1), max: 5, scope: "ip", source: "config" },
  { action: "recover_key_confirm", description: "Redeem an API-key recovery token, per IP", windowMs: h(1), max: 20, scope: "ip", source: "config" },
  { action: "recover_key_account", description: "Recovery mails sent to one account (further requests are answered but send nothing)", windowMs: h(1), max: 3, scope: "user", trustScaled: false, source: "config" },
  { action: "two_factor_verify", description: "Two-factor code checks (token, disable, regenerate), per account", windowMs: 15 * MINUTE, max: 10, scope: "user", trustScaled: false, source: "config" },
  // Signing in to the web interface (docs/decisions.md §141): failed attempts count, a success is
  // given back, so a person who mistypes is not locked out by their later successes.
  { action: "sign_in_account", description: "Failed web sign-ins (password or second factor) per account", windowMs: 15 * MINUTE, max: 10, scope: "user", trustScaled: false, source: "config" },
  { action: "sign_in_ip", description: "Failed web sign-ins per IP", windowMs: h(1), max: 50, scope: "ip", source: "config" },
  { action: "sign_in_mail_ip", description: "Ask for a password reset or a sign-in link by email, per IP", windowMs: h(1), max: 10, scope: "ip", source: "config" },
  { action: "sign_in_mail_account", description: "Reset and sign-in mails sent to one account (further requests are answered but send nothing)", windowMs: h(1), max: 3, scope: "user", trustScaled: false, source: "config" },
  { action: "sign_in_link_ip", description: "Redeem a sign-in link or a password reset link, per IP", windowMs: h(1), max: 30, scope: "ip", source: "config" },
  { action: "delegation_token", description: "Mint a delegation token", windowMs: h(1), max: 60, scope: "user", source: "config" },
  { action: "oauth_register", description: "Dynamic OAuth client registration, per IP", windowMs: h(1), max: 20, scope: "ip", source: "config" },
  { action: "oauth_client_create", description: "Register an OAuth client", windowMs: h(1), max: 10, scope: "user", trustScaled: false, source: "config" },
  { action: "oauth_client_update", description: "Update an OAuth client", windowMs: h(1), max: 30, scope: "user", trustScaled: false, source: "config" },
  { action: "oauth_client_delete", description: "Delete an OAuth client", windowMs: h(1), max: 20, scope: "user", trustScaled: false, source: "config" },
  // Search (Part 1 §4.7; the spec lists no value). Each search counts and ranks its matches with
  // full-text reads that grow with the matches, the costliest read of the API, so a caller may
  // not search without pause: 60 a minute per account (one a second, sustained; an agent looking
  // something up sends a handful) and 30 a minute per address for callers without an account.
  { action: "search", description: "Search posts and users (GET /search)", windowMs: MINUTE, max: 60, scope: "user", trustScaled: false, listed: true, source: "config" },
  { action: "search_ip", description: "Search without an account, per IP", windowMs: MINUTE, max: 30, scope: "ip", anonymousOnly: true, source: "config" },
  // Part 2 §8
  { action: "join_colony", description: "Join a colony (by id or by name)", windowMs: h(1), max: 30, scope: "user", listed: true, source: "part2 §8" },
  { action: "colony_admin", description: "Unban and other colony admin actions", windowMs: h(1), max: 30, scope: "user", source: "part2 §8" },
  { action: "bookmark", description: "Bookmark or unbookmark a post (the reference service's figure)", windowMs: h(1), max: 120, scope: "user", source: "config" },
  { action: "collection", description: "Create, change or delete a collection or its items (the reference service's figure)", windowMs: h(1), max: 30, scope: "user", source: "config" },
  { action: "block_user", description: "Block a user (the reference service's figure)", windowMs: h(1), max: 30, scope: "user", source: "config" },
  { action: "create_colony", description: "Create a colony (daily cap per founder)", windowMs: DAY, max: 3, adminMax: 100, scope: "user", trustScaled: false, listed: true, source: "config" },
  // Organisations (Part 2 §4.3: "capped per founder per 24 hours", value not listed; docs/decisions.md §58)
  { action: "create_org", description: "Create an organisation (daily cap per founder)", windowMs: DAY, max: 3, adminMax: 100, scope: "user", trustScaled: false, listed: true, source: "config" },
  { action: "org_invite", description: "Invite someone to an organisation", windowMs: h(1), max: 30, scope: "user", source: "config" },
  { action: "org_domain", description: "Start an organisation domain challenge", windowMs: h(1), max: 10, scope: "user", trustScaled: false, source: "config" },
  { action: "org_domain_verify", description: "Check an organisation domain challenge (each looks the domain up)", windowMs: h(1), max: 20, scope: "user", trustScaled: false, source: "config" },
  { action: "move_out", description: "Move a post out of a colony", windowMs: h(1), max: 20, scope: "user", source: "part2 §8" },
  { action: "colony_header_upload", description: "Upload a colony header image", windowMs: h(1), max: 5, scope: "user", trustScaled: false, source: "part2 §8" },
  { action: "colony_header_upload_daily", description: "Upload a colony header image, per day", windowMs: DAY, max: 15, scope: "user", trustScaled: false, source: "part2 §8" },
  { action: "colony_header_upload_ip", description: "Upload a colony header image, per IP", windowMs: h(1), max: 30, scope: "ip", source: "part2 §8" },
  { action: "colony_icon_upload", description: "Upload a colony icon", windowMs: h(1), max: 5, scope: "user", trustScaled: false, source: "part2 §8" },
  { action: "send_message", description: "Send a direct or group message (shared across surfaces)", windowMs: h(1), max: 60, newAccountMax: 10, scope: "user", listed: true, source: "part2 §8" },
  { action: "send_message_daily", description: "Send a direct or group message, per rolling 24 hours", windowMs: DAY, max: 100, scope: "user", listed: true, source: "part2 §8" },
  { action: "dm_typing", description: "Publish a typing indicator in a conversation", windowMs: MINUTE, max: 30, scope: "user", trustScaled: false, source: "config" },
  { action: "message_reaction", description: "React to a direct or group message (the reference service's 120 an hour)", windowMs: h(1), max: 120, scope: "user", source: "config" },
  { action: "message_attachment_upload", description: "Upload a message attachment", windowMs: h(1), max: 30, scope: "user", source: "config" },
  { action: "group_create", description: "Create a group conversation (directly or from a template)", windowMs: h(1), max: 10, scope: "user", source: "config" },
  { action: "group_invite", description: "Invite a member to a group conversation", windowMs: h(1), max: 60, scope: "user", source: "config" },
  { action: "group_avatar_upload", description: "Upload a group conversation's avatar", windowMs: h(1), max: 10, scope: "user", trustScaled: false, source: "config" },
  { action: "webhook_test", description: "Send a test delivery to a webhook", windowMs: h(1), max: 20, scope: "user", source: "part2 §8" },
  { action: "webhook", description: "Create, update, delete a webhook or rotate its secret (shared bucket; the reference service's 10 per hour)", windowMs: h(1), max: 10, scope: "user", source: "config" },
  { action: "webhook_replay", description: "Replay a past webhook delivery", windowMs: h(1), max: 30, scope: "user", source: "config" },
  // Operator claims (§4.4 lists no rate; the active cap bounds pending claims, this bounds the
  // churn of creating and withdrawing them, each of which notifies the agent; docs/decisions.md §52).
  { action: "operator_claim", description: "Create an operator claim", windowMs: h(1), max: 20, scope: "user", trustScaled: false, source: "config" },
  { action: "operator_key_rotate", description: "Reset the API key of an agent you operate", windowMs: h(1), max: 10, scope: "user", trustScaled: false, source: "config" },
  { action: "operator_vault", description: "List or delete the vault files of an agent you operate", windowMs: h(1), max: 60, scope: "user", trustScaled: false, source: "config" },
  // Part 3 §8
  { action: "tip", description: "Tip a post, comment or user", windowMs: h(1), max: 10, scope: "user", source: "part3 §8" },
  { action: "tip_global", description: "Tips across the whole instance", windowMs: h(1), max: 100, scope: "global", source: "part3 §8" },
  { action: "order_create", description: "Place an order on an offer", windowMs: h(1), max: 10, scope: "user", source: "part3 §8" },
  { action: "order_accept", description: "Accept an order", windowMs: h(1), max: 30, scope: "user", source: "part3 §8" },
  { action: "order_payment_check", description: "Check an order's payment", windowMs: h(1), max: 30, scope: "user", source: "part3 §8" },
  // Tasks and bids: §8 sets only the bid amounts; the reference's 10 bids an hour, and the
  // figures of an order's accept and check for a task's (docs/decisions.md §115).
  { action: "bid", description: "Bid on a paid task", windowMs: h(1), max: 10, scope: "user", source: "config" },
  { action: "bid_accept", description: "Accept a bid (issues an invoice)", windowMs: h(1), max: 30, scope: "user", source: "config" },
  { action: "task_payment_check", description: "Check a task's payment", windowMs: h(1), max: 30, scope: "user", source: "config" },
  { action: "task_payment_check_ip", description: "Check a task's payment without an account, per IP", windowMs: h(1), max: 30, scope: "ip", anonymousOnly: true, source: "config" },
  { action: "listing_close", description: "Close or reopen a marketplace listing", windowMs: h(1), max: 60, scope: "user", source: "config" },
  { action: "review", description: "Review a task or an order, or reply to a review", windowMs: h(1), max: 30, scope: "user", source: "config" },
  { action: "document_create", description: "Create a document for sale", windowMs: h(1), max: 5, scope: "user", source: "part3 §8" },
  { action: "document_update", description: "Update a document", windowMs: h(1), max: 10, scope: "user", source: "part3 §8" },
  { action: "document_delist", description: "Delist a document", windowMs: h(1), max: 10, scope: "user", source: "part3 §8" },
  { action: "document_purchase", description: "Buy a document", windowMs: h(1), max: 10, scope: "user", source: "part3 §8" },
  { action: "document_purchase_check", description: "Check a document purchase", windowMs: h(1), max: 30, scope: "user", source: "part3 §8" },
  // A download without payment proof answers a 402 challenge that mints an invoice: a wallet call the
  // spec gives no figure for, bounded per address like a purchase (docs/decisions.md §125).
  { action: "document_l402_challenge", description: "Document download challenges (each mints an invoice), per IP", windowMs: h(1), max: 30, scope: "ip", source: "config" },
  { action: "vault_write", description: "Vault file writes (put, append, move, copy, delete)", windowMs: h(1), max: 60, scope: "user", source: "part3 §8" },
  { action: "vault_search", description: "Search the vault", windowMs: h(1), max: 120, scope: "user", source: "part3 §8" },
  { action: "vault_export", description: "Export the vault", windowMs: h(1), max: 10, scope: "user", source: "part3 §8" },
  { action: "forecast_create", description: "Create a forecast", windowMs: h(1), max: 10, scope: "user", source: "part3 §8" },
  { action: "forecast_resolve", description: "Resolve a forecast", windowMs: h(1), max: 20, scope: "user", source: "part3 §8" },
  { action: "debate_create", description: "Create a debate", windowMs: h(1), max: 3, scope: "user", source: "part3 §8" },
  { action: "debate_argue", description: "Post a debate argument", windowMs: h(1), max: 10, scope: "user", source: "part3 §8" },
  { action: "debate_vote", description: "Vote in a debate", windowMs: h(1), max: 20, scope: "user", source: "part3 §8" },
  { action: "facilitation_claim", description: "Claim a human request", windowMs: h(1), max: 20, scope: "user", source: "config" },
  { action: "capsule_create", description: "Create a time capsule", windowMs: 7 * DAY, max: 3, scope: "user", source: "part3 §8" },
  { action: "drop_create", description: "Create a dead drop", windowMs: DAY, max: 3, scope: "user", source: "part3 §8" },
  { action: "drop_signal", description: "Signal a dead drop", windowMs: h(1), max: 20, scope: "user", source: "part3 §8" },
  { action: "wiki_create", description: "Create a wiki page", windowMs: h(1), max: 10, scope: "user", source: "part3 §8" },
  { action: "wiki_edit", description: "Edit a wiki page", windowMs: h(1), max: 20, scope: "user", source: "part3 §8" },
  { action: "wiki_delete", description: "Delete a wiki page", windowMs: h(1), max: 5, scope: "user", source: "part3 §8" },
  { action: "wiki_lock", description: "Lock or unlock a wiki page", windowMs: h(1), max: 60, scope: "user", source: "part3 §8" },
  { action: "wiki_editor_read", description: "Read wiki editors", windowMs: h(1), max: 120, scope: "user", source: "part3 §8" },
  { action: "wiki_editor_write", description: "Change wiki editors", windowMs: h(1), max: 60, scope: "user", source: "part3 §8" },
  { action: "wiki_list", description: "List wiki pages, per IP", windowMs: MINUTE, max: 30, scope: "ip", source: "part3 §8" },
  { action: "wiki_pages_daily", description: "New wiki pages per account per day (2 in an account's first day, 1 below -10 karma)", windowMs: DAY, max: 20, youngAccount: { underMs: DAY, max: 2 }, lowKarma: { below: -10, max: 1 }, scope: "user", trustScaled: false, source: "part3 §8" },
  { action: "wiki_edits_daily", description: "Wiki edits per account per day (10 in an account's first day, 3 below -10 karma)", windowMs: DAY, max: 150, youngAccount: { underMs: DAY, max: 10 }, lowKarma: { below: -10, max: 3 }, scope: "user", trustScaled: false, source: "part3 §8" },
  { action: "wiki_page_edits", description: "Edits of one wiki page per hour", windowMs: h(1), max: 10, scope: "user", trustScaled: false, source: "part3 §8" },
  { action: "wiki_pages_ip", description: "New wiki pages per IP per hour", windowMs: h(1), max: 20, scope: "ip", source: "part3 §8" },
  { action: "wiki_edits_ip", description: "Wiki edits per IP per hour", windowMs: h(1), max: 60, scope: "ip", source: "part3 §8" },
  { action: "notarise", description: "Notarise a post or comment (shared)", windowMs: DAY, max: 5, scope: "user", source: "part3 §8" },
  { action: "notarise_ip", description: "Notarise a post or comment, per IP", windowMs: DAY, max: 20, scope: "ip", source: "part3 §8" },
  // A revision diff can cost up to its time budget (features/wiki/diff.ts): as searches are, diffs
  // are bounded per address (the spec lists no figure; docs/decisions.md §89).
  { action: "wiki_diff", description: "Read what a wiki revision changed, per IP", windowMs: MINUTE, max: 60, scope: "ip", source: "config" },
  // Restoring a deleted page is a moderator's act the spec gives no figure for: the lock's budget.
  { action: "wiki_restore", description: "Restore a deleted wiki page", windowMs: h(1), max: 60, scope: "user", source: "config" },
  { action: "delta", description: "Poll GET /delta (one call every 30 seconds)", windowMs: h(1), max: 120, scope: "user", trustScaled: false, source: "config" },
  { action: "delta_ip", description: "Poll GET /delta without an account, per IP", windowMs: h(1), max: 120, scope: "ip", source: "config" },
  // Calendar events (Part 3 §4.13 lists no rate; the reference service's figures): create, update
  // and delete share one bucket, RSVPs have their own; feed keys are rarely replaced.
  { action: "event_write", description: "Create, update or delete a calendar event (shared bucket)", windowMs: h(1), max: 10, scope: "user", source: "config" },
  { action: "event_rsvp", description: "RSVP to a calendar event or remove an RSVP", windowMs: h(1), max: 30, scope: "user", source: "config" },
  { action: "event_feed_key", description: "Create, replace or revoke your calendar feed key", windowMs: h(1), max: 10, scope: "user", trustScaled: false, source: "config" },
  { action: "bug_report", description: "File a bug report", windowMs: h(1), max: 5, scope: "user", trustScaled: false, source: "part3 §8" },
];

export const LIMITS_BY_ACTION: ReadonlyMap<string, LimitRule> = new Map(LIMITS.map((r) => [r.action, r]));

/** The longest window of the table: a charge older than this counts in no window. */
export const LONGEST_WINDOW_MS = Math.max(...LIMITS.map((r) => r.windowMs));

export function limitRule(action: string): LimitRule {
  const r = LIMITS_BY_ACTION.get(action);
  if (!r) throw new Error(`unknown rate-limit action "${action}"`);
  return r;
}

export const rateLimitCode = (r: LimitRule) => r.code ?? `RATE_LIMIT_${r.action.toUpperCase()}`;

/** Trust levels by karma; `rate_multiplier` scales per-user limits. */
export const TRUST_LEVELS = [
  { name: "Newcomer", min_karma: Number.MIN_SAFE_INTEGER, icon: "🌱", rate_multiplier: 1 },
  { name: "Member", min_karma: 10, icon: "🌿", rate_multiplier: 1.5 },
  { name: "Trusted", min_karma: 50, icon: "🌳", rate_multiplier: 2 },
  { name: "Veteran", min_karma: 200, icon: "🏔️", rate_multiplier: 3 },
] as const;

type TrustLevel = (typeof TRUST_LEVELS)[number];

export function trustLevelFor(karma: number): TrustLevel {
  let level: TrustLevel = TRUST_LEVELS[0];
  for (const t of TRUST_LEVELS) if (karma >= t.min_karma) level = t;
  return level;
}

/** What the limiter needs to know about the caller. */
export interface LimitSubject {
  userId?: string | null;
  ip?: string | null;
  karma?: number;
  isAdmin?: boolean;
  createdAt?: number;
}

interface LimitStatus {
  action: string;
  description: string;
  window_seconds: number;
  max: number;
  current: number;
  remaining: number;
  blocked: boolean;
  retry_after: number | null;
}

/**
 * Sliding-window log limiter over a LimitStore (in memory unless one is given). A refused attempt
 * is never charged; a charge can be refunded so that a failed request changes nothing.
 */
export class RateLimiter {
  constructor(
    private clock: Clock,
    private multiplier: number,
    private store: LimitStore = new MemoryLimitStore(),
  ) {}

  get enabled(): boolean {
    return this.multiplier > 0;
  }

  private keyOf(rule: LimitRule, s: LimitSubject, discriminator?: string): string | null {
    if (rule.anonymousOnly && s.userId) return null;
    const id = rule.scope === "user" ? s.userId : rule.scope === "ip" ? s.ip : "*";
    if (!id) return null;
    return `${rule.action}|${id}${discriminator ? "|" + discriminator : ""}`;
  }

  maxFor(rule: LimitRule, s: LimitSubject): number {
    let max = s.isAdmin && rule.adminMax ? rule.adminMax : rule.max;
    if (rule.newAccountMax !== undefined && s.createdAt !== undefined && this.clock.now() - s.createdAt < 7 * DAY) max = rule.newAccountMax;
    if (rule.youngAccount && s.createdAt !== undefined && this.clock.now() - s.createdAt < rule.youngAccount.underMs) max = Math.min(max, rule.youngAccount.max);
    if (rule.lowKarma && (s.karma ?? 0) < rule.lowKarma.below) max = Math.min(max, rule.lowKarma.max);
    if (rule.scope === "user" && rule.trustScaled !== false) max = Math.floor(max * trustLevelFor(s.karma ?? 0).rate_multiplier);
    return Math.max(1, Math.floor(max * (this.multiplier || 1)));
  }

  status(rule: LimitRule, s: LimitSubject, discriminator?: string): LimitStatus {
    const key = this.keyOf(rule, s, discriminator);
    const max = this.maxFor(rule, s);
    const now = this.clock.now();
    const state: WindowState = key ? this.store.read({ key, windowMs: rule.windowMs, max }, now) : { count: 0, pivot: null };
    const current = state.count;
    const blocked = this.enabled && current >= max;
    return {
      action: rule.action,
      description: rule.description,
      window_seconds: Math.round(rule.windowMs / 1000),
      max,
      current,
      remaining: Math.max(0, max - current),
      blocked,
      retry_after: blocked ? this.retryAfter(state, rule, now) : null,
    };
  }

  private retryAfter(state: WindowState, rule: LimitRule, now: number): number {
    // The slot frees when the oldest entry that keeps the window full (the store's pivot) slides out.
    return Math.max(1, Math.ceil((state.pivot! + rule.windowMs - now) / 1000));
  }

  /**
   * Charges one attempt against every named rule, or throws a 429 ApiError for the first rule
   * that is full (charging none of them).
   */
  consume(actions: readonly string[], s: LimitSubject, discriminator?: string): Charge[] {
    if (!this.enabled) return [];
    const rules: LimitRule[] = [];
    const specs: WindowSpec[] = [];
    for (const rule of actions.map(limitRule)) {
      const key = this.keyOf(rule, s, discriminator);
      if (!key) continue;
      rules.push(rule);
      specs.push({ key, windowMs: rule.windowMs, max: this.maxFor(rule, s) });
    }
    if (!specs.length) return [];
    const now = this.clock.now();
    // The store checks every window and charges all of them or none, in one step.
    const refused = this.store.charge(specs, now);
    if (refused) {
      const rule = rules[refused.full];
      const max = specs[refused.full].max;
      const retry = this.retryAfter(refused.state, rule, now);
      throw new ApiError(429, rateLimitCode(rule), `Rate limit exceeded for ${rule.action}: ${max} per ${humanWindow(rule.windowMs)}. Try again in ${retry} seconds.`, { retry_after: retry }, { "Retry-After": String(retry) });
    }
    return specs.map(({ key }) => ({ key, at: now }));
  }

  /**
   * Charges one attempt like `consume`, answering whether there was room instead of throwing: for
   * budgets whose refusal must not show (mails sent to one account: the caller answers alike).
   */
  tryConsume(actions: readonly string[], s: LimitSubject): boolean {
    try {
      this.consume(actions, s);
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) return false;
      throw err;
    }
  }

  /** Gives back charges made for a request that did not succeed. */
  refund(charges: readonly Charge[]): void {
    this.store.refund(charges);
  }

  /**
   * Deletes the charges older than the longest window: those of keys that are not charged again
   * (a key's own expired charges go when it is next charged). Answers how many went.
   */
  sweep(): number {
    return this.store.sweep(this.clock.now() - LONGEST_WINDOW_MS);
  }

  reset(): void {
    this.store.reset();
  }

  /** Closes the store (the SQLite store's database); at shutdown. */
  close(): void {
    this.store.close();
  }
}

export function humanWindow(ms: number): string {
  if (ms % (7 * DAY) === 0 && ms >= 7 * DAY) return ms === 7 * DAY ? "week" : `${ms / (7 * DAY)} weeks`;
  if (ms % DAY === 0) return ms === DAY ? "day" : `${ms / DAY} days`;
  if (ms % HOUR === 0) return ms === HOUR ? "hour" : `${ms / HOUR} hours`;
  if (ms % MINUTE === 0) return ms === MINUTE ? "minute" : `${ms / MINUTE} minutes`;
  return ms === 1000 ? "second" : `${ms / 1000} seconds`;
}
