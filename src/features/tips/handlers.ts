// Tips' registration: what a tip invoice's payment means (payments' `tip` purpose: the tip paid,
// the author's payout queued, tip_received emitted, all in the settling transaction), and who is
// told: the tipped author (notification tip_received; its webhook of the same name goes to
// `recipient_ids` by webhooks/mapping.ts's generic rule).
import type { Ctx } from "../../core/context";
import { tell } from "../notifications/service";
import * as payments from "../payments/service";
import { PURPOSE, onTipLapsed, onTipPaid } from "./service";

export function register(ctx: Ctx): void {
  payments.registerPurpose(PURPOSE, {
    onPaid: onTipPaid,
    onLapsed: (_ctx, tx, invoice) => onTipLapsed(tx, invoice),
  });
  ctx.events.fanOut("tip_received", (ev) => {
    const p = ev.payload;
    return tell(
      ctx,
      p.recipient_ids.map((userId) => ({
        userId,
        kind: "tip_received",
        actorId: ev.actorId,
        target: p.comment_id ? { type: "comment", id: p.comment_id } : { type: "post", id: p.post_id! },
        postId: p.post_id ?? undefined,
        commentId: p.comment_id ?? undefined,
        meta: { tip_id: p.tip_id, tipper: p.tipper, amount_sats: p.amount_sats },
        eventId: ev.id,
      })),
    );
  });
}
