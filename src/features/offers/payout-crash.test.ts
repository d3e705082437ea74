// An order's payout across a crash: a real server process (test/crash-payout.ts) on the test's
// data folder is killed with SIGKILL at each step of the payout — after the attempt is recorded,
// after the seller's invoice is recorded, after the wallet paid — and a fresh context on the same
// folder (the restarted server) reconciles it: the order ends payout_completed and the seller is
// paid 95 % exactly once.
import { afterAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { setup } from "../../../test/harness";
import { createApp } from "../../app";
import { createContext } from "../../core/context";
import * as payments from "../payments/service";
import { devWallet, must, orderRow, requested } from "./fixtures";

const h = setup({}, { readers: 1 });
afterAll(() => h.close());
const SCRIPT = resolve(import.meta.dir, "../../../test/crash-payout.ts");

/** A delivered order whose seller has `address`, its payout queued. */
async function delivered(address: string) {
  const o = await requested(h, { rate: 8_000, address });
  const accepted = await must(h, o.seller, o.order.id, "accept");
  (await devWallet(h)).settle(accepted.payment_hash);
  await must(h, o.buyer, o.order.id, "payment/check");
  await must(h, o.seller, o.order.id, "mark-delivered");
  return o;
}

/** Runs the payout runner in another process that dies at `step`. */
async function crashAt(step: string): Promise<void> {
  const proc = Bun.spawn([process.execPath, SCRIPT, h.config.dataDir, String(h.clock.now()), step], { stdout: "pipe", stderr: "pipe", env: { ...process.env, NODE_ENV: "test" } });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  expect({ step, signal: proc.signalCode, err }).toEqual({ step, signal: "SIGKILL", err: "" });
  expect(code).not.toBe(0);
}

/** The restarted server: a fresh context and app on the same data folder, its payout runner run. */
async function restart(): Promise<void> {
  const ctx = createContext({ config: h.config, clock: h.clock });
  try {
    createApp(ctx);
    await payments.runPayouts(ctx);
  } finally {
    ctx.db.$client.close();
  }
}

const paidTo = (address: string) => h.ctx.db.$client.query("select amount_sats from dev_wallet_payments where destination = ?").all(address) as { amount_sats: number }[];

describe("a crash in the middle of an order's payout", () => {
  test("after the attempt was recorded, before the wallet heard of it: tried again after the restart, paid once", async () => {
    const o = await delivered("early@wallet.example");
    await crashAt("before-pay");
    expect(orderRow(h, o.order.id).status).toBe("payout_pending");
    expect(payments.payoutOf(h.ctx, "order", o.order.id)).toMatchObject({ status: "in_flight", paymentHash: null, attempts: 1 });
    await restart();
    expect(orderRow(h, o.order.id).status).toBe("payout_completed");
    expect(payments.payoutOf(h.ctx, "order", o.order.id)).toMatchObject({ status: "completed", attempts: 2 });
    expect(paidTo("early@wallet.example")).toEqual([{ amount_sats: 7_600 }]);
  });

  test("after the seller's invoice was recorded, before it was paid: the wallet has no such payment, so it is paid once after the restart", async () => {
    const o = await delivered("middle@wallet.example");
    await crashAt("after-record");
    const flying = payments.payoutOf(h.ctx, "order", o.order.id)!;
    expect(flying).toMatchObject({ status: "in_flight", attempts: 1 });
    expect(flying.paymentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(paidTo("middle@wallet.example")).toEqual([]);
    await restart(); // reconciles: unknown to the wallet → failed, retried after the backoff
    expect(orderRow(h, o.order.id).status).toBe("payout_failed");
    h.clock.advance(60_000);
    await payments.runPayouts(h.ctx);
    expect(orderRow(h, o.order.id).status).toBe("payout_completed");
    expect(paidTo("middle@wallet.example")).toEqual([{ amount_sats: 7_600 }]);
  });

  test("after the wallet paid, before the answer was recorded: the restart finds the payment and never pays again", async () => {
    const o = await delivered("late@wallet.example");
    await crashAt("after-pay");
    const flying = payments.payoutOf(h.ctx, "order", o.order.id)!;
    expect(flying).toMatchObject({ status: "in_flight", attempts: 1 });
    expect(paidTo("late@wallet.example")).toEqual([{ amount_sats: 7_600 }]);
    await restart();
    expect(orderRow(h, o.order.id).status).toBe("payout_completed");
    expect(payments.payoutOf(h.ctx, "order", o.order.id)).toMatchObject({ status: "completed", attempts: 1, paymentHash: flying.paymentHash });
    h.clock.advance(24 * 3_600_000);
    await payments.runPayouts(h.ctx);
    expect(paidTo("late@wallet.example")).toEqual([{ amount_sats: 7_600 }]);
  });
});
