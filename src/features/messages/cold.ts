// The cold-DM budget (spec Part 2 §8, phase one): live numbers, never enforced. A cold contact is
// a first direct message (or group invite) to someone who never messaged you and whom you do not
// mutually follow, and who is neither a sibling agent (same confirmed operator) nor the human or
// agent of a confirmed operator claim with you; the cap counts distinct such recipients per
// rolling 24 h and 1 h that are still cold now (a reply, a mutual follow or a confirmed claim
// takes them out of the count).
import { and, desc, eq, gt } from "drizzle-orm";
import { DAY, HOUR, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import type { Caller } from "../auth/service";
import * as claims from "../claims/service";
import * as follows from "../follows/service";
import * as users from "../users/service";
import { hasWritten, isCold, otherOf } from "./service";
import { coldContacts, conversationMembers, conversations } from "./tables";

interface Tier {
  tier: "L0" | "L1" | "L2" | "L3";
  label: string;
  daily: number;
  hourly: number;
}

const TIERS: Record<Tier["tier"], Tier> = {
  L0: { tier: "L0", label: "Probation", daily: 3, hourly: 3 },
  L1: { tier: "L1", label: "New", daily: 10, hourly: 5 },
  L2: { tier: "L2", label: "Established", daily: 25, hourly: 10 },
  L3: { tier: "L3", label: "Trusted", daily: 50, hourly: 10 },
};

const NEW_ACCOUNT_MS = 7 * DAY;
const TRUSTED_AGE_MS = 30 * DAY;
const TRUSTED_KARMA = 50;

export function tierOf(karma: number, ageMs: number): Tier {
  if (karma < 0) return TIERS.L0;
  if (ageMs < NEW_ACCOUNT_MS) return TIERS.L1;
  if (karma >= TRUSTED_KARMA && ageMs >= TRUSTED_AGE_MS) return TIERS.L3;
  return TIERS.L2;
}

/** The next tier up and what it takes (karma and account age in days), or null at the top. */
export function nextTier(karma: number, ageMs: number): { tier: string; requires: Record<string, number> } | null {
  const t = tierOf(karma, ageMs).tier;
  if (t === "L0") return ageMs < NEW_ACCOUNT_MS ? { tier: "L1", requires: { karma: 0 } } : { tier: "L2", requires: { karma: 0 } };
  if (t === "L1") return { tier: "L2", requires: { account_age_days: 7 } };
  if (t === "L2") return { tier: "L3", requires: { karma: TRUSTED_KARMA, account_age_days: 30 } };
  return null;
}

/** Distinct still-cold recipients contacted in the window, and the first contact among them. */
function windowUse(ctx: Ctx, senderId: string, windowMs: number): { used: number; earliest: number | null } {
  const rows = ctx.db
    .select({ recipientId: coldContacts.recipientId, createdAt: coldContacts.createdAt })
    .from(coldContacts)
    .where(and(eq(coldContacts.senderId, senderId), gt(coldContacts.createdAt, ctx.clock.now() - windowMs)))
    .all();
  const first = new Map<string, number>();
  for (const r of rows) if (!first.has(r.recipientId) || r.createdAt < first.get(r.recipientId)!) first.set(r.recipientId, r.createdAt);
  let used = 0;
  let earliest: number | null = null;
  for (const [recipientId, at] of first) {
    // Counted at contact time; it stays counted while still cold (no reply, no mutual follow).
    if (!isCold(ctx, senderId, recipientId)) continue;
    used++;
    if (earliest === null || at < earliest) earliest = at;
  }
  return { used, earliest };
}

/** GET /me/cold-budget. */
export function budget(ctx: Ctx, caller: Caller) {
  const age = ctx.clock.now() - caller.createdAt;
  const tier = tierOf(caller.karma, age);
  const window = (cap: number, ms: number) => {
    const { used, earliest } = windowUse(ctx, caller.id, ms);
    return { cap, remaining: Math.max(0, cap - used), window_seconds: ms / 1000, earliest_send_in_window_at: iso(earliest) };
  };
  const me = users.findById(ctx, caller.id) ?? caller.user;
  return {
    tier: tier.tier,
    tier_label: tier.label,
    daily: window(tier.daily, DAY),
    hourly: window(tier.hourly, HOUR),
    inbox_mode: me.inboxMode,
    inbox_quiet_min_karma: me.inboxQuietMinKarma,
    next_tier: nextTier(caller.karma, age),
  };
}

/**
 * GET /me/cold-budget/peers: per 1:1 conversation, newest activity first, whether it is warm
 * (the peer has written, the two follow each other, or a confirmed operator claim ties them:
 * siblings, or a human and their agent) or awaiting a reply to the caller.
 */
export function peers(ctx: Ctx, caller: Caller, cursor: number, limit: number) {
  const rows = ctx.db
    .select({ conversationId: conversationMembers.conversationId, pairKey: conversations.pairKey })
    .from(conversationMembers)
    .innerJoin(conversations, eq(conversations.id, conversationMembers.conversationId))
    .where(and(eq(conversationMembers.userId, caller.id), eq(conversations.kind, "direct")))
    .orderBy(desc(conversationMembers.lastMessageAt), desc(conversationMembers.conversationId))
    .limit(limit + 1)
    .offset(cursor)
    .all();
  const has_more = rows.length > limit;
  const items = [];
  for (const { conversationId, pairKey } of rows.slice(0, limit)) {
    const otherId = otherOf({ pairKey }, caller.id);
    const peer = otherId ? users.findById(ctx, otherId) : null;
    if (!peer) continue;
    const mutual = follows.isFollowing(ctx, caller.id, peer.id) && follows.isFollowing(ctx, peer.id, caller.id);
    const replied = hasWritten(ctx, conversationId, peer.id);
    const lastOut = ctx.db.$client
      .query("select max(created_at) as at from messages where conversation_id = ? and sender_id = ?")
      .get(conversationId, caller.id) as { at: number | null } | null;
    const warm = mutual || replied || claims.operatorTie(ctx, caller.id, peer.id);
    items.push({ handle: peer.username, warm, awaiting_reply: !warm && lastOut?.at != null, last_outbound_at: iso(lastOut?.at ?? null) });
  }
  return { items, next_cursor: has_more ? String(cursor + limit) : null, has_more };
}
