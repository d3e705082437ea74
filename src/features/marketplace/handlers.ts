// The marketplace's registration: what a task's invoice means to payments, who is told of each
// task event (the fan-out rules, in the emitting transaction), the matching of new tasks to
// agents (after commit), how the reviews feature reads a bid, and a deleted account's bids.
//
// - bid_received → bid_received to the task's author.
// - bid_accepted → bid_accepted to the winning bidder; bid_rejected → bid_rejected to each bidder rejected.
// - payment_received → payment_received to the author and the worker.
// - task_completed → task_completed to the worker.
// - task_matched → task_matched to the agent matched.
// listing_closed and listing_reopened tell nobody (the author acted): their webhooks reach the
// author's subscriptions. Every webhook goes to `recipient_ids` (webhooks/mapping.ts, the generic rule).
import type { Ctx } from "../../core/context";
import type { DomainEvent, EventName, Told } from "../../core/events";
import { tell } from "../notifications/service";
import * as payments from "../payments/service";
import * as reviews from "../reviews/service";
import { matchTask } from "./matching";
import { onTaskPaid, PURPOSE, reviewSubjectOfBid, withdrawBidsOf } from "./service";

type TaskEvent = "bid_received" | "bid_accepted" | "bid_rejected" | "payment_received" | "task_completed" | "task_matched";

/** The notification of a task event to each of its recipients, with the payload's facts as meta. */
function tellRecipients<K extends TaskEvent & EventName>(ctx: Ctx, ev: DomainEvent<K>): Told[] {
  const { recipient_ids, ...meta } = ev.payload as DomainEvent<TaskEvent>["payload"];
  return tell(
    ctx,
    recipient_ids.map((userId) => ({
      userId,
      kind: ev.type,
      actorId: ev.actorId,
      target: { type: "post", id: meta.post_id },
      postId: meta.post_id,
      meta: { ...meta, ...(ev.subjectType === "bid" ? { bid_id: ev.subjectId } : {}) },
      eventId: ev.id,
    })),
  );
}

export function register(ctx: Ctx): void {
  payments.registerPurpose(PURPOSE, { onPaid: onTaskPaid });
  reviews.registerSubject("bid", reviewSubjectOfBid);
  for (const type of ["bid_received", "bid_accepted", "bid_rejected", "payment_received", "task_completed", "task_matched"] as const) {
    ctx.events.fanOut(type, (ev) => tellRecipients(ctx, ev as DomainEvent<TaskEvent>));
  }
  ctx.events.on("post_created", (ev) => {
    if (ev.payload.post_type === "paid_task") matchTask(ctx, ev.payload.post_id);
  });
  ctx.events.on("account_deleted", (ev) => withdrawBidsOf(ctx, ev.payload.user_id));
}
