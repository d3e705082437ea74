// Orders' registration: what an order's invoice and payout mean to payments (paid, lapsed, each
// payout state), who is told about each order event (in the emitting transaction, so the
// notification is readable the moment the action answers; the webhooks go to `recipient_ids`
// by the generic rule of webhooks/mapping.ts), and the job that pays out right after delivery.
//
// - order_received, order_paid → the seller; order_accepted, order_declined, order_delivered →
//   the buyer (Part 2 §6.2). Each notification's kind is the event's name.
import type { Ctx } from "../../core/context";
import type { DomainEvent, EventName, Told } from "../../core/events";
import { tell } from "../notifications/service";
import * as payments from "../payments/service";
import * as reviews from "../reviews/service";
import { ORDER_PURPOSE, PAYOUT_JOB, onOrderInvoiceLapsed, onOrderPaid, onOrderPayout, reviewSubjectOfOrder } from "./service";

type OrderEvent = "order_received" | "order_accepted" | "order_declined" | "order_paid" | "order_delivered";
const ORDER_EVENTS: OrderEvent[] = ["order_received", "order_accepted", "order_declined", "order_paid", "order_delivered"];

function tellParty(ctx: Ctx, ev: DomainEvent<OrderEvent>): Told[] {
  const p = ev.payload;
  const other = "buyer" in p ? { buyer: p.buyer } : { seller: p.seller };
  return tell(
    ctx,
    p.recipient_ids.map((userId) => ({
      userId,
      kind: ev.type,
      actorId: ev.actorId,
      target: { type: "order", id: p.order_id },
      postId: p.post_id,
      meta: { order_id: p.order_id, post_title: p.post_title, ...other, ...("amount_sats" in p ? { amount_sats: p.amount_sats } : {}) },
      eventId: ev.id,
    })),
  );
}

/** What an order's invoice and payout mean, told to payments (once per process; the handlers get the settling context). */
function registerOrderPayments(): void {
  payments.registerPurpose(ORDER_PURPOSE, {
    onPaid: onOrderPaid,
    onLapsed: onOrderInvoiceLapsed,
    onPayout: onOrderPayout,
  });
}

export function register(ctx: Ctx): void {
  registerOrderPayments();
  reviews.registerSubject("order", reviewSubjectOfOrder);
  for (const type of ORDER_EVENTS) ctx.events.fanOut(type as EventName & OrderEvent, (ev) => tellParty(ctx, ev as DomainEvent<OrderEvent>));
  // Queued by mark-delivered so the payout starts within seconds rather than at the runner's next turn.
  ctx.jobs.handle(PAYOUT_JOB, () => payments.runPayouts(ctx));
}
