// Marketplace: paid tasks and their bids (spec Part 3 §2.1, §2.3, §3, §4.1). A task is a
// paid_task post; its workflow is the post's status: open → bidding (first bid) → accepted (the
// author accepts a bid: the other pending bids are rejected and a Lightning invoice for the bid's
// amount is issued) → paid (the invoice settles: payments' poller or a check) → completed (the
// author confirms the work; the worker's payout of 95 % is queued). Closing a listing (a task or
// an offer) stops new bids and orders and nothing else. Refusals: docs/decisions.md §112.
import { and, count, desc, eq, inArray, ne } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { exclusive } from "../../core/exclusive";
import { ApiError, forbidden, invalid, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { inTransaction, type Tx } from "../../db/client";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import * as payments from "../payments/service";
import type { InvoiceRow, PayoutRow } from "../payments/service";
import * as posts from "../posts/service";
import type { PostRow } from "../posts/service";
import { MAX_BUDGET_SATS, MIN_SATS } from "../posts/content";
import { bids, type BidRow } from "./tables";
import { settingsOf } from "../instance/service";

export type { BidRow };

/** The payments purpose of a task's invoice and payout; the subject is the accepted bid. */
export const PURPOSE = "task";
/** Every bid is at least this (spec §8), whatever the budget says. */
const MIN_BID_SATS = MIN_SATS;
/** The ceiling of a bid on a task that declares no budget (spec §2.1, §8). */
export const MAX_BID_SATS = MAX_BUDGET_SATS;
/** How long a task's invoice can be paid (docs/decisions.md §114). */
const TASK_INVOICE_TTL_SECONDS = 24 * 3600;
export const MIN_DESCRIPTION = 10;
/** Statuses in which a task takes bids. */
const BIDDABLE: readonly PostRow["status"][] = ["open", "bidding"];

/** 400 CONFLICT: the answer to a new bid or order on a closed listing, and to a second accept (spec §7). */
const conflict400 = (message: string, extra: Record<string, unknown> = {}) => new ApiError(400, "CONFLICT", message, extra);

// A task with a bid (whatever became of it) is no longer edited: bidders bid on what it said.
posts.refuseEditsWhen((ctx, post) => (post.postType === "paid_task" && ctx.db.select({ id: bids.id }).from(bids).where(eq(bids.postId, post.id)).limit(1).get() ? "This task already has bids and can no longer be edited" : null));

// ---------------------------------------------------------------------------------------------
// Listings (tasks and offers)

const isListing = (post: PostRow) => post.postType === "paid_task" || post.postType === "paid_offer";

/**
 * New bids (and orders: the offers feature calls this) are refused on a closed listing with 400
 * CONFLICT and its closed_at; existing bids and orders go on (spec §3).
 */
export function assertAcceptingSubmissions(post: PostRow): void {
  if (post.closedAt !== null) throw conflict400("This listing is closed: it takes no new bids or orders until its author reopens it", { closed_at: iso(post.closedAt) });
}

/**
 * POST /posts/{id}/close and /reopen: the author of a task or an offer closes or reopens it.
 * Idempotent: a repeat answers the post unchanged (the first closing instant stays) and tells
 * nobody; a change tells the author's webhooks (listing_closed, listing_reopened). Other post
 * types are 400 (docs/decisions.md §116).
 */
export function setListingClosed(ctx: Ctx, caller: Caller, postId: string, close: boolean): PostRow {
  const { post } = posts.getVisiblePost(ctx, caller, postId);
  if (post.authorId !== caller.id) throw forbidden(`Only the listing's author ${close ? "closes" : "reopens"} it`);
  if (!isListing(post)) throw invalid(`Only marketplace listings (paid_task and paid_offer posts) ${close ? "close" : "reopen"}; this post is a ${post.postType}`);
  return inTransaction(ctx.db, (tx) => {
    const row = posts.setClosedAt(tx, post.id, close ? ctx.clock.now() : null);
    if (!row) return post;
    ctx.events.emit(tx, {
      type: close ? "listing_closed" : "listing_reopened",
      actorId: caller.id,
      subject: { type: "post", id: post.id },
      payload: { recipient_ids: [post.authorId], post_id: post.id, post_title: post.title, post_type: post.postType },
    });
    return row;
  });
}

// ---------------------------------------------------------------------------------------------
// Tasks

/** A paid task the caller may see, with its colony; anything else (another post type too) is 404. */
function getTask(ctx: Ctx, caller: Caller | null, postId: string): { post: PostRow; colony: ColonyRow } {
  const found = posts.getVisiblePost(ctx, caller, postId);
  if (found.post.postType !== "paid_task") throw notFound("Task not found: no paid_task post with this id");
  return found;
}

const budgetOf = (post: PostRow, key: "budget_min_sats" | "budget_max_sats"): number | null => {
  const v = post.metadata?.[key];
  return typeof v === "number" ? v : null;
};

/** The bid amounts a task takes: its budget range with the 21-sat floor raised under it; 21..100,000,000 without one. */
function bidRange(post: PostRow): { min: number; max: number } {
  return { min: Math.max(MIN_BID_SATS, budgetOf(post, "budget_min_sats") ?? MIN_BID_SATS), max: budgetOf(post, "budget_max_sats") ?? MAX_BID_SATS };
}

/** GET /marketplace/tasks: listed tasks the caller may read, closed listings left out. */
export function listTasks(ctx: Ctx, caller: Caller | null, f: posts.TaskListFilters, page: Page): { items: PostRow[]; total: number; bidCounts: Map<string, number> } {
  const { items, total } = posts.listPaidTasks(ctx, caller, f, page);
  return { items, total, bidCounts: bidCounts(ctx, items.map((p) => p.id)) };
}

/** Bids on each task, withdrawn ones left out, in one query. */
function bidCounts(ctx: Ctx, postIds: readonly string[]): Map<string, number> {
  if (!postIds.length) return new Map();
  const rows = ctx.db
    .select({ postId: bids.postId, n: count() })
    .from(bids)
    .where(and(inArray(bids.postId, [...postIds]), ne(bids.status, "withdrawn")))
    .groupBy(bids.postId)
    .all();
  return new Map(rows.map((r) => [r.postId, r.n]));
}

// ---------------------------------------------------------------------------------------------
// Bids

interface BidInput {
  bid_amount_sats: number;
  bid_description: string;
}

/**
 * POST /marketplace/{post_id}/bid: a pending bid on a task the caller can see and take part in,
 * not their own, whose listing is open and which takes bids, within its range; one pending bid
 * per bidder (409). The first bid moves the task to bidding; the author is told (bid_received).
 */
export function placeBid(ctx: Ctx, caller: Caller, postId: string, input: BidInput): BidRow {
  const { post, colony } = getTask(ctx, caller, postId);
  if (post.authorId === caller.id) throw invalid("You cannot bid on your own task");
  colonies.assertCanParticipate(ctx, colony, caller);
  assertAcceptingSubmissions(post);
  if (!BIDDABLE.includes(post.status)) throw invalid(`This task is ${post.status} and takes no more bids`);
  const description = input.bid_description.trim();
  if ([...description].length < MIN_DESCRIPTION) throw invalid(`bid_description must be at least ${MIN_DESCRIPTION} characters (not counting surrounding spaces)`);
  const { min, max } = bidRange(post);
  const amount = input.bid_amount_sats;
  if (amount < min || amount > max) {
    throw invalid(`bid_amount_sats must be from ${min.toLocaleString("en")} to ${max.toLocaleString("en")} sats for this task${budgetOf(post, "budget_max_sats") === null ? " (it declares no budget)" : ""}`);
  }
  const now = ctx.clock.now();
  return inTransaction(ctx.db, (tx) => {
    // The task as it is now: an accept or a close may have landed since it was read.
    const current = posts.findPost({ db: tx }, post.id)!;
    assertAcceptingSubmissions(current);
    if (!BIDDABLE.includes(current.status)) throw invalid(`This task is ${current.status} and takes no more bids`);
    const row = tx
      .insert(bids)
      .values({ id: uuidv7(now), postId: post.id, bidderId: caller.id, amountSats: amount, description, createdAt: now, updatedAt: now })
      .onConflictDoNothing()
      .returning()
      .get();
    if (!row) throw new ApiError(409, "CONFLICT", "You already have a pending bid on this task: withdraw it to bid again with another amount");
    posts.moveStatus(tx, post.id, ["open"], "bidding");
    ctx.events.emit(tx, {
      type: "bid_received",
      actorId: caller.id,
      subject: { type: "bid", id: row.id },
      activity: true,
      payload: { recipient_ids: [post.authorId], post_id: post.id, bidder: caller.username, post_title: post.title, amount_sats: amount },
    });
    return row;
  });
}

/** A bid of the task; one that is missing or belongs to another task is 404. */
function bidOnTask(ctx: Ctx, postId: string, bidId: string, db: Tx = ctx.db): BidRow {
  const row = db.select().from(bids).where(eq(bids.id, bidId)).get();
  if (!row || row.postId !== postId) throw notFound("Bid not found on this task");
  return row;
}

function findBid(ctx: Ctx, bidId: string): BidRow | null {
  return ctx.db.select().from(bids).where(eq(bids.id, bidId)).get() ?? null;
}

/** GET /marketplace/{post_id}/bids: every bid of a task the caller can see, newest first. */
export function listBids(ctx: Ctx, caller: Caller | null, postId: string, page: Page): { items: BidRow[]; total: number } {
  const { post } = getTask(ctx, caller, postId);
  const where = eq(bids.postId, post.id);
  const total = ctx.db.select({ n: count() }).from(bids).where(where).get()!.n;
  const items = ctx.db.select().from(bids).where(where).orderBy(desc(bids.createdAt), desc(bids.id)).limit(page.limit).offset(page.offset).all();
  return { items, total };
}

/** The task's accepted bid, if any (at most one). */
function acceptedBidOf(ctx: Ctx, postId: string, db: Tx = ctx.db): BidRow | null {
  return db.select().from(bids).where(and(eq(bids.postId, postId), eq(bids.status, "accepted"))).get() ?? null;
}

function requireAuthor(post: PostRow, caller: Caller, what: string): void {
  if (post.authorId !== caller.id) throw forbidden(`Only the task's author ${what}`);
}

/** Moves a pending bid to `to` by compare-and-set; 400 naming its status when it is pending no more. */
function leavePending(ctx: Ctx, tx: Tx, post: PostRow, bidId: string, to: "accepted" | "rejected" | "withdrawn", verb: string): BidRow {
  const row = tx
    .update(bids)
    .set({ status: to, updatedAt: ctx.clock.now() })
    .where(and(eq(bids.id, bidId), eq(bids.status, "pending")))
    .returning()
    .get();
  if (!row) throw invalid(`This bid is ${bidOnTask(ctx, post.id, bidId, tx).status}: only a pending bid can be ${verb}`);
  return row;
}

/** The task events its author causes, told to `recipients` (the reference's payload: post, title, poster). */
function emitFromAuthor(ctx: Ctx, tx: Tx, type: "bid_accepted" | "bid_rejected" | "task_completed", caller: Caller, post: PostRow, recipients: string[], subject: { type: string; id: string }): void {
  const payload = { recipient_ids: recipients, post_id: post.id, post_title: post.title, poster: caller.username };
  ctx.events.emit(tx, { type, actorId: caller.id, subject, payload });
}

/**
 * POST …/bid/{bid_id}/accept, by the task's author. The invoice is asked of the wallet before
 * anything changes (a wallet failure is 502 UPSTREAM_FAILURE and changes nothing); then, in one
 * transaction, the bid is accepted by compare-and-set, the task moves to accepted, every other
 * pending bid is rejected and the invoice is recorded. The whole runs alone per task
 * (core/exclusive.ts), so a double accept finds the bid accepted and asks for no second invoice
 * (400 CONFLICT). Accepting the accepted bid again once its invoice lapsed unpaid issues a new
 * one (docs/decisions.md §114).
 */
export function acceptBid(ctx: Ctx, caller: Caller, postId: string, bidId: string): Promise<BidRow> {
  return exclusive(`${PURPOSE}:${postId.toLowerCase()}`, async () => {
    const { post } = getTask(ctx, caller, postId);
    requireAuthor(post, caller, "accepts bids");
    const bid = bidOnTask(ctx, post.id, bidId);
    const renewal = bid.status === "accepted";
    if (renewal) {
      const invoice = payments.invoiceOf(ctx, PURPOSE, bid.id);
      if (invoice?.status === "paid" || invoice?.status === "pending") throw conflict400(`This bid is already accepted and its invoice is ${invoice.status === "paid" ? "paid" : "waiting to be paid"}: no second invoice is issued`);
    } else if (bid.status !== "pending") throw invalid(`This bid is ${bid.status}: only a pending bid can be accepted`);
    else if (!BIDDABLE.includes(post.status)) throw conflict400(`This task already has an accepted bid (it is ${post.status})`);

    const invoice = await payments.requestInvoice(ctx, { amountSats: bid.amountSats, memo: `${settingsOf(ctx).name} task: ${post.title.slice(0, 120)}`, ttlSeconds: TASK_INVOICE_TTL_SECONDS });
    const now = ctx.clock.now();
    return inTransaction(ctx.db, (tx) => {
      if (renewal) {
        const current = payments.invoiceOf(ctx, PURPOSE, bid.id);
        if (current?.status === "paid" || current?.status === "pending") throw conflict400("This bid's invoice was paid or renewed meanwhile: no second invoice is issued");
        payments.recordInvoice(ctx, tx, { purpose: PURPOSE, subjectId: bid.id, amountSats: bid.amountSats, invoice });
        return bid;
      }
      const row = leavePending(ctx, tx, post, bid.id, "accepted", "accepted");
      if (!posts.moveStatus(tx, post.id, BIDDABLE, "accepted")) throw conflict400("This task already has an accepted bid");
      const rejected = tx
        .update(bids)
        .set({ status: "rejected", updatedAt: now })
        .where(and(eq(bids.postId, post.id), eq(bids.status, "pending")))
        .returning({ bidderId: bids.bidderId })
        .all();
      payments.recordInvoice(ctx, tx, { purpose: PURPOSE, subjectId: row.id, amountSats: row.amountSats, invoice });
      emitFromAuthor(ctx, tx, "bid_accepted", caller, post, [row.bidderId], { type: "bid", id: row.id });
      if (rejected.length) emitFromAuthor(ctx, tx, "bid_rejected", caller, post, [...new Set(rejected.map((r) => r.bidderId))], { type: "post", id: post.id });
      return row;
    });
  });
}

/** POST …/bid/{bid_id}/reject: the task's author rejects one pending bid; the bidder is told. */
export function rejectBid(ctx: Ctx, caller: Caller, postId: string, bidId: string): BidRow {
  const { post } = getTask(ctx, caller, postId);
  requireAuthor(post, caller, "rejects bids");
  const bid = bidOnTask(ctx, post.id, bidId);
  return inTransaction(ctx.db, (tx) => {
    const row = leavePending(ctx, tx, post, bid.id, "rejected", "rejected");
    emitFromAuthor(ctx, tx, "bid_rejected", caller, post, [row.bidderId], { type: "bid", id: row.id });
    return row;
  });
}

/** POST …/bid/{bid_id}/withdraw: the bidder takes back their pending bid (docs/decisions.md §113). */
export function withdrawBid(ctx: Ctx, caller: Caller, postId: string, bidId: string): BidRow {
  const { post } = getTask(ctx, caller, postId);
  const bid = bidOnTask(ctx, post.id, bidId);
  if (bid.bidderId !== caller.id) throw forbidden("Only the bidder withdraws a bid");
  return leavePending(ctx, ctx.db, post, bid.id, "withdrawn", "withdrawn");
}

/** A deleted account's pending bids are withdrawn (nobody can be paid for them any more). */
export function withdrawBidsOf(ctx: Ctx, userId: string): void {
  ctx.db
    .update(bids)
    .set({ status: "withdrawn", updatedAt: ctx.clock.now() })
    .where(and(eq(bids.bidderId, userId), eq(bids.status, "pending")))
    .run();
}

// ---------------------------------------------------------------------------------------------
// Payment and completion

export interface TaskPayment {
  post: PostRow;
  bid: BidRow;
  invoice: InvoiceRow;
  payout: PayoutRow | null;
}

/**
 * The payment of a task the caller can see (anyone who can: docs/decisions.md §114): its accepted
 * bid, newest invoice and payout; null before a bid is accepted.
 */
export function paymentOf(ctx: Ctx, caller: Caller | null, postId: string): TaskPayment | null {
  const { post } = getTask(ctx, caller, postId);
  const bid = acceptedBidOf(ctx, post.id);
  const invoice = bid ? payments.invoiceOf(ctx, PURPOSE, bid.id) : null;
  if (!bid || !invoice) return null;
  return { post, bid, invoice, payout: payments.payoutOf(ctx, PURPOSE, bid.id) };
}

/** POST …/payment/check: asks the wallet about the task's invoice now (502 UPSTREAM_FAILURE when it does not answer). */
export async function checkPayment(ctx: Ctx, caller: Caller | null, postId: string): Promise<InvoiceRow> {
  const p = paymentOf(ctx, caller, postId);
  if (!p) throw notFound("This task has no payment yet: its author accepts a bid first");
  return payments.checkInvoice(ctx, p.invoice.id, { strict: true });
}

/**
 * payments' onPaid for a task's invoice, in the transaction that marked it paid (exactly once):
 * the task moves from accepted to paid and its author and worker are told.
 */
export function onTaskPaid(ctx: Ctx, tx: Tx, invoice: InvoiceRow): void {
  const bid = tx.select().from(bids).where(eq(bids.id, invoice.subjectId)).get();
  if (!bid) return;
  const post = posts.findPost({ db: tx }, bid.postId);
  if (!post) return;
  posts.moveStatus(tx, post.id, ["accepted"], "paid");
  ctx.events.emit(tx, {
    type: "payment_received",
    actorId: null,
    subject: { type: "bid", id: bid.id },
    payload: { recipient_ids: [post.authorId, bid.bidderId], post_id: post.id, post_title: post.title, amount_sats: invoice.amountSats },
  });
}

/**
 * POST /marketplace/{post_id}/complete: the author confirms the work of a paid task. The task
 * moves to completed, the worker's payout (95 %) is queued in the same transaction (sent by the
 * payout runner to their Lightning address) and the worker is told.
 */
export function completeTask(ctx: Ctx, caller: Caller, postId: string): PostRow {
  // The poster completes their paid task even after a moderator removed the post, so the
  // worker's payout is never stranded with the platform (docs/decisions.md §127).
  const own = posts.findPost(ctx, postId);
  const post = own && own.postType === "paid_task" && own.authorId === caller.id ? own : getTask(ctx, caller, postId).post;
  requireAuthor(post, caller, "marks it complete");
  if (post.status !== "paid") {
    const why = post.status === "completed" ? "it is already completed" : post.status === "accepted" ? "its invoice is not paid yet" : `it is ${post.status}: accept a bid and pay its invoice first`;
    throw invalid(`Only a paid task can be completed; ${why}`);
  }
  return inTransaction(ctx.db, (tx) => {
    const row = posts.moveStatus(tx, post.id, ["paid"], "completed");
    if (!row) throw invalid("Only a paid task can be completed; it changed meanwhile");
    const bid = acceptedBidOf(ctx, post.id, tx)!;
    const invoice = payments.invoiceOf(ctx, PURPOSE, bid.id)!;
    payments.queuePayout(ctx, tx, { purpose: PURPOSE, subjectId: bid.id, recipientId: bid.bidderId, grossSats: invoice.amountSats });
    emitFromAuthor(ctx, tx, "task_completed", caller, post, [bid.bidderId], { type: "bid", id: bid.id });
    return row;
  });
}

// ---------------------------------------------------------------------------------------------
// Reviews of tasks

/**
 * What the reviews feature needs of a bid (registered in handlers.ts): the task, its two parties
 * (author and bidder) and, while it cannot be reviewed, why.
 */
export function reviewSubjectOfBid(ctx: Ctx, bidId: string): { postId: string; postTitle: string; parties: [string, string]; notYet: string | null } | null {
  const bid = findBid(ctx, bidId);
  const post = bid ? posts.findPost(ctx, bid.postId) : null;
  if (!bid || !post) return null;
  const notYet = bid.status !== "accepted" ? `This bid is ${bid.status}: only the accepted bid of a completed task is reviewed` : post.status !== "completed" ? `The task is ${post.status}: it is reviewed once completed` : null;
  return { postId: post.id, postTitle: post.title, parties: [post.authorId, bid.bidderId], notYet };
}
