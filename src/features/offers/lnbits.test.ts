// Orders against LNbits (a fake on 127.0.0.1, test/fake-lnbits.ts) with failures injected: a 500
// or a timeout while accepting (502, the order stays requested), an invoice that never settles
// (expired), a settlement reported on every look-up and seen by checks and the poller at once
// (paid once), a failing look-up on check (502), and payouts to a Lightning address by LNURL-pay
// that fail, time out or go through (95 %, paid once).
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { setup, type Harness } from "../../../test/harness";
import { FakeLnbits } from "../../../test/fake-lnbits";
import { createWallet, type LazyWallet } from "../../adapters/lightning";
import * as payments from "../payments/service";
import { pollUntilIdle } from "../payments/fixtures";
import { act, countOf, must, orderEvents, orderRow, requested } from "./fixtures";
import { INVOICE_TTL_SECONDS } from "./service";

// One harness for the file, each test with orders of its own; a test that runs the invoice poller
// against a wallet failing once has a harness of its own (`const h = setup()`).
const h = setup();
const fake = new FakeLnbits();
afterAll(() => fake.stop());
beforeEach(() => h.ctx.limits.reset());

const lnbits = (h: Harness, timeoutMs = 2_000): LazyWallet =>
  createWallet({ ...h.ctx.config, allowPrivateWebhooks: true, wallet: { ...h.ctx.config.wallet, backend: "lnbits", timeoutMs, lnbits: { url: fake.url, adminKey: fake.adminKey, invoiceKey: fake.invoiceKey } } }, {
    db: h.ctx.db,
    clock: h.clock,
    devKeyPath: null,
    lnurl: { urlFor: (user) => fake.lnurlFor(user) },
  });

/** Runs `fn` with LNbits as the server's wallet (of `on`, the file's harness by default). */
async function withLnbits(fn: () => Promise<void>, timeoutMs?: number, on: Harness = h): Promise<void> {
  const dev = on.ctx.wallet;
  on.ctx.wallet = lnbits(on, timeoutMs);
  try {
    await fn();
  } finally {
    on.ctx.wallet = dev;
  }
}

const invoicesOf = (h: Harness, orderId: string) => countOf(h, "select 1 from invoices where purpose = 'order' and subject_id = ?", orderId);

/** An order accepted through LNbits and paid at the wallet, then checked. */
async function paidThroughLnbits(address: string, rate: number) {
  const o = await requested(h, { rate, address });
  const accepted = await must(h, o.seller, o.order.id, "accept");
  fake.settle(accepted.payment_hash);
  expect((await must(h, o.buyer, o.order.id, "payment/check")).status).toBe("paid");
  return o;
}

describe("accept through LNbits", () => {
  test("the invoice comes from LNbits at the agreed amount; the order carries it", () =>
    withLnbits(async () => {
      const o = await requested(h, { rate: 3000 });
      const r = await must(h, o.seller, o.order.id, "accept");
      expect(r.status).toBe("accepted");
      expect(fake.invoices.get(r.payment_hash)).toMatchObject({ amountSats: 3000, bolt11: r.lightning_invoice });
      expect(fake.invoices.get(r.payment_hash)!.memo).toBe(`Colony order: ${o.post.title}`);
    }));

  test("a 500 is 502 UPSTREAM_FAILURE: still requested, no invoice, nobody told; the retry works", () =>
    withLnbits(async () => {
      const o = await requested(h);
      fake.fail500 = 1;
      const r = await act(h, o.seller, o.order.id, "accept");
      expect(r.status).toBe(502);
      expect(r.body.detail.code).toBe("UPSTREAM_FAILURE");
      expect(orderRow(h, o.order.id).status).toBe("requested");
      expect(invoicesOf(h, o.order.id)).toBe(0);
      expect(orderEvents(h, "order_accepted", o.order.id)).toHaveLength(0);
      expect((await must(h, o.seller, o.order.id, "accept")).status).toBe("accepted");
      expect(invoicesOf(h, o.order.id)).toBe(1);
    }));

  test("a timeout is 502 UPSTREAM_FAILURE and changes nothing; the order can still be cancelled", () =>
    withLnbits(async () => {
      const o = await requested(h);
      fake.hold = 1;
      const r = await act(h, o.seller, o.order.id, "accept");
      expect(r.status).toBe(502);
      expect(orderRow(h, o.order.id)).toMatchObject({ status: "requested", invoice_id: null, payment_hash: null });
      expect(invoicesOf(h, o.order.id)).toBe(0);
      expect((await must(h, o.buyer, o.order.id, "cancel")).status).toBe("cancelled");
      fake.release();
      await fake.idle();
    }, 100));

  test("concurrent accepts against LNbits: one invoice at the wallet", () =>
    withLnbits(async () => {
      const o = await requested(h, { rate: 4321 });
      const before = fake.seen.filter((s) => s === "POST /api/v1/payments").length;
      const answers = await Promise.all(Array.from({ length: 4 }, () => act(h, o.seller, o.order.id, "accept")));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400]);
      expect(fake.seen.filter((s) => s === "POST /api/v1/payments").length - before).toBe(1);
      expect(invoicesOf(h, o.order.id)).toBe(1);
    }));
});

describe("payment through LNbits", () => {
  test("settlement reported on every look-up, seen by two checks and the poller at once: paid once, the seller told once", () =>
    withLnbits(async () => {
      const o = await requested(h);
      const accepted = await must(h, o.seller, o.order.id, "accept");
      expect((await must(h, o.buyer, o.order.id, "payment/check")).status).toBe("accepted");
      fake.settle(accepted.payment_hash);
      fake.settle(accepted.payment_hash);
      h.clock.advance(60_000);
      const [a, b] = await Promise.all([act(h, o.buyer, o.order.id, "payment/check"), act(h, o.seller, o.order.id, "payment/check"), payments.pollInvoices(h.ctx)]);
      expect([a.body.status, b.body.status]).toEqual(["paid", "paid"]);
      await must(h, o.buyer, o.order.id, "payment/check");
      await payments.pollInvoices(h.ctx);
      expect(orderEvents(h, "order_paid", o.order.id)).toHaveLength(1);
      expect(countOf(h, "select 1 from notifications where kind = 'order_paid' and user_id = ?", o.seller.id)).toBe(1);
    }));

  test("a look-up answering 500 is 502 UPSTREAM_FAILURE on check; the poller retries later and the payment still lands", () => {
    const h = setup();
    return withLnbits(async () => {
      const o = await requested(h);
      const accepted = await must(h, o.seller, o.order.id, "accept");
      fake.settle(accepted.payment_hash);
      fake.fail500 = 1;
      const r = await act(h, o.buyer, o.order.id, "payment/check");
      expect(r.status).toBe(502);
      expect(r.body.detail.code).toBe("UPSTREAM_FAILURE");
      expect(orderRow(h, o.order.id).status).toBe("accepted");
      fake.fail500 = 1;
      h.clock.advance(10_000);
      await payments.pollInvoices(h.ctx);
      expect(orderRow(h, o.order.id).status).toBe("accepted");
      h.clock.advance(300_000);
      await payments.pollInvoices(h.ctx);
      expect(orderRow(h, o.order.id).status).toBe("paid");
    }, undefined, h);
  });

  test("an invoice that never settles: accepted until a minute past its expiry, then expired (terminal)", () =>
    withLnbits(async () => {
      const o = await requested(h);
      await must(h, o.seller, o.order.id, "accept");
      h.clock.advance(INVOICE_TTL_SECONDS * 1000);
      expect((await must(h, o.buyer, o.order.id, "payment/check")).status).toBe("accepted");
      h.clock.advance(60_000);
      await pollUntilIdle(h);
      expect(orderRow(h, o.order.id).status).toBe("expired");
      expect((await act(h, o.seller, o.order.id, "mark-delivered")).body.detail.code).toBe("CONFLICT");
    }));

  test("paid at the deadline and seen only after it: paid, not expired", () =>
    withLnbits(async () => {
      const o = await requested(h);
      const accepted = await must(h, o.seller, o.order.id, "accept");
      h.clock.advance(INVOICE_TTL_SECONDS * 1000 - 1);
      fake.settle(accepted.payment_hash);
      h.clock.advance(10 * 60_000);
      expect((await must(h, o.buyer, o.order.id, "payment/check")).status).toBe("paid");
    }));
});

describe("payouts through LNbits (LNURL-pay to the seller's address)", () => {
  test("delivered: 95 % resolved from the Lightning address and paid once, the order payout_completed", () =>
    withLnbits(async () => {
      const o = await paidThroughLnbits("carol@pay.example.org", 20_000);
      await must(h, o.seller, o.order.id, "mark-delivered");
      await h.ctx.jobs.runDue();
      expect(orderRow(h, o.order.id).status).toBe("payout_completed");
      expect(fake.receivedBy("carol")).toBe(19_000);
      await payments.runPayouts(h.ctx);
      h.clock.advance(24 * 3_600_000);
      await payments.runPayouts(h.ctx);
      expect(fake.receivedBy("carol")).toBe(19_000);
    }));

  test("a failed payment shows payout_failed, is retried after the backoff, and completes", () =>
    withLnbits(async () => {
      const o = await paidThroughLnbits("dave@pay.example.org", 1_000);
      await must(h, o.seller, o.order.id, "mark-delivered");
      fake.payOutcome = "failed";
      try {
        await h.ctx.jobs.runDue();
        expect(orderRow(h, o.order.id).status).toBe("payout_failed");
        expect(fake.receivedBy("dave")).toBe(0);
      } finally {
        fake.payOutcome = "success";
      }
      await payments.runPayouts(h.ctx);
      expect(orderRow(h, o.order.id).status).toBe("payout_failed");
      h.clock.advance(60_000);
      await payments.runPayouts(h.ctx);
      expect(orderRow(h, o.order.id).status).toBe("payout_completed");
      expect(fake.receivedBy("dave")).toBe(950);
    }));

  test("a 500 on the pay call is uncertain: payout_pending until reconciled (LNbits has no such payment: payout_failed), then retried and paid once", () =>
    withLnbits(async () => {
      const o = await paidThroughLnbits("fay@pay.example.org", 2_000);
      await must(h, o.seller, o.order.id, "mark-delivered");
      fake.fail500 = 1;
      await h.ctx.jobs.runDue();
      expect(orderRow(h, o.order.id).status).toBe("payout_pending");
      await payments.runPayouts(h.ctx);
      expect(orderRow(h, o.order.id).status).toBe("payout_failed");
      expect(fake.receivedBy("fay")).toBe(0);
      h.clock.advance(60_000);
      await payments.runPayouts(h.ctx);
      expect(orderRow(h, o.order.id).status).toBe("payout_completed");
      expect(fake.receivedBy("fay")).toBe(1_900);
    }));

  test("a pay call that times out after the invoice was recorded stays payout_pending, is reconciled, and is not paid twice", () =>
    withLnbits(async () => {
      const o = await paidThroughLnbits("erin@pay.example.org", 2_000);
      await must(h, o.seller, o.order.id, "mark-delivered");
      // The pay call is held past the timeout of a wallet that gives up after 100 ms.
      fake.hold = 1;
      await withLnbits(async () => void (await h.ctx.jobs.runDue()), 100);
      expect(orderRow(h, o.order.id).status).toBe("payout_pending");
      // The wallet finishes the payment it was still holding.
      fake.release();
      await fake.idle();
      await payments.runPayouts(h.ctx);
      expect(orderRow(h, o.order.id).status).toBe("payout_completed");
      expect(payments.payoutOf(h.ctx, "order", o.order.id)).toMatchObject({ status: "completed", attempts: 1 });
      expect(fake.receivedBy("erin")).toBe(1_900);
    }));
});
