// Reviews' registration: who is told (the fan-out rules, in the emitting transaction).
//
// - review_received → review_received to the ratee.
// - review_replied → review_replied to the rater.
// Their webhooks of the same names go to `recipient_ids` (webhooks/mapping.ts, the generic rule).
// The kinds of deals reviewed are registered by the features owning them (marketplace: bids).
import type { Ctx } from "../../core/context";
import type { DomainEvent, Told } from "../../core/events";
import { tell } from "../notifications/service";

/** The notification of a review event to its recipients, the payload's facts as meta. */
function tellAbout(ctx: Ctx, ev: DomainEvent<"review_received" | "review_replied">): Told[] {
  const { recipient_ids, post_id, ...meta } = ev.payload;
  const target = { type: "review", id: meta.review_id };
  return tell(
    ctx,
    recipient_ids.map((userId) => ({ userId, kind: ev.type, actorId: ev.actorId, target, postId: post_id, meta, eventId: ev.id })),
  );
}

export function register(ctx: Ctx): void {
  ctx.events.fanOut("review_received", (ev) => tellAbout(ctx, ev));
  ctx.events.fanOut("review_replied", (ev) => tellAbout(ctx, ev));
}
