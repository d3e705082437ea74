// Payments: invoices settled exactly once (checks and the poller racing, settlement reported
// twice), expiry on the test clock, payouts of 95 % never sent twice (a crash between the steps,
// an uncertain answer), abandoned without an address; against the development wallet and a fake
// LNbits on 127.0.0.1 with failures injected.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { setup, type Harness } from "../../../test/harness";
import { FakeLnbits, lnbitsWallet, withWallet } from "../../../test/fake-lnbits";
import { createWallet, WalletError, type LazyWallet } from "../../adapters/lightning";
import type { DevelopmentWallet } from "../../adapters/lightning/dev-wallet";
import { exclusive } from "../../core/exclusive";
import { inTransaction } from "../../db/client";
import { pollUntilIdle } from "./fixtures";
import * as payments from "./service";

// One harness for the file; each test has subjects of its own and reads only their side effects.
// A test that counts what the poller finds due has a harness of its own (`const h = setup()`).
const h = setup();
const calls: string[] = [];
payments.registerPurpose("test", {
  onPaid: (_ctx, _tx, inv) => void calls.push(`paid ${inv.subjectId}`),
  onLapsed: (_ctx, _tx, inv) => void calls.push(`${inv.status} ${inv.subjectId}`),
  onPayout: (_ctx, _tx, p) => void calls.push(`payout ${p.subjectId} ${p.status}`),
});
beforeEach(() => void (calls.length = 0));
/** The side effects run for one subject, in order. */
const callsOf = (subjectId: string) => calls.filter((c) => c.split(" ").includes(subjectId));

const devWallet = async (h: Harness) => (await h.ctx.wallet.backend()) as DevelopmentWallet;
async function open(h: Harness, subjectId: string, amountSats = 1000, ttlSeconds = 600) {
  const invoice = await payments.requestInvoice(h.ctx, { amountSats, memo: `test ${subjectId}`, ttlSeconds });
  return inTransaction(h.ctx.db, (tx) => payments.recordInvoice(h.ctx, tx, { purpose: "test", subjectId, amountSats, invoice }));
}
const seller = async (h: Harness, address: string | null) => {
  const u = await h.user();
  h.ctx.db.$client.query("update users set lightning_address = ? where id = ?").run(address, u.id);
  return u;
};
const queue = (h: Harness, subjectId: string, recipientId: string, grossSats: number) => inTransaction(h.ctx.db, (tx) => payments.queuePayout(h.ctx, tx, { purpose: "test", subjectId, recipientId, grossSats }));

describe("invoices (development wallet)", () => {
  test("the development wallet's invoice names itself; settled, a check marks it paid and runs the side effects once", async () => {
    const inv = await open(h, "s1", 2100);
    expect(inv).toMatchObject({ status: "pending", amountSats: 2100 });
    expect(inv.paymentRequest.startsWith("lnbcrt21u") || inv.paymentRequest.startsWith("lnbcrt21000n")).toBe(true);
    expect((await payments.checkInvoice(h.ctx, inv.id)).status).toBe("pending");
    expect((await devWallet(h)).settle(inv.paymentHash)).toEqual({ settled: true });
    const [a, b, c] = await Promise.all([payments.checkInvoice(h.ctx, inv.id), payments.checkInvoice(h.ctx, inv.id), payments.pollInvoices(h.ctx)]);
    expect([a.status, b.status]).toEqual(["paid", "paid"]);
    expect(c).toBeGreaterThanOrEqual(0);
    expect(callsOf("s1")).toEqual(["paid s1"]);
    expect(payments.findInvoice(h.ctx, inv.id)!.preimage).toMatch(/^[0-9a-f]{64}$/);
  });

  test("the poller backs off while pending and marks the invoice expired past its TTL (with grace); a late settle is refused", async () => {
    const h = setup();
    const inv = await open(h, "s2", 500, 60);
    expect(await payments.pollInvoices(h.ctx)).toBe(0);
    h.clock.advance(10_000);
    await payments.pollInvoices(h.ctx);
    const once = payments.findInvoice(h.ctx, inv.id)!;
    expect(once.checks).toBe(1);
    expect(once.nextCheckAt).toBe(h.clock.now() + 20_000);
    h.clock.advance(60_000);
    await payments.checkInvoice(h.ctx, inv.id);
    expect(payments.findInvoice(h.ctx, inv.id)!.status).toBe("expired");
    expect(callsOf("s2")).toEqual(["expired s2"]);
    expect((await devWallet(h)).settle(inv.paymentHash)).toEqual({ settled: false, reason: "the invoice has expired" });
  });
});

describe("exclusive", () => {
  test("runs one call per key at a time, in order; other keys run beside it; a failure does not block the next", async () => {
    const log: string[] = [];
    const signal = () => {
      let fire!: () => void;
      const fired = new Promise<void>((resolve) => (fire = resolve));
      return { fire, fired };
    };
    const names = ["a", "b", "c", "x"] as const;
    const started = Object.fromEntries(names.map((n) => [n, signal()]));
    const finish = Object.fromEntries(names.map((n) => [n, signal()]));
    /** A call that says it started, then runs until the test lets it finish. */
    const step = (name: (typeof names)[number]) => async () => {
      log.push(`${name} start`);
      started[name]!.fire();
      await finish[name]!.fired;
      log.push(`${name} end`);
      if (name === "b") throw new Error("b failed");
      return name;
    };
    const runs = [exclusive("k", step("a")), exclusive("k", step("b")), exclusive("k", step("c")), exclusive("other", step("x"))];
    await Promise.all([started.a!.fired, started.x!.fired]);
    await new Promise((next) => setImmediate(next));
    // b and c wait for a; x, under another key, runs beside it and finishes first.
    expect([...log].sort()).toEqual(["a start", "x start"]);
    finish.x!.fire();
    await runs[3];
    finish.a!.fire();
    await started.b!.fired;
    finish.b!.fire();
    await started.c!.fired;
    finish.c!.fire();
    const results = await Promise.allSettled(runs);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(log.filter((l) => !l.startsWith("x"))).toEqual(["a start", "a end", "b start", "b end", "c start", "c end"]);
    expect(log.indexOf("x end")).toBeLessThan(log.indexOf("a end"));
  });
});

describe("payouts (development wallet)", () => {
  test("95 % to the seller's address, booked once however often the runner runs", async () => {
    const s = await seller(h, "seller@example.com");
    queue(h, "o1", s.id, 10_000);
    queue(h, "o1", s.id, 10_000);
    await Promise.all([payments.runPayouts(h.ctx), payments.runPayouts(h.ctx)]);
    await payments.runPayouts(h.ctx);
    const p = payments.payoutOf(h.ctx, "test", "o1")!;
    expect(p).toMatchObject({ status: "completed", grossSats: 10_000, feeSats: 500, amountSats: 9_500, attempts: 1, lightningAddress: "seller@example.com" });
    const ledger = (await devWallet(h)).ledger().filter((r) => r.paymentHash === p.paymentHash);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ destination: "seller@example.com", amountSats: 9_500 });
    expect(callsOf("o1")).toEqual(["payout o1 in_flight", "payout o1 completed"]);
  });

  test("the fee rounds down: 21 sats pays 20 and keeps 1; 999 pays 950", () => {
    expect(payments.split(21)).toEqual({ feeSats: 1, amountSats: 20 });
    expect(payments.split(999)).toEqual({ feeSats: 49, amountSats: 950 });
  });

  test("a seller without a lightning address: abandoned, never retried", async () => {
    const s = await seller(h, null);
    queue(h, "o2", s.id, 1000);
    await payments.runPayouts(h.ctx);
    expect(payments.payoutOf(h.ctx, "test", "o2")).toMatchObject({ status: "abandoned", attempts: 0 });
    await payments.runPayouts(h.ctx);
    expect(callsOf("o2")).toEqual(["payout o2 abandoned"]);
  });

  test("a crash after the invoice was recorded: reconciled from the wallet, not paid again", async () => {
    const s = await seller(h, "crash@example.com");
    const p = queue(h, "o3", s.id, 2000);
    const dev = await devWallet(h);
    // What a process killed in the middle leaves: in flight, hash recorded, the wallet paid.
    let recorded = "";
    await dev.payLightningAddress("crash@example.com", p.amountSats, "x", (hash) => (recorded = hash));
    h.ctx.db.$client.query("update payouts set status = 'in_flight', attempts = 1, payment_hash = ?, lightning_address = 'crash@example.com' where id = ?").run(recorded, p.id);
    await payments.runPayouts(h.ctx);
    expect(payments.payoutOf(h.ctx, "test", "o3")).toMatchObject({ status: "completed", paymentHash: recorded, attempts: 1 });
    expect(dev.ledger().filter((r) => r.destination === "crash@example.com")).toHaveLength(1);
  });

  test("a crash before any invoice was recorded: nothing was paid, so it is tried again, once", async () => {
    const s = await seller(h, "early@example.com");
    const p = queue(h, "o4", s.id, 2000);
    h.ctx.db.$client.query("update payouts set status = 'in_flight', attempts = 1 where id = ?").run(p.id);
    await payments.runPayouts(h.ctx);
    expect(payments.payoutOf(h.ctx, "test", "o4")).toMatchObject({ status: "completed", attempts: 2 });
    expect((await devWallet(h)).ledger().filter((r) => r.destination === "early@example.com")).toHaveLength(1);
  });
});

describe("against LNbits (a fake on 127.0.0.1)", () => {
  const fake = new FakeLnbits();
  afterAll(() => fake.stop());
  const lnbits = (timeoutMs?: number) => lnbitsWallet(h, fake, timeoutMs);
  const use = (wallet: LazyWallet, fn: () => Promise<void>) => withWallet(h, wallet, fn);

  test("an invoice through LNbits; paid at the wallet (reported on every look-up), settled once", () =>
    use(lnbits(), async () => {
      const inv = await open(h, "l1", 3000);
      expect(fake.invoices.get(inv.paymentHash)).toMatchObject({ amountSats: 3000, memo: "test l1" });
      expect((await payments.checkInvoice(h.ctx, inv.id)).status).toBe("pending");
      fake.settle(inv.paymentHash);
      await payments.checkInvoice(h.ctx, inv.id);
      await payments.checkInvoice(h.ctx, inv.id);
      h.clock.advance(60_000);
      await payments.pollInvoices(h.ctx);
      expect(callsOf("l1")).toEqual(["paid l1"]);
    }));

  test("a 500 or a timeout on create is 502 UPSTREAM_FAILURE and records nothing", () =>
    use(lnbits(), async () => {
      const count = () => (h.ctx.db.$client.query("select count(*) n from invoices").get() as { n: number }).n;
      const before = count();
      fake.fail500 = 1;
      await expect(payments.requestInvoice(h.ctx, { amountSats: 100, memo: "x", ttlSeconds: 60 })).rejects.toMatchObject({ status: 502, code: "UPSTREAM_FAILURE" });
      // Held past the timeout of a wallet that gives up after 100 ms.
      fake.hold = 1;
      await use(lnbits(100), async () => {
        await expect(payments.requestInvoice(h.ctx, { amountSats: 100, memo: "x", ttlSeconds: 60 })).rejects.toMatchObject({ status: 502, code: "UPSTREAM_FAILURE" });
      });
      expect(count()).toBe(before);
      fake.release();
      await fake.idle();
    }));

  test("a look-up failing is retried later by the poller, and a strict check answers 502", () =>
    use(lnbits(), async () => {
      const inv = await open(h, "l2", 100);
      fake.fail500 = 1;
      expect((await payments.checkInvoice(h.ctx, inv.id)).status).toBe("pending");
      fake.fail500 = 1;
      await expect(payments.checkInvoice(h.ctx, inv.id, { strict: true })).rejects.toMatchObject({ status: 502 });
      fake.settle(inv.paymentHash);
      expect((await payments.checkInvoice(h.ctx, inv.id)).status).toBe("paid");
    }));

  test("an invoice that never settles expires", () =>
    use(lnbits(), async () => {
      const inv = await open(h, "l3", 100, 60);
      h.clock.advance(121_000);
      await pollUntilIdle(h);
      expect(payments.findInvoice(h.ctx, inv.id)!.status).toBe("expired");
      expect(callsOf("l3")).toEqual(["expired l3"]);
    }));

  test("a payout resolves the seller's Lightning address by LNURL-pay and pays exactly 95 %", () =>
    use(lnbits(), async () => {
      const s = await seller(h, "carol@pay.example.org");
      queue(h, "l4", s.id, 20_000);
      await payments.runPayouts(h.ctx);
      expect(payments.payoutOf(h.ctx, "test", "l4")).toMatchObject({ status: "completed", amountSats: 19_000 });
      expect(fake.receivedBy("carol")).toBe(19_000);
      await payments.runPayouts(h.ctx);
      expect(fake.receivedBy("carol")).toBe(19_000);
    }));

  test("a failed payment is retried with backoff and paid once it goes through", () =>
    use(lnbits(), async () => {
      const s = await seller(h, "dave@pay.example.org");
      queue(h, "l5", s.id, 1_000);
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
      expect(callsOf("l5")).toEqual(["payout l5 in_flight", "payout l5 failed", "payout l5 in_flight", "payout l5 completed"]);
    }));

  test("the status look-up after a successful pay call fails: left in flight and reconciled, never paid twice", () =>
    use(lnbits(), async () => {
      const s = await seller(h, "gus@pay.example.org");
      queue(h, "l7", s.id, 1_000);
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
    use(lnbits(), async () => {
      const s = await seller(h, "erin@pay.example.org");
      queue(h, "l6", s.id, 2_000);
      // The pay request itself is held past the timeout of a wallet that gives up after 100 ms.
      fake.hold = 1;
      await use(lnbits(100), async () => void (await payments.runPayouts(h.ctx)));
      const p = payments.payoutOf(h.ctx, "test", "l6")!;
      expect(p.status).toBe("in_flight");
      expect(p.paymentHash).toMatch(/^[0-9a-f]{64}$/);
      // The wallet finishes the payment it was still holding.
      fake.release();
      await fake.idle();
      await payments.runPayouts(h.ctx);
      expect(payments.payoutOf(h.ctx, "test", "l6")).toMatchObject({ status: "completed", attempts: 1 });
      expect(fake.receivedBy("erin")).toBe(1_900);
    }));
});
