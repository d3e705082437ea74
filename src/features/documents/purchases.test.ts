// Document purchases and downloads (spec Part 3 §3, §4.5; docs/decisions.md §125): a new invoice
// per purchase, the buyer's check, the seller's payout of 95 % mirrored in the status, downloads
// authorised in the spec's order, the L402 flow end to end (challenge, payment through the
// development wallet, macaroon:preimage, bytes) and the credentials it must refuse, and the
// wallet failing (a fake LNbits on 127.0.0.1).
import { afterAll, describe, expect, test } from "bun:test";
import { newMacaroon } from "macaroon";
import { setup, type TestUser } from "../../../test/harness";
import { FakeLnbits, lnbitsWallet, withWallet } from "../../../test/fake-lnbits";
import type { LazyWallet } from "../../adapters/lightning";
import type { DevelopmentWallet } from "../../adapters/lightning/dev-wallet";
import { devWalletInvoices } from "../../adapters/lightning/tables";
import { pollUntilIdle } from "../payments/fixtures";
import * as payments from "../payments/service";
import { eventsOf } from "../posts/fixtures";
import { plannedWebhooks } from "../webhooks/fixtures";
import { DEFAULT_CONTENT, UNKNOWN, challengeOf, download, listed, seller, sha256 } from "./fixtures";
import { encodeV2, mintMacaroon } from "./l402";
import { eq } from "drizzle-orm";

const h = setup({ trustProxy: true });
const dev = async () => (await h.ctx.wallet.backend()) as DevelopmentWallet;
const purchase = (u: TestUser | null, docId: string) => h.req("POST", `/api/v1/market/documents/${docId}/purchase`, { token: u?.token ?? null });
const check = (u: TestUser | null, id: string) => h.req("POST", `/api/v1/market/purchases/${id}/check`, { token: u?.token ?? null });
const count = (table: string) => (h.ctx.db.$client.query(`select count(*) n from ${table}`).get() as { n: number }).n;
const purchaseRow = (id: string) => h.ctx.db.$client.query("select * from document_purchases where id = ?").get(id) as Record<string, any>;

/** The preimage a payer's wallet holds once the development wallet's invoice is settled. */
async function pay(paymentHash: string): Promise<string> {
  expect((await dev()).settle(paymentHash)).toEqual({ settled: true });
  const status = await (await dev()).lookupInvoice(paymentHash);
  if (status.state !== "paid" || !status.preimage) throw new Error("not paid");
  return status.preimage;
}

/** A buyer with a paid purchase of `docId`. */
async function bought(buyer: TestUser, docId: string) {
  const p = await purchase(buyer, docId);
  expect(p.status).toBe(201);
  await pay(p.body.payment_hash);
  expect((await check(buyer, p.body.id)).body.status).toBe("paid");
  return p.body;
}

describe("purchase and check", () => {
  test("each purchase mints a new invoice; paid, the seller is told, earns 95 % and is paid out, the status following the payout", async () => {
    const [s, buyer] = [await seller(h, "sally@example.com"), await h.user()];
    const d = await listed(h, s, { price_sats: 1000 });
    const p1 = await purchase(buyer, d.id);
    expect(p1.status).toBe(201);
    expect(p1.body).toEqual({ id: expect.any(String), document_id: d.id, payment_hash: expect.stringMatching(/^[0-9a-f]{64}$/), payment_request: expect.stringMatching(/^lnbcrt/), amount_sats: 1000, expires_at: new Date(h.clock.now() + 15 * 60_000).toISOString() });
    const p2 = await purchase(buyer, d.id);
    expect(p2.body.id).not.toBe(p1.body.id);
    expect(p2.body.payment_hash).not.toBe(p1.body.payment_hash);
    expect((await check(buyer, p1.body.id)).body).toEqual({ id: p1.body.id, status: "pending", paid_at: null, document_id: d.id, download_url: null });

    await pay(p1.body.payment_hash);
    const c = await check(buyer, p1.body.id);
    expect(c.body).toEqual({ id: p1.body.id, status: "paid", paid_at: new Date(h.clock.now()).toISOString(), document_id: d.id, download_url: `http://localhost/api/v1/market/documents/${d.id}/download` });
    await payments.pollInvoices(h.ctx);
    expect(eventsOf(h, "market_purchase_received").filter((e) => e.payload.purchase_id === p1.body.id)).toHaveLength(1);
    expect(plannedWebhooks(h, "market_purchase_received", p1.body.id)).toEqual([
      { name: "market_purchase_received", data: { purchase_id: p1.body.id, document_id: d.id, document_title: d.title, buyer: buyer.username, amount_sats: 1000, platform_fee_sats: 50, seller_payout_sats: 950 }, to: [s.id] },
    ]);
    const note = (await h.req("GET", "/api/v1/notifications", { token: s.token })).body.find((n: any) => n.kind === "market_purchase_received");
    expect(note.message).toBe(`@${buyer.username} bought your document "${d.title}": 950 sats are on their way to your lightning address`);
    expect((await h.req("GET", `/api/v1/market/documents/${d.id}`)).body.total_earned_sats).toBe(950);

    await payments.runPayouts(h.ctx);
    expect((await check(buyer, p1.body.id)).body.status).toBe("payout_completed");
    expect(payments.payoutOf(h.ctx, "document_purchase", p1.body.id)).toMatchObject({ status: "completed", amountSats: 950, feeSats: 50, lightningAddress: "sally@example.com" });
    expect((await dev()).ledger().filter((l) => l.destination === "sally@example.com")).toHaveLength(1);
    // The other, unpaid invoice lapses on its own.
    h.clock.advance(16 * 60_000 + 1);
    expect((await check(buyer, p2.body.id)).body.status).toBe("expired");
    expect((await dev()).settle(p2.body.payment_hash).settled).toBe(false);
    // my-purchases: both, newest first, pending and lapsed ones included.
    const mine = await h.req("GET", "/api/v1/market/my-purchases", { token: buyer.token });
    expect(mine.body).toEqual([
      { id: p2.body.id, document_id: d.id, document_title: d.title, price_sats: 1000, status: "expired", paid_at: null, created_at: expect.any(String) },
      { id: p1.body.id, document_id: d.id, document_title: d.title, price_sats: 1000, status: "payout_completed", paid_at: expect.any(String), created_at: expect.any(String) },
    ]);
    expect(mine.headers.get("x-total-count")).toBe("2");
  });

  test("a seller without a lightning address by then: payout_abandoned; a failing payout is payout_failed, then completed", async () => {
    const [s, buyer] = [await seller(h, "gone@example.com"), await h.user()];
    const d = await listed(h, s);
    const p = await bought(buyer, d.id);
    h.ctx.db.$client.query("update users set lightning_address = null where id = ?").run(s.id);
    await payments.runPayouts(h.ctx);
    expect((await check(buyer, p.id)).body.status).toBe("payout_abandoned");
    // Abandoned or not, the buyer paid: the download is theirs.
    expect((await download(h, d.id, { token: buyer.token })).status).toBe(200);
  });

  test("refusals: your own document 400 INVALID_INPUT; a delisted one 400 to its buyer, 404 to others; missing 404; anonymous 401; nothing minted", async () => {
    const [s, buyer, stranger] = [await seller(h), await h.user(), await h.user()];
    const d = await listed(h, s);
    const before = count("invoices");
    const own = await purchase(s, d.id);
    expect(own.status).toBe(400);
    expect(own.body.detail.code).toBe("INVALID_INPUT");
    expect((await purchase(null, d.id)).status).toBe(401);
    expect((await purchase(buyer, UNKNOWN)).status).toBe(404);
    expect(count("invoices")).toBe(before);
    await bought(buyer, d.id);
    await h.req("DELETE", `/api/v1/market/documents/${d.id}`, { token: s.token });
    expect((await purchase(buyer, d.id)).body.detail.code).toBe("INVALID_INPUT");
    expect((await purchase(stranger, d.id)).status).toBe(404);
    // Buyers still read it.
    expect((await h.req("GET", `/api/v1/market/documents/${d.id}`, { token: buyer.token })).status).toBe(200);
  });

  test("the check is the buyer's: the seller and strangers 404, anonymous 401; purchases 10 an hour, checks 30 an hour", async () => {
    const [s, buyer, stranger] = [await seller(h), await h.user(), await h.user()];
    const d = await listed(h, s);
    const p = await purchase(buyer, d.id);
    expect((await check(s, p.body.id)).status).toBe(404);
    expect((await check(stranger, p.body.id)).status).toBe(404);
    expect((await check(null, p.body.id)).status).toBe(401);
    expect((await check(buyer, UNKNOWN)).status).toBe(404);
    for (let i = 0; i < 9; i++) expect((await purchase(buyer, d.id)).status).toBe(201);
    expect((await purchase(buyer, d.id)).body.detail.code).toBe("RATE_LIMIT_DOCUMENT_PURCHASE");
    for (let i = 0; i < 30; i++) expect((await check(buyer, p.body.id)).status).toBe(200);
    expect((await check(buyer, p.body.id)).body.detail.code).toBe("RATE_LIMIT_DOCUMENT_PURCHASE_CHECK");
  });
});

describe("download", () => {
  test("(1) the seller and (2) a paid buyer get the raw bytes with the upload's type and name; SHA-256 equals content_hash; buyers' downloads counted", async () => {
    const [s, buyer] = [await seller(h), await h.user()];
    const content = '{"name": "Ünïcode", "n": 1}\n';
    const d = await listed(h, s, { filename: "Données été.json", content });
    const mine = await download(h, d.id, { token: s.token });
    expect(mine.status).toBe(200);
    expect(mine.text).toBe(content);
    expect(mine.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(mine.headers.get("content-disposition")).toBe(`attachment; filename="Donn_es _t_.json"; filename*=UTF-8''${encodeURIComponent("Données été.json")}`);
    expect(mine.headers.get("x-content-type-options")).toBe("nosniff");
    expect(mine.headers.get("etag")).toBe(`"${d.content_hash}"`);
    await bought(buyer, d.id);
    const theirs = await download(h, d.id, { token: buyer.token });
    expect(theirs.status).toBe(200);
    expect(sha256(theirs.text)).toBe(d.content_hash);
    expect((await h.req("GET", `/api/v1/market/documents/${d.id}`)).body.download_count).toBe(1);
    // Delisted: the seller and the buyer keep access.
    await h.req("DELETE", `/api/v1/market/documents/${d.id}`, { token: s.token });
    expect((await download(h, d.id, { token: buyer.token })).status).toBe(200);
    expect((await download(h, d.id, { token: s.token })).status).toBe(200);
    expect((await download(h, d.id)).status).toBe(404);
  });

  test("(4) without proof: 402 with an L402 challenge that mints a new purchase each time; a pending buyer too; a bad bearer token is 401", async () => {
    const [s, buyer, stranger] = [await seller(h), await h.user(), await h.user()];
    const d = await listed(h, s, { price_sats: 700 });
    const pending = await purchase(buyer, d.id);
    const before = count("document_purchases");
    const anon = await download(h, d.id);
    const { macaroon, invoice } = challengeOf(anon);
    expect(anon.body.detail).toEqual({
      code: "PAYMENT_REQUIRED",
      message: expect.stringContaining("L402"),
      macaroon,
      invoice,
      payment_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      purchase_id: expect.any(String),
      amount_sats: 700,
      expires_at: expect.any(String),
    });
    expect(purchaseRow(anon.body.detail.purchase_id)).toMatchObject({ buyer_id: null, status: "pending", amount_sats: 700 });
    const again = challengeOf(await download(h, d.id));
    expect(again.invoice).not.toBe(invoice);
    // A buyer whose purchase is still pending, and a stranger: challenged too, the purchase theirs.
    const b = await download(h, d.id, { token: buyer.token });
    expect(b.status).toBe(402);
    expect(purchaseRow(b.body.detail.purchase_id).buyer_id).toBe(buyer.id);
    expect((await download(h, d.id, { token: stranger.token })).status).toBe(402);
    expect(count("document_purchases")).toBe(before + 4);
    expect(pending.status).toBe(201);
    expect((await download(h, d.id, { authorization: "Bearer nonsense" })).status).toBe(401);
    expect((await download(h, UNKNOWN)).status).toBe(404);
  });

  test("(3) L402 end to end: challenge, pay the invoice, present macaroon:preimage, get the bytes; the purchase is paid once and paid out", async () => {
    const s = await seller(h, "lina@example.com");
    const d = await listed(h, s, { price_sats: 2000 });
    const res = await download(h, d.id);
    const { macaroon } = challengeOf(res);
    const hash = res.body.detail.payment_hash;
    const preimage = await pay(hash);
    // Nobody has checked the invoice yet: presenting the preimage is the proof of payment.
    expect(payments.findInvoiceByHash(h.ctx, hash)!.status).toBe("pending");
    const ok = await download(h, d.id, { authorization: `L402 ${macaroon}:${preimage}` });
    expect(ok.status).toBe(200);
    expect(ok.text).toBe(DEFAULT_CONTENT);
    expect(sha256(ok.text)).toBe(d.content_hash);
    expect(purchaseRow(res.body.detail.purchase_id)).toMatchObject({ status: "paid", buyer_id: null });
    // Presented again (and the poller seeing the payment): still one sale.
    expect((await download(h, d.id, { authorization: `LSAT ${macaroon}:${preimage.toUpperCase()}` })).status).toBe(200);
    await payments.pollInvoices(h.ctx);
    const events = eventsOf(h, "market_purchase_received").filter((e) => e.payload.purchase_id === res.body.detail.purchase_id);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload.buyer).toBe("Anonymous");
    await payments.runPayouts(h.ctx);
    expect(payments.payoutOf(h.ctx, "document_purchase", res.body.detail.purchase_id)).toMatchObject({ status: "completed", amountSats: 1900 });
    expect((await h.req("GET", `/api/v1/market/documents/${d.id}`)).body).toMatchObject({ download_count: 2, total_earned_sats: 1900 });
    // The credential still opens the document after it is delisted.
    await h.req("DELETE", `/api/v1/market/documents/${d.id}`, { token: s.token });
    expect((await download(h, d.id, { authorization: `L402 ${macaroon}:${preimage}` })).status).toBe(200);
  });

  test("refused credentials fall to a new 402: wrong preimage, another document's macaroon, a forged or altered macaroon, an expired invoice", async () => {
    const s = await seller(h);
    const [d, other] = [await listed(h, s, { content: "document one" }), await listed(h, s, { content: "document two" })];
    const res = await download(h, d.id);
    const { macaroon } = challengeOf(res);
    const hash = res.body.detail.payment_hash;
    const preimage = await pay(hash);
    const refused = async (authorization: string, docId = d.id) => {
      const r = await download(h, docId, { authorization });
      expect(r.status).toBe(402);
    };
    // The right macaroon with a wrong preimage.
    await refused(`L402 ${macaroon}:${"ab".repeat(32)}`);
    // A valid, paid credential of this document presented for another one.
    await refused(`L402 ${macaroon}:${preimage}`, other.id);
    // A macaroon with the same identifier and caveats under another root key (forged).
    const forged = newMacaroon({ identifier: Buffer.concat([Buffer.alloc(2), Buffer.from(hash, "hex"), Buffer.alloc(32)]), location: "http://localhost", rootKey: crypto.getRandomValues(new Uint8Array(32)), version: 2 });
    forged.addFirstPartyCaveat(`document_id=${d.id}`);
    forged.addFirstPartyCaveat(`payment_hash=${hash}`);
    await refused(`L402 ${Buffer.from(encodeV2(forged)).toString("base64")}:${preimage}`);
    // Our macaroon with a caveat added by the holder (attenuation we do not understand), or bytes changed.
    const { importMacaroon } = await import("macaroon");
    const attenuated = importMacaroon(macaroon) as import("macaroon").Macaroon;
    attenuated.addFirstPartyCaveat(`document_id=${other.id}`);
    await refused(`L402 ${Buffer.from(encodeV2(attenuated)).toString("base64")}:${preimage}`, other.id);
    const bytes = Buffer.from(macaroon, "base64");
    bytes[bytes.length - 1] ^= 1;
    await refused(`L402 ${bytes.toString("base64")}:${preimage}`);
    await refused("L402 garbage");
    await refused(`L402 ${macaroon}`);
    // A macaroon we minted for a hash that is no purchase of ours.
    await refused(`L402 ${mintMacaroon(h.ctx, d.id, sha256("x"))}:${"00".repeat(32)}`);
    // The genuine credential works, which shows the refusals were the credentials' fault.
    expect((await download(h, d.id, { authorization: `L402 ${macaroon}:${preimage}` })).status).toBe(200);

    // An invoice left unpaid until it expired: its preimage proves nothing any more.
    const late = await download(h, d.id);
    const lateHash = late.body.detail.payment_hash;
    h.clock.advance(16 * 60_000 + 1);
    await pollUntilIdle(h);
    expect(purchaseRow(late.body.detail.purchase_id).status).toBe("expired");
    const latePreimage = h.ctx.db.select().from(devWalletInvoices).where(eq(devWalletInvoices.paymentHash, lateHash)).get()!.preimage;
    await refused(`L402 ${challengeOf(late).macaroon}:${latePreimage}`);
  });

  test("challenges are limited per address: 30 an hour (429, nothing minted)", async () => {
    h.clock.advance(2 * 3_600_000);
    const s = await seller(h);
    const d = await listed(h, s);
    for (let i = 0; i < 30; i++) expect((await download(h, d.id, { ip: "10.77.0.1" })).status).toBe(402);
    const before = count("document_purchases");
    const r = await download(h, d.id, { ip: "10.77.0.1" });
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_DOCUMENT_L402_CHALLENGE");
    expect(count("document_purchases")).toBe(before);
    expect((await download(h, d.id, { ip: "10.77.0.2" })).status).toBe(402);
  });
});

describe("against LNbits (a fake on 127.0.0.1)", () => {
  const fake = new FakeLnbits();
  afterAll(() => fake.stop());
  const lnbits = (timeoutMs = 2_000) => lnbitsWallet(h, fake, timeoutMs);
  const use = (wallet: LazyWallet, fn: () => Promise<void>) => withWallet(h, wallet, fn);

  test("a wallet 500 or timeout: purchase and challenge are 502 UPSTREAM_FAILURE and record nothing; a failing check 502", () =>
    use(lnbits(), async () => {
      const [s, buyer] = [await seller(h, "mo@pay.example.org"), await h.user()];
      const d = await listed(h, s);
      const before = [count("document_purchases"), count("invoices")];
      fake.fail500 = 1;
      const r = await purchase(buyer, d.id);
      expect(r.status).toBe(502);
      expect(r.body.detail.code).toBe("UPSTREAM_FAILURE");
      fake.fail500 = 1;
      expect((await download(h, d.id)).status).toBe(502);
      // Held past the timeout of a wallet that gives up after 100 ms.
      fake.hold = 1;
      await use(lnbits(100), async () => void expect((await purchase(buyer, d.id)).status).toBe(502));
      expect([count("document_purchases"), count("invoices")]).toEqual(before);
      // The wallet finishes the call the client gave up on (an invoice nobody will see).
      fake.release();
      await fake.idle();
      const ok = await purchase(buyer, d.id);
      expect(ok.status).toBe(201);
      fake.fail500 = 1;
      expect((await check(buyer, ok.body.id)).status).toBe(502);
      expect((await check(buyer, ok.body.id)).body.status).toBe("pending");
    }));

  test("settlement reported twice, checks and the poller racing: one sale, one payout of 95 % by LNURL-pay; a failed payout retried with backoff", () =>
    use(lnbits(), async () => {
      const [s, buyer] = [await seller(h, "nia@pay.example.org"), await h.user()];
      const d = await listed(h, s, { price_sats: 4000 });
      const p = await purchase(buyer, d.id);
      fake.settle(p.body.payment_hash);
      await Promise.all([check(buyer, p.body.id), check(buyer, p.body.id), payments.pollInvoices(h.ctx)]);
      h.clock.advance(60_000);
      await payments.pollInvoices(h.ctx);
      expect(eventsOf(h, "market_purchase_received").filter((e) => e.payload.purchase_id === p.body.id)).toHaveLength(1);
      fake.payOutcome = "failed";
      await payments.runPayouts(h.ctx);
      expect((await check(buyer, p.body.id)).body.status).toBe("payout_failed");
      fake.payOutcome = "success";
      h.clock.advance(60_000);
      await payments.runPayouts(h.ctx);
      expect((await check(buyer, p.body.id)).body.status).toBe("payout_completed");
      expect(fake.receivedBy("nia")).toBe(3800);
    }));

  test("L402 through LNbits: the payer's preimage opens the document; an invoice that never settles expires", () =>
    use(lnbits(), async () => {
      const s = await seller(h, "oz@pay.example.org");
      const d = await listed(h, s);
      const res = await download(h, d.id);
      const { macaroon } = challengeOf(res);
      const inv = fake.invoices.get(res.body.detail.payment_hash)!;
      fake.settle(inv.hash);
      expect((await download(h, d.id, { authorization: `L402 ${macaroon}:${inv.preimage}` })).text).toBe(DEFAULT_CONTENT);
      const never = await download(h, d.id);
      h.clock.advance(16 * 60_000 + 1);
      await pollUntilIdle(h);
      expect(purchaseRow(never.body.detail.purchase_id).status).toBe("expired");
    }));
});
