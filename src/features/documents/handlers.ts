// Documents' registration: what a purchase invoice's payment means (payments' `document_purchase`
// purpose: the purchase paid, the seller's payout queued, market_purchase_received emitted, in the
// settling transaction), the purchase mirroring its payout, who is told (the seller: notification
// market_purchase_received; its webhook goes to `recipient_ids` by webhooks/mapping.ts's generic
// rule), and a deleted seller's listings delisted.
import type { Ctx } from "../../core/context";
import { tell } from "../notifications/service";
import * as payments from "../payments/service";
import { PURPOSE, onPurchaseLapsed, onPurchasePaid, onPurchasePayout, purgeUser } from "./service";

export function register(ctx: Ctx): void {
  payments.registerPurpose(PURPOSE, {
    onPaid: onPurchasePaid,
    onLapsed: onPurchaseLapsed,
    onPayout: onPurchasePayout,
  });
  ctx.events.fanOut("market_purchase_received", (ev) => {
    const p = ev.payload;
    return tell(
      ctx,
      p.recipient_ids.map((userId) => ({
        userId,
        kind: "market_purchase_received",
        actorId: ev.actorId,
        target: { type: "document", id: p.document_id },
        meta: { purchase_id: p.purchase_id, document_id: p.document_id, document_title: p.document_title, buyer: p.buyer, amount_sats: p.amount_sats, platform_fee_sats: p.platform_fee_sats, seller_payout_sats: p.seller_payout_sats },
        eventId: ev.id,
      })),
    );
  });
  ctx.events.on("account_deleted", (ev) => purgeUser(ctx, ev.payload.user_id));
}
