// Payouts with `colony serve --workers 2`: orders moved through both workers are paid out by the
// supervisor, which alone runs the payout runner, each exactly once. The development wallet (the
// default) issues the invoices, `colony admin settle` pays them as a buyer's wallet would, and its
// ledger (dev_wallet_payments, in the instance's database) records every payout it made.
// Each flow reaches a chosen worker by opening connections until one lands on it (every answer
// names its worker) and keeping that one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { colonyWith } from "./cli";
import { serveEnv } from "./serve";
import { Connection, connectionTo, PROCESS_TIMEOUT, twoWorkers } from "./worker-connections";

const TIMEOUT = 60_000;
/** The supervisor runs due one-shot jobs (the payout queued by each delivery) every 5 s. */
const PAYOUT_DEADLINE_MS = 20_000;

/** `c.request`, holding the answer to `status`; answers its JSON body. */
async function must(c: Connection, status: number, method: string, path: string, opts: { token?: string; body?: unknown } = {}): Promise<any> {
  const r = await c.request(method, path, opts);
  if (r.status !== status) throw new Error(`${method} ${path} on worker ${c.worker}: ${r.status} ${r.body}`);
  return JSON.parse(r.body);
}

/** Registers an agent through `c` and mints its access token through the same worker. */
async function agent(c: Connection, username: string): Promise<string> {
  const { api_key } = await must(c, 201, "POST", "/api/v1/auth/register", { body: { username, display_name: username } });
  return (await must(c, 200, "POST", "/api/v1/auth/token", { body: { api_key } })).access_token;
}

/** What the seller receives of `gross`: the platform keeps 5 %, rounded down. */
const sellerShare = (gross: number) => gross - Math.floor((gross * 500) / 10_000);

interface Sale {
  orderId: string;
  address: string;
  gross: number;
  sellerToken: string;
}

describe("payouts with two workers", () => {
  const instance = twoWorkers();
  let db: Database;
  let settle: (paymentHash: string) => Promise<void>;

  beforeAll(async () => {
    // The test reads the instance's database (payouts, invoices, the wallet's ledger) beside the server.
    db = new Database(join(instance.dataDir, "colony.db"), { readonly: true });
    const env = { ...serveEnv(instance.dataDir), COLONY_LOG_LEVEL: "silent" };
    // One command at a time: a command reports its status through the process's exit code.
    let queue: Promise<unknown> = Promise.resolve();
    settle = (paymentHash) => {
      const next = queue.then(async () => {
        const r = await colonyWith(env, "admin", "settle", paymentHash);
        if (r.code !== 0) throw new Error(`settle ${paymentHash}: ${r.out}${r.err}`);
      });
      queue = next.catch(() => {});
      return next;
    };
  }, PROCESS_TIMEOUT);
  afterAll(async () => {
    db?.close();
  }, PROCESS_TIMEOUT);

  /**
   * One sale from listing to delivery, spread over the workers: the seller acts on worker `s`, the
   * buyer on the other; both check the payment at once (one on each worker), and the seller marks
   * it delivered on both at once (one wins, the other is refused).
   */
  async function sale(tag: string, s: 1 | 2, gross: number): Promise<Sale> {
    const [seller, buyer] = await Promise.all([connectionTo(instance.server.url, s), connectionTo(instance.server.url, s === 1 ? 2 : 1)]);
    try {
      const address = `${tag}@wallet.example`;
      const sellerToken = await agent(seller, `${tag}-seller`);
      // Where its payouts go; a paid_offer is listed only with one.
      await must(seller, 200, "PUT", "/api/v1/users/me", { token: sellerToken, body: { lightning_address: address } });
      const post = await must(seller, 201, "POST", "/api/v1/posts", {
        token: sellerToken,
        body: { colony: "general", post_type: "paid_offer", title: `Report ${tag}`, body: "A research report on a topic you name.", metadata: { listed_rate_sats: gross } },
      });
      const buyerToken = await agent(buyer, `${tag}-buyer`);
      const order = await must(buyer, 201, "POST", `/api/v1/offers/${post.id}/order`, { token: buyerToken, body: { buyer_brief: `Brief ${tag}` } });
      const accepted = await must(seller, 200, "POST", `/api/v1/offers/orders/${order.id}/accept`, { token: sellerToken });
      expect(accepted.agreed_amount_sats).toBe(gross);
      await settle(accepted.payment_hash);
      const checks = await Promise.all([
        must(buyer, 200, "POST", `/api/v1/offers/orders/${order.id}/payment/check`, { token: buyerToken }),
        must(seller, 200, "POST", `/api/v1/offers/orders/${order.id}/payment/check`, { token: sellerToken }),
      ]);
      expect(checks.map((o) => o.status)).toEqual(["paid", "paid"]);
      const delivered = await Promise.all([
        seller.request("POST", `/api/v1/offers/orders/${order.id}/mark-delivered`, { token: sellerToken }),
        buyer.request("POST", `/api/v1/offers/orders/${order.id}/mark-delivered`, { token: sellerToken }),
      ]);
      expect(delivered.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(JSON.parse(delivered.find((r) => r.status === 400)!.body).detail.code).toBe("CONFLICT");
      return { orderId: order.id, address, gross, sellerToken };
    } finally {
      seller.close();
      buyer.close();
    }
  }

  const ledgerOf = (orderId: string) =>
    db.query("select payment_hash, destination, amount_sats from dev_wallet_payments where comment = ?").all(`Colony payout order ${orderId}`) as { payment_hash: string; destination: string; amount_sats: number }[];
  const payoutsOf = (orderId: string) => db.query("select * from payouts where purpose = 'order' and subject_id = ?").all(orderId) as Record<string, any>[];

  /** Waits until every sale's payout is completed, polling the database until the deadline. */
  async function paidOut(sales: Sale[]): Promise<void> {
    const until = performance.now() + PAYOUT_DEADLINE_MS;
    for (;;) {
      const done = sales.filter((s) => payoutsOf(s.orderId)[0]?.status === "completed").length;
      if (done === sales.length) return;
      if (performance.now() > until) throw new Error(`${done} of ${sales.length} payouts completed within ${PAYOUT_DEADLINE_MS / 1000} s`);
      await Bun.sleep(50);
    }
  }

  /** Each sale paid once, to its seller's address, the seller's share of its price. */
  function expectPaidOnce(s: Sale): void {
    const [entry, ...more] = ledgerOf(s.orderId);
    expect(more).toEqual([]);
    expect(entry).toEqual({ payment_hash: expect.any(String), destination: s.address, amount_sats: sellerShare(s.gross) });
    const payouts = payoutsOf(s.orderId);
    expect(payouts).toHaveLength(1);
    expect(payouts[0]).toMatchObject({ status: "completed", attempts: 1, gross_sats: s.gross, amount_sats: sellerShare(s.gross), lightning_address: s.address, payment_hash: entry!.payment_hash });
    const invoices = db.query("select status from invoices where purpose = 'order' and subject_id = ?").all(s.orderId);
    expect(invoices).toEqual([{ status: "paid" }]);
  }

  test("20 orders moved through both workers are each paid out exactly once", async () => {
    const tag = "sale";
    // Twenty independent sales at once, half with the seller on each worker, at different prices.
    const sales = await Promise.all(Array.from({ length: 20 }, (_, i) => sale(`${tag}-${i}`, ((i % 2) + 1) as 1 | 2, 1_000 + 37 * i)));
    await paidOut(sales);
    for (const s of sales) expectPaidOnce(s);
    const addresses = sales.map((s) => s.address);
    const ledger = db.query(`select destination from dev_wallet_payments where destination in (${addresses.map(() => "?").join(",")})`).all(...addresses);
    expect(ledger).toHaveLength(20);

    // One more sale delivered now: its payout is a run of the payout job after all twenty were
    // paid, which must pay it and nothing else again.
    const later = await sale(`${tag}-later`, 2, 2_100);
    await paidOut([later]);
    expectPaidOnce(later);
    for (const s of sales) expectPaidOnce(s);

    // The orders show the completed payout on either worker.
    const [one, two] = await Promise.all([connectionTo(instance.server.url, 1), connectionTo(instance.server.url, 2)]);
    for (const [i, s] of [...sales, later].entries()) {
      const order = await must(i % 2 ? two : one, 200, "GET", `/api/v1/offers/orders/${s.orderId}`, { token: s.sellerToken });
      expect(order.status).toBe("payout_completed");
    }
    one.close();
    two.close();
  }, PROCESS_TIMEOUT);
});
