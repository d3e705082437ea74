// A paid task on the web: its page for anonymous readers and signed-in people, bidding, the
// author's accept and reject, withdrawing, the invoice (QR code, BOLT11 text, live status), the
// payment check, completion and closing the listing, each through the marketplace service, and
// the service's refusals shown on the page with their status, nothing changed.
import { describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type TestUser } from "../../test/harness";
import { bidStatus, devWallet, placed, statusOf, task } from "../features/marketplace/fixtures";
import { listing, sellerWith } from "../features/offers/fixtures";
import { human } from "../features/sessions/fixtures";
import { THROTTLE_MS } from "./market-invoices";

const h = setup();
const UNKNOWN = "0190f0f0-0000-7000-8000-000000000000";

const signIn = (u: TestUser) => signedInBrowser(h, u.username);

/** A task by a new signed-in author and a new signed-in bidder. */
async function scene() {
  const author = await human(h);
  const bidder = await human(h);
  const t = await task(h, author, { budget_min_sats: 100, budget_max_sats: 10_000, category: "research", deliverable_type: "document" });
  return { author, bidder, t, path: `/marketplace/tasks/${t.id}`, a: await signIn(author), b: await signIn(bidder) };
}

describe("reading a task", () => {
  test("anonymous readers see the task, its budget and bids, and are asked to sign in to bid", async () => {
    const author = await h.user();
    const worker = await h.user();
    const t = await task(h, author, { budget_min_sats: 100, budget_max_sats: 10_000, category: "research" }, { title: "Sum <up> the feeds" });
    await placed(h, worker, t.id, 700);
    const r = await new Browser(h).get(`/marketplace/tasks/${t.id}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain("Sum &lt;up&gt; the feeds");
    expect(r.text).toContain("100 – 10,000 sats");
    expect(r.text).toContain("700 sats");
    expect(r.text).toContain("I can do this well and fast.");
    expect(r.text).toContain(`/login?next=${encodeURIComponent(`/marketplace/tasks/${t.id}`)}`);
    expect(r.text).not.toContain('action="/marketplace/tasks/');
  });

  test("a missing id, a malformed one and a post that is not a paid task are the 404 page", async () => {
    const seller = await sellerWith(h);
    const offer = await listing(h, seller);
    const b = new Browser(h);
    for (const path of [`/marketplace/tasks/${UNKNOWN}`, "/marketplace/tasks/not-an-id", `/marketplace/tasks/${offer.id}`]) expect((await b.get(path)).status).toBe(404);
  });
});

describe("bidding", () => {
  test("a signed-in person bids through the form: 303 back to the task, the bid listed, the task now bidding", async () => {
    const { t, path, b, bidder } = await scene();
    const page = await b.get(path);
    expect(page.text).toContain(`action="${path}/bid"`);
    const r = await b.post(`${path}/bid`, { amount_sats: "900", description: "A careful summary, in two days." });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`${path}?notice=bid#bids`);
    // A browser sends no fragment.
    const after = await b.get(r.location!.split("#")[0]);
    expect(after.text).toContain("Your bid is placed");
    expect(after.text).toContain("900 sats");
    expect(after.text).toContain("A careful summary, in two days.");
    expect(after.text).toContain("Withdraw my bid");
    expect(statusOf(h, t.id)).toBe("bidding");
    expect(after.text).toContain(bidder.username);
  });

  test("the service's refusals are shown on the page with their status, what was typed kept, nothing changed", async () => {
    const { path, b, a } = await scene();
    await b.get(path);
    const before = dbState(h);
    const low = await b.post(`${path}/bid`, { amount_sats: "50", description: "Cheap and <quick>." });
    expect(low.status).toBe(400);
    expect(low.text).toContain("bid_amount_sats must be from 100 to 10,000 sats");
    expect(low.text).toContain('value="50"');
    expect(low.text).toContain("Cheap and &#60;quick&#62;.");
    const short = await b.post(`${path}/bid`, { amount_sats: "500", description: "short" });
    expect(short.status).toBe(400);
    expect(short.text).toContain("at least 10 characters");
    const nan = await b.post(`${path}/bid`, { amount_sats: "lots", description: "A long enough pitch." });
    expect(nan.status).toBe(422);
    expect(nan.text).toContain("Your price must be a whole number of sats");
    // The author has no bid form, and bidding anyway is the service's 400.
    const own = await a.get(path);
    expect(own.text).not.toContain(`action="${path}/bid"`);
    const self = await a.post(`${path}/bid`, { amount_sats: "500", description: "A long enough pitch." });
    expect(self.status).toBe(400);
    expect(self.text).toContain("You cannot bid on your own task");
    expect(dbState(h)).toEqual(before);
  });

  test("a form without the CSRF token, or from a visitor not signed in, changes nothing", async () => {
    const { path, b } = await scene();
    await b.get(path);
    const before = dbState(h);
    expect((await b.post(`${path}/bid`, { amount_sats: "500", description: "A long enough pitch." }, { csrf: null })).status).toBe(403);
    const anon = new Browser(h);
    await anon.get("/login");
    const r = await anon.post(`${path}/bid`, { amount_sats: "500", description: "A long enough pitch." });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    expect(dbState(h)).toEqual(before);
  });

  test("the bidder withdraws their pending bid; a stranger cannot (403 on the page)", async () => {
    const { t, path, b, bidder } = await scene();
    const bid = await placed(h, bidder, t.id, 800);
    const stranger = await signIn(await human(h));
    await stranger.get(path);
    const refused = await stranger.post(`${path}/bids/${bid.id}/withdraw`);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("Only the bidder withdraws a bid");
    await b.get(path);
    expect((await b.post(`${path}/bids/${bid.id}/withdraw`)).status).toBe(303);
    expect(bidStatus(h, bid.id)).toBe("withdrawn");
  });
});

describe("accepting, paying, completing", () => {
  test("the author accepts one bid (the others rejected), pays the invoice shown as QR code and text, checks, completes", async () => {
    const { t, path, a, bidder } = await scene();
    const win = await placed(h, bidder, t.id, 1_200);
    const other = await h.user();
    const lose = await placed(h, other, t.id, 900);
    const page = await a.get(path);
    expect(page.text).toContain(`action="${path}/bids/${win.id}/accept"`);
    expect(page.text).toContain(`action="${path}/bids/${lose.id}/reject"`);
    const r = await a.post(`${path}/bids/${win.id}/accept`);
    expect(r.status).toBe(303);
    expect(statusOf(h, t.id)).toBe("accepted");
    expect(bidStatus(h, lose.id)).toBe("rejected");
    const pay = await a.get(r.location!.split("#")[0]);
    expect(pay.text).toContain("Pay the invoice");
    expect(pay.text).toMatch(/<svg class="qr" role="img" aria-label="QR code of the Lightning invoice for 1,200 sats"/);
    const bolt11 = /<textarea id="invoice-bolt11"[^>]*>([^<]+)<\/textarea>/.exec(pay.text)?.[1];
    expect(bolt11).toMatch(/^lnbcrt12000n1/);
    expect(pay.text).toContain(`data-invoice-poll="/marketplace/status/task/${t.id}"`);
    expect(pay.text).toMatch(/<script type="module" src="\/marketplace\/assets\/market\.[0-9a-z]+\.js"><\/script>/);
    // Others see the state, never the invoice.
    const seen = await (await signIn(bidder)).get(path);
    expect(seen.text).not.toContain("invoice-bolt11");
    expect(seen.text).toContain("The invoice waits for the author&#39;s payment.");

    // The live status: pending until the wallet has it, paid once it does; one wallet call per few seconds.
    const status = `/marketplace/status/task/${t.id}`;
    expect(JSON.parse((await a.get(status)).text)).toEqual({ status: "pending" });
    const invoice = h.ctx.db.$client.query("select payment_hash from invoices where purpose = 'task' and subject_id = ?").get(win.id) as { payment_hash: string };
    (await devWallet(h)).settle(invoice.payment_hash);
    expect(JSON.parse((await a.get(status)).text)).toEqual({ status: null });
    h.clock.advance(THROTTLE_MS);
    expect(JSON.parse((await a.get(status)).text)).toEqual({ status: "paid" });
    expect(statusOf(h, t.id)).toBe("paid");

    // The worker is told what comes next.
    expect((await (await signIn(bidder)).get(path)).text).toContain("Your bid is paid for: deliver the work to its author");
    const paid = await a.get(path);
    expect(paid.text).toContain("The invoice is paid.");
    expect(paid.text).toContain(`action="${path}/complete"`);
    const done = await a.post(`${path}/complete`);
    expect(done.status).toBe(303);
    expect(statusOf(h, t.id)).toBe("completed");
    expect((await a.get(done.location!.split("#")[0])).text).toContain("Task completed");
    // Completing twice is the service's refusal.
    const again = await a.post(`${path}/complete`);
    expect(again.status).toBe(400);
    expect(again.text).toContain("it is already completed");
  });

  test("the check form asks the wallet: paid once settled", async () => {
    const { t, path, a, bidder } = await scene();
    const bid = await placed(h, bidder, t.id, 1_000);
    await a.get(path);
    await a.post(`${path}/bids/${bid.id}/accept`);
    const invoice = h.ctx.db.$client.query("select payment_hash from invoices where purpose = 'task' and subject_id = ?").get(bid.id) as { payment_hash: string };
    (await devWallet(h)).settle(invoice.payment_hash);
    await a.get(path);
    const r = await a.post(`${path}/check`);
    expect(r.status).toBe(303);
    expect(statusOf(h, t.id)).toBe("paid");
  });

  test("only the author accepts or rejects (403 on the page, nothing changed); the status address is for signed-in readers", async () => {
    const { t, path, b, bidder } = await scene();
    const bid = await placed(h, bidder, t.id, 1_000);
    await b.get(path);
    const before = dbState(h);
    const r = await b.post(`${path}/bids/${bid.id}/accept`);
    expect(r.status).toBe(403);
    expect(r.text).toContain("Only the task&#39;s author accepts bids");
    expect((await b.post(`${path}/bids/${bid.id}/reject`)).status).toBe(403);
    expect(dbState(h)).toEqual(before);
    expect((await new Browser(h).get(`/marketplace/status/task/${t.id}`)).status).toBe(401);
    // Before any accept there is no payment: the check's 404.
    expect((await b.get(`/marketplace/status/task/${t.id}`)).status).toBe(404);
    expect((await b.get(`/marketplace/status/nothing/${t.id}`)).status).toBe(404);
  });

  test("the author rejects a bid, closes the listing (no bid form then) and reopens it", async () => {
    const { t, path, a, b, bidder } = await scene();
    const bid = await placed(h, bidder, t.id, 1_000);
    await a.get(path);
    expect((await a.post(`${path}/bids/${bid.id}/reject`)).status).toBe(303);
    expect(bidStatus(h, bid.id)).toBe("rejected");
    expect((await a.post(`${path}/close`)).status).toBe(303);
    const closed = await b.get(path);
    expect(closed.text).toContain("the listing is closed");
    expect(closed.text).not.toContain(`action="${path}/bid"`);
    const refused = await b.post(`${path}/bid`, { amount_sats: "500", description: "A long enough pitch." });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("This listing is closed");
    expect((await a.post(`${path}/reopen`)).status).toBe(303);
    expect((await b.get(path)).text).toContain(`action="${path}/bid"`);
  });
});

describe("an invoice that lapses", () => {
  test("unpaid past its time, the task's invoice is expired (seen by the status address) and the author issues a new one", async () => {
    const { t, path, a, bidder } = await scene();
    const bid = await placed(h, bidder, t.id, 1_000);
    await a.get(path);
    await a.post(`${path}/bids/${bid.id}/accept`);
    h.clock.advance(25 * 3_600_000);
    expect(JSON.parse((await a.get(`/marketplace/status/task/${t.id}`)).text)).toEqual({ status: "expired" });
    const page = await a.get(path);
    expect(page.text).toContain("The invoice expired unpaid.");
    expect(page.text).not.toContain("invoice-bolt11");
    expect(page.text).toContain(`action="${path}/bids/${bid.id}/accept"`);
    expect((await a.post(`${path}/bids/${bid.id}/accept`)).status).toBe(303);
    const renewed = await a.get(path);
    expect(renewed.text).toContain("invoice-bolt11");
    expect(h.ctx.db.$client.query("select count(*) as n from invoices where purpose = 'task' and subject_id = ?").get(bid.id)).toEqual({ n: 2 });
  });
});

describe("the marketplace's script", () => {
  test("is served under its hashed name, for a year; another name is 404", async () => {
    const { path, a, bidder, t } = await scene();
    const bid = await placed(h, bidder, t.id, 1_000);
    await a.get(path);
    await a.post(`${path}/bids/${bid.id}/accept`);
    const src = /src="(\/marketplace\/assets\/market\.[0-9a-z]+\.js)"/.exec((await a.get(path)).text)![1];
    const js = await new Browser(h).get(src);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
    expect(js.headers.get("cache-control")).toContain("immutable");
    expect(js.text).toContain("data-invoice-poll");
    expect((await new Browser(h).get("/marketplace/assets/market.old.js")).status).toBe(404);
  });
});
