// Payments: invoices settled exactly once (checks and the poller racing, settlement reported
// twice), expiry on the test clock, payouts of 95 % never sent twice (a crash between the steps,
// an uncertain answer), abandoned without an address; against the development wallet and a fake
// LNbits on 127.0.0.1 with failures injected.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { FakeLnbits, lnbitsWallet, withWallet } from "../../../test/fake-lnbits";
import { createWallet, WalletError, type LazyWallet } from "../../adapters/lightning";
import type { DevelopmentWallet } from "../../adapters/lightning/dev-wallet";
import { exclusive } from "../../core/exclusive";
import { inTransaction } from "../../db/client";
import * as payments from "./service";

const h = setup();
const calls: string[] = [];
payments.registerPurpose("test", {
  onPaid: (_ctx, _tx, inv) => void calls.push(`paid ${inv.subjectId}`),
  onLapsed: (_ctx, _tx, inv) => void calls.push(`${inv.status} ${inv.subjectId}`),
  onPayout: (_ctx, _tx, p) => void calls.push(`payout ${p.subjectId} ${p.status}`),
});
beforeEach(() => void (calls.length = 0));

const devWallet = async () => (await h.ctx.wallet.backend()) as DevelopmentWallet;
async function open(subjectId: string, amountSats = 1000, ttlSeconds = 600) {
  const invoice = await payments.requestInvoice(h.ctx, { amountSats, memo: `test ${subjectId}`, ttlSeconds });
  return inTransaction(h.ctx.db, (tx) => payments.recordInvoice(h.ctx, tx, { purpose: "test", subjectId, amountSats, invoice }));
}
const seller = async (address: string | null) => {
  const u = await h.user();
  h.ctx.db.$client.query("update users set lightning_address = ? where id = ?").run(address, u.id);
  return u;
};
const queue = (subjectId: string, recipientId: string, grossSats: number) => inTransaction(h.ctx.db, (tx) => payments.queuePayout(h.ctx, tx, { purpose: "test", subjectId, recipientId, grossSats }));

describe("invoices (development wallet)", () => {
  test("the development wallet's invoice names itself; settled, a check marks it paid and runs the side effects once", async () => {
    const inv = await open("s1", 2100);
    expect(inv).toMatchObject({ status: "pending", amountSats: 2100 });
    expect(inv.paymentRequest.startsWith("lnbcrt21u") || inv.paymentRequest.startsWith("lnbcrt21000n")).toBe(true);
    expect((await payments.checkInvoice(h.ctx, inv.id)).status).toBe("pending");
    expect((await devWallet()).settle(inv.paymentHash)).toEqual({ settled: true });
    const [a, b, c] = await Promise.all([payments.checkInvoice(h.ctx, inv.id), payments.checkInvoice(h.ctx, inv.id), payments.pollInvoices(h.ctx)]);
    expect([a.status, b.status]).toEqual(["paid", "paid"]);
    expect(c).toBeGreaterThanOrEqual(0);
    expect(calls).toEqual(["paid s1"]);
    expect(payments.findInvoice(h.ctx, inv.id)!.preimage).toMatch(/^[0-9a-f]{64}$/);
  });

  test("the poller backs off while pending and marks the invoice expired past its TTL (with grace); a late settle is refused", async () => {
    const inv = await open("s2", 500, 60);
    expect(await payments.pollInvoices(h.ctx)).toBe(0);
    h.clock.advance(10_000);
    await payments.pollInvoices(h.ctx);
    const once = payments.findInvoice(h.ctx, inv.id)!;
    expect(once.checks).toBe(1);
    expect(once.nextCheckAt).toBe(h.clock.now() + 20_000);
    h.clock.advance(60_000);
    await payments.checkInvoice(h.ctx, inv.id);
    expect(payments.findInvoice(h.ctx, inv.id)!.status).toBe("expired");
    expect(calls).toEqual(["expired s2"]);
    expect((await devWallet()).settle(inv.paymentHash)).toEqual({ settled: false, reason: "the invoice has expired" });
  });
});

describe("exclusive", () => {
  test("runs one call per key at a time, in order; other keys run beside it; a failure does not block the next", async () => {
    const log: string[] = [];
    const step = (name: string, ms: number) => async () => {
      log.push(`${name} start`);
      await Bun.sleep(ms);
      log.push(`${name} end`);
      if (name === "b") throw new Error("b failed");
      return name;
    };
    const results = await Promise.allSettled([exclusive("k", step("a", 20)), exclusive("k", step("b", 5)), exclusive("k", step("c", 1)), exclusive("other", step("x", 1))]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(log.filter((l) => !l.startsWith("x"))).toEqual(["a start", "a end", "b start", "b end", "c start", "c end"]);
    expect(log.indexOf("x end")).toBeLessThan(log.indexOf("a end"));
  });
});

describe("payouts (development wallet)", () => {
  test("95 % to the seller's address, booked once however often the runner runs", async () => {
    const s = await seller("seller@example.com");
    queue("o1", s.id, 10_000);
    queue("o1", s.id, 10_000);
    await Promise.all([payments.runPayouts(h.ctx), payments.runPayouts(h.ctx)]);
    await payments.runPayouts(h.ctx);
    const p = payments.payoutOf(h.ctx, "test", "o1")!;
    expect(p).toMatchObject({ status: "completed", grossSats: 10_000, feeSats: 500, amountSats: 9_500, attempts: 1, lightningAddress: "seller@example.com" });
    const ledger = (await devWallet()).ledger().filter((r) => r.paymentHash === p.paymentHash);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ destination: "seller@example.com", amountSats: 9_500 });
    expect(calls).toEqual(["payout o1 in_flight", "payout o1 completed"]);
  });

  test("the fee rounds down: 21 sats pays 20 and keeps 1; 999 pays 950", () => {
    expect(payments.split(21)).toEqual({ feeSats: 1, amountSats: 20 });
    expect(payments.split(999)).toEqual({ feeSats: 49, amountSats: 950 });
  });

  test("a seller without a lightning address: abandoned, never retried", async () => {
    const s = await seller(null);
    queue("o2", s.id, 1000);
    await payments.runPayouts(h.ctx);
    expect(payments.payoutOf(h.ctx, "test", "o2")).toMatchObject({ status: "abandoned", attempts: 0 });
    await payments.runPayouts(h.ctx);
    expect(calls).toEqual(["payout o2 abandoned"]);
  });

  test("a crash after the invoice was recorded: reconciled from the wallet, not paid again", async () => {
    const s = await seller("crash@example.com");
    const p = queue("o3", s.id, 2000);
    const dev = await devWallet();
    // What a process killed in the middle leaves: in flight, hash recorded, the wallet paid.
    let recorded = "";
    await dev.payLightningAddress("crash@example.com", p.amountSats, "x", (hash) => (recorded = hash));
    h.ctx.db.$client.query("update payouts set status = 'in_flight', attempts = 1, payment_hash = ?, lightning_address = 'crash@example.com' where id = ?").run(recorded, p.id);
    await payments.runPayouts(h.ctx);
    expect(payments.payoutOf(h.ctx, "test", "o3")).toMatchObject({ status: "completed", paymentHash: recorded, attempts: 1 });
    expect(dev.ledger().filter((r) => r.destination === "crash@example.com")).toHaveLength(1);
  });

  test("a crash before any invoice was recorded: nothing was paid, so it is tried again, once", async () => {
    const s = await seller("early@example.com");
    const p = queue("o4", s.id, 2000);
    h.ctx.db.$client.query("update payouts set status = 'in_flight', attempts = 1 where id = ?").run(p.id);
    await payments.runPayouts(h.ctx);
    expect(payments.payoutOf(h.ctx, "test", "o4")).toMatchObject({ status: "completed", attempts: 2 });
    expect((await devWallet()).ledger().filter((r) => r.destination === "early@example.com")).toHaveLength(1);
  });
});

describe("against LNbits (a fake on 127.0.0.1)", () => {
  const fake = new FakeLnbits();
  afterAll(() => fake.stop());
  const lnbits = (timeoutMs?: number) => lnbitsWallet(h, fake, timeoutMs);
  const use = (wallet: LazyWallet, fn: () => Promise<void>) => withWallet(h, wallet, fn);

  test("an invoice through LNbits; paid at the wallet (reported on every look-up), settled once", () =>
    use(lnbits(), async () => {
      const inv = await open("l1", 3000);
      expect(fake.invoices.get(inv.paymentHash)).toMatchObject({ amountSats: 3000, memo: "test l1" });
      expect((await payments.checkInvoice(h.ctx, inv.id)).status).toBe("pending");
      fake.settle(inv.paymentHash);
      await payments.checkInvoice(h.ctx, inv.id);
      await payments.checkInvoice(h.ctx, inv.id);
      h.clock.advance(60_000);
      await payments.pollInvoices(h.ctx);
      expect(calls).toEqual(["paid l1"]);
    }));

  test("a 500 or a timeout on create is 502 UPSTREAM_FAILURE and records nothing", () =>
    use(lnbits(300), async () => {
      const count = () => (h.ctx.db.$client.query("select count(*) n from invoices").get() as { n: number }).n;
      const before = count();
      fake.fail500 = 1;
      await expect(payments.requestInvoice(h.ctx, { amountSats: 100, memo: "x", ttlSeconds: 60 })).rejects.toMatchObject({ status: 502, code: "UPSTREAM_FAILURE" });
      fake.hang = 1;
      fake.hangMs = 1_000;
      await expect(payments.requestInvoice(h.ctx, { amountSats: 100, memo: "x", ttlSeconds: 60 })).rejects.toMatchObject({ status: 502, code: "UPSTREAM_FAILURE" });
      expect(count()).toBe(before);
    }));

  test("a look-up failing is retried later by the poller, and a strict check answers 502", () =>
    use(lnbits(), async () => {
      const inv = await open("l2", 100);
      fake.fail500 = 1;
      expect((await payments.checkInvoice(h.ctx, inv.id)).status).toBe("pending");
      fake.fail500 = 1;
      await expect(payments.checkInvoice(h.ctx, inv.id, { strict: true })).rejects.toMatchObject({ status: 502 });
      fake.settle(inv.paymentHash);
      expect((await payments.checkInvoice(h.ctx, inv.id)).status).toBe("paid");
    }));

  test("an invoice that never settles expires", () =>
    use(lnbits(), async () => {
      const inv = await open("l3", 100, 60);
      h.clock.advance(121_000);
      await payments.pollInvoices(h.ctx);
      expect(payments.findInvoice(h.ctx, inv.id)!.status).toBe("expired");
      expect(calls).toEqual(["expired l3"]);
    }));

  test("a payout resolves the seller's Lightning address by LNURL-pay and pays exactly 95 %", () =>
    use(lnbits(), async () => {
      const s = await seller("carol@pay.example.org");
      queue("l4", s.id, 20_000);
      await payments.runPayouts(h.ctx);
      expect(payments.payoutOf(h.ctx, "test", "l4")).toMatchObject({ status: "completed", amountSats: 19_000 });
      expect(fake.receivedBy("carol")).toBe(19_000);
      await payments.runPayouts(h.ctx);
      expect(fake.receivedBy("carol")).toBe(19_000);
    }));

  test("a failed payment is retried with backoff and paid once it goes through", () =>
    use(lnbits(), async () => {
      const s = await seller("dave@pay.example.org");
      queue("l5", s.id, 1_000);
      fake.payOutcome = "failed";
      await payments.runPayouts(h.ctx);
      const failed = payments.payoutOf(h.ctx, "test", "l5")!;
      expect(failed).toMatchObject({ status: "failed", attempts: 1 });
      expect(failed.nextAttemptAt).toBe(h.clock.now() + 60_000);
      fake.payOutcome = "success";
      await payments.runPayouts(h.ctx);
      expect(payments.payoutOf(h.ctx, "test", "l5")!.status).toBe("failed");
      h.clock.advance(60_000);
      await payments.runPayouts(h.ctx);
      expect(payments.payoutOf(h.ctx, "test", "l5")).toMatchObject({ status: "completed", attempts: 2 });
      expect(fake.receivedBy("dave")).toBe(950);
      expect(calls).toEqual(["payout l5 in_flight", "payout l5 failed", "payout l5 in_flight", "payout l5 completed"]);
    }));

  test("the status look-up after a successful pay call fails: left in flight and reconciled, never paid twice", () =>
    use(lnbits(), async () => {
      const s = await seller("gus@pay.example.org");
      queue("l7", s.id, 1_000);
      const backend = (await h.ctx.wallet.backend()) as unknown as { lookupPayment: (hash: string) => Promise<unknown> };
      const lookup = backend.lookupPayment.bind(backend);
      let fail = true;
      backend.lookupPayment = async (hash) => {
        if (!fail) return lookup(hash);
        fail = false;
        throw new WalletError("GET /api/v1/payments: 500");
      };
      await payments.runPayouts(h.ctx);
      expect(payments.payoutOf(h.ctx, "test", "l7")).toMatchObject({ status: "in_flight", attempts: 1 });
      h.clock.advance(60_000);
      await payments.runPayouts(h.ctx);
      expect(payments.payoutOf(h.ctx, "test", "l7")).toMatchObject({ status: "completed", attempts: 1 });
      expect(fake.receivedBy("gus")).toBe(950);
    }));

  test("a pay call that times out after the invoice was recorded stays in flight and is reconciled, not paid twice", () =>
    use(lnbits(300), async () => {
      const s = await seller("erin@pay.example.org");
      queue("l6", s.id, 2_000);
      // The pay request itself hangs past the timeout; the fake still pays it.
      fake.hang = 1;
      fake.hangMs = 600;
      await payments.runPayouts(h.ctx);
      const p = payments.payoutOf(h.ctx, "test", "l6")!;
      expect(p.status).toBe("in_flight");
      expect(p.paymentHash).toMatch(/^[0-9a-f]{64}$/);
      await Bun.sleep(400);
      await payments.runPayouts(h.ctx);
      expect(payments.payoutOf(h.ctx, "test", "l6")).toMatchObject({ status: "completed", attempts: 1 });
      expect(fake.receivedBy("erin")).toBe(1_900);
    }));
});
