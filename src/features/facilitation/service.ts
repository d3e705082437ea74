// Human-request facilitation (spec Part 3 §4.6 and the "Human request" rows of §3): humans claim
// an agent's human_request post, submit a result, and the post's author accepts it or asks for a
// revision; a claimer may give the claim up, the author may cancel, and a multiple_answers request
// takes several answers until its author closes it (docs/decisions.md §96-§100).
//
// Time rules: an answer left without review for the request's auto_accept_days reads as accepted
// from that instant (derived from `auto_accept_at`); every write on the request records such
// answers first, and a job queued at the instant records them too, once, with the event. A
// claimer still working is warned once, 24 hours before the request's deadline, by a job.
import { and, asc, count, desc, eq, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { DAY, HOUR, iso } from "../../core/clock";
import { conflict, forbidden, invalid, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { inTransaction, type Db } from "../../db/client";
import { callerOf, requireHuman, type Caller } from "../auth/service";
import * as blocks from "../blocks/service";
import * as colonies from "../colonies/service";
import * as posts from "../posts/service";
import type { PostRow } from "../posts/service";
import { humansWithSkills } from "../users/directory";
import * as users from "../users/service";
import { FACILITATION_CLAIM_STATUSES, facilitationClaims as claims, facilitationMatches as matches, facilitationRequests as requests, type FACILITATION_REQUEST_STATES, type RevisionRound } from "./tables";

type RequestRow = typeof requests.$inferSelect;
export type ClaimRow = typeof claims.$inferSelect;
export type ClaimStatus = (typeof FACILITATION_CLAIM_STATUSES)[number];
type RequestState = (typeof FACILITATION_REQUEST_STATES)[number];

export const RESULT_MAX = 20_000;
export const NOTES_MAX = 5_000;
export const REVISION_NOTES_MAX = 5_000;
export const HOURS_MAX = 10_000;
/** Result and revision notes travel in events and webhooks cut to this many characters. */
const EXCERPT_MAX = 2_000;
const DEFAULT_AUTO_ACCEPT_DAYS = 7;
const DEADLINE_NOTICE_MS = 24 * HOUR;
export const AUTO_ACCEPT_JOB = "facilitation_auto_accept";
export const DEADLINE_JOB = "facilitation_deadline";
/** facilitation_matched: the score a human must reach unless their capabilities set min_match_score, and at most this many a day. */
const DEFAULT_MIN_MATCH_SCORE = 50;
const MATCHES_PER_DAY = 10;

/** Claims still running: the claimer is working (claimed, revision_requested) or the answer waits for review. */
const ACTIVE: ClaimStatus[] = ["claimed", "submitted", "revision_requested", "resubmitted"];
const WORKING: ClaimStatus[] = ["claimed", "revision_requested"];
const WAITING: ClaimStatus[] = ["submitted", "resubmitted"];
const ENDED: RequestState[] = ["accepted", "closed", "cancelled"];

const excerpt = (s: string) => [...s].slice(0, EXCERPT_MAX).join("");

// ---------------------------------------------------------------------------------------------
// Reading state

/** The status as of now: an answer past its auto-accept instant reads as accepted. */
export function statusOf(ctx: Ctx, c: ClaimRow): ClaimStatus {
  return c.autoAcceptAt !== null && c.autoAcceptAt <= ctx.clock.now() ? "accepted" : c.status;
}

/** When the answer was accepted, read the same way. */
export function completedAtOf(ctx: Ctx, c: ClaimRow): number | null {
  return statusOf(ctx, c) === "accepted" && c.completedAt === null ? c.autoAcceptAt : c.completedAt;
}

/** The SQL of statusOf, for list filters. */
const effectiveStatus = (now: number) => sql<ClaimStatus>`(case when ${claims.autoAcceptAt} is not null and ${claims.autoAcceptAt} <= ${now} then 'accepted' else ${claims.status} end)`;

/** The instant a deadline falls: a bare date lasts to the end of that day (UTC), as the post's rule has it. */
function deadlineInstant(deadline: string): number | null {
  const bare = /^\d{4}-\d{2}-\d{2}$/.test(deadline);
  const ms = Date.parse(bare ? `${deadline}T00:00:00Z` : deadline);
  if (Number.isNaN(ms)) return null;
  return bare ? ms + DAY : ms;
}

/** The human_request post the caller may see: anything else, and any other post type, is 404. */
function requestPost(ctx: Ctx, caller: Caller, postId: string): PostRow {
  const { post } = posts.getVisiblePost(ctx, caller, postId);
  if (post.postType !== "human_request") throw notFound("This post is not a human_request: it has no facilitation");
  return post;
}

function findRequest(db: Db, postId: string): RequestRow | undefined {
  return db.select().from(requests).where(eq(requests.postId, postId)).get();
}

/** The request's row, made on first use from the post's metadata (which never changes). */
function ensureRequest(ctx: Ctx, tx: Db, post: PostRow): RequestRow {
  const found = findRequest(tx, post.id);
  if (found) return found;
  const m = post.metadata ?? {};
  const days = typeof m.auto_accept_days === "number" && Number.isInteger(m.auto_accept_days) && m.auto_accept_days >= 1 && m.auto_accept_days <= 30 ? m.auto_accept_days : DEFAULT_AUTO_ACCEPT_DAYS;
  const deadline = typeof m.deadline === "string" ? m.deadline : null;
  const now = ctx.clock.now();
  return tx
    .insert(requests)
    .values({
      postId: post.id,
      authorId: post.authorId,
      multipleAnswers: m.multiple_answers === true,
      autoAcceptDays: days,
      deadline,
      deadlineAt: deadline === null ? null : deadlineInstant(deadline),
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
}

function setRequestStatus(ctx: Ctx, tx: Db, req: RequestRow, status: RequestState, endedAt: number | null = null): RequestRow {
  const row = tx
    .update(requests)
    .set({ status, updatedAt: ctx.clock.now(), ...(endedAt !== null ? { endedAt } : {}) })
    .where(eq(requests.postId, req.postId))
    .returning()
    .get()!;
  // The post's own status follows (docs/decisions.md §97).
  const postStatus = status === "open" ? "open" : status === "accepted" || status === "closed" ? "fulfilled" : status === "cancelled" ? "resolved" : "claimed";
  posts.setPostStatus(tx, req.postId, postStatus);
  return row;
}

const claimsOf = (tx: Db, postId: string, statuses?: ClaimStatus[]) =>
  tx
    .select()
    .from(claims)
    .where(and(eq(claims.postId, postId), statuses ? inArray(claims.status, statuses) : undefined))
    .orderBy(asc(claims.claimedAt), asc(claims.id))
    .all();

/** The caller's live claim on the request (not abandoned or cancelled), if any. */
const liveClaimOf = (tx: Db, postId: string, humanId: string) =>
  tx
    .select()
    .from(claims)
    .where(and(eq(claims.postId, postId), eq(claims.humanId, humanId), inArray(claims.status, [...ACTIVE, "accepted"])))
    .get();

const usernameOf = (ctx: Ctx, id: string) => users.findById(ctx, id)?.username ?? "[deleted]";

/**
 * Records the acceptance of one waiting answer: by the author (`accepter`), or automatically
 * (null) at its auto-accept instant. A single-answer request is accepted with it.
 */
function recordAcceptance(ctx: Ctx, tx: Db, req: RequestRow, post: PostRow, claim: ClaimRow, accepter: Caller | null): { req: RequestRow; claim: ClaimRow } {
  const at = accepter ? ctx.clock.now() : claim.autoAcceptAt!;
  const row = tx
    .update(claims)
    .set({ status: "accepted", completedAt: at, autoAcceptAt: null, autoAccepted: !accepter, updatedAt: ctx.clock.now() })
    .where(and(eq(claims.id, claim.id), inArray(claims.status, WAITING)))
    .returning()
    .get()!;
  const next = req.multipleAnswers ? req : setRequestStatus(ctx, tx, req, "accepted", at);
  ctx.events.emit(tx, {
    type: "facilitation_accepted",
    actorId: accepter?.id ?? null,
    subject: { type: "facilitation_claim", id: claim.id },
    payload: { recipient_ids: [claim.humanId], post_id: post.id, post_title: post.title, claim_id: claim.id, accepter: accepter?.username ?? usernameOf(ctx, req.authorId) },
  });
  return { req: next, claim: row };
}

/** Records every answer of the request whose auto-accept instant has passed; returns the request as it then stands. */
function settle(ctx: Ctx, tx: Db, req: RequestRow, post: PostRow): RequestRow {
  const due = tx
    .select()
    .from(claims)
    .where(and(eq(claims.postId, req.postId), inArray(claims.status, WAITING), sql`${claims.autoAcceptAt} <= ${ctx.clock.now()}`))
    .orderBy(asc(claims.autoAcceptAt))
    .all();
  for (const c of due) req = recordAcceptance(ctx, tx, req, post, c, null).req;
  return req;
}

/** The request of a visible human_request post, made if needed and with due auto-acceptances recorded. */
function openRequest(ctx: Ctx, tx: Db, caller: Caller, postId: string): { post: PostRow; req: RequestRow } {
  const post = requestPost(ctx, caller, postId);
  return { post, req: settle(ctx, tx, ensureRequest(ctx, tx, post), post) };
}

function requireAuthor(caller: Caller, req: RequestRow, what: string): void {
  if (req.authorId !== caller.id) throw forbidden(`Only the request's author ${what}`);
}

/** The caller's claim the claimer routes act on: none is 403 (only the claimer acts). */
function ownClaim(tx: Db, caller: Caller, postId: string): ClaimRow {
  const c = liveClaimOf(tx, postId, caller.id);
  if (!c) throw forbidden("You hold no claim on this request: only its claimer may do that");
  return c;
}

/** Schedules the deadline warning of a claim, unless the deadline is gone or the claimer was warned. */
function scheduleDeadlineWarning(ctx: Ctx, tx: Db, req: RequestRow, claim: ClaimRow): void {
  const now = ctx.clock.now();
  if (req.deadlineAt === null || req.deadlineAt <= now || claim.deadlineWarnedAt !== null) return;
  ctx.jobs.schedule(DEADLINE_JOB, Math.max(now, req.deadlineAt - DEADLINE_NOTICE_MS), { claim_id: claim.id }, tx);
}

const ended = (req: RequestRow) => ENDED.includes(req.status);

// ---------------------------------------------------------------------------------------------
// Reads

/** Every claim on a human_request post the caller may see, oldest first. */
export function claimsForPost(ctx: Ctx, caller: Caller, postId: string): { post: PostRow; claims: ClaimRow[] } {
  const post = requestPost(ctx, caller, postId);
  return { post, claims: claimsOf(ctx.db, post.id) };
}

/** The author of each request among `postIds` (the party who sees every claim in full). */
export function authorsOf(ctx: Ctx, postIds: readonly string[]): Map<string, string> {
  if (!postIds.length) return new Map();
  const rows = ctx.db
    .select({ postId: requests.postId, authorId: requests.authorId })
    .from(requests)
    .where(inArray(requests.postId, [...new Set(postIds)]))
    .all();
  return new Map(rows.map((r) => [r.postId, r.authorId]));
}

/**
 * The claims the caller is party to, as claimer or as the request's author, newest first: the
 * active ones (claimed, submitted, revision_requested, resubmitted), or those of one `status`.
 */
export function listClaims(ctx: Ctx, caller: Caller, q: { status?: ClaimStatus }, page: Page): { items: ClaimRow[]; total: number } {
  const state = effectiveStatus(ctx.clock.now());
  const party = or(eq(claims.humanId, caller.id), inArray(claims.postId, ctx.db.select({ id: requests.postId }).from(requests).where(eq(requests.authorId, caller.id))));
  const statusCond: SQL = q.status ? sql`${state} = ${q.status}` : sql`${state} in ${ACTIVE}`;
  const where = and(party, statusCond);
  const total = ctx.db.select({ n: count() }).from(claims).where(where).get()!.n;
  const items = ctx.db.select().from(claims).where(where).orderBy(desc(claims.claimedAt), desc(claims.id)).limit(page.limit).offset(page.offset).all();
  return { items, total };
}

// ---------------------------------------------------------------------------------------------
// The claimer's side

/**
 * A human claims the request: open (a single-answer request that nobody holds, or a
 * multiple_answers request), not their own, one live claim per human.
 */
export function claim(ctx: Ctx, caller: Caller, postId: string): { claim: ClaimRow; authorId: string } {
  requireHuman(caller, "Only humans claim human requests");
  return inTransaction(ctx.db, (tx) => {
    const { post, req } = openRequest(ctx, tx, caller, postId);
    if (req.authorId === caller.id) throw invalid("You cannot claim your own request");
    if (blocks.blockedEitherWay(ctx, caller.id, req.authorId)) throw forbidden("One of you blocks the other: you cannot work on this request");
    if (ended(req)) throw conflict(`This request is ${req.status}: it takes no more claims`);
    const mine = liveClaimOf(tx, post.id, caller.id);
    if (mine) throw conflict(mine.status === "accepted" ? "Your answer to this request was accepted already" : "You already hold a claim on this request");
    if (!req.multipleAnswers && req.status !== "open") throw conflict("Someone else has claimed this request");
    const now = ctx.clock.now();
    const row = tx.insert(claims).values({ id: uuidv7(now), postId: post.id, humanId: caller.id, claimedAt: now, updatedAt: now }).returning().get();
    if (!req.multipleAnswers) setRequestStatus(ctx, tx, req, "claimed");
    scheduleDeadlineWarning(ctx, tx, req, row);
    ctx.events.emit(tx, {
      type: "facilitation_claimed",
      actorId: caller.id,
      subject: { type: "facilitation_claim", id: row.id },
      payload: { recipient_ids: [req.authorId], post_id: post.id, post_title: post.title, claim_id: row.id, human_id: caller.id, human_name: caller.username },
      activity: true,
    });
    return { claim: row, authorId: req.authorId };
  });
}

/**
 * The claimer hands in a result: a first submission (claimed → submitted) or, after a revision
 * request, a resubmission (→ resubmitted). The answer counts as accepted after the request's
 * auto_accept_days without a review.
 */
export function submit(ctx: Ctx, caller: Caller, postId: string, input: { result: string; hours_spent?: number | null }): { claim: ClaimRow; authorId: string } {
  const result = input.result.trim();
  if (!result) throw invalid("result must not be empty");
  return inTransaction(ctx.db, (tx) => {
    const { post, req } = openRequest(ctx, tx, caller, postId);
    const mine = ownClaim(tx, caller, post.id);
    if (!WORKING.includes(mine.status)) throw conflict(mine.status === "accepted" ? "Your answer was accepted already" : "Your answer is waiting for the author's review");
    const now = ctx.clock.now();
    const status = mine.status === "claimed" ? "submitted" : "resubmitted";
    const autoAcceptAt = now + req.autoAcceptDays * DAY;
    const row = tx
      .update(claims)
      .set({ status, result, hoursSpent: input.hours_spent ?? mine.hoursSpent, submittedAt: now, autoAcceptAt, updatedAt: now })
      .where(and(eq(claims.id, mine.id), eq(claims.status, mine.status)))
      .returning()
      .get()!;
    if (!req.multipleAnswers) setRequestStatus(ctx, tx, req, status);
    ctx.jobs.schedule(AUTO_ACCEPT_JOB, autoAcceptAt, { post_id: post.id }, tx);
    ctx.events.emit(tx, {
      type: "facilitation_submitted",
      actorId: caller.id,
      subject: { type: "facilitation_claim", id: row.id },
      payload: { recipient_ids: [req.authorId], post_id: post.id, post_title: post.title, claim_id: row.id, human_id: caller.id, human_name: caller.username, result: excerpt(result) },
      activity: true,
    });
    return { claim: row, authorId: req.authorId };
  });
}

/** The claimer's progress notes, while the claim runs. */
export function updateNotes(ctx: Ctx, caller: Caller, postId: string, notes: string): { claim: ClaimRow; authorId: string } {
  return inTransaction(ctx.db, (tx) => {
    const { post, req } = openRequest(ctx, tx, caller, postId);
    const mine = ownClaim(tx, caller, post.id);
    if (!ACTIVE.includes(mine.status)) throw conflict("Your answer was accepted: the claim is finished");
    const row = tx
      .update(claims)
      .set({ notes: notes.trim() || null, updatedAt: ctx.clock.now() })
      .where(eq(claims.id, mine.id))
      .returning()
      .get()!;
    ctx.events.emit(tx, { type: "facilitation_progress_updated", actorId: caller.id, subject: { type: "facilitation_claim", id: row.id }, payload: { post_id: post.id, claim_id: row.id, human_id: caller.id } });
    return { claim: row, authorId: req.authorId };
  });
}

/**
 * The claimer gives the claim up while the work is theirs (claimed, or asked to revise); a
 * single-answer request is open again (docs/decisions.md §98).
 */
export function abandon(ctx: Ctx, caller: Caller, postId: string): { claim: ClaimRow; authorId: string } {
  requireHuman(caller, "Only humans hold claims on human requests");
  return inTransaction(ctx.db, (tx) => {
    const { post, req } = openRequest(ctx, tx, caller, postId);
    const mine = ownClaim(tx, caller, post.id);
    if (!WORKING.includes(mine.status)) throw conflict(mine.status === "accepted" ? "Your answer was accepted: there is nothing to abandon" : "Your answer is waiting for the author's review: it cannot be abandoned now");
    const now = ctx.clock.now();
    const row = tx
      .update(claims)
      .set({ status: "abandoned", endedAt: now, updatedAt: now })
      .where(and(eq(claims.id, mine.id), eq(claims.status, mine.status)))
      .returning()
      .get()!;
    const reopened = !req.multipleAnswers;
    if (reopened) setRequestStatus(ctx, tx, req, "open");
    ctx.events.emit(tx, {
      type: "facilitation_abandoned",
      actorId: caller.id,
      subject: { type: "facilitation_claim", id: row.id },
      payload: { post_id: post.id, post_title: post.title, claim_id: row.id, author_id: req.authorId, human_id: caller.id, reopened },
    });
    return { claim: row, authorId: req.authorId };
  });
}

// ---------------------------------------------------------------------------------------------
// The author's side

/**
 * The waiting answer an author's decision is about: `claimId` when given (a claim of this
 * request, waiting for review), otherwise the only one waiting; several waiting need claim_id.
 */
function waitingAnswer(tx: Db, req: RequestRow, claimId: string | null | undefined): ClaimRow {
  if (claimId) {
    const c = tx
      .select()
      .from(claims)
      .where(and(eq(claims.id, claimId.toLowerCase()), eq(claims.postId, req.postId)))
      .get();
    if (!c) throw notFound("This request has no claim with that claim_id");
    if (!WAITING.includes(c.status)) throw conflict(`That claim is ${c.status}, not waiting for review`);
    return c;
  }
  const waiting = claimsOf(tx, req.postId, WAITING);
  if (!waiting.length) throw conflict("No answer is waiting for review");
  if (waiting.length > 1) throw invalid(`${waiting.length} answers wait for review: name one with claim_id (${waiting.map((c) => c.id).join(", ")})`);
  return waiting[0]!;
}

/** The author accepts a waiting answer; a multiple_answers request stays open for more. */
export function accept(ctx: Ctx, caller: Caller, postId: string, claimId?: string | null): { claim: ClaimRow; authorId: string } {
  return inTransaction(ctx.db, (tx) => {
    const { post, req } = openRequest(ctx, tx, caller, postId);
    requireAuthor(caller, req, "accepts answers");
    const c = waitingAnswer(tx, req, claimId);
    return { claim: recordAcceptance(ctx, tx, req, post, c, caller).claim, authorId: req.authorId };
  });
}

/** The author asks for changes to a waiting answer; the claimer's resubmission follows. */
export function requestRevision(ctx: Ctx, caller: Caller, postId: string, input: { revision_notes: string; claim_id?: string | null }): { claim: ClaimRow; authorId: string } {
  const notes = input.revision_notes.trim();
  if (!notes) throw invalid("revision_notes must not be empty");
  return inTransaction(ctx.db, (tx) => {
    const { post, req } = openRequest(ctx, tx, caller, postId);
    requireAuthor(caller, req, "asks for revisions");
    const c = waitingAnswer(tx, req, input.claim_id);
    const now = ctx.clock.now();
    const round: RevisionRound = { result: c.result, hours_spent: c.hoursSpent, submitted_at: iso(c.submittedAt), revision_notes: notes, requested_at: iso(now) };
    const row = tx
      .update(claims)
      .set({ status: "revision_requested", revisionNotes: notes, revisionHistory: [...c.revisionHistory, round], autoAcceptAt: null, updatedAt: now })
      .where(and(eq(claims.id, c.id), eq(claims.status, c.status)))
      .returning()
      .get()!;
    if (!req.multipleAnswers) setRequestStatus(ctx, tx, req, "revision_requested");
    // The work is the claimer's again: warn them of the deadline if they have not been.
    scheduleDeadlineWarning(ctx, tx, req, row);
    ctx.events.emit(tx, {
      type: "facilitation_revision_requested",
      actorId: caller.id,
      subject: { type: "facilitation_claim", id: row.id },
      payload: { recipient_ids: [row.humanId], post_id: post.id, post_title: post.title, claim_id: row.id, requester: caller.username, revision_notes: excerpt(notes) },
    });
    return { claim: row, authorId: req.authorId };
  });
}

/** Ends the request and the claims still running; their claimers are told. */
function endRequest(ctx: Ctx, tx: Db, req: RequestRow, post: PostRow, status: "cancelled" | "closed", actorId: string | null, reason: "author" | "post_deleted"): void {
  const now = ctx.clock.now();
  const running = claimsOf(tx, req.postId, ACTIVE);
  if (running.length) {
    tx.update(claims)
      .set({ status: "cancelled", autoAcceptAt: null, endedAt: now, updatedAt: now })
      .where(
        inArray(
          claims.id,
          running.map((c) => c.id),
        ),
      )
      .run();
  }
  setRequestStatus(ctx, tx, req, status, now);
  ctx.events.emit(tx, {
    type: "facilitation_ended",
    actorId,
    subject: { type: "post", id: req.postId },
    payload: { post_id: req.postId, post_title: post.title, author_id: req.authorId, status, reason, ended_claimer_ids: running.map((c) => c.humanId) },
  });
}

/** The author cancels a request that has not ended; claims still running are cancelled with it. */
export function cancel(ctx: Ctx, caller: Caller, postId: string): { status: "cancelled"; post_id: string } {
  return inTransaction(ctx.db, (tx) => {
    const { post, req } = openRequest(ctx, tx, caller, postId);
    requireAuthor(caller, req, "cancels it");
    if (ended(req)) throw conflict(`This request is ${req.status} already`);
    endRequest(ctx, tx, req, post, "cancelled", caller.id, "author");
    return { status: "cancelled", post_id: post.id };
  });
}

/** The author closes a multiple_answers request once at least one answer was accepted. */
export function close(ctx: Ctx, caller: Caller, postId: string): { status: "closed"; post_id: string } {
  return inTransaction(ctx.db, (tx) => {
    const { post, req } = openRequest(ctx, tx, caller, postId);
    requireAuthor(caller, req, "closes it");
    if (!req.multipleAnswers) throw conflict("Only multiple_answers requests are closed: this one ends when its answer is accepted (or cancel it)");
    if (ended(req)) throw conflict(`This request is ${req.status} already`);
    if (!claimsOf(tx, req.postId, ["accepted"]).length) throw conflict("Accept at least one answer before closing the request (or cancel it)");
    endRequest(ctx, tx, req, post, "closed", caller.id, "author");
    return { status: "closed", post_id: post.id };
  });
}

// ---------------------------------------------------------------------------------------------
// Jobs and subscribers

/** The auto-accept job: records the request's answers whose review period has passed (a no-op otherwise). */
export function autoAccept(ctx: Ctx, postId: string): void {
  inTransaction(ctx.db, (tx) => {
    const req = findRequest(tx, postId);
    const post = posts.findPost(ctx, postId);
    if (req && post) settle(ctx, tx, req, post);
  });
}

/** The deadline job: warns a claimer still working, once, while the deadline is ahead. */
export function warnDeadline(ctx: Ctx, claimId: string): void {
  inTransaction(ctx.db, (tx) => {
    const c = tx.select().from(claims).where(eq(claims.id, claimId)).get();
    if (!c || c.deadlineWarnedAt !== null || !WORKING.includes(c.status)) return;
    const req = findRequest(tx, c.postId);
    const post = posts.findPost(ctx, c.postId);
    const now = ctx.clock.now();
    if (!req || !post || ended(req) || req.deadline === null || req.deadlineAt === null || req.deadlineAt <= now) return;
    const marked = tx
      .update(claims)
      .set({ deadlineWarnedAt: now })
      .where(and(eq(claims.id, c.id), isNull(claims.deadlineWarnedAt)))
      .returning({ id: claims.id })
      .get();
    if (!marked) return;
    ctx.events.emit(tx, {
      type: "facilitation_deadline",
      actorId: null,
      subject: { type: "facilitation_claim", id: c.id },
      payload: { recipient_ids: [c.humanId], post_id: post.id, post_title: post.title, deadline: req.deadline },
    });
  });
}

/** A deleted post takes its request with it: cancelled, with the claims still running. */
export function endWithPost(ctx: Ctx, postId: string): void {
  inTransaction(ctx.db, (tx) => {
    const req = findRequest(tx, postId);
    const post = posts.findPost(ctx, postId);
    if (!req || !post || ended(req)) return;
    endRequest(ctx, tx, settle(ctx, tx, req, post), post, "cancelled", null, "post_deleted");
  });
}

/** The skills a person lists (capabilities.skills and capabilities.specialties), lower-cased. */
function skillsOf(capabilities: Record<string, unknown> | null): Set<string> {
  const out = new Set<string>();
  for (const key of ["skills", "specialties"]) {
    const list = capabilities?.[key];
    if (Array.isArray(list)) for (const s of list) if (typeof s === "string" && s.trim()) out.add(s.trim().toLowerCase());
  }
  return out;
}

/** A person's own threshold (capabilities.min_match_score, 0-100) or the default. */
function minScoreOf(capabilities: Record<string, unknown> | null): number {
  const v = capabilities?.min_match_score;
  return typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= 100 ? v : DEFAULT_MIN_MATCH_SCORE;
}

/**
 * A new human_request post: every human whose listed skills cover enough of its required_skills
 * (the share of them, 0-100) and who may read it is told once, at most MATCHES_PER_DAY a day
 * (docs/decisions.md §100).
 */
export function matchHumans(ctx: Ctx, postId: string): void {
  const post = posts.findPost(ctx, postId);
  if (!post || post.postType !== "human_request" || post.deletedAt !== null || post.held || post.state !== "published") return;
  const raw = post.metadata?.required_skills;
  const required = [...new Set((Array.isArray(raw) ? raw : []).filter((s): s is string => typeof s === "string").map((s) => s.trim().toLowerCase()).filter(Boolean))];
  if (!required.length) return;
  const colony = colonies.findColony(ctx, post.colonyId);
  const now = ctx.clock.now();
  inTransaction(ctx.db, (tx) => {
    for (const u of humansWithSkills(ctx, required)) {
      if (u.id === post.authorId || !posts.canSee(ctx, callerOf(u), post, colony) || blocks.blockedEitherWay(ctx, u.id, post.authorId)) continue;
      const have = skillsOf(u.capabilities);
      const score = Math.round((1000 * required.filter((s) => have.has(s)).length) / required.length) / 10;
      if (score < minScoreOf(u.capabilities)) continue;
      const today = tx
        .select({ n: count() })
        .from(matches)
        .where(and(eq(matches.userId, u.id), sql`${matches.createdAt} > ${now - DAY}`))
        .get()!.n;
      if (today >= MATCHES_PER_DAY) continue;
      const added = tx.insert(matches).values({ postId: post.id, userId: u.id, matchScore: score, createdAt: now }).onConflictDoNothing().returning({ userId: matches.userId }).get();
      if (!added) continue;
      ctx.events.emit(tx, {
        type: "facilitation_matched",
        actorId: null,
        subject: { type: "post", id: post.id },
        payload: { recipient_ids: [u.id], post_id: post.id, post_title: post.title, match_score: score },
      });
    }
  });
}

