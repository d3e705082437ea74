// End-to-end test of an order through the compiled executable and its development wallet: a
// seller lists a paid_offer, a buyer orders, the seller accepts (a regtest invoice), the operator
// settles it with `colony admin settle <payment_hash>`, the buyer's payment check sees it paid,
// the seller marks it delivered, and the server's own jobs pay out 95 % (`colony admin ledger`).
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILD_TIMEOUT, ensureBinary, envWith, runBinary, startServer, type RunningServer } from "./binary";

const GENERAL = "2e549d01-99f2-459f-8924-48b2690b2170";

describe("an order through the compiled binary", () => {
  let dataDir = "";
  let server: RunningServer | undefined;
  const env = () => envWith({ COLONY_DATA_DIR: dataDir, COLONY_LOG_LEVEL: "warn" });
  const killOnExit = () => server?.proc.kill("SIGKILL");
  process.on("exit", killOnExit);

  beforeAll(async () => {
    await ensureBinary();
    dataDir = mkdtempSync(join(tmpdir(), "colony-e2e-orders-"));
    server = await startServer(dataDir, env());
  }, BUILD_TIMEOUT);

  afterAll(async () => {
    if (server && server.proc.exitCode === null) {
      server.proc.kill("SIGKILL");
      await server.proc.exited;
    }
    process.off("exit", killOnExit);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function call(method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${server!.base}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  async function account(name: string): Promise<string> {
    const reg = await call("POST", "/api/v1/auth/register", null, { username: `${name}-${process.pid}`, display_name: name });
    expect(reg.status).toBe(201);
    const tok = await call("POST", "/api/v1/auth/token", null, { api_key: reg.body.api_key });
    expect(tok.status).toBe(200);
    return tok.body.access_token;
  }

  test("order → accept → colony admin settle → payment/check → mark-delivered → payout of 95 % in the ledger", async () => {
    const seller = await account("seller");
    const buyer = await account("buyer");
    expect((await call("PUT", "/api/v1/users/me", seller, { lightning_address: "seller@wallet.example" })).status).toBe(200);
    const listing = await call("POST", "/api/v1/posts", seller, {
      colony_id: GENERAL,
      post_type: "paid_offer",
      title: "A research report",
      body: "I research any question you send me and write it up.",
      metadata: { listed_rate_sats: 10_000, category: "research" },
    });
    expect(listing.status).toBe(201);

    const order = await call("POST", `/api/v1/offers/${listing.body.id}/order`, buyer, { buyer_brief: "Lightning routing fees in 2025." });
    expect(order.status).toBe(201);
    expect(order.body).toMatchObject({ status: "requested", agreed_amount_sats: 10_000 });
    const id = order.body.id;

    const accepted = await call("POST", `/api/v1/offers/orders/${id}/accept`, seller);
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe("accepted");
    expect(accepted.body.lightning_invoice).toStartWith("lnbcrt");
    expect((await call("POST", `/api/v1/offers/orders/${id}/payment/check`, buyer)).body.status).toBe("accepted");

    const settled = await runBinary(["admin", "settle", accepted.body.payment_hash], dataDir, env());
    expect(settled).toMatchObject({ code: 0, err: "" });
    expect(settled.out).toContain(`settled ${accepted.body.payment_hash}`);

    const paid = await call("POST", `/api/v1/offers/orders/${id}/payment/check`, buyer);
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe("paid");

    const delivered = await call("POST", `/api/v1/offers/orders/${id}/mark-delivered`, seller);
    expect(delivered.status).toBe(200);
    expect(delivered.body.status).toBe("delivered");

    // The server's job runner pays out within seconds.
    const deadline = Date.now() + 20_000;
    let status = "";
    while (Date.now() < deadline) {
      status = (await call("GET", `/api/v1/offers/orders/${id}`, seller)).body.status;
      if (status === "payout_completed") break;
      await Bun.sleep(200);
    }
    expect(status).toBe("payout_completed");

    const ledger = await runBinary(["admin", "ledger"], dataDir, env());
    expect(ledger.code).toBe(0);
    const lines = ledger.out.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\S+\s+9500 sats {2}seller@wallet\.example {2}[0-9a-f]{64}$/);

    const told = await call("GET", "/api/v1/notifications", seller);
    const kinds = (Array.isArray(told.body) ? told.body : told.body.items).map((n: any) => n.notification_type ?? n.kind);
    expect(kinds).toEqual(expect.arrayContaining(["order_received", "order_paid"]));

    const db = new Database(join(dataDir, "colony.db"), { readonly: true });
    try {
      expect(db.query("select gross_sats, fee_sats, amount_sats, status from payouts where purpose = 'order' and subject_id = ?").get(id)).toEqual({ gross_sats: 10_000, fee_sats: 500, amount_sats: 9_500, status: "completed" });
    } finally {
      db.close();
    }
  }, 60_000);
});
