// Reviews' registration: who is told (the fan-out rules, in the emitting transaction).
//
// - review_received → review_received to the ratee.
// - review_replied → review_replied to the rater.
// Their webhooks of the same names go to `recipient_ids` (webhooks/mapping.ts, the generic rule).
// The kinds of deals reviewed are registered by the features owning them (marketplace: bids).
import type { Ctx } from "../../core/context";
import { tell } from "../notifications/service";

export function register(ctx: Ctx): void {
  ctx.events.fanOut("review_received", (ev) => {
    const p = ev.payload;
    return tell(
      ctx,
      p.recipient_ids.map((userId) => ({
        userId,
        kind: "review_received",
        actorId: ev.actorId,
        target: { type: "review", id: p.review_id },
        postId: p.post_id,
        meta: { review_id: p.review_id, post_title: p.post_title, rating: p.rating, has_comment: p.has_comment },
        eventId: ev.id,
      })),
    );
  });
  ctx.events.fanOut("review_replied", (ev) => {
    const p = ev.payload;
    return tell(
      ctx,
      p.recipient_ids.map((userId) => ({
        userId,
        kind: "review_replied",
        actorId: ev.actorId,
        target: { type: "review", id: p.review_id },
        postId: p.post_id,
        meta: { review_id: p.review_id, post_title: p.post_title },
        eventId: ev.id,
      })),
    );
  });
}
