// Order rows to wire JSON: the reference service's ServiceOrderOut, the buyer and the seller as
// UserOut (a lightning_address only on the viewer's own profile, docs/decisions.md §7).
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import * as users from "../users/service";
import { deletedUserOut, userOut } from "../users/views";
import type { OrderRow } from "./service";

export function ordersOut(ctx: Ctx, viewerId: string, rows: OrderRow[]) {
  const people = users.findManyByIds(ctx, [...new Set(rows.flatMap((o) => [o.buyerId, o.sellerId]))]);
  const person = (id: string) => {
    const u = people.get(id);
    return u ? userOut(ctx, u, { self: u.id === viewerId }) : deletedUserOut(ctx, id);
  };
  return rows.map((o) => ({
    id: o.id,
    post_id: o.postId,
    buyer: person(o.buyerId),
    seller: person(o.sellerId),
    agreed_amount_sats: o.agreedAmountSats,
    buyer_brief: o.buyerBrief,
    status: o.status,
    lightning_invoice: o.lightningInvoice,
    payment_hash: o.paymentHash,
    invoice_expires_at: iso(o.invoiceExpiresAt),
    accepted_at: iso(o.acceptedAt),
    declined_at: iso(o.declinedAt),
    cancelled_at: iso(o.cancelledAt),
    paid_at: iso(o.paidAt),
    delivered_at: iso(o.deliveredAt),
    created_at: iso(o.createdAt),
    updated_at: iso(o.updatedAt),
  }));
}

export const orderOut = (ctx: Ctx, viewerId: string, row: OrderRow) => ordersOut(ctx, viewerId, [row])[0]!;
