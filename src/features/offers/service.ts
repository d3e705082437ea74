// Offers and orders (spec Part 3 §4.2 with §2.2, §2.3 and the Order rows of §3): a buyer orders
// from a paid_offer listing at its listed_rate_sats; the seller accepts (the wallet issues the
// invoice first, then the state moves), declines, or the buyer cancels while it is requested;
// the invoice is paid (a check or the poller: payments settles it once and calls onOrderPaid) or
// lapses (expired); the seller marks a paid order delivered, which queues the payout of 95 % to
// the seller's Lightning address; the payout's states are mirrored on the order
// (docs/decisions.md §106-§111).
import { and, count, desc, eq, inArray, or, type SQL } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { exclusive } from "../../core/exclusive";
import { ApiError, forbidden, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { inTransaction, type Tx } from "../../db/client";
import type { Caller } from "../auth/service";
import { assertAcceptingSubmissions } from "../marketplace/service";
import * as payments from "../payments/service";
import * as posts from "../posts/service";
import type { PostRow } from "../posts/service";
import * as users from "../users/service";
import { serviceOrders, type OrderStatus } from "./tables";
import { settingsOf } from "../instance/service";

export type OrderRow = typeof serviceOrders.$inferSelect;
export type { OrderStatus };

/** The payments purpose of an order's invoice and payout. */
export const ORDER_PURPOSE = "order";
/** The one-shot job that runs the payout runner right after a delivery. */
export const PAYOUT_JOB = "order_payout";
/** How long the buyer has to pay an accepted order's invoice (docs/decisions.md §108). */
export const INVOICE_TTL_SECONDS = 3600;
export const ROLES = ["all", "buyer", "seller"] as const;
type Role = (typeof ROLES)[number];
/** listed_rate_sats bounds (Part 3 §2.2, §8). */
const MIN_RATE = 21;
const MAX_RATE = 10_000_000;

/** A refused transition: 400 CONFLICT (Part 3 §7: double accept of an order, a closed listing). */
const conflict400 = (message: string) => new ApiError(400, "CONFLICT", message);
const orderNotFound = () => notFound("Order not found");

// An offer with an order (whatever became of it) is no longer edited: buyers ordered what it said.
posts.refuseEditsWhen((ctx, post) => (post.postType === "paid_offer" && ctx.db.select({ id: serviceOrders.id }).from(serviceOrders).where(eq(serviceOrders.postId, post.id)).limit(1).get() ? "This offer already has orders and can no longer be edited" : null));
/** Every change of one order runs alone in this process (the accept's wallet call included). */
const lockKey = (orderId: string) => `order:${orderId}`;

const rate = (post: PostRow): number | null => {
  const v = post.metadata?.listed_rate_sats;
  return typeof v === "number" && Number.isInteger(v) && v >= MIN_RATE && v <= MAX_RATE ? v : null;
};

function findOrder(ctx: Ctx | { db: Tx }, id: string): OrderRow | null {
  return ctx.db.select().from(serviceOrders).where(eq(serviceOrders.id, id)).get() ?? null;
}

/**
 * For other features (reviews): who bought and who sold an order, on which listing, and where
 * it stands; null when there is no such order. No permission check — the caller decides who
 * may act on it (a review needs the caller to be one of the two parties, for instance).
 */
export function orderParties(ctx: Ctx, orderId: string): { orderId: string; postId: string; buyerId: string; sellerId: string; status: OrderStatus; amountSats: number } | null {
  const o = findOrder(ctx, orderId);
  return o && { orderId: o.id, postId: o.postId, buyerId: o.buyerId, sellerId: o.sellerId, status: o.status, amountSats: o.agreedAmountSats };
}

/** The states in which an order may be reviewed (Part 3 §4.3: delivered, or any payout state). */
const REVIEWABLE: readonly OrderStatus[] = ["delivered", "payout_pending", "payout_completed", "payout_failed", "payout_abandoned"];

/** An order as the reviews feature reads it (its registry; docs/decisions.md §118). */
export function reviewSubjectOfOrder(ctx: Ctx, orderId: string): { postId: string; postTitle: string; parties: [string, string]; notYet: string | null } | null {
  const o = findOrder(ctx, orderId);
  if (!o) return null;
  const notYet = REVIEWABLE.includes(o.status) ? null : `This order is ${o.status}: an order is reviewed once it is delivered`;
  return { postId: o.postId, postTitle: titleOf(ctx, o.postId), parties: [o.buyerId, o.sellerId], notYet };
}

/** An order the caller is a party to; anyone else gets 404 (Part 3 §7: foreign orders). */
function partyOrder(ctx: Ctx, caller: Caller, id: string): OrderRow {
  const o = findOrder(ctx, id);
  if (!o || (o.buyerId !== caller.id && o.sellerId !== caller.id)) throw orderNotFound();
  return o;
}

/** An order the caller may act on as `role`: strangers 404, the other party 403 (docs/decisions.md §107). */
function orderAs(ctx: Ctx, caller: Caller, id: string, role: "buyer" | "seller"): OrderRow {
  const o = partyOrder(ctx, caller, id);
  if ((role === "seller" ? o.sellerId : o.buyerId) !== caller.id) throw forbidden(`Only the order's ${role} may do that`);
  return o;
}

const titleOf = (ctx: Ctx | { db: Tx }, postId: string) => posts.findPost(ctx, postId)?.title ?? "[deleted]";
const usernameOf = (ctx: Ctx, id: string) => users.findById(ctx, id)?.username ?? "[deleted]";

interface CreateOrderInput {
  buyer_brief?: string | null;
}

/**
 * POST /offers/{post_id}/order: a requested order at the listing's rate. 404 for a post the
 * caller cannot see or that is not a paid_offer; 400 INVALID_INPUT for the seller ordering from
 * themselves or a listing without a valid listed_rate_sats; 400 CONFLICT for a closed listing.
 */
export function createOrder(ctx: Ctx, caller: Caller, postId: string, input: CreateOrderInput): OrderRow {
  const { post } = posts.getVisiblePost(ctx, caller, postId);
  if (post.postType !== "paid_offer") throw notFound("Offer not found");
  if (post.authorId === caller.id) throw new ApiError(400, "INVALID_INPUT", "You cannot order from your own listing (the seller equals the buyer)");
  const amount = rate(post);
  if (amount === null) throw new ApiError(400, "INVALID_INPUT", `This listing has no listed_rate_sats from ${MIN_RATE} to ${MAX_RATE.toLocaleString("en")} sats`);
  assertAcceptingSubmissions(post);
  const brief = input.buyer_brief?.trim() || null;
  const now = ctx.clock.now();
  return inTransaction(ctx.db, (tx) => {
    const row = tx
      .insert(serviceOrders)
      .values({ id: uuidv7(now), postId: post.id, buyerId: caller.id, sellerId: post.authorId, agreedAmountSats: amount, buyerBrief: brief, createdAt: now, updatedAt: now })
      .returning()
      .get();
    ctx.events.emit(tx, {
      type: "order_received",
      actorId: caller.id,
      subject: { type: "order", id: row.id },
      payload: { recipient_ids: [row.sellerId], order_id: row.id, post_id: post.id, post_title: post.title, buyer: caller.username, amount_sats: amount },
    });
    return row;
  });
}

function listOrders(ctx: Ctx, where: SQL | undefined, page: Page): { items: OrderRow[]; total: number } {
  const total = ctx.db.select({ n: count() }).from(serviceOrders).where(where).get()!.n;
  const items = ctx.db.select().from(serviceOrders).where(where).orderBy(desc(serviceOrders.createdAt), desc(serviceOrders.id)).limit(page.limit).offset(page.offset).all();
  return { items, total };
}

/** GET /offers/{post_id}/orders: the seller's queue of one listing, newest first; 404 unless it is the caller's paid_offer. */
export function listingOrders(ctx: Ctx, caller: Caller, postId: string, page: Page): { items: OrderRow[]; total: number } {
  const post = posts.findPost(ctx, postId);
  if (!post || post.postType !== "paid_offer" || post.authorId !== caller.id) throw notFound("Offer not found");
  return listOrders(ctx, eq(serviceOrders.postId, post.id), page);
}

/** GET /offers/orders/mine: the caller's orders as buyer, seller or both, newest first. */
export function myOrders(ctx: Ctx, caller: Caller, role: Role, page: Page): { items: OrderRow[]; total: number } {
  const asBuyer = eq(serviceOrders.buyerId, caller.id);
  const asSeller = eq(serviceOrders.sellerId, caller.id);
  return listOrders(ctx, role === "buyer" ? asBuyer : role === "seller" ? asSeller : or(asBuyer, asSeller), page);
}

/** GET /offers/orders/{order_id}: the buyer or the seller; anyone else 404. */
export function getOrder(ctx: Ctx, caller: Caller, id: string): OrderRow {
  return partyOrder(ctx, caller, id);
}

/**
 * Moves an order from `from` to `to` with `set`, or answers null when it was not in `from`
 * (someone else moved it first).
 */
function move(ctx: Ctx, tx: Tx, id: string, from: OrderStatus[], to: OrderStatus, set: Partial<OrderRow> = {}): OrderRow | null {
  return (
    tx
      .update(serviceOrders)
      .set({ ...set, status: to, updatedAt: ctx.clock.now() })
      .where(and(eq(serviceOrders.id, id), inArray(serviceOrders.status, from)))
      .returning()
      .get() ?? null
  );
}

/** The seller's decline or delivery, told to the buyer (the reference's payload). */
function tellBuyer(ctx: Ctx, tx: Tx, type: "order_declined" | "order_delivered", row: OrderRow, seller: Caller): void {
  ctx.events.emit(tx, {
    type,
    actorId: seller.id,
    subject: { type: "order", id: row.id },
    payload: { recipient_ids: [row.buyerId], order_id: row.id, post_id: row.postId, post_title: titleOf({ db: tx }, row.postId), seller: seller.username },
  });
}

const notRequested = (o: OrderRow, verb: string) => conflict400(`This order is ${o.status}; only a requested order can be ${verb}`);

/**
 * POST …/accept (the seller): the wallet issues the invoice first, outside any transaction — a
 * wallet failure is 502 UPSTREAM_FAILURE and the order stays requested — then, in one
 * transaction, the invoice is recorded and the order moves requested → accepted. The whole runs
 * alone per order, so a second accept (concurrent or later) finds it accepted and is 400
 * CONFLICT without asking the wallet again.
 */
export function acceptOrder(ctx: Ctx, caller: Caller, id: string): Promise<OrderRow> {
  return exclusive(lockKey(id), async () => {
    const order = orderAs(ctx, caller, id, "seller");
    if (order.status !== "requested") throw notRequested(order, "accepted");
    const title = titleOf(ctx, order.postId);
    const invoice = await payments.requestInvoice(ctx, { amountSats: order.agreedAmountSats, memo: `${settingsOf(ctx).name} order: ${title.slice(0, 120)}`, ttlSeconds: INVOICE_TTL_SECONDS });
    return inTransaction(ctx.db, (tx) => {
      const inv = payments.recordInvoice(ctx, tx, { purpose: ORDER_PURPOSE, subjectId: id, amountSats: order.agreedAmountSats, invoice });
      const now = ctx.clock.now();
      const row = move(ctx, tx, id, ["requested"], "accepted", { invoiceId: inv.id, lightningInvoice: inv.paymentRequest, paymentHash: inv.paymentHash, invoiceExpiresAt: inv.expiresAt, acceptedAt: now });
      if (!row) throw notRequested(findOrder({ db: tx }, id)!, "accepted");
      ctx.events.emit(tx, {
        type: "order_accepted",
        actorId: caller.id,
        subject: { type: "order", id },
        payload: { recipient_ids: [row.buyerId], order_id: id, post_id: row.postId, post_title: title, seller: caller.username, amount_sats: row.agreedAmountSats },
      });
      return row;
    });
  });
}

/** POST …/decline (the seller): requested → declined, terminal; anything else 400 CONFLICT. */
export function declineOrder(ctx: Ctx, caller: Caller, id: string): Promise<OrderRow> {
  return exclusive(lockKey(id), async () => {
    orderAs(ctx, caller, id, "seller");
    return inTransaction(ctx.db, (tx) => {
      const row = move(ctx, tx, id, ["requested"], "declined", { declinedAt: ctx.clock.now() });
      if (!row) throw notRequested(findOrder({ db: tx }, id)!, "declined");
      tellBuyer(ctx, tx, "order_declined", row, caller);
      return row;
    });
  });
}

/** POST …/cancel (the buyer): requested → cancelled, terminal; anything else 400 CONFLICT. */
export function cancelOrder(ctx: Ctx, caller: Caller, id: string): Promise<OrderRow> {
  return exclusive(lockKey(id), async () => {
    orderAs(ctx, caller, id, "buyer");
    const row = inTransaction(ctx.db, (tx) => move(ctx, tx, id, ["requested"], "cancelled", { cancelledAt: ctx.clock.now() }));
    if (!row) throw notRequested(findOrder(ctx, id)!, "cancelled");
    return row;
  });
}

/**
 * POST …/payment/check (either party): an accepted order's invoice is looked up at the wallet
 * (a wallet failure is 502 UPSTREAM_FAILURE); payments applies the answer once (paid → the order
 * is paid, lapsed → expired). In any other state the order is answered as it is.
 */
export async function checkOrderPayment(ctx: Ctx, caller: Caller, id: string): Promise<OrderRow> {
  const order = partyOrder(ctx, caller, id);
  if (order.status !== "accepted" || !order.invoiceId) return order;
  await payments.checkInvoice(ctx, order.invoiceId, { strict: true });
  return findOrder(ctx, id)!;
}

/**
 * POST …/mark-delivered (the seller): paid → delivered; in the same transaction the payout of
 * the agreed amount less the platform's fee is queued for the seller, and a job runs the payout
 * at once (docs/decisions.md §109). Anything but paid is 400 CONFLICT.
 */
export function markDelivered(ctx: Ctx, caller: Caller, id: string): OrderRow {
  orderAs(ctx, caller, id, "seller");
  return inTransaction(ctx.db, (tx) => {
    const now = ctx.clock.now();
    const row = move(ctx, tx, id, ["paid"], "delivered", { deliveredAt: now });
    if (!row) throw conflict400(`This order is ${findOrder({ db: tx }, id)!.status}; only a paid order can be marked delivered`);
    payments.queuePayout(ctx, tx, { purpose: ORDER_PURPOSE, subjectId: id, recipientId: row.sellerId, grossSats: row.agreedAmountSats });
    ctx.jobs.schedule(PAYOUT_JOB, now, { order_id: id }, tx);
    tellBuyer(ctx, tx, "order_delivered", row, caller);
    return row;
  });
}

// ---------------------------------------------------------------------------------------------
// What payments reports (registered in handlers.ts), each in the transaction of its own change.

/** The invoice was paid (once): accepted → paid, and the seller is told (order_paid). */
export function onOrderPaid(ctx: Ctx, tx: Tx, invoice: payments.InvoiceRow): void {
  const row = tx
    .update(serviceOrders)
    .set({ status: "paid", paidAt: invoice.paidAt ?? ctx.clock.now(), updatedAt: ctx.clock.now() })
    .where(and(eq(serviceOrders.id, invoice.subjectId), eq(serviceOrders.invoiceId, invoice.id), eq(serviceOrders.status, "accepted")))
    .returning()
    .get();
  if (!row) return;
  ctx.events.emit(tx, {
    type: "order_paid",
    actorId: row.buyerId,
    subject: { type: "order", id: row.id },
    payload: { recipient_ids: [row.sellerId], order_id: row.id, post_id: row.postId, post_title: titleOf({ db: tx }, row.postId), buyer: usernameOf(ctx, row.buyerId), amount_sats: row.agreedAmountSats },
  });
}

/** The invoice lapsed unpaid (expired, or the wallet reported it failed): accepted → expired, terminal. */
export function onOrderInvoiceLapsed(ctx: Ctx, tx: Tx, invoice: payments.InvoiceRow): void {
  tx.update(serviceOrders)
    .set({ status: "expired", expiredAt: ctx.clock.now(), updatedAt: ctx.clock.now() })
    .where(and(eq(serviceOrders.id, invoice.subjectId), eq(serviceOrders.invoiceId, invoice.id), eq(serviceOrders.status, "accepted")))
    .run();
}

/** The order status each payout state shows (a queued payout leaves the order delivered). */
const MIRROR: Partial<Record<payments.PayoutRow["status"], OrderStatus>> = {
  in_flight: "payout_pending",
  completed: "payout_completed",
  failed: "payout_failed",
  abandoned: "payout_abandoned",
};

/** A payout state change, mirrored on the order (docs/decisions.md §110). */
export function onOrderPayout(ctx: Ctx, tx: Tx, payout: payments.PayoutRow): void {
  const to = MIRROR[payout.status];
  if (to) move(ctx, tx, payout.subjectId, ["delivered", "payout_pending", "payout_failed"], to);
}
