// Marketplace rows to wire JSON: the reference service's BidOut, PaymentOut and
// PaymentStatusOut, and a task list item (the post with its budget and bid count).
import { t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { Int, Nullable, Uuid } from "../../http/schemas";
import type { InvoiceRow } from "../payments/service";
import { PostOut } from "../posts/schemas";
import type { PostRow } from "../posts/service";
import { postsOut } from "../posts/views";
import { UserOut } from "../users/schemas";
import { userOuts } from "../users/views";
import { BID_STATUSES } from "./tables";
import type { BidRow, TaskPayment } from "./service";

const Instant = t.String({ format: "date-time" });

export const BidOut = t.Object({
  id: Uuid,
  post_id: Uuid,
  bidder: UserOut,
  bid_amount_sats: Int(),
  bid_description: t.String(),
  status: t.UnionEnum(BID_STATUSES),
  created_at: Instant,
  updated_at: Instant,
});

export function bidsOut(ctx: Ctx, rows: readonly BidRow[], viewerId: string | null = null) {
  const person = userOuts(
    ctx,
    rows.map((b) => b.bidderId),
    viewerId,
  );
  return rows.map((b) => ({
    id: b.id,
    post_id: b.postId,
    bidder: person(b.bidderId),
    bid_amount_sats: b.amountSats,
    bid_description: b.description,
    status: b.status,
    created_at: iso(b.createdAt),
    updated_at: iso(b.updatedAt),
  }));
}

export const bidOut = (ctx: Ctx, row: BidRow, viewerId: string | null = null) => bidsOut(ctx, [row], viewerId)[0]!;

/** The reference's PaymentStatus: an invoice waiting is invoice_generated; one that lapsed or failed, expired. */
const PAYMENT_STATUSES = ["pending", "invoice_generated", "paid", "expired"] as const;
const paymentStatus = (inv: InvoiceRow): (typeof PAYMENT_STATUSES)[number] => (inv.status === "pending" ? "invoice_generated" : inv.status === "paid" ? "paid" : "expired");

export const PaymentOut = t.Object({
  id: Uuid,
  post_id: Uuid,
  bid_id: Uuid,
  worker: UserOut,
  payment_amount_sats: Int(),
  lightning_invoice: t.String({ description: "BOLT11 payment request the task's author pays" }),
  payment_hash: t.String(),
  status: t.UnionEnum(PAYMENT_STATUSES, { description: "invoice_generated until paid; expired when the invoice lapsed unpaid (accepting the bid again issues a new one)" }),
  invoice_expires_at: Instant,
  paid_at: Nullable(Instant),
  created_at: Instant,
  payout_status: Nullable(t.UnionEnum(["pending", "in_flight", "completed", "failed", "abandoned"]), {
    description: "The worker's payout once the task is completed (95 %, to their Lightning address); null before",
  }),
  payout_amount_sats: Nullable(Int(), { description: "What the worker receives (the amount less platform_fee_bps 500); null before completion" }),
});

export function paymentOut(ctx: Ctx, p: TaskPayment, viewerId: string | null = null) {
  return {
    id: p.invoice.id,
    post_id: p.post.id,
    bid_id: p.bid.id,
    worker: userOuts(ctx, [p.bid.bidderId], viewerId)(p.bid.bidderId),
    payment_amount_sats: p.invoice.amountSats,
    lightning_invoice: p.invoice.paymentRequest,
    payment_hash: p.invoice.paymentHash,
    status: paymentStatus(p.invoice),
    invoice_expires_at: iso(p.invoice.expiresAt),
    paid_at: iso(p.invoice.paidAt),
    created_at: iso(p.invoice.createdAt),
    payout_status: p.payout?.status ?? null,
    payout_amount_sats: p.payout?.amountSats ?? null,
  };
}

export const PaymentStatusOut = t.Object({ payment_hash: t.String(), status: t.UnionEnum(PAYMENT_STATUSES), paid_at: Nullable(Instant) });

export const paymentStatusOut = (inv: InvoiceRow) => ({ payment_hash: inv.paymentHash, status: paymentStatus(inv), paid_at: iso(inv.paidAt) });

export const TaskOut = t.Composite([
  PostOut,
  t.Object({
    budget_min_sats: Nullable(Int()),
    budget_max_sats: Nullable(Int({ description: "Null when the task declares no budget (bids of 21 to 100,000,000 sats)" })),
    category: Nullable(t.String()),
    deliverable_type: Nullable(t.String()),
    deadline: Nullable(t.String()),
    bid_count: Int({ description: "Bids received, withdrawn ones not counted" }),
  }),
]);

const metaValue = <T extends "number" | "string">(post: PostRow, key: string, type: T) => {
  const v = post.metadata?.[key];
  return (typeof v === type ? v : null) as (T extends "number" ? number : string) | null;
};

export function tasksOut(ctx: Ctx, rows: readonly PostRow[], bidCounts: Map<string, number>, viewerId: string | null = null) {
  const outs = postsOut(ctx, rows, viewerId);
  return rows.map((p, i) => ({
    ...outs[i]!,
    budget_min_sats: metaValue(p, "budget_min_sats", "number"),
    budget_max_sats: metaValue(p, "budget_max_sats", "number"),
    category: metaValue(p, "category", "string"),
    deliverable_type: metaValue(p, "deliverable_type", "string"),
    deadline: metaValue(p, "deadline", "string"),
    bid_count: bidCounts.get(p.id) ?? 0,
  }));
}
