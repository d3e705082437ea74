// Offers and orders against the development wallet: every route as anonymous, stranger, buyer
// and seller; every transition of the Order rows of Part 3 §3 and each refusal; the events and
// notifications; the limits of §8; the payout of 95 % mirrored on the order.
import { beforeEach, describe, expect, test } from "bun:test";
import { expectAnswer, setup } from "../../../test/harness";
import * as payments from "../payments/service";
import { pollUntilIdle } from "../payments/fixtures";
import { GENERAL, makeColony, post as makePost } from "../posts/fixtures";
import { WalletError, type InvoiceRequest } from "../../adapters/lightning";
import { act, countOf, devWallet, listing, must, notificationsOf, orderEvents, orderRow, placeOrder, requested, sellerWith, setLightningAddress, webhooksOf, withWallet, type WalletMethods } from "./fixtures";
import { INVOICE_TTL_SECONDS, orderParties } from "./service";

const h = setup();
beforeEach(() => h.ctx.limits.reset());

const HOUR = 3_600_000;
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const orders = () => countOf(h, "select 1 from service_orders");
const invoicesOf = (orderId: string) => countOf(h, "select 1 from invoices where purpose = 'order' and subject_id = ?", orderId);

/** A promise the test resolves by hand: `fire()` settles `fired`. */
function signal() {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fire, fired };
}

/**
 * Counts the requests charged `action` (a route's rate limit is charged on the way to its
 * handler): `all` settles once `n` have been. `restore()` puts the limiter back.
 */
function charges(action: string, n: number) {
  const all = signal();
  let seen = 0;
  const limits = h.ctx.limits;
  const consume = limits.consume.bind(limits);
  limits.consume = (actions, subject, discriminator) => {
    try {
      return consume(actions, subject, discriminator);
    } finally {
      if (actions.includes(action) && ++seen === n) all.fire();
    }
  };
  return { all: all.fired, restore: () => void delete (limits as { consume?: unknown }).consume };
}

/** A requested order moved to accepted, then paid through the development wallet. */
async function paid(opts: { rate?: number; address?: string | null } = {}) {
  const o = await requested(h, opts);
  const accepted = await must(h, o.seller, o.order.id, "accept");
  (await devWallet(h)).settle(accepted.payment_hash);
  const after = await must(h, o.buyer, o.order.id, "payment/check");
  expect(after.status).toBe("paid");
  return { ...o, order: after };
}

describe("POST /offers/{post_id}/order", () => {
  test("201: requested at the listing's rate, the brief trimmed; the seller is told (order_received) with the reference webhook payload", async () => {
    const seller = await sellerWith(h);
    const post = await listing(h, seller, 4200);
    const buyer = await h.user();
    const r = await placeOrder(h, buyer, post.id, { buyer_brief: "  Scope: three pages.  ", agreed_amount_sats: 1 });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      post_id: post.id,
      buyer: expect.objectContaining({ id: buyer.id, username: buyer.username, lightning_address: null }),
      seller: expect.objectContaining({ id: seller.id, username: seller.username, lightning_address: null }),
      agreed_amount_sats: 4200,
      buyer_brief: "Scope: three pages.",
      status: "requested",
      lightning_invoice: null,
      payment_hash: null,
      invoice_expires_at: null,
      accepted_at: null,
      declined_at: null,
      cancelled_at: null,
      paid_at: null,
      delivered_at: null,
      created_at: ISO,
      updated_at: ISO,
    });
    expect(webhooksOf(h, "order_received", r.body.id)).toEqual([
      { name: "order_received", data: { order_id: r.body.id, post_id: post.id, post_title: post.title, buyer: buyer.username, amount_sats: 4200 }, to: [seller.id] },
    ]);
    const told = await notificationsOf(h, seller, "order_received");
    expect(told).toHaveLength(1);
    expect(told[0].message).toBe(`@${buyer.username} placed an order "${post.title}" (4200 sats): accept or decline it`);
  });

  test("without a body, or with a null or blank brief: buyer_brief is null", async () => {
    const seller = await sellerWith(h);
    const post = await listing(h, seller);
    const buyer = await h.user();
    expect((await placeOrder(h, buyer, post.id)).body.buyer_brief).toBeNull();
    expect((await placeOrder(h, buyer, post.id, { buyer_brief: null })).body.buyer_brief).toBeNull();
    expect((await placeOrder(h, buyer, post.id, { buyer_brief: "   " })).body.buyer_brief).toBeNull();
    expect((await placeOrder(h, buyer, post.id, { buyer_brief: "x".repeat(2000) })).status).toBe(201);
  });

  test("refusals change nothing: 401, 404 (missing, not a paid_offer, deleted, unreadable), 400 INVALID_INPUT (own listing, no valid rate), 400 CONFLICT (closed), 422", async () => {
    const seller = await sellerWith(h);
    const post = await listing(h, seller);
    const buyer = await h.user();
    const discussion = await makePost(h, seller, { post_type: "discussion" });
    const deleted = await listing(h, seller);
    h.ctx.db.$client.query("update posts set deleted_at = ? where id = ?").run(h.clock.now(), deleted.id);
    const founder = await sellerWith(h);
    const privateColony = makeColony(h, founder, "private");
    const hidden = await listing(h, founder, 5000, { colony_id: privateColony.id });
    const noRate = await listing(h, seller);
    h.ctx.db.$client.query("update posts set metadata = '{\"category\":\"research\"}' where id = ?").run(noRate.id);
    const closed = await listing(h, seller);
    h.ctx.db.$client.query("update posts set closed_at = ? where id = ?").run(h.clock.now(), closed.id);
    const before = orders();
    const rows: [string, Parameters<typeof placeOrder>, number, string | null][] = [
      ["anonymous", [h, null, post.id], 401, null],
      ["unknown post", [h, buyer, "0190a000-0000-7000-8000-000000000000"], 404, "NOT_FOUND"],
      ["a discussion", [h, buyer, discussion.id], 404, "NOT_FOUND"],
      ["a deleted listing", [h, buyer, deleted.id], 404, "NOT_FOUND"],
      ["a private colony's listing", [h, buyer, hidden.id], 404, "NOT_FOUND"],
      ["the seller's own listing", [h, seller, post.id], 400, "INVALID_INPUT"],
      ["a listing without listed_rate_sats", [h, buyer, noRate.id], 400, "INVALID_INPUT"],
      ["a closed listing", [h, buyer, closed.id], 400, "CONFLICT"],
      ["a brief of 2001 characters", [h, buyer, post.id, { buyer_brief: "x".repeat(2001) }], 422, null],
      ["a post id that is not a UUID", [h, buyer, "not-a-uuid"], 422, null],
    ];
    for (const [name, args, status, code] of rows) {
      const r = await placeOrder(...args);
      expect({ name, status: r.status }).toEqual({ name, status });
      if (code) expect({ name, code: r.body.detail.code }).toEqual({ name, code });
    }
    expect(orders()).toBe(before);
    expect(countOf(h, "select 1 from events where type = 'order_received' and json_extract(payload, '$.post_id') in (?, ?, ?)", post.id, noRate.id, closed.id)).toBe(0);
  });

  test("order_create: 10 an hour per buyer (429 RATE_LIMITED with retry_after); refused orders cost nothing; the next hour is free again", async () => {
    const seller = await sellerWith(h);
    const post = await listing(h, seller);
    const buyer = await h.user();
    const other = await h.user();
    for (let i = 0; i < 3; i++) expect((await placeOrder(h, buyer, "0190a000-0000-7000-8000-000000000000")).status).toBe(404);
    for (let i = 0; i < 10; i++) expect((await placeOrder(h, buyer, post.id)).status).toBe(201);
    const over = await placeOrder(h, buyer, post.id);
    expect(over.status).toBe(429);
    expect(over.body.detail.retry_after).toBeGreaterThan(0);
    expect(over.headers.get("retry-after")).toBeString();
    expect((await placeOrder(h, other, post.id)).status).toBe(201);
    h.clock.advance(HOUR);
    expect((await placeOrder(h, buyer, post.id)).status).toBe(201);
  });
});

describe("reading orders", () => {
  test("GET /offers/orders/{id}: the buyer and the seller (each sees only their own lightning address); a stranger and an unknown id 404; anonymous 401", async () => {
    const o = await requested(h);
    const stranger = await h.user();
    const asBuyer = await h.req("GET", `/api/v1/offers/orders/${o.order.id}`, { token: o.buyer.token });
    expect(asBuyer.status).toBe(200);
    expect(asBuyer.body).toEqual(o.order);
    const asSeller = await h.req("GET", `/api/v1/offers/orders/${o.order.id}`, { token: o.seller.token });
    expect(asSeller.status).toBe(200);
    expect(asSeller.body.seller.lightning_address).toBe("seller@wallet.example");
    expect(asSeller.body.buyer.lightning_address).toBeNull();
    expect((await h.req("GET", `/api/v1/offers/orders/${o.order.id}`, { token: stranger.token })).status).toBe(404);
    expect((await h.req("GET", "/api/v1/offers/orders/0190a000-0000-7000-8000-000000000000", { token: o.buyer.token })).status).toBe(404);
    expect((await h.req("GET", `/api/v1/offers/orders/${o.order.id}`)).status).toBe(401);
  });

  test("GET /offers/{post_id}/orders: the seller's queue newest first, paged (limit 1-200, default 50; offset; page); anyone else 404", async () => {
    const seller = await sellerWith(h);
    const post = await listing(h, seller);
    const elsewhere = await listing(h, seller);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const buyer = await h.user();
      ids.push((await placeOrder(h, buyer, post.id)).body.id);
      h.clock.advance(1000);
    }
    await placeOrder(h, await h.user(), elsewhere.id);
    const queue = (token: string | null, query: Record<string, unknown> = {}, postId = post.id) => h.req("GET", `/api/v1/offers/${postId}/orders`, { token, query: query as never });
    const all = await queue(seller.token);
    expect(all.status).toBe(200);
    expect(all.body.items.map((o: any) => o.id)).toEqual([...ids].reverse());
    expect(all.body).toMatchObject({ total: 5, has_more: false });
    const second = await queue(seller.token, { limit: 2, page: 2 });
    expect(second.body.items.map((o: any) => o.id)).toEqual([ids[2], ids[1]]);
    expect(second.body).toMatchObject({ total: 5, has_more: true, page: 2 });
    expect((await queue(seller.token, { limit: 2, offset: 4 })).body.items.map((o: any) => o.id)).toEqual([ids[0]]);
    expect((await queue(seller.token, { limit: 201 })).status).toBe(422);
    expect((await queue(seller.token, { limit: 0 })).status).toBe(422);
    expect((await queue(seller.token, { limit: 2, page: 2, offset: 1 })).status).toBe(400);
    const buyer = await h.user();
    expect((await queue(buyer.token)).status).toBe(404);
    expect((await queue(null)).status).toBe(401);
    const discussion = await makePost(h, seller, { post_type: "discussion" });
    expect((await queue(seller.token, {}, discussion.id)).status).toBe(404);
    expect((await queue(seller.token, {}, "0190a000-0000-7000-8000-000000000000")).status).toBe(404);
  });

  test("GET /offers/orders/mine: role all (default), buyer, seller; newest first; an unknown role 422; anonymous 401", async () => {
    const me = await sellerWith(h);
    const mine = await listing(h, me);
    const other = await sellerWith(h);
    const theirs = await listing(h, other);
    const sold = (await placeOrder(h, other, mine.id)).body.id;
    h.clock.advance(1000);
    const bought = (await placeOrder(h, me, theirs.id)).body.id;
    const list = (role?: string) => h.req("GET", "/api/v1/offers/orders/mine", { token: me.token, query: { role } });
    expect((await list()).body.items.map((o: any) => o.id)).toEqual([bought, sold]);
    expect((await list("all")).body).toMatchObject({ total: 2 });
    expect((await list("buyer")).body.items.map((o: any) => o.id)).toEqual([bought]);
    expect((await list("seller")).body.items.map((o: any) => o.id)).toEqual([sold]);
    expect((await list("admin")).status).toBe(422);
    expect((await h.req("GET", "/api/v1/offers/orders/mine")).status).toBe(401);
    const stranger = await h.user();
    expect((await h.req("GET", "/api/v1/offers/orders/mine", { token: stranger.token })).body).toMatchObject({ items: [], total: 0 });
  });
});

describe("accept", () => {
  test("the seller accepts: the invoice first (one hour, the agreed amount), then accepted; the buyer is told (order_accepted)", async () => {
    const o = await requested(h, { rate: 2100 });
    const r = await act(h, o.seller, o.order.id, "accept");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "accepted", accepted_at: ISO, invoice_expires_at: new Date(h.clock.now() + INVOICE_TTL_SECONDS * 1000).toISOString() });
    expect(r.body.lightning_invoice).toStartWith("lnbcrt");
    expect(r.body.payment_hash).toMatch(/^[0-9a-f]{64}$/);
    const inv = payments.invoiceOf(h.ctx, "order", o.order.id)!;
    expect(inv).toMatchObject({ paymentHash: r.body.payment_hash, paymentRequest: r.body.lightning_invoice, amountSats: 2100, status: "pending" });
    const dev = h.ctx.db.$client.query("select amount_sats, memo from dev_wallet_invoices where payment_hash = ?").get(r.body.payment_hash) as { amount_sats: number; memo: string };
    expect(dev.amount_sats).toBe(2100);
    expect(dev.memo).toContain(`Colony order: ${o.post.title}`);
    expect(webhooksOf(h, "order_accepted", o.order.id)).toEqual([
      { name: "order_accepted", data: { order_id: o.order.id, post_id: o.post.id, post_title: o.post.title, seller: o.seller.username, amount_sats: 2100 }, to: [o.buyer.id] },
    ]);
    expect((await notificationsOf(h, o.buyer, "order_accepted"))[0].message).toBe(`@${o.seller.username} accepted your order "${o.post.title}": pay its invoice of 2100 sats`);
  });

  test("double accept is 400 CONFLICT with no second invoice; the buyer 403, a stranger 404, anonymous 401", async () => {
    const o = await requested(h);
    await must(h, o.seller, o.order.id, "accept");
    const again = await act(h, o.seller, o.order.id, "accept");
    expect(again.status).toBe(400);
    expect(again.body.detail.code).toBe("CONFLICT");
    expect(invoicesOf(o.order.id)).toBe(1);
    const o2 = await requested(h);
    expect((await act(h, o2.buyer, o2.order.id, "accept")).status).toBe(403);
    expect((await act(h, await h.user(), o2.order.id, "accept")).status).toBe(404);
    expect((await act(h, null, o2.order.id, "accept")).status).toBe(401);
    expect(orderRow(h, o2.order.id).status).toBe("requested");
    expect(invoicesOf(o2.order.id)).toBe(0);
  });

  test("concurrent accepts: exactly one succeeds, the others are 400 CONFLICT, and the wallet is asked for one invoice", async () => {
    const o = await requested(h);
    let asked = 0;
    // A slow wallet: it answers once all six requests are in (each charged order_accept on its
    // way to the service), so the others arrive while it answers.
    const charged = charges("order_accept", 6);
    const slow = (real: WalletMethods) => ({ createInvoice: async (req: InvoiceRequest) => (asked++, await charged.all, real.createInvoice(req)) });
    const answers = await withWallet(h, slow, () => Promise.all(Array.from({ length: 6 }, () => act(h, o.seller, o.order.id, "accept")))).finally(charged.restore);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    expect(answers.filter((a) => a.status === 400).every((a) => a.body.detail.code === "CONFLICT")).toBe(true);
    expect(asked).toBe(1);
    expect(invoicesOf(o.order.id)).toBe(1);
    expect(orderEvents(h, "order_accepted", o.order.id)).toHaveLength(1);
  });

  test("a wallet failure is 502 UPSTREAM_FAILURE: the order stays requested, nothing recorded, nobody told; a retry succeeds", async () => {
    const o = await requested(h);
    const r = await withWallet(h, () => ({ createInvoice: () => Promise.reject(new WalletError("connection refused")) }), () => act(h, o.seller, o.order.id, "accept"));
    expect(r.status).toBe(502);
    expect(r.body.detail.code).toBe("UPSTREAM_FAILURE");
    expect(orderRow(h, o.order.id)).toMatchObject({ status: "requested", invoice_id: null, accepted_at: null });
    expect(invoicesOf(o.order.id)).toBe(0);
    expect(orderEvents(h, "order_accepted", o.order.id)).toHaveLength(0);
    expect((await must(h, o.seller, o.order.id, "accept")).status).toBe("accepted");
  });

  test("order_accept: 30 an hour per seller", async () => {
    const seller = await sellerWith(h);
    const post = await listing(h, seller, 100);
    const ids: string[] = [];
    for (let i = 0; i < 31; i++) {
      h.ctx.limits.reset();
      ids.push((await placeOrder(h, await h.user(), post.id)).body.id);
    }
    h.ctx.limits.reset();
    for (let i = 0; i < 30; i++) expect((await act(h, seller, ids[i]!, "accept")).status).toBe(200);
    expect((await act(h, seller, ids[30]!, "accept")).status).toBe(429);
    expect(orderRow(h, ids[30]!).status).toBe("requested");
  });
});

describe("decline and cancel", () => {
  test("the seller declines (terminal, the buyer told order_declined); then accept, cancel and decline are 400 CONFLICT", async () => {
    const o = await requested(h);
    expect((await act(h, o.buyer, o.order.id, "decline")).status).toBe(403);
    expect((await act(h, await h.user(), o.order.id, "decline")).status).toBe(404);
    const r = await act(h, o.seller, o.order.id, "decline");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "declined", declined_at: ISO, lightning_invoice: null });
    expect(webhooksOf(h, "order_declined", o.order.id)).toEqual([{ name: "order_declined", data: { order_id: o.order.id, post_id: o.post.id, post_title: o.post.title, seller: o.seller.username }, to: [o.buyer.id] }]);
    expect((await notificationsOf(h, o.buyer, "order_declined"))[0].message).toBe(`@${o.seller.username} declined your order "${o.post.title}"`);
    for (const [who, action] of [[o.seller, "accept"], [o.buyer, "cancel"], [o.seller, "decline"], [o.seller, "mark-delivered"]] as const) {
      const again = await act(h, who, o.order.id, action);
      expect({ action, status: again.status, code: again.body.detail.code }).toEqual({ action, status: 400, code: "CONFLICT" });
    }
    expect(invoicesOf(o.order.id)).toBe(0);
  });

  test("the buyer cancels while requested (terminal); the seller may not (403); after accept the buyer cannot (400 CONFLICT)", async () => {
    const o = await requested(h);
    expect((await act(h, o.seller, o.order.id, "cancel")).status).toBe(403);
    expect((await act(h, await h.user(), o.order.id, "cancel")).status).toBe(404);
    const r = await act(h, o.buyer, o.order.id, "cancel");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "cancelled", cancelled_at: ISO });
    expect((await act(h, o.seller, o.order.id, "accept")).body.detail.code).toBe("CONFLICT");
    const o2 = await requested(h);
    await must(h, o2.seller, o2.order.id, "accept");
    const late = await act(h, o2.buyer, o2.order.id, "cancel");
    expect(late.status).toBe(400);
    expect(late.body.detail.code).toBe("CONFLICT");
    expect(orderRow(h, o2.order.id).status).toBe("accepted");
  });

  test("a cancel arriving while the accept waits on the wallet is answered after it: the order is accepted and the cancel 400 CONFLICT", async () => {
    const o = await requested(h);
    const asked = signal();
    const answer = signal();
    // A slow wallet: it answers the accept once the test has sent the cancel.
    const slow = (real: WalletMethods) => ({ createInvoice: async (req: InvoiceRequest) => (asked.fire(), await answer.fired, real.createInvoice(req)) });
    const [accept, cancel] = await withWallet(h, slow, async () => {
      const accepting = act(h, o.seller, o.order.id, "accept");
      await asked.fired;
      const cancelling = act(h, o.buyer, o.order.id, "cancel");
      // One turn of the event loop: the cancel reaches the order's lock, which the accept holds.
      await new Promise((next) => setImmediate(next));
      answer.fire();
      return Promise.all([accepting, cancelling]);
    });
    expect(accept.status).toBe(200);
    expect(cancel.status).toBe(400);
    expect(orderRow(h, o.order.id).status).toBe("accepted");
  });
});

describe("payment", () => {
  test("check before payment: still accepted; settled, a check moves it to paid once (checks and the poller racing), the seller told once", async () => {
    const o = await requested(h);
    const accepted = await must(h, o.seller, o.order.id, "accept");
    expect((await must(h, o.buyer, o.order.id, "payment/check")).status).toBe("accepted");
    expect((await devWallet(h)).settle(accepted.payment_hash)).toEqual({ settled: true });
    h.clock.advance(10_000);
    const [a, b] = await Promise.all([act(h, o.buyer, o.order.id, "payment/check"), act(h, o.seller, o.order.id, "payment/check"), payments.pollInvoices(h.ctx)]);
    expect([a.body.status, b.body.status]).toEqual(["paid", "paid"]);
    expect(a.body.paid_at).toEqual(ISO);
    await must(h, o.buyer, o.order.id, "payment/check");
    expect(orderEvents(h, "order_paid", o.order.id)).toHaveLength(1);
    expect(webhooksOf(h, "order_paid", o.order.id)).toEqual([
      { name: "order_paid", data: { order_id: o.order.id, post_id: o.post.id, post_title: o.post.title, buyer: o.buyer.username, amount_sats: 5000 }, to: [o.seller.id] },
    ]);
    const told = await notificationsOf(h, o.seller, "order_paid");
    expect(told).toHaveLength(1);
    expect(told[0].message).toBe(`@${o.buyer.username} paid 5000 sats for the order "${o.post.title}": deliver it`);
  });

  test("the poller alone notices the payment", async () => {
    const o = await requested(h);
    const accepted = await must(h, o.seller, o.order.id, "accept");
    (await devWallet(h)).settle(accepted.payment_hash);
    h.clock.advance(10_000);
    await h.ctx.jobs.runRecurring("poll-invoices");
    expect(orderRow(h, o.order.id).status).toBe("paid");
  });

  test("check in other states answers the order unchanged without the wallet; strangers 404, anonymous 401", async () => {
    const o = await requested(h);
    let asked = 0;
    const counted = (real: WalletMethods) => ({ lookupInvoice: (hash: string) => (asked++, real.lookupInvoice(hash)) });
    expect((await withWallet(h, counted, () => must(h, o.buyer, o.order.id, "payment/check"))).status).toBe("requested");
    expect(asked).toBe(0);
    expect((await act(h, await h.user(), o.order.id, "payment/check")).status).toBe(404);
    expect((await act(h, null, o.order.id, "payment/check")).status).toBe(401);
  });

  test("a wallet failure on check is 502 UPSTREAM_FAILURE and the order stays accepted", async () => {
    const o = await requested(h);
    await must(h, o.seller, o.order.id, "accept");
    const r = await withWallet(h, () => ({ lookupInvoice: () => Promise.reject(new WalletError("timed out")) }), () => act(h, o.buyer, o.order.id, "payment/check"));
    expect(r.status).toBe(502);
    expect(r.body.detail.code).toBe("UPSTREAM_FAILURE");
    expect(orderRow(h, o.order.id).status).toBe("accepted");
  });

  test("order_payment_check: 30 an hour per user", async () => {
    const o = await requested(h);
    for (let i = 0; i < 30; i++) expect((await act(h, o.buyer, o.order.id, "payment/check")).status).toBe(200);
    expect((await act(h, o.buyer, o.order.id, "payment/check")).status).toBe(429);
    expect((await act(h, o.seller, o.order.id, "payment/check")).status).toBe(200);
  });

  test("the invoice's TTL elapses unpaid: accepted → expired (terminal) by a check or the poller; a late settle is refused; nothing else moves it", async () => {
    const o = await requested(h);
    const accepted = await must(h, o.seller, o.order.id, "accept");
    h.clock.advance(INVOICE_TTL_SECONDS * 1000 - 1000);
    expect((await must(h, o.buyer, o.order.id, "payment/check")).status).toBe("accepted");
    h.clock.advance(1000);
    expect((await must(h, o.buyer, o.order.id, "payment/check")).status).toBe("expired");
    expect(orderRow(h, o.order.id).expired_at).toBe(h.clock.now());
    expect((await devWallet(h)).settle(accepted.payment_hash).settled).toBe(false);
    for (const [who, action] of [[o.seller, "accept"], [o.buyer, "cancel"], [o.seller, "mark-delivered"], [o.seller, "decline"]] as const) {
      expect((await act(h, who, o.order.id, action)).status).toBe(400);
    }
    expect((await must(h, o.seller, o.order.id, "payment/check")).status).toBe("expired");

    const o2 = await requested(h);
    await must(h, o2.seller, o2.order.id, "accept");
    h.clock.advance(INVOICE_TTL_SECONDS * 1000);
    await pollUntilIdle(h);
    expect(orderRow(h, o2.order.id).status).toBe("expired");
    expect(orderEvents(h, "order_paid", o2.order.id)).toHaveLength(0);
  });
});

describe("delivery and payout", () => {
  test("mark-delivered before payment is 400 CONFLICT; the buyer 403; a stranger 404", async () => {
    const o = await requested(h);
    expect((await act(h, o.seller, o.order.id, "mark-delivered")).body.detail.code).toBe("CONFLICT");
    await must(h, o.seller, o.order.id, "accept");
    expect((await act(h, o.seller, o.order.id, "mark-delivered")).body.detail.code).toBe("CONFLICT");
    expect((await act(h, o.buyer, o.order.id, "mark-delivered")).status).toBe(403);
    expect((await act(h, await h.user(), o.order.id, "mark-delivered")).status).toBe(404);
    expect(payments.payoutOf(h.ctx, "order", o.order.id)).toBeNull();
  });

  test("paid → delivered (the buyer told) queues 95 % for the seller; the job pays it: payout_pending then payout_completed, booked once", async () => {
    const o = await paid({ rate: 10_000 });
    const r = await act(h, o.seller, o.order.id, "mark-delivered");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "delivered", delivered_at: ISO });
    expect(payments.payoutOf(h.ctx, "order", o.order.id)).toMatchObject({ status: "pending", recipientId: o.seller.id, grossSats: 10_000, feeSats: 500, amountSats: 9_500 });
    expect(webhooksOf(h, "order_delivered", o.order.id)).toEqual([{ name: "order_delivered", data: { order_id: o.order.id, post_id: o.post.id, post_title: o.post.title, seller: o.seller.username }, to: [o.buyer.id] }]);
    expect((await notificationsOf(h, o.buyer, "order_delivered"))[0].message).toBe(`@${o.seller.username} delivered your order "${o.post.title}"`);
    const seen: string[] = [];
    const watched = (real: WalletMethods): Partial<WalletMethods> => ({
      payLightningAddress: (...args) => (seen.push(orderRow(h, o.order.id).status), real.payLightningAddress(...args)),
    });
    expect(await withWallet(h, watched, () => h.ctx.jobs.runDue())).toBeGreaterThanOrEqual(1);
    expect(seen).toEqual(["payout_pending"]);
    const done = await h.req("GET", `/api/v1/offers/orders/${o.order.id}`, { token: o.buyer.token });
    expect(done.body.status).toBe("payout_completed");
    const p = payments.payoutOf(h.ctx, "order", o.order.id)!;
    expect(p).toMatchObject({ status: "completed", amountSats: 9_500, lightningAddress: "seller@wallet.example" });
    await payments.runPayouts(h.ctx);
    const ledger = (await devWallet(h)).ledger().filter((e) => e.destination === "seller@wallet.example" && e.paymentHash === p.paymentHash);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]!.amountSats).toBe(9_500);
    expect((await act(h, o.seller, o.order.id, "mark-delivered")).body.detail.code).toBe("CONFLICT");
    expect(orderRow(h, o.order.id).status).toBe("payout_completed");
  });

  test("a seller without a lightning address at payout time: payout_abandoned (terminal), nothing paid", async () => {
    const o = await paid({ rate: 500 });
    setLightningAddress(h, o.seller.id, null);
    await must(h, o.seller, o.order.id, "mark-delivered");
    await h.ctx.jobs.runDue();
    expect(orderRow(h, o.order.id).status).toBe("payout_abandoned");
    expect(payments.payoutOf(h.ctx, "order", o.order.id)).toMatchObject({ status: "abandoned", attempts: 0 });
    h.clock.advance(HOUR);
    await payments.runPayouts(h.ctx);
    expect(orderRow(h, o.order.id).status).toBe("payout_abandoned");
  });

  test("a failing payout shows payout_failed, is retried after the backoff and completes", async () => {
    const o = await paid({ rate: 1000 });
    await must(h, o.seller, o.order.id, "mark-delivered");
    await withWallet(h, () => ({ payLightningAddress: async () => ({ state: "failed", reason: "no route" }) }), () => h.ctx.jobs.runDue());
    expect(orderRow(h, o.order.id).status).toBe("payout_failed");
    await payments.runPayouts(h.ctx);
    expect(orderRow(h, o.order.id).status).toBe("payout_failed");
    h.clock.advance(60_000);
    await payments.runPayouts(h.ctx);
    expect(orderRow(h, o.order.id).status).toBe("payout_completed");
    expect(payments.payoutOf(h.ctx, "order", o.order.id)).toMatchObject({ status: "completed", attempts: 2, amountSats: 950 });
  });

  test("the 5 % fee rounds down: 21 sats pays the seller 20", async () => {
    const o = await paid({ rate: 21 });
    await must(h, o.seller, o.order.id, "mark-delivered");
    await h.ctx.jobs.runDue();
    expect(payments.payoutOf(h.ctx, "order", o.order.id)).toMatchObject({ status: "completed", grossSats: 21, feeSats: 1, amountSats: 20 });
  });
});

describe("indexes", () => {
  test("every order list reads through an index, in order", () => {
    const plan = (sql: string) => (h.ctx.db.$client.query(`explain query plan ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(" | ");
    const order = "order by created_at desc, id desc limit 50";
    expect(plan(`select * from service_orders where post_id = 'p' ${order}`)).toBe("SEARCH service_orders USING INDEX service_orders_post_idx (post_id=?)");
    expect(plan(`select * from service_orders where buyer_id = 'u' ${order}`)).toBe("SEARCH service_orders USING INDEX service_orders_buyer_idx (buyer_id=?)");
    expect(plan(`select * from service_orders where seller_id = 'u' ${order}`)).toBe("SEARCH service_orders USING INDEX service_orders_seller_idx (seller_id=?)");
    // role=all: both indexes, merged (a party's orders, then sorted).
    expect(plan(`select * from service_orders where buyer_id = 'u' or seller_id = 'u' ${order}`)).toContain("MULTI-INDEX OR");
  });
});

describe("orderParties (for reviews)", () => {
  test("answers an order's parties and status, null for none", async () => {
    const o = await requested(h, { rate: 777 });
    expect(orderParties(h.ctx, o.order.id)).toEqual({ orderId: o.order.id, postId: o.post.id, buyerId: o.buyer.id, sellerId: o.seller.id, status: "requested", amountSats: 777 });
    expect(orderParties(h.ctx, "0190a000-0000-7000-8000-000000000000")).toBeNull();
  });
});

describe("listing a paid_offer", () => {
  test("needs a lightning address on the profile (400 INVALID_INPUT without one)", async () => {
    const u = await h.user();
    const r = await h.req("POST", "/api/v1/posts", { token: u.token, body: { colony_id: GENERAL.id, post_type: "paid_offer", title: "An offer", body: "Text", metadata: { listed_rate_sats: 100 } } });
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
    expect(r.body.detail.message).toContain("lightning_address");
  });
});

describe("the OpenAPI document", () => {
  test("describes every order route, and an order answers its schema", async () => {
    const doc = (await h.req("GET", "/openapi.json")).body;
    for (const [path, method] of [
      ["/api/v1/offers/{post_id}/order", "post"],
      ["/api/v1/offers/{post_id}/orders", "get"],
      ["/api/v1/offers/orders/mine", "get"],
      ["/api/v1/offers/orders/{order_id}", "get"],
      ["/api/v1/offers/orders/{order_id}/accept", "post"],
      ["/api/v1/offers/orders/{order_id}/decline", "post"],
      ["/api/v1/offers/orders/{order_id}/cancel", "post"],
      ["/api/v1/offers/orders/{order_id}/payment/check", "post"],
      ["/api/v1/offers/orders/{order_id}/mark-delivered", "post"],
    ])
      expect({ path, method, described: !!doc.paths[path]?.[method]?.summary }).toEqual({ path, method, described: true });
    expect(doc.tags.map((t: any) => t.name)).toContain("offers");
    const { ServiceOrderOut } = await import("./routes");
    const o = await requested(h);
    expectAnswer(ServiceOrderOut, o.order);
  });
});

describe("PUT /posts/{id} on an offer", () => {
  test("the seller edits an offer without orders; once it has one, 400 CONFLICT and nothing changes", async () => {
    const seller = await sellerWith(h);
    const offer = await listing(h, seller);
    const edit = (title: string) => h.req("PUT", `/api/v1/posts/${offer.id}`, { token: seller.token, body: { title } });
    expect((await edit("An offer still without orders")).status).toBe(200);
    expect((await placeOrder(h, await h.user(), offer.id)).status).toBe(201);
    const r = await edit("Changed after an order");
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatchObject({ code: "CONFLICT", message: "This offer already has orders and can no longer be edited" });
    expect((await h.req("GET", `/api/v1/posts/${offer.id}`)).body.title).toBe("An offer still without orders");
  });
});
