// Tips (spec Part 3 §4.4): a Lightning tip on a post or a comment. The tipper gets an invoice of
// the platform's wallet (payments' `tip` purpose); once it is paid (a check, or the poller) the
// tip is `paid` exactly once, the author is told (tip_received) and their share is paid out to
// their Lightning address, like a seller's (docs/decisions.md §122).
import { and, count, desc, eq, isNull, or, sum, type SQL } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import type { Tx } from "../../db/client";
import type { Caller } from "../auth/service";
import { getVisibleComment, liveUnheldCommentFilter } from "../comments/service";
import * as payments from "../payments/service";
import { getVisiblePost, postTitles, readableListedPostFilter } from "../posts/service";
import * as users from "../users/service";
import { tips } from "./tables";
import { settingsOf } from "../instance/service";

export type TipRow = typeof tips.$inferSelect;

export const MIN_TIP_SATS = 21;
export const MAX_TIP_SATS = 100_000;
/** How long a tip's invoice can be paid. */
const TIP_TTL_SECONDS = 15 * 60;
export const PURPOSE = "tip";

interface Target {
  recipientId: string;
  postId: string;
  commentId: string | null;
}

/** POST /tips/post/{post_id}: a post the caller can see, else 404. */
export function tipPost(ctx: Ctx, caller: Caller, postId: string, amountSats: number): Promise<TipRow> {
  const { post } = getVisiblePost(ctx, caller, postId);
  return openTip(ctx, caller, { recipientId: post.authorId, postId: post.id, commentId: null }, amountSats);
}

/** POST /tips/comment/{comment_id}: a comment the caller can see, else 404. */
export function tipComment(ctx: Ctx, caller: Caller, commentId: string, amountSats: number): Promise<TipRow> {
  const { comment } = getVisibleComment(ctx, caller, commentId);
  return openTip(ctx, caller, { recipientId: comment.authorId, postId: comment.postId, commentId: comment.id }, amountSats);
}

/**
 * Checks, then the wallet's invoice (payments.openInvoice: a wallet failure is 502 and records
 * nothing), then the tip and its invoice in one transaction.
 */
async function openTip(ctx: Ctx, caller: Caller, target: Target, amountSats: number): Promise<TipRow> {
  if (!Number.isInteger(amountSats) || amountSats < MIN_TIP_SATS || amountSats > MAX_TIP_SATS) throw invalid(`A tip is ${MIN_TIP_SATS} to ${MAX_TIP_SATS} sats`);
  if (target.recipientId === caller.id) throw invalid("You cannot tip yourself");
  const recipient = users.findById(ctx, target.recipientId);
  if (!users.isActive(recipient)) throw invalid("The author of this content can no longer receive tips");
  // The tip is forwarded to the author's Lightning address: without one it could never reach them (docs/decisions.md §122).
  if (!recipient.lightningAddress) throw invalid(`@${recipient.username} has no lightning address to receive tips`);
  const now = ctx.clock.now();
  return payments.openInvoice(ctx, { purpose: PURPOSE, amountSats, memo: `${settingsOf(ctx).name} tip for @${recipient.username}`, ttlSeconds: TIP_TTL_SECONDS }, (tx, invoice) =>
    tx
      .insert(tips)
      .values({
        id: uuidv7(now),
        tipperId: caller.id,
        recipientId: recipient.id,
        postId: target.postId,
        commentId: target.commentId,
        amountSats,
        paymentHash: invoice.paymentHash,
        paymentRequest: invoice.paymentRequest,
        expiresAt: invoice.expiresAt,
        createdAt: now,
      })
      .returning()
      .get(),
  );
}

function findTip(ctx: Ctx, id: string): TipRow | null {
  return ctx.db.select().from(tips).where(eq(tips.id, id)).get() ?? null;
}

/**
 * POST /tips/{tip_id}/check: the tipper or the recipient (anyone else 404, as if it did not
 * exist; docs/decisions.md §122). A pending tip asks the wallet (a wallet failure is 502).
 */
export async function checkTip(ctx: Ctx, caller: Caller, tipId: string): Promise<TipRow> {
  const tip = findTip(ctx, tipId);
  if (!tip || (tip.tipperId !== caller.id && tip.recipientId !== caller.id)) throw notFound("Tip not found");
  if (tip.status !== "pending") return tip;
  const invoice = payments.invoiceOf(ctx, PURPOSE, tip.id);
  if (invoice) await payments.checkInvoice(ctx, invoice.id, { strict: true });
  return findTip(ctx, tipId)!;
}

// ---------------------------------------------------------------------------------------------
// Settlement (payments calls these in the transaction that moved the invoice)

/** The invoice was paid: the tip is paid, the author's share queued for payout, the author told. */
export function onTipPaid(ctx: Ctx, tx: Tx, invoice: payments.InvoiceRow): void {
  const tip = tx
    .update(tips)
    .set({ status: "paid", paidAt: invoice.paidAt ?? ctx.clock.now() })
    .where(and(eq(tips.id, invoice.subjectId), eq(tips.status, "pending")))
    .returning()
    .get();
  if (!tip) return;
  payments.queuePayout(ctx, tx, { purpose: PURPOSE, subjectId: tip.id, recipientId: tip.recipientId, grossSats: tip.amountSats });
  const tipper = users.findById(ctx, tip.tipperId);
  ctx.events.emit(tx, {
    type: "tip_received",
    actorId: tip.tipperId,
    subject: { type: "tip", id: tip.id },
    payload: {
      recipient_ids: [tip.recipientId],
      tip_id: tip.id,
      tipper: tipper?.username ?? "[deleted]",
      amount_sats: tip.amountSats,
      post_id: tip.commentId ? null : tip.postId,
      comment_id: tip.commentId,
    },
  });
}

/** The invoice expired or failed: so does the tip. */
export function onTipLapsed(tx: Tx, invoice: payments.InvoiceRow): void {
  const status = invoice.status === "failed" ? "failed" : "expired";
  tx.update(tips)
    .set({ status })
    .where(and(eq(tips.id, invoice.subjectId), eq(tips.status, "pending")))
    .run();
}

// ---------------------------------------------------------------------------------------------
// Reads

interface TipStats {
  total_tips: number;
  total_sats: number;
}

function statsWhere(ctx: Ctx, where: SQL): TipStats {
  const r = ctx.db
    .select({ n: count(), sats: sum(tips.amountSats) })
    .from(tips)
    .where(and(eq(tips.status, "paid"), where))
    .get();
  return { total_tips: r?.n ?? 0, total_sats: Number(r?.sats ?? 0) };
}

/** Paid tips on the post itself (not on its comments); a post the caller cannot see is 404. */
export function postStats(ctx: Ctx, caller: Caller | null, postId: string): TipStats & { post_id: string } {
  const { post } = getVisiblePost(ctx, caller, postId);
  return { post_id: post.id, ...statsWhere(ctx, and(eq(tips.postId, post.id), isNull(tips.commentId))!) };
}

/** Paid tips on the comment; a comment the caller cannot see is 404. */
export function commentStats(ctx: Ctx, caller: Caller | null, commentId: string): TipStats & { comment_id: string } {
  const { comment } = getVisibleComment(ctx, caller, commentId);
  return { comment_id: comment.id, ...statsWhere(ctx, eq(tips.commentId, comment.id)) };
}

interface ListTipsFilters {
  tipper?: string;
  recipient?: string;
  post_id?: string;
  comment_id?: string;
}

interface TipListRow {
  tip: TipRow;
  postTitle: string;
}

/**
 * GET /tips: paid tips newest first, filters combined with AND; `tipper` and `recipient` take a
 * username or an id (unknown: 404 USER_NOT_FOUND, as /posts?author= has it). Only tips on
 * content the caller may read now: a listed post in a colony they can read (private colonies to
 * their approved members), and for comment tips a live, unheld comment.
 */
export function listTips(ctx: Ctx, caller: Caller | null, f: ListTipsFilters, page: Page): { items: TipListRow[]; total: number } {
  const conds: (SQL | undefined)[] = [eq(tips.status, "paid"), readableListedPostFilter(ctx, caller, tips.postId)];
  conds.push(or(isNull(tips.commentId), liveUnheldCommentFilter(tips.commentId)));
  if (f.tipper) conds.push(eq(tips.tipperId, users.getActiveUser(ctx, f.tipper).id));
  if (f.recipient) conds.push(eq(tips.recipientId, users.getActiveUser(ctx, f.recipient).id));
  if (f.post_id) conds.push(eq(tips.postId, f.post_id.toLowerCase()));
  if (f.comment_id) conds.push(eq(tips.commentId, f.comment_id.toLowerCase()));
  const where = and(...conds);
  const rows = ctx.db.select().from(tips).where(where).orderBy(desc(tips.paidAt), desc(tips.id)).limit(page.limit).offset(page.offset).all();
  const titles = postTitles(ctx, rows.map((t) => t.postId));
  const items = rows.map((tip) => ({ tip, postTitle: titles.get(tip.postId) ?? "" }));
  const total = ctx.db.select({ n: count() }).from(tips).where(where).get()!.n;
  return { items, total };
}
