// A fake LNbits on 127.0.0.1 for tests: its payments API (create an invoice, pay one, look either
// up) with BOLT11 invoices, plus a Lightning address's LNURL-pay service on the same server, and
// switches that inject the failures a real wallet shows: a 500, a timeout, an invoice that never
// settles, a settlement reported twice, a payment that fails. A call held past the client's
// timeout goes on when the test releases it, and `idle()` says when every call has been answered.
import { sha256 } from "@noble/hashes/sha2.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { decodeInvoice } from "@getalby/lightning-tools/bolt11";
import { createWallet, type LazyWallet } from "../src/adapters/lightning";
import { encodeInvoice } from "../src/adapters/lightning/bolt11";
import type { Harness } from "./harness";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

export interface FakeInvoice {
  hash: string;
  preimage: string;
  bolt11: string;
  amountSats: number;
  memo: string;
  paid: boolean;
  /** A Lightning address's invoice (LNURL-pay), paid by the wallet's outgoing payments. */
  receivedBy: string | null;
}

export interface FakePayment {
  hash: string;
  bolt11: string;
  amountSats: number;
  status: "success" | "pending" | "failed";
  preimage: string;
}

export class FakeLnbits {
  readonly adminKey = "admin-" + crypto.randomUUID();
  readonly invoiceKey = "invoice-" + crypto.randomUUID();
  readonly invoices = new Map<string, FakeInvoice>();
  readonly payments = new Map<string, FakePayment>();
  /** Requests seen, "METHOD path". */
  readonly seen: string[] = [];
  /** The next N API calls answer 500. */
  fail500 = 0;
  /** The next N API calls are held unanswered until `release()`, past any client's timeout. */
  hold = 0;
  /** Outgoing payments end in this state. */
  payOutcome: FakePayment["status"] = "success";
  private key = secp256k1.utils.randomSecretKey();
  private server: ReturnType<typeof Bun.serve>;
  private held: (() => void)[] = [];
  private answering = new Set<Promise<Response>>();

  constructor() {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        const answer = this.handle(req);
        this.answering.add(answer);
        void answer.finally(() => this.answering.delete(answer)).catch(() => {});
        return answer;
      },
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  /** The LNURL-pay document of `user@…` on this server (the wallet's `urlFor` in tests). */
  lnurlFor = (user: string) => `${this.url}/.well-known/lnurlp/${user}`;

  /** The payer's side: marks an invoice paid, as a real payment would. */
  settle(hash: string): void {
    const inv = this.invoices.get(hash);
    if (!inv) throw new Error(`no invoice ${hash}`);
    inv.paid = true;
  }

  /** What each Lightning address received, in sats. */
  receivedBy(user: string): number {
    let sats = 0;
    for (const inv of this.invoices.values()) if (inv.receivedBy === user && inv.paid) sats += inv.amountSats;
    return sats;
  }

  /** Lets the held calls go on: each is then carried out and answered as if it had only been slow. */
  release(): void {
    for (const go of this.held.splice(0)) go();
  }

  /** Resolves once every call received so far has been carried out and answered (release held ones first). */
  async idle(): Promise<void> {
    while (this.answering.size) await Promise.allSettled([...this.answering]);
  }

  stop(): void {
    this.release();
    this.server.stop(true);
  }

  private mint(amountSats: number, memo: string, receivedBy: string | null): FakeInvoice {
    const preimage = crypto.getRandomValues(new Uint8Array(32));
    const hash = sha256(preimage);
    const bolt11 = encodeInvoice({ amountMsat: amountSats * 1000, paymentHash: hash, paymentSecret: crypto.getRandomValues(new Uint8Array(32)), description: memo, expirySeconds: 3600, timestamp: Math.floor(Date.now() / 1000) }, this.key);
    const inv: FakeInvoice = { hash: hex(hash), preimage: hex(preimage), bolt11, amountSats, memo, paid: false, receivedBy };
    this.invoices.set(inv.hash, inv);
    return inv;
  }

  private async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    this.seen.push(`${req.method} ${url.pathname}`);
    // The Lightning address side: no failures injected there.
    const wk = /^\/\.well-known\/lnurlp\/([^/]+)$/.exec(url.pathname);
    if (wk) return Response.json({ tag: "payRequest", callback: `${this.url}/lnurlp/callback/${wk[1]}`, minSendable: 1000, maxSendable: 100_000_000_000, metadata: JSON.stringify([["text/plain", `Pay ${wk[1]}`]]), commentAllowed: 140 });
    const cb = /^\/lnurlp\/callback\/([^/]+)$/.exec(url.pathname);
    if (cb) {
      const msat = Number(url.searchParams.get("amount"));
      return Response.json({ pr: this.mint(msat / 1000, `Pay ${cb[1]}`, cb[1]!).bolt11, routes: [] });
    }
    if (this.hold > 0) {
      this.hold--;
      await new Promise<void>((go) => this.held.push(go));
    }
    if (this.fail500 > 0) {
      this.fail500--;
      return new Response("boom", { status: 500 });
    }
    const key = req.headers.get("x-api-key");
    if (key !== this.adminKey && key !== this.invoiceKey) return Response.json({ detail: "Invalid key" }, { status: 401 });
    if (req.method === "POST" && url.pathname === "/api/v1/payments") {
      const body = (await req.json()) as { out: boolean; amount?: number; memo?: string; bolt11?: string };
      if (!body.out) {
        const inv = this.mint(body.amount!, body.memo ?? "", null);
        return Response.json({ payment_hash: inv.hash, payment_request: inv.bolt11, checking_id: inv.hash }, { status: 201 });
      }
      if (key !== this.adminKey) return Response.json({ detail: "Invalid admin key" }, { status: 401 });
      const d = decodeInvoice(body.bolt11!);
      if (!d) return Response.json({ detail: "bad invoice" }, { status: 400 });
      const target = this.invoices.get(d.paymentHash);
      const pay: FakePayment = { hash: d.paymentHash, bolt11: body.bolt11!, amountSats: d.satoshi, status: this.payOutcome, preimage: target?.preimage ?? hex(crypto.getRandomValues(new Uint8Array(32))) };
      this.payments.set(pay.hash, pay);
      if (pay.status === "success" && target) target.paid = true;
      return Response.json({ payment_hash: pay.hash, checking_id: pay.hash }, { status: 201 });
    }
    const one = /^\/api\/v1\/payments\/([0-9a-f]{64})$/.exec(url.pathname);
    if (req.method === "GET" && one) {
      const pay = this.payments.get(one[1]!);
      if (pay) return Response.json({ paid: pay.status === "success", preimage: pay.status === "success" ? pay.preimage : null, details: { status: pay.status, fee: -1000 } });
      const inv = this.invoices.get(one[1]!);
      // A Lightning address's invoice belongs to the recipient's wallet: unknown to this one until it pays it.
      if (!inv || inv.receivedBy !== null) return Response.json({ detail: "Payment does not exist." }, { status: 404 });
      return Response.json({ paid: inv.paid, preimage: inv.paid ? inv.preimage : null, details: { status: inv.paid ? "success" : "pending" } });
    }
    return new Response("not found", { status: 404 });
  }
}

/** The app's LNbits backend talking to `fake` (Lightning addresses resolve on it too), with `timeoutMs` per call. */
export function lnbitsWallet(h: Harness, fake: FakeLnbits, timeoutMs = 2_000): LazyWallet {
  const config = { ...h.ctx.config, allowPrivateWebhooks: true, wallet: { ...h.ctx.config.wallet, backend: "lnbits" as const, timeoutMs, lnbits: { url: fake.url, adminKey: fake.adminKey, invoiceKey: fake.invoiceKey } } };
  return createWallet(config, { db: h.ctx.db, clock: h.clock, devKeyPath: null, lnurl: { urlFor: (user) => fake.lnurlFor(user) } });
}

/** Runs `fn` with `wallet` as the app's wallet, then puts the previous one back. */
export async function withWallet(h: Harness, wallet: LazyWallet, fn: () => Promise<void>): Promise<void> {
  const previous = h.ctx.wallet;
  h.ctx.wallet = wallet;
  try {
    await fn();
  } finally {
    h.ctx.wallet = previous;
  }
}
