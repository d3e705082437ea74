// Votes on posts and comments (spec Part 1 §4.6) and the karma ledger.
//
// A vote is one row per (voter, target) holding its value (1 or -1), the points it adds to the
// target's score (value × weight; an admin's vote weighs 3) and the karma it currently moves for
// the target's author. Every karma change is a row of karma_ledger; users.karma is the running
// sum, moved in the same transaction (users.adjustKarma).
//
// Casting a vote, as a straight list of checks:
//   1. the target is visible to the caller (else 404); not the caller's own (400 VOTE_SELF_VOTE);
//      the caller may take part in its colony (bans, pending members of gated colonies: 403) and
//      meets the colony's min_karma_to_vote (403 KARMA_TOO_LOW; moderators and admins exempt);
//   2. the same value again is a `no_op`: nothing changes, new_score is the current score;
//   3. otherwise the score moves by the difference of points (a flip moves it by 2 × weight) and
//      the karma the vote should move is desired − already moved (a flip moves twice a fresh one);
//      that karma is withheld, in this order, when
//        `account_age`            the voter registered under an hour ago (KARMA_WARMUP_MS);
//        `author_new_voter_limit` the voter is new (under 7 days old, or never posted nor
//                                 commented) and the author already received, in that direction,
//                                 5 points from new voters in 24 hours or 20 in 7 days;
//        `budget_exhausted`       an upvote beyond the voter's daily karma-grant budget;
//      a karma-removing vote beyond the voter's daily karma-deduct budget is refused outright with
//      429 RATE_LIMIT_KARMA_GRANT (the hard budget). Budgets and caps count karma points and are
//      ceilings: a change that would cross one is withheld (or refused) whole.
//   4. a downvote that moves karma while the voter holds more than 50 karma also costs the voter
//      1 point (ledger reason `downvote_cost`).
// A withheld change leaves the author's karma and the vote's recorded karma as they were.
import { and, eq, gt, sql, sum } from "drizzle-orm";
import { DAY, HOUR } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Db, Tx } from "../../db/client";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import * as commentsService from "../comments/service";
import * as postsService from "../posts/service";
import * as users from "../users/service";
import { prepared } from "../../db/statements";
import { karmaLedger, votes, type VoteTarget } from "./tables";

type KarmaReason = "account_age" | "budget_exhausted" | "no_op" | "author_new_voter_limit";

const ADMIN_VOTE_WEIGHT = 3;
/** Above this karma a downvote also costs the voter DOWNVOTE_COST points. */
const DOWNVOTE_COST_ABOVE = 50;
const DOWNVOTE_COST = 1;
/** A voter is new during this long after registration (and until they first post or comment). */
const NEW_VOTER_MS = 7 * DAY;
const NEW_VOTER_DAILY_CAP = 5;
const NEW_VOTER_WEEKLY_CAP = 20;

interface VoteResult {
  new_score: number;
  karma_conferred: boolean;
  karma_reason: KarmaReason | null;
}

// ---------------------------------------------------------------------------------------------
// The ledger

interface LedgerEntry {
  userId: string;
  delta: number;
  reason: string;
  actorId?: string | null;
  source?: { type: string; id: string } | null;
  fromNewVoter?: boolean;
}

/** Writes one ledger row and moves users.karma by the same delta, inside the caller's transaction. */
function recordKarma(ctx: Ctx, tx: Tx, e: LedgerEntry): void {
  if (!e.delta) return;
  tx.insert(karmaLedger)
    .values({
      id: uuidv7(ctx.clock.now()),
      userId: e.userId,
      delta: e.delta,
      reason: e.reason,
      actorId: e.actorId ?? null,
      sourceType: e.source?.type ?? null,
      sourceId: e.source?.id ?? null,
      fromNewVoter: e.fromNewVoter ?? false,
      createdAt: ctx.clock.now(),
    })
    .run();
  users.adjustKarma(tx, e.userId, e.delta);
}

/** An operator's karma grant (docs/decisions.md §8): a ledger entry with reason `admin_grant`. */
export function grantKarma(ctx: Ctx, userId: string, delta: number, reason = "admin_grant"): void {
  ctx.db.transaction((tx) => recordKarma(ctx, tx, { userId, delta, reason }));
}

/** The sum of a user's ledger rows (equal to users.karma for accounts whose karma only the ledger moved). */
export function ledgerSum(ctx: Ctx, userId: string): number {
  return Number(ctx.db.select({ s: sum(karmaLedger.delta) }).from(karmaLedger).where(eq(karmaLedger.userId, userId)).get()?.s ?? 0);
}

// ---------------------------------------------------------------------------------------------
// Karma budgets (shown by GET /limits/me)

/** During the first hour after registration votes rank but move no karma (Part 1 §4.6). */
export const KARMA_WARMUP_MS = HOUR;

/** Daily karma a voter may confer by upvoting: 5 at karma <= 5 up to 50 above 1000; admins 900. */
export function karmaGrantBudget(karma: number, isAdmin: boolean): number {
  if (isAdmin) return 900;
  if (karma <= 5) return 5;
  if (karma <= 50) return 10;
  if (karma <= 200) return 20;
  if (karma <= 1000) return 30;
  return 50;
}

/** Daily karma a voter may remove by downvoting (enforced hard). */
export function karmaDeductBudget(karma: number, isAdmin: boolean): number {
  if (isAdmin) return 100;
  if (karma <= 5) return 3;
  if (karma <= 50) return 5;
  if (karma <= 200) return 10;
  if (karma <= 1000) return 20;
  return 30;
}

/** Karma conferred / removed by the caller in the last 24 hours; provided by the votes feature. */
interface KarmaUsage {
  granted: number;
  deducted: number;
  /** Instant the oldest counted grant/deduction leaves the window (for retry_after). */
  oldestGrantAt?: number | null;
  oldestDeductAt?: number | null;
}

/** Karma points `actorId` moved on others by voting since `since`: granted (up) and deducted (down). */
export function karmaUsage(ctx: Ctx | { db: Tx }, actorId: string, since: number): KarmaUsage {
  const rows = ctx.db
    .select({
      granted: sql<number>`coalesce(sum(case when ${karmaLedger.delta} > 0 then ${karmaLedger.delta} end), 0)`,
      deducted: sql<number>`coalesce(sum(case when ${karmaLedger.delta} < 0 then -${karmaLedger.delta} end), 0)`,
      oldestGrantAt: sql<number | null>`min(case when ${karmaLedger.delta} > 0 then ${karmaLedger.createdAt} end)`,
      oldestDeductAt: sql<number | null>`min(case when ${karmaLedger.delta} < 0 then ${karmaLedger.createdAt} end)`,
    })
    .from(karmaLedger)
    .where(and(eq(karmaLedger.actorId, actorId), eq(karmaLedger.reason, "vote"), gt(karmaLedger.createdAt, since)))
    .get()!;
  return { granted: Number(rows.granted), deducted: Number(rows.deducted), oldestGrantAt: rows.oldestGrantAt, oldestDeductAt: rows.oldestDeductAt };
}

/** Karma `authorId` received from new voters since `since`, per direction. */
function newVoterReceived(tx: Tx, authorId: string, since: number): { gained: number; lost: number } {
  const r = tx
    .select({
      gained: sql<number>`coalesce(sum(case when ${karmaLedger.delta} > 0 then ${karmaLedger.delta} end), 0)`,
      lost: sql<number>`coalesce(sum(case when ${karmaLedger.delta} < 0 then -${karmaLedger.delta} end), 0)`,
    })
    .from(karmaLedger)
    .where(and(eq(karmaLedger.userId, authorId), eq(karmaLedger.fromNewVoter, true), eq(karmaLedger.reason, "vote"), gt(karmaLedger.createdAt, since)))
    .get()!;
  return { gained: Number(r.gained), lost: Number(r.lost) };
}

/** Whether the user has ever posted or commented (deleted ones included). */
function hasAuthored(tx: Tx, userId: string): boolean {
  return postsService.hasPosted(tx, userId) || commentsService.hasCommented(tx, userId);
}

function isNewVoter(ctx: Ctx, tx: Tx, voter: { id: string; createdAt: number }): boolean {
  return ctx.clock.now() - voter.createdAt < NEW_VOTER_MS || !hasAuthored(tx, voter.id);
}

// ---------------------------------------------------------------------------------------------
// Reading votes

/** The user's current vote on a target: 1, -1 or null. */
export function voteOf(ctx: Ctx, userId: string, targetType: VoteTarget, targetId: string): 1 | -1 | null {
  const db = ctx.db;
  const stmt = prepared(db, "votes.voteOf", () =>
    db
      .select({ value: votes.value })
      .from(votes)
      .where(and(eq(votes.userId, sql.placeholder("user")), eq(votes.targetType, sql.placeholder("type")), eq(votes.targetId, sql.placeholder("target"))))
      .prepare(),
  );
  const row = stmt.get({ user: userId, type: targetType, target: targetId });
  return row ? (row.value as 1 | -1) : null;
}

/** The user's votes on many targets of one type (for lists), by target id. */
export function votesOf(ctx: Ctx, userId: string, targetType: VoteTarget, targetIds: readonly string[]): Map<string, 1 | -1> {
  const ids = [...new Set(targetIds)];
  if (!ids.length) return new Map();
  // One statement for any number of ids (feeds ask about hundreds at once).
  const stmt = prepared(ctx.db, "votes.votesOf", () =>
    ctx.db.$client.prepare("select target_id as targetId, value from votes where user_id = ? and target_type = ? and target_id in (select value from json_each(?))"),
  );
  const rows = stmt.all(userId, targetType, JSON.stringify(ids)) as { targetId: string; value: number }[];
  return new Map(rows.map((r) => [r.targetId, r.value as 1 | -1]));
}

/** Everyone who has voted on any of the targets (the web's comment list: whose votes to look up). */
export function votersOf(ctx: Ctx, targetType: VoteTarget, targetIds: readonly string[]): Set<string> {
  if (!targetIds.length) return new Set();
  const stmt = prepared(ctx.db, "votes.votersOf", () =>
    ctx.db.$client.prepare("select distinct user_id as id from votes where target_type = ? and target_id in (select value from json_each(?))"),
  );
  return new Set((stmt.all(targetType, JSON.stringify(targetIds)) as { id: string }[]).map((r) => r.id));
}

// ---------------------------------------------------------------------------------------------
// Casting a vote

interface Target {
  type: VoteTarget;
  id: string;
  authorId: string;
  colony: ColonyRow;
  postId: string;
}

function resolveTarget(ctx: Ctx, caller: Caller, type: VoteTarget, id: string): Target {
  if (type === "post") {
    const { post, colony } = postsService.getVisiblePost(ctx, caller, id);
    return { type, id: post.id, authorId: post.authorId, colony, postId: post.id };
  }
  const { comment, post, colony } = commentsService.getVisibleComment(ctx, caller, id);
  return { type, id: comment.id, authorId: comment.authorId, colony, postId: post.id };
}

function currentScore(tx: Tx, t: Target): number {
  if (t.type === "post") return postsService.findPost({ db: tx }, t.id)?.score ?? 0;
  return commentsService.findComment({ db: tx }, t.id)?.score ?? 0;
}

function applyScore(tx: Tx, t: Target, delta: number, before: 1 | -1 | null, after: 1 | -1): number {
  if (t.type === "post") return postsService.applyScoreDelta(tx, t.id, delta) ?? 0;
  const up = (after === 1 ? 1 : 0) - (before === 1 ? 1 : 0);
  const down = (after === -1 ? 1 : 0) - (before === -1 ? 1 : 0);
  return commentsService.applyCommentScoreDelta(tx, t.id, { score: delta, up, down }) ?? 0;
}

function deductRefused(ctx: Ctx, usage: KarmaUsage, budget: number): ApiError {
  const now = ctx.clock.now();
  const retry = Math.max(1, Math.ceil(((usage.oldestDeductAt ?? now) + DAY - now) / 1000));
  return new ApiError(
    429,
    "RATE_LIMIT_KARMA_GRANT",
    `Daily downvote karma budget spent (${budget} points per 24 hours). Try again in ${retry} seconds.`,
    { retry_after: retry },
    { "Retry-After": String(retry) },
  );
}

/** POST /posts/{id}/vote and /comments/{id}/vote. */
export function castVote(ctx: Ctx, caller: Caller, targetType: VoteTarget, targetId: string, value: 1 | -1): VoteResult {
  const target = resolveTarget(ctx, caller, targetType, targetId);
  if (target.authorId === caller.id) throw new ApiError(400, "VOTE_SELF_VOTE", `You cannot vote on your own ${targetType}`);
  colonies.assertCanParticipate(ctx, target.colony, caller);
  const floor = colonies.settingsOf(target.colony).min_karma_to_vote;
  if (floor !== undefined && floor !== null && caller.karma < floor && !colonies.canModerate(ctx, target.colony, caller)) {
    throw new ApiError(403, "KARMA_TOO_LOW", `Voting in this colony needs at least ${floor} karma (you have ${caller.karma})`);
  }

  return ctx.db.transaction((tx) => {
    const now = ctx.clock.now();
    const existing = tx
      .select()
      .from(votes)
      .where(and(eq(votes.userId, caller.id), eq(votes.targetType, target.type), eq(votes.targetId, target.id)))
      .get();
    if (existing && existing.value === value) return { new_score: currentScore(tx, target), karma_conferred: false, karma_reason: "no_op" as const };

    const before = (existing?.value ?? null) as 1 | -1 | null;
    const points = value * (caller.isAdmin ? ADMIN_VOTE_WEIGHT : 1);
    const scoreDelta = points - (existing?.points ?? 0);
    const movedBefore = existing?.karma ?? 0;
    const karmaDelta = points - movedBefore;

    let reason: KarmaReason | null = null;
    let newVoter = false;
    if (now - caller.createdAt < KARMA_WARMUP_MS) reason = "account_age";
    else if (karmaDelta !== 0) {
      newVoter = isNewVoter(ctx, tx, caller);
      if (newVoter) {
        const day = newVoterReceived(tx, target.authorId, now - DAY);
        const week = newVoterReceived(tx, target.authorId, now - 7 * DAY);
        const [d, w] = karmaDelta > 0 ? [day.gained, week.gained] : [day.lost, week.lost];
        const amount = Math.abs(karmaDelta);
        if (d + amount > NEW_VOTER_DAILY_CAP || w + amount > NEW_VOTER_WEEKLY_CAP) reason = "author_new_voter_limit";
      }
      if (!reason) {
        const usage = karmaUsage({ db: tx }, caller.id, now - DAY);
        if (karmaDelta > 0) {
          if (usage.granted + karmaDelta > karmaGrantBudget(caller.karma, caller.isAdmin)) reason = "budget_exhausted";
        } else {
          const budget = karmaDeductBudget(caller.karma, caller.isAdmin);
          if (usage.deducted - karmaDelta > budget) throw deductRefused(ctx, usage, budget);
        }
      }
    }

    const conferred = reason === null;
    const karma = conferred ? points : movedBefore;
    if (existing) tx.update(votes).set({ value, points, karma, updatedAt: now }).where(eq(votes.id, existing.id)).run();
    else tx.insert(votes).values({ id: uuidv7(now), userId: caller.id, targetType: target.type, targetId: target.id, value, points, karma, createdAt: now, updatedAt: now }).run();
    const newScore = applyScore(tx, target, scoreDelta, before, value);

    const source = { type: target.type, id: target.id };
    if (conferred) {
      recordKarma(ctx, tx, { userId: target.authorId, delta: karmaDelta, reason: "vote", actorId: caller.id, source, fromNewVoter: newVoter });
      if (value === -1 && caller.karma > DOWNVOTE_COST_ABOVE) recordKarma(ctx, tx, { userId: caller.id, delta: -DOWNVOTE_COST, reason: "downvote_cost", actorId: caller.id, source });
    }
    ctx.events.emit(tx, {
      type: "vote_cast",
      actorId: caller.id,
      subject: source,
      payload: {
        target_type: target.type,
        target_id: target.id,
        post_id: target.postId,
        ...(target.type === "comment" ? { comment_id: target.id } : {}),
        author_id: target.authorId,
        value,
        previous_value: before,
        score: newScore,
        karma_conferred: conferred,
        karma_reason: reason,
      },
      activity: true,
    });
    return { new_score: newScore, karma_conferred: conferred, karma_reason: reason };
  });
}

/** Upvotes cast on posts since `since`, per post: a subquery of (post_id, n) for reads that rank posts. */
export const postUpvotesSince = (since: number) =>
  sql`select ${votes.targetId} as post_id, count(*) as n from ${votes} where ${votes.targetType} = 'post' and ${votes.value} > 0 and ${votes.createdAt} >= ${since} group by ${votes.targetId}`;

/** Net vote points cast on posts since `since`, per post, positive totals only: a subquery of (post_id, pts). */
export const postPointsSince = (since: number) =>
  sql`select ${votes.targetId} as post_id, sum(${votes.points}) as pts from ${votes} where ${votes.targetType} = 'post' and ${votes.createdAt} >= ${since} group by ${votes.targetId} having sum(${votes.points}) > 0`;

/** Whether the user has a current vote on any post or comment (achievements, onboarding). */
export function hasVoted(ctx: Ctx, userId: string): boolean {
  return !!ctx.db.select({ id: votes.id }).from(votes).where(eq(votes.userId, userId)).limit(1).get();
}
