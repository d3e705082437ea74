// The wallet backends beside LNbits (tested with the payments): the choice by configuration and
// its refusals, NWC's answers mapped (a stand-in client: the NIP-47 transport is @getalby/sdk's),
// LND's REST API against a local stand-in server.
import { afterAll, describe, expect, test } from "bun:test";
import { sha256 } from "@noble/hashes/sha2.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { Nip47WalletError } from "@getalby/sdk/nwc";
import { loadConfig } from "../../config";
import { TestClock } from "../../core/clock";
import { openDatabase } from "../../db/client";
import { migrate } from "../../db/migrate";
import { encodeInvoice } from "./bolt11";
import { createWallet, WalletConfigError } from ".";
import { LndWallet } from "./lnd";
import { NwcWallet } from "./nwc";

const db = openDatabase(":memory:");
migrate(db);
const deps = { db, clock: new TestClock(), devKeyPath: null };
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("choosing the wallet", () => {
  test("the development wallet is the default, named on the wallet", () => {
    expect(createWallet(loadConfig({}), deps).name).toBe("development");
  });

  test("NODE_ENV=production refuses the development wallet unless explicitly allowed", () => {
    expect(() => createWallet(loadConfig({ NODE_ENV: "production" }), deps)).toThrow(WalletConfigError);
    expect(createWallet(loadConfig({ NODE_ENV: "production", COLONY_ALLOW_DEVELOPMENT_WALLET: "1" }), deps).name).toBe("development");
  });

  test.each([
    [{ COLONY_WALLET: "lnbits" }, "COLONY_LNBITS_URL"],
    [{ COLONY_WALLET: "lnbits", COLONY_LNBITS_URL: "https://lnbits.example.org" }, "COLONY_LNBITS_ADMIN_KEY"],
    [{ COLONY_WALLET: "nwc" }, "COLONY_NWC_URL"],
    [{ COLONY_WALLET: "nwc", COLONY_NWC_URL: "https://not-nwc" }, "nostr+walletconnect://"],
    [{ COLONY_WALLET: "lnd", COLONY_LND_REST_URL: "https://127.0.0.1:8080" }, "COLONY_LND_MACAROON"],
    [{ COLONY_WALLET: "lnd", COLONY_LND_REST_URL: "https://127.0.0.1:8080", COLONY_LND_MACAROON: "/no/such/file" }, "neither hex nor an existing file"],
  ])("%p is refused, naming %s", (env, needle) => {
    expect(() => createWallet(loadConfig(env), deps)).toThrow(needle);
  });

  test("an unknown backend is a usage error of the setting", () => {
    expect(() => loadConfig({ COLONY_WALLET: "paypal" })).toThrow("COLONY_WALLET");
  });
});

describe("Nostr Wallet Connect", () => {
  const lnurl = { allowPrivate: false, timeoutMs: 1000 };
  test("make_invoice, lookup_invoice and pay_invoice answers map to the wallet's states (msat to sat)", async () => {
    const calls: unknown[] = [];
    const client = {
      makeInvoice: async (r: unknown) => (calls.push(r), { invoice: "lnbc1…", payment_hash: "ab".repeat(32), expires_at: 1_800_000_000 }),
      lookupInvoice: async ({ payment_hash }: { payment_hash: string }) =>
        payment_hash === "00".repeat(32) ? Promise.reject(new Nip47WalletError("not found", "NOT_FOUND")) : { state: "settled", preimage: "cd".repeat(32), settled_at: 1_790_000_000, fees_paid: 3000, expires_at: 0 },
      payInvoice: async () => ({ preimage: "ef".repeat(32), fees_paid: 2500 }),
      close: () => {},
    };
    const w = new NwcWallet(client as never, lnurl);
    expect(await w.createInvoice({ amountSats: 21, memo: "m", expirySeconds: 600 })).toEqual({ paymentRequest: "lnbc1…", paymentHash: "ab".repeat(32), expiresAt: 1_800_000_000_000 });
    expect(calls).toEqual([{ amount: 21_000, description: "m", expiry: 600 }]);
    expect(await w.lookupInvoice("ab".repeat(32))).toEqual({ state: "paid", preimage: "cd".repeat(32), paidAt: 1_790_000_000_000 });
    expect(await w.payInvoice("lnbc1…")).toEqual({ state: "succeeded", preimage: "ef".repeat(32), feeSats: 3 });
    expect(await w.lookupPayment("00".repeat(32))).toEqual({ state: "unknown" });
  });

  test("a wallet's refusal to pay is a failed payment; a timeout is an uncertain wallet error", async () => {
    const refuse = new NwcWallet({ payInvoice: async () => Promise.reject(new Nip47WalletError("no route", "PAYMENT_FAILED")) } as never, lnurl);
    expect(await refuse.payInvoice("lnbc1…")).toEqual({ state: "failed", reason: "PAYMENT_FAILED: no route" });
    const { Nip47ReplyTimeoutError } = await import("@getalby/sdk/nwc");
    const slow = new NwcWallet({ payInvoice: async () => Promise.reject(new Nip47ReplyTimeoutError("reply timeout", "INTERNAL")) } as never, lnurl);
    await expect(slow.payInvoice("lnbc1…")).rejects.toMatchObject({ uncertain: true });
  });
});

describe("LND REST", () => {
  const key = secp256k1.utils.randomSecretKey();
  const invoices = new Map<string, { pr: string; preimage: Uint8Array; settled: boolean }>();
  const seen: { path: string; macaroon: string | null }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      seen.push({ path: url.pathname, macaroon: req.headers.get("grpc-metadata-macaroon") });
      if (req.method === "POST" && url.pathname === "/v1/invoices") {
        const body = (await req.json()) as { value: string; memo: string; expiry: string };
        const preimage = crypto.getRandomValues(new Uint8Array(32));
        const hash = sha256(preimage);
        const pr = encodeInvoice({ amountMsat: Number(body.value) * 1000, paymentHash: hash, paymentSecret: preimage, description: body.memo, expirySeconds: Number(body.expiry), timestamp: 1_790_000_000 }, key);
        invoices.set(hex(hash), { pr, preimage, settled: false });
        return Response.json({ r_hash: Buffer.from(hash).toString("base64"), payment_request: pr, add_index: "1" });
      }
      const inv = /^\/v1\/invoice\/([0-9a-f]{64})$/.exec(url.pathname);
      if (inv) {
        const i = invoices.get(inv[1]!)!;
        return Response.json(i.settled ? { state: "SETTLED", r_preimage: Buffer.from(i.preimage).toString("base64"), settle_date: "1790000100" } : { state: "OPEN" });
      }
      if (req.method === "POST" && url.pathname === "/v1/channels/transactions") {
        const body = (await req.json()) as { payment_request: string; fee_limit: { fixed: string } };
        if (body.fee_limit.fixed !== "10") return Response.json({ payment_error: "unexpected fee limit" });
        return Response.json({ payment_error: "", payment_preimage: Buffer.from("11".repeat(32), "hex").toString("base64"), payment_route: { total_fees: "2" } });
      }
      const track = /^\/v2\/router\/track\/(.+)$/.exec(url.pathname);
      if (track) {
        const hashHex = Buffer.from(track[1]!, "base64url").toString("hex");
        if (hashHex === "00".repeat(32)) return Response.json({ error: { code: 5, message: "payment isn't initiated" } }, { status: 404 });
        return new Response(JSON.stringify({ result: { status: "SUCCEEDED", payment_preimage: "22".repeat(32), fee_sat: "1" } }) + "\n");
      }
      return new Response("no", { status: 404 });
    },
  });
  afterAll(() => server.stop(true));
  const w = new LndWallet({ url: `http://127.0.0.1:${server.port}`, macaroonHex: "0201abcd", tlsCertPem: null, timeoutMs: 2000 }, { allowPrivate: false, timeoutMs: 1000 });

  test("invoices: created, open, then settled with the preimage; the macaroon on every call", async () => {
    const inv = await w.createInvoice({ amountSats: 1234, memo: "order", expirySeconds: 900 });
    expect(inv.paymentRequest.startsWith("lnbcrt")).toBe(true);
    expect(await w.lookupInvoice(inv.paymentHash)).toEqual({ state: "pending" });
    invoices.get(inv.paymentHash)!.settled = true;
    expect(await w.lookupInvoice(inv.paymentHash)).toEqual({ state: "paid", preimage: hex(invoices.get(inv.paymentHash)!.preimage), paidAt: 1_790_000_100_000 });
    expect(seen.every((s) => s.macaroon === "0201abcd")).toBe(true);
  });

  test("payments: paid with the fee limit, looked up on the router's stream; an unknown one is unknown", async () => {
    expect(await w.payInvoice("lnbcrt1…", { maxFeeSats: 10 })).toEqual({ state: "succeeded", preimage: "11".repeat(32), feeSats: 2 });
    expect(await w.lookupPayment("ab".repeat(32))).toEqual({ state: "succeeded", preimage: "22".repeat(32), feeSats: 1 });
    expect(await w.lookupPayment("00".repeat(32))).toEqual({ state: "unknown" });
  });
});
