// Debates (spec Part 3 §4.9): a creator states a proposition and a side, an opponent accepts the
// other side, they argue in turns (three arguments each, the creator first), then anyone but the
// debaters votes for 48 hours. The voting period is read from the clock; a job queued at its end
// records the winner (docs/decisions.md §81). Every write needs karma of at least 5.
import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { HOUR } from "../../core/clock";
import { ApiError, conflict, forbidden, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { inTransaction, type Db } from "../../db/client";
import type { Caller } from "../auth/service";
import { debateArguments, debates, debateVotes, type DEBATE_STATES, type SIDES, type VOTE_CHOICES } from "./tables";

export type DebateRow = typeof debates.$inferSelect;
type ArgumentRow = typeof debateArguments.$inferSelect;
type DebateState = (typeof DEBATE_STATES)[number];
export const MIN_KARMA = 5;
/** Arguments in a debate: three each, alternating, the creator first. */
export const TURNS = 6;
const VOTING_MS = 48 * HOUR;
export const CLOSE_JOB = "debate_close";
export const SORTS = ["newest", "active_first"] as const;

function gate(caller: Caller, what: string): void {
  if (caller.karma < MIN_KARMA) throw new ApiError(403, "KARMA_TOO_LOW", `${what} needs at least ${MIN_KARMA} karma (you have ${caller.karma})`);
}

/** The state as of now: a voting period that has ended reads as closed. */
export const stateOf = (ctx: Ctx, d: DebateRow): DebateState => (d.state === "voting" && d.votingEndsAt! <= ctx.clock.now() ? "closed" : d.state);
/** Whose turn it is while the debate is active: the creator makes the odd turns. */
export const whoseTurn = (ctx: Ctx, d: DebateRow): "creator" | "opponent" | null => (stateOf(ctx, d) !== "active" ? null : d.turnNumber % 2 === 0 ? "creator" : "opponent");
/** The winner once closed: more votes; a tie has none. */
export function winnerOf(ctx: Ctx, d: DebateRow): string | null {
  if (stateOf(ctx, d) !== "closed") return null;
  if (d.state === "closed") return d.winnerId;
  return d.creatorVotes > d.opponentVotes ? d.creatorId : d.opponentVotes > d.creatorVotes ? d.opponentId : null;
}

export function createDebate(ctx: Ctx, caller: Caller, input: { proposition: string; description?: string | null; creator_side: (typeof SIDES)[number] }): DebateRow {
  gate(caller, "Starting a debate");
  const proposition = input.proposition.trim();
  if ([...proposition].length < 10) throw new ApiError(400, "INVALID_INPUT", "A proposition is 10 to 300 characters");
  const now = ctx.clock.now();
  return ctx.db
    .insert(debates)
    .values({ id: uuidv7(now), creatorId: caller.id, creatorSide: input.creator_side, proposition, description: input.description?.trim() || null, createdAt: now })
    .returning()
    .get();
}

/** The state expression of SQL filters and sorts (voting past its end is closed). */
const effectiveState = (now: number) => sql<DebateState>`(case when ${debates.state} = 'voting' and ${debates.votingEndsAt} <= ${now} then 'closed' else ${debates.state} end)`;

export function listDebates(ctx: Ctx, q: { status?: DebateState; sort?: (typeof SORTS)[number] }, page: Page): { items: DebateRow[]; total: number } {
  const state = effectiveState(ctx.clock.now());
  const cond: SQL | undefined = q.status ? sql`${state} = ${q.status}` : undefined;
  const rank = sql`(case ${state} when 'active' then 0 when 'voting' then 1 when 'open' then 2 else 3 end)`;
  const order = q.sort === "active_first" ? [asc(rank), desc(debates.createdAt), desc(debates.id)] : [desc(debates.createdAt), desc(debates.id)];
  const total = ctx.db.select({ n: count() }).from(debates).where(cond).get()!.n;
  const items = ctx.db.select().from(debates).where(cond).orderBy(...order).limit(page.limit).offset(page.offset).all();
  return { items, total };
}

export function getDebate(ctx: Ctx, id: string, db: Db = ctx.db): DebateRow {
  const row = db.select().from(debates).where(eq(debates.id, id)).get();
  if (!row) throw notFound("Debate not found");
  return row;
}

export function argumentsOf(ctx: Ctx, id: string): ArgumentRow[] {
  return ctx.db.select().from(debateArguments).where(eq(debateArguments.debateId, id)).orderBy(asc(debateArguments.turnNumber)).all();
}

/** Takes the other side of an open debate: not your own (400), not one already taken (409). */
export function acceptDebate(ctx: Ctx, caller: Caller, id: string): DebateRow {
  gate(caller, "Accepting a debate");
  return inTransaction(ctx.db, (tx) => {
    const d = getDebate(ctx, id, tx);
    if (d.creatorId === caller.id) throw new ApiError(400, "INVALID_INPUT", "You cannot accept your own debate");
    const row = tx
      .update(debates)
      .set({ opponentId: caller.id, state: "active" })
      .where(and(eq(debates.id, id), eq(debates.state, "open")))
      .returning()
      .get();
    if (!row) throw conflict("This debate already has an opponent");
    ctx.events.emit(tx, {
      type: "debate_accepted",
      actorId: caller.id,
      subject: { type: "debate", id },
      payload: { debate_id: id, creator_id: d.creatorId, opponent_id: caller.id, proposition: d.proposition },
    });
    return row;
  });
}

/**
 * Adds the caller's argument on their turn: only the debaters (403), only while active and on
 * their own turn (409). The sixth argument opens the 48-hour vote and queues its close.
 */
export function argue(ctx: Ctx, caller: Caller, id: string, body: string): DebateRow {
  gate(caller, "Arguing in a debate");
  if ([...body.trim()].length < 10) throw new ApiError(400, "INVALID_INPUT", "An argument is 10 to 5000 characters");
  return inTransaction(ctx.db, (tx) => {
    const d = getDebate(ctx, id, tx);
    const side = caller.id === d.creatorId ? "creator" : caller.id === d.opponentId ? "opponent" : null;
    if (!side) throw forbidden("Only the two debaters argue");
    if (d.state !== "active") throw conflict(d.state === "open" ? "The debate has no opponent yet" : "The arguments are over");
    if (whoseTurn(ctx, d) !== side) throw conflict("It is not your turn");
    const now = ctx.clock.now();
    const turn = d.turnNumber + 1;
    tx.insert(debateArguments).values({ id: uuidv7(now), debateId: id, userId: caller.id, turnNumber: turn, body: body.trim(), createdAt: now }).run();
    const last = turn === TURNS;
    const row = tx
      .update(debates)
      .set(last ? { turnNumber: turn, state: "voting", votingEndsAt: now + VOTING_MS } : { turnNumber: turn })
      .where(and(eq(debates.id, id), eq(debates.turnNumber, d.turnNumber)))
      .returning()
      .get();
    if (!row) throw conflict("It is not your turn");
    if (last) ctx.jobs.schedule(CLOSE_JOB, now + VOTING_MS, { debate_id: id }, tx);
    const next = last ? null : side === "creator" ? d.opponentId! : d.creatorId;
    ctx.events.emit(tx, {
      type: "debate_argued",
      actorId: caller.id,
      subject: { type: "debate", id },
      payload: { debate_id: id, proposition: d.proposition, turn_number: turn, next_user_id: next, debater_ids: [d.creatorId, d.opponentId!], voting_opened: last },
    });
    return row;
  });
}

/** A vote during the voting period, by anyone but the debaters; voting again replaces your vote. */
export function vote(ctx: Ctx, caller: Caller, id: string, votedFor: (typeof VOTE_CHOICES)[number]): DebateRow {
  gate(caller, "Voting in a debate");
  return inTransaction(ctx.db, (tx) => {
    const d = getDebate(ctx, id, tx);
    if (caller.id === d.creatorId || caller.id === d.opponentId) throw forbidden("Debaters cannot vote in their own debate");
    if (stateOf(ctx, d) !== "voting") throw conflict("Votes are taken only during the 48-hour voting period");
    const prev = tx.select().from(debateVotes).where(and(eq(debateVotes.debateId, id), eq(debateVotes.userId, caller.id))).get();
    if (prev?.votedFor === votedFor) return d;
    if (prev) tx.update(debateVotes).set({ votedFor, createdAt: ctx.clock.now() }).where(and(eq(debateVotes.debateId, id), eq(debateVotes.userId, caller.id))).run();
    else tx.insert(debateVotes).values({ debateId: id, userId: caller.id, votedFor, createdAt: ctx.clock.now() }).run();
    const delta = (side: "creator" | "opponent") => (votedFor === side ? 1 : 0) - (prev?.votedFor === side ? 1 : 0);
    return tx
      .update(debates)
      .set({ creatorVotes: sql`${debates.creatorVotes} + ${delta("creator")}`, opponentVotes: sql`${debates.opponentVotes} + ${delta("opponent")}` })
      .where(eq(debates.id, id))
      .returning()
      .get()!;
  });
}

/** The side `userId` voted for in the debate, or null. */
export function voteOf(ctx: Ctx, userId: string, id: string): (typeof VOTE_CHOICES)[number] | null {
  return ctx.db.select({ votedFor: debateVotes.votedFor }).from(debateVotes).where(and(eq(debateVotes.debateId, id), eq(debateVotes.userId, userId))).get()?.votedFor ?? null;
}

/** The creator deletes their debate before anyone accepts it (others 403, accepted 409). */
export function deleteDebate(ctx: Ctx, caller: Caller, id: string): void {
  const d = getDebate(ctx, id);
  if (d.creatorId !== caller.id) throw forbidden("Only the debate's creator may delete it");
  const gone = ctx.db
    .delete(debates)
    .where(and(eq(debates.id, id), eq(debates.state, "open")))
    .returning({ id: debates.id })
    .get();
  if (!gone) throw conflict("A debate that has been accepted cannot be deleted");
}

/** The closing job: records the winner of a debate whose vote has ended, once, and tells the debaters. */
export function closeDebate(ctx: Ctx, id: string): void {
  inTransaction(ctx.db, (tx) => {
    const d = tx.select().from(debates).where(eq(debates.id, id)).get();
    if (!d || d.state !== "voting" || d.votingEndsAt! > ctx.clock.now()) return;
    const winnerId = winnerOf(ctx, d);
    tx.update(debates).set({ state: "closed", winnerId }).where(and(eq(debates.id, id), eq(debates.state, "voting"))).run();
    ctx.events.emit(tx, {
      type: "debate_closed",
      actorId: null,
      subject: { type: "debate", id },
      payload: { debate_id: id, proposition: d.proposition, debater_ids: [d.creatorId, d.opponentId!], winner_id: winnerId, creator_votes: d.creatorVotes, opponent_votes: d.opponentVotes },
    });
  });
}

/** A deleted account's unaccepted debates go; debates it took part in stay with their arguments and votes. */
export function purgeUser(ctx: Ctx, userId: string): void {
  ctx.db.delete(debates).where(and(eq(debates.creatorId, userId), eq(debates.state, "open"))).run();
}
