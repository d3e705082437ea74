// Offers and orders (spec Part 3 §4.2): order from a paid_offer, the seller's queue, the caller's
// orders, one order, and its transitions (accept, decline, cancel, payment check, delivery).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { paged, pagedSchema, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable, OptionalEnum, Uuid } from "../../http/schemas";
import { UserOut } from "../users/schemas";
import * as offers from "./service";
import { ORDER_STATUSES } from "./tables";
import { orderOut, ordersOut } from "./views";

const PAGING = { max: 200, default: 50 };
const When = Nullable(t.String({ format: "date-time" }));
export const ServiceOrderOut = t.Object({
  id: Uuid,
  post_id: Uuid,
  buyer: UserOut,
  seller: UserOut,
  agreed_amount_sats: Int({ description: "The listing's listed_rate_sats when the order was placed" }),
  buyer_brief: Nullable(t.String()),
  status: t.UnionEnum(ORDER_STATUSES, {
    description:
      "requested → accepted (invoice issued) → paid → delivered → payout_pending → payout_completed; requested → declined or cancelled; accepted → expired (the invoice lapsed unpaid); payout_failed is retried with backoff; payout_abandoned when the seller has no lightning address",
  }),
  lightning_invoice: Nullable(t.String({ description: "BOLT11 invoice for the buyer to pay, from accept on" })),
  payment_hash: Nullable(t.String()),
  invoice_expires_at: When,
  accepted_at: When,
  declined_at: When,
  cancelled_at: When,
  paid_at: When,
  delivered_at: When,
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});
const OrderList = pagedSchema(ServiceOrderOut);
const PostParams = t.Object({ post_id: Uuid });
const OrderParams = t.Object({ order_id: Uuid });
const ERRORS = { 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut };
const PARTIES = "The order's buyer or seller; anyone else 404 NOT_FOUND (order ids are not probeable).";
const SELLER_ONLY = "The seller only: the buyer 403 FORBIDDEN, anyone else 404 NOT_FOUND.";
const BUYER_ONLY = "The buyer only: the seller 403 FORBIDDEN, anyone else 404 NOT_FOUND.";

export const offersRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/offers", tags: ["offers"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post(
      "/:post_id/order",
      ({ caller, params, body, set }) => {
        set.status = 201;
        return orderOut(ctx, caller.id, offers.createOrder(ctx, caller, params.post_id, body ?? {}));
      },
      {
        auth: "required",
        rateLimit: "order_create",
        params: PostParams,
        body: t.Optional(t.Object({ buyer_brief: t.Optional(Nullable(t.String({ maxLength: 2000, description: "Scope for the seller, up to 2000 characters" }))) })),
        response: { 201: ServiceOrderOut, ...ERRORS },
        detail: {
          summary: "Create Order",
          description:
            "Order from a paid_offer listing: status requested, agreed_amount_sats copied from the listing's listed_rate_sats (the buyer cannot set it). 404 NOT_FOUND for a missing, deleted or unreadable post or one that is not a paid_offer; 400 INVALID_INPUT when you are the seller or the listing has no valid listed_rate_sats; 400 CONFLICT when the listing is closed. The seller is told (order_received). Rate limited (order_create, 10 an hour).",
        },
      },
    )
    .get(
      "/orders/mine",
      ({ caller, query }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = offers.myOrders(ctx, caller, query.role ?? "all", page);
        return paged(ordersOut(ctx, caller.id, items), total, page);
      },
      {
        auth: "required",
        query: t.Object({ ...pagingQuery(PAGING), role: OptionalEnum(offers.ROLES, { description: "all (default), buyer or seller" }) }),
        response: { 200: OrderList, 400: ErrorOut },
        detail: { summary: "List My Orders", description: "The orders you placed (buyer), received (seller) or both (all, the default), newest first." },
      },
    )
    .get("/orders/:order_id", ({ caller, params }) => orderOut(ctx, caller.id, offers.getOrder(ctx, caller, params.order_id)), {
      auth: "required",
      params: OrderParams,
      response: { 200: ServiceOrderOut, 404: ErrorOut },
      detail: { summary: "Get Order", description: `One order. ${PARTIES}` },
    })
    .post("/orders/:order_id/accept", async ({ caller, params }) => orderOut(ctx, caller.id, await offers.acceptOrder(ctx, caller, params.order_id)), {
      auth: "required",
      rateLimit: "order_accept",
      params: OrderParams,
      response: { 200: ServiceOrderOut, ...ERRORS, 502: ErrorOut },
      detail: {
        summary: "Accept Order",
        description: `Accept a requested order: the wallet issues the buyer's invoice (lightning_invoice, payment_hash, invoice_expires_at one hour ahead) before anything changes; if the wallet fails the order stays requested and the answer is 502 UPSTREAM_FAILURE (retry later). Any other state, a second accept included, is 400 CONFLICT and never a second invoice. The buyer is told (order_accepted). ${SELLER_ONLY} Rate limited (order_accept, 30 an hour).`,
      },
    })
    .post("/orders/:order_id/decline", async ({ caller, params }) => orderOut(ctx, caller.id, await offers.declineOrder(ctx, caller, params.order_id)), {
      auth: "required",
      params: OrderParams,
      response: { 200: ServiceOrderOut, ...ERRORS },
      detail: { summary: "Decline Order", description: `Decline a requested order (terminal); any other state is 400 CONFLICT. The buyer is told (order_declined). ${SELLER_ONLY}` },
    })
    .post("/orders/:order_id/cancel", async ({ caller, params }) => orderOut(ctx, caller.id, await offers.cancelOrder(ctx, caller, params.order_id)), {
      auth: "required",
      params: OrderParams,
      response: { 200: ServiceOrderOut, ...ERRORS },
      detail: { summary: "Cancel Order", description: `Withdraw your order while it is requested (terminal); once accepted, pay it or let the invoice expire. Any other state is 400 CONFLICT. ${BUYER_ONLY}` },
    })
    .post("/orders/:order_id/payment/check", async ({ caller, params }) => orderOut(ctx, caller.id, await offers.checkOrderPayment(ctx, caller, params.order_id)), {
      auth: "required",
      rateLimit: "order_payment_check",
      params: OrderParams,
      response: { 200: ServiceOrderOut, 404: ErrorOut, 429: ErrorOut, 502: ErrorOut },
      detail: {
        summary: "Check Order Payment",
        description: `Ask the wallet whether an accepted order's invoice is paid: paid moves the order to paid (the seller is told once, order_paid, however often anyone checks); an invoice past its expiry and unpaid moves it to expired. A wallet failure is 502 UPSTREAM_FAILURE. In any other state the order is answered unchanged. The server also checks by itself in the background. ${PARTIES} Rate limited (order_payment_check, 30 an hour).`,
      },
    })
    .post("/orders/:order_id/mark-delivered", ({ caller, params }) => orderOut(ctx, caller.id, offers.markDelivered(ctx, caller, params.order_id)), {
      auth: "required",
      params: OrderParams,
      response: { 200: ServiceOrderOut, ...ERRORS },
      detail: {
        summary: "Mark Delivered",
        description: `Mark a paid order delivered; any other state is 400 CONFLICT. This releases the payout: 95 % of agreed_amount_sats (platform_fee_bps 500, the fee rounded down) to your lightning address by LNURL-pay, shown on the order as payout_pending, then payout_completed; payout_failed is retried with backoff; payout_abandoned when you have no lightning address. The buyer is told (order_delivered). ${SELLER_ONLY}`,
      },
    })
    .get(
      "/:post_id/orders",
      ({ caller, params, query }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = offers.listingOrders(ctx, caller, params.post_id, page);
        return paged(ordersOut(ctx, caller.id, items), total, page);
      },
      {
        auth: "required",
        params: PostParams,
        query: t.Object(pagingQuery(PAGING)),
        response: { 200: OrderList, 400: ErrorOut, 404: ErrorOut },
        detail: { summary: "List Orders On Offer", description: "The orders of one of your paid_offer listings, newest first. 404 NOT_FOUND unless the listing is yours." },
      },
    );
