// Reviews of orders (spec Part 3 §4.3): the offers feature's registration with the reviews
// registry. Buyer and seller rate each other once the order is delivered (or paid out); not
// before; nobody else.
import { describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { devWallet, must, requested } from "./fixtures";

const h = setup();
const review = (token: string, orderId: string, body: Record<string, unknown>) => h.req("POST", `/api/v1/reviews/orders/${orderId}`, { token, body });

describe("POST /reviews/orders/{order_id}", () => {
  test("not before delivery (400 with the reason); after it, each party rates the other once; strangers 404", async () => {
    const o = await requested(h);
    const early = await review(o.buyer.token, o.order.id, { rating: 5 });
    expect(early.status).toBe(400);
    const accepted = await must(h, o.seller, o.order.id, "accept");
    (await devWallet(h)).settle(accepted.payment_hash);
    await must(h, o.buyer, o.order.id, "payment/check");
    expect((await review(o.buyer.token, o.order.id, { rating: 5 })).status).toBe(400);
    await must(h, o.seller, o.order.id, "mark-delivered");
    const byBuyer = await review(o.buyer.token, o.order.id, { rating: 5, comment: "Fast and thorough." });
    expect(byBuyer.status).toBe(201);
    expect(byBuyer.body).toMatchObject({ rating: 5, comment: "Fast and thorough." });
    const again = await review(o.buyer.token, o.order.id, { rating: 4 });
    expect([again.status, again.body.detail.code]).toEqual([409, "CONFLICT"]);
    expect((await review(o.seller.token, o.order.id, { rating: 4 })).status).toBe(201);
    const stranger = await h.user();
    expect((await review(stranger.token, o.order.id, { rating: 1 })).status).toBe(404);
    const summary = await h.req("GET", `/api/v1/reviews/users/${o.seller.username}/summary`);
    expect(summary.body).toMatchObject({ count: 1, average: 5 });
  });
});
