// Service offers and their orders on the web: an offer's page and its order form, the seller's
// queue on it, closing and reopening it; the person's orders, and one order's page with the forms
// of its states (accept, decline, cancel, check the payment, mark delivered). Each form calls the
// offers service as the signed-in person, charged to the API route's rate limit, and answers 303
// back to the order; refusals show the page again with the service's message and status. An
// order is only ever shown to its buyer and its seller (the service's 404 for anyone else).
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import type { Caller } from "../features/auth/caller";
import * as market from "../features/marketplace/service";
import * as offers from "../features/offers/service";
import * as posts from "../features/posts/service";
import * as users from "../features/users/service";
import { formAction, idOr404, noticeOf, oneOf, pageOf, PER_PAGE, strings } from "./market-shared";
import { offerHref, orderHref } from "./pages/market";
import { OfferPage, OrderPage, OrdersPage, type OfferView, type OrderView } from "./pages/market-orders";
import { servePage } from "./respond";
import { FORM, PAGE } from "./route-options";
import { field, isSignedIn, toSignIn, type Web } from "./session";
import type { Visit } from "./visit";
import type { WebArea } from "./web-app";

const QUEUE_SHOWN = 50;

const OFFER_NOTICES: Record<string, string> = { closed: "The listing is closed to new orders.", reopened: "The listing takes orders again." };

const ORDER_NOTICES: Record<string, string> = {
  ordered: "Your order is placed: the seller is told, and accepts or declines it.",
  accepted: "Order accepted: the buyer's invoice is issued.",
  declined: "Order declined: the buyer is told.",
  cancelled: "Your order is cancelled.",
  checked: "The wallet was asked about the payment.",
  delivered: "Marked delivered: the buyer is told and your payout is on its way.",
};

/** The offer page's facts as `caller` may see them; 404 for a post that is not a visible paid offer. */
function offerView(ctx: Ctx, caller: Caller | null, id: string): OfferView {
  const { post, colony } = posts.getVisiblePost(ctx, caller, id);
  if (post.postType !== "paid_offer") throw new ApiError(404, "NOT_FOUND", "Offer not found");
  const orders = caller && caller.id === post.authorId ? offers.listingOrders(ctx, caller, post.id, { limit: QUEUE_SHOWN, offset: 0 }).items : null;
  const people = users.findManyByIds(ctx, [post.authorId, ...(orders ?? []).map((o) => o.buyerId)]);
  return { post, colony, seller: people.get(post.authorId), orders, buyers: people };
}

function orderView(ctx: Ctx, caller: Caller, id: string): OrderView {
  const order = offers.getOrder(ctx, caller, id);
  const people = users.findManyByIds(ctx, [order.buyerId, order.sellerId]);
  return { order, title: posts.postTitles(ctx, [order.postId]).get(order.postId) ?? null, buyer: people.get(order.buyerId), seller: people.get(order.sellerId) };
}

export const marketOrderRoutes: WebArea = (ctx, app) => {
  const offerPage = (visit: Visit, id: string, flash: Parameters<typeof OfferPage>[2] = {}) => OfferPage(visit, offerView(ctx, visit.caller, id), flash);
  const orderPage = (visit: Visit, id: string, flash: Parameters<typeof OrderPage>[2] = {}) => {
    if (!visit.caller) throw new ApiError(404, "NOT_FOUND", "Order not found");
    return OrderPage(visit, orderView(ctx, visit.caller, id), flash);
  };

  /** A form of the order `rawId`: `act` calls the service and names the notice of the 303. */
  const orderForm = (web: Web, request: Request, rawId: string, limits: string[], act: (caller: Caller, id: string) => Promise<string> | string) => {
    const back = orderHref(encodeURIComponent(rawId));
    return formAction(ctx, web, request, {
      back,
      limits,
      act: async (w) => `${orderHref(idOr404(rawId))}?notice=${await act(w.viewer.caller, idOr404(rawId))}`,
      again: (visit, error) => orderPage(visit, idOr404(rawId), { error }),
    });
  };

  /** Closing or reopening the offer `rawId`. */
  const listingForm = (web: Web, request: Request, rawId: string, close: boolean) =>
    formAction(ctx, web, request, {
      back: offerHref(encodeURIComponent(rawId)),
      limits: ["listing_close"],
      act: (w) => {
        const id = idOr404(rawId);
        offerView(ctx, w.viewer.caller, id);
        market.setListingClosed(ctx, w.viewer.caller, id, close);
        return `${offerHref(id)}?notice=${close ? "closed" : "reopened"}`;
      },
      again: (visit, error) => offerPage(visit, idOr404(rawId), { error }),
    });

  app
    .get(
      "/marketplace/offers/:id",
      ({ request, params, query }) => servePage(ctx, request, () => ({ key: null, render: (visit) => offerPage(visit, idOr404(params.id), { notice: noticeOf(query, OFFER_NOTICES) }) })),
      PAGE,
    )
    .post(
      "/marketplace/offers/:id/order",
      ({ web, request, params }) =>
        formAction(ctx, web, request, {
          back: offerHref(encodeURIComponent(params.id)),
          limits: ["order_create"],
          act: (w) => {
            const brief = field(w, "buyer_brief", 2000);
            const order = offers.createOrder(ctx, w.viewer.caller, idOr404(params.id), { buyer_brief: brief || null });
            return `${orderHref(order.id)}?notice=ordered`;
          },
          again: (visit, error) => offerPage(visit, idOr404(params.id), { error, values: { buyer_brief: (web.form.get("buyer_brief") ?? "").slice(0, 2000) } }),
        }),
      FORM,
    )
    .post("/marketplace/offers/:id/close", ({ web, request, params }) => listingForm(web, request, params.id, true), FORM)
    .post("/marketplace/offers/:id/reopen", ({ web, request, params }) => listingForm(web, request, params.id, false), FORM)
    .get(
      "/marketplace/orders",
      ({ web, request, query }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/marketplace/orders");
        return servePage(ctx, request, () => {
          const q = strings(query);
          const role = (oneOf(q.role, offers.ROLES) || "all") as (typeof offers.ROLES)[number];
          const n = pageOf(q.page);
          return {
            key: null,
            render: (visit) => {
              const r = offers.myOrders(ctx, visit.caller!, role, { limit: PER_PAGE, offset: (n - 1) * PER_PAGE, page: n });
              const people = users.findManyByIds(
                ctx,
                r.items.flatMap((o) => [o.buyerId, o.sellerId]),
              );
              return OrdersPage(visit, {
                orders: r.items,
                people,
                titles: posts.postTitles(
                  ctx,
                  r.items.map((o) => o.postId),
                ),
                role,
                page: n,
                hasMore: n * PER_PAGE < r.total,
              });
            },
          };
        });
      },
      PAGE,
    )
    .get(
      "/marketplace/orders/:id",
      ({ web, request, params, query }) => {
        if (!isSignedIn(web)) return toSignIn(web, `/marketplace/orders/${encodeURIComponent(params.id)}`);
        return servePage(ctx, request, () => ({ key: null, render: (visit) => orderPage(visit, idOr404(params.id), { notice: noticeOf(query, ORDER_NOTICES) }) }));
      },
      PAGE,
    )
    .post(
      "/marketplace/orders/:id/accept",
      ({ web, request, params }) => orderForm(web, request, params.id, ["order_accept"], async (c, id) => (await offers.acceptOrder(ctx, c, id), "accepted")),
      FORM,
    )
    .post("/marketplace/orders/:id/decline", ({ web, request, params }) => orderForm(web, request, params.id, [], async (c, id) => (await offers.declineOrder(ctx, c, id), "declined")), FORM)
    .post("/marketplace/orders/:id/cancel", ({ web, request, params }) => orderForm(web, request, params.id, [], async (c, id) => (await offers.cancelOrder(ctx, c, id), "cancelled")), FORM)
    .post(
      "/marketplace/orders/:id/check",
      ({ web, request, params }) => orderForm(web, request, params.id, ["order_payment_check"], async (c, id) => (await offers.checkOrderPayment(ctx, c, id), "checked")),
      FORM,
    )
    .post("/marketplace/orders/:id/deliver", ({ web, request, params }) => orderForm(web, request, params.id, [], (c, id) => (offers.markDelivered(ctx, c, id), "delivered")), FORM);
};
