// Service offers and orders on the web: the offer's page, ordering, the order's page through its
// states for the buyer and the seller (accept with an invoice shown as QR code and text, decline,
// cancel, the payment seen live and by the check form, delivery and the payout), the seller's
// queue and the person's orders; strangers get 404, the other party the service's 403, refusals
// are shown with their status and change nothing.
import { describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type TestUser } from "../../test/harness";
import { devWallet, listing, orderRow } from "../features/offers/fixtures";
import { task } from "../features/marketplace/fixtures";
import { human } from "../features/sessions/fixtures";
import { THROTTLE_MS } from "./market-invoices";

const h = setup();
const UNKNOWN = "0190f0f0-0000-7000-8000-000000000000";
const signIn = (u: TestUser) => signedInBrowser(h, u.username);
const noFragment = (location: string | null) => location!.split("#")[0];

/** A seller (with a Lightning address) and their offer, and a buyer, both signed in. */
async function scene(rate = 5_000) {
  const seller = await human(h);
  h.ctx.db.$client.query("update users set lightning_address = ? where id = ?").run("seller@wallet.example", seller.id);
  const buyer = await human(h);
  const offer = await listing(h, seller, rate, { title: "A research <report>" });
  return { seller, buyer, offer, path: `/marketplace/offers/${offer.id}`, s: await signIn(seller), b: await signIn(buyer) };
}

/** The buyer orders through the form; the order's path. */
async function order(b: Browser, path: string, brief = "Fees on the <main> routes."): Promise<string> {
  await b.get(path);
  const r = await b.post(`${path}/order`, { buyer_brief: brief });
  expect(r.status).toBe(303);
  expect(r.location).toMatch(/^\/marketplace\/orders\/[0-9a-f-]{36}\?notice=ordered$/);
  return r.location!.split("?")[0];
}

const idOf = (path: string) => path.split("/").at(-1)!;

describe("an offer", () => {
  test("anonymous readers see its price and are asked to sign in to order; a task's id or an unknown one is 404", async () => {
    const { path } = await scene(7_500);
    const r = await new Browser(h).get(path);
    expect(r.status).toBe(200);
    expect(r.text).toContain("A research &lt;report&gt;");
    expect(r.text).toContain("7,500 sats");
    expect(r.text).toContain(`/login?next=${encodeURIComponent(path)}`);
    const t = await task(h, await h.user());
    for (const p of [`/marketplace/offers/${t.id}`, `/marketplace/offers/${UNKNOWN}`, "/marketplace/offers/x"]) expect((await new Browser(h).get(p)).status).toBe(404);
  });

  test("the seller has no order form, sees the orders received, and ordering their own offer is the service's 400", async () => {
    const { path, s, b } = await scene();
    const orderPath = await order(b, path);
    const own = await s.get(path);
    expect(own.text).not.toContain(`action="${path}/order"`);
    expect(own.text).toContain(`href="${orderPath}"`);
    const before = dbState(h);
    const r = await s.post(`${path}/order`, { buyer_brief: "" });
    expect(r.status).toBe(400);
    expect(r.text).toContain("You cannot order from your own listing");
    expect(dbState(h)).toEqual(before);
  });

  test("a closed offer takes no orders (the service's 400 CONFLICT shown), and takes them again once reopened", async () => {
    const { path, s, b } = await scene();
    await s.get(path);
    expect((await s.post(`${path}/close`)).status).toBe(303);
    const page = await b.get(path);
    expect(page.text).toContain("takes no new orders");
    expect(page.text).not.toContain(`action="${path}/order"`);
    const r = await b.post(`${path}/order`, { buyer_brief: "Please" });
    expect(r.status).toBe(400);
    expect(r.text).toContain("This listing is closed");
    expect((await s.post(`${path}/reopen`)).status).toBe(303);
    expect((await b.get(path)).text).toContain(`action="${path}/order"`);
  });
});

describe("closing through the wrong address", () => {
  test("an offer is not a task: closing it through a task's address is 404 and changes nothing", async () => {
    const { offer, s, path } = await scene();
    await s.get(path);
    const before = dbState(h);
    expect((await s.post(`/marketplace/tasks/${offer.id}/close`)).status).toBe(404);
    expect(dbState(h)).toEqual(before);
  });
});

describe("an order through its states", () => {
  test("order → accept (invoice as QR code and text) → paid, seen live → delivered: each party sees their step", async () => {
    const { path, s, b } = await scene(5_000);
    const orderPath = await order(b, path);
    const id = idOf(orderPath);
    const placed = await b.get(`${orderPath}?notice=ordered`);
    expect(placed.text).toContain("Your order is placed");
    expect(placed.text).toContain("Fees on the &lt;main&gt; routes.");
    expect(placed.text).toContain(`action="${orderPath}/cancel"`);
    expect(placed.text).not.toContain(`action="${orderPath}/accept"`);

    const incoming = await s.get(orderPath);
    expect(incoming.text).toContain(`action="${orderPath}/accept"`);
    expect(incoming.text).toContain(`action="${orderPath}/decline"`);
    const accepted = await s.post(`${orderPath}/accept`);
    expect(accepted.status).toBe(303);
    expect(accepted.location).toBe(`${orderPath}?notice=accepted`);
    expect(orderRow(h, id).status).toBe("accepted");
    // A second accept is the service's 400 CONFLICT, and no second invoice.
    const twice = await s.post(`${orderPath}/accept`);
    expect(twice.status).toBe(400);
    expect(twice.text).toContain("only a requested order can be accepted");

    const pay = await b.get(orderPath);
    expect(pay.text).toContain("Pay the invoice");
    expect(pay.text).toContain('<svg class="qr" role="img"');
    expect(pay.text).toContain(`>${orderRow(h, id).lightning_invoice}</textarea>`);
    expect(pay.text).toContain(`data-invoice-poll="/marketplace/status/order/${id}"`);
    expect((await s.get(orderPath)).text).not.toContain("invoice-bolt11");

    const status = `/marketplace/status/order/${id}`;
    expect(JSON.parse((await b.get(status)).text)).toEqual({ status: "pending" });
    (await devWallet(h)).settle(orderRow(h, id).payment_hash);
    h.clock.advance(THROTTLE_MS);
    expect(JSON.parse((await b.get(status)).text)).toEqual({ status: "paid" });
    expect(orderRow(h, id).status).toBe("paid");
    // A stranger cannot ask: the order is not theirs (404).
    expect((await (await signIn(await human(h))).get(status)).status).toBe(404);

    const deliver = await s.get(orderPath);
    expect(deliver.text).toContain(`action="${orderPath}/deliver"`);
    expect((await s.post(`${orderPath}/deliver`)).status).toBe(303);
    expect(orderRow(h, id).status).toBe("delivered");
    expect((await b.get(orderPath)).text).toContain("Delivered");
  });

  test("the buyer cancels a requested order; the seller then cannot accept it (400 on the page, nothing changed)", async () => {
    const { path, s, b } = await scene();
    const orderPath = await order(b, path);
    expect((await b.post(`${orderPath}/cancel`)).status).toBe(303);
    expect(orderRow(h, idOf(orderPath)).status).toBe("cancelled");
    await s.get(orderPath);
    const before = dbState(h);
    const r = await s.post(`${orderPath}/accept`);
    expect(r.status).toBe(400);
    expect(r.text).toContain("This order is cancelled");
    expect(dbState(h)).toEqual(before);
  });

  test("the seller declines; the buyer cannot accept or deliver (403), a stranger sees nothing (404)", async () => {
    const { path, s, b } = await scene();
    const orderPath = await order(b, path);
    const refused = await b.post(`${orderPath}/accept`);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("Only the order&#39;s seller may do that");
    await s.get(orderPath);
    expect((await s.post(`${orderPath}/decline`)).status).toBe(303);
    expect(orderRow(h, idOf(orderPath)).status).toBe("declined");
    const stranger = await signIn(await human(h));
    expect((await stranger.get(orderPath)).status).toBe(404);
    await stranger.get("/marketplace");
    expect((await stranger.post(`${orderPath}/cancel`)).status).toBe(404);
    const anon = await new Browser(h).get(orderPath);
    expect(anon.status).toBe(303);
    expect(anon.location).toBe(`/login?next=${encodeURIComponent(orderPath)}`);
  });

  test("the check form asks the wallet: the order is paid once settled", async () => {
    const { path, s, b } = await scene();
    const orderPath = await order(b, path);
    await s.get(orderPath);
    await s.post(`${orderPath}/accept`);
    (await devWallet(h)).settle(orderRow(h, idOf(orderPath)).payment_hash);
    await b.get(orderPath);
    const r = await b.post(`${orderPath}/check`);
    expect(r.status).toBe(303);
    expect(orderRow(h, idOf(orderPath)).status).toBe("paid");
    expect((await b.get(noFragment(r.location))).text).toContain("Paid: the seller delivers");
  });
});

describe("an order's invoice that lapses", () => {
  test("unpaid within the hour, the order expires: the buyer's page says so and offers no invoice", async () => {
    const { path, s, b } = await scene();
    const orderPath = await order(b, path);
    await s.get(orderPath);
    await s.post(`${orderPath}/accept`);
    h.clock.advance(3_600_000 + 61_000);
    expect(JSON.parse((await b.get(`/marketplace/status/order/${idOf(orderPath)}`)).text)).toEqual({ status: "expired" });
    const page = await b.get(orderPath);
    expect(page.text).toContain("Expired: the invoice was not paid in time");
    expect(page.text).not.toContain("invoice-bolt11");
  });
});

describe("my orders", () => {
  test("lists the orders placed and received, by role", async () => {
    const { path, s, b } = await scene();
    const orderPath = await order(b, path);
    const mine = await b.get("/marketplace/orders");
    expect(mine.status).toBe(200);
    expect(mine.text).toContain(`href="${orderPath}"`);
    expect(mine.text).toContain("A research &lt;report&gt;");
    expect((await b.get("/marketplace/orders?role=seller")).text).not.toContain(`href="${orderPath}"`);
    expect((await s.get("/marketplace/orders?role=seller")).text).toContain(`href="${orderPath}"`);
    const anon = await new Browser(h).get("/marketplace/orders");
    expect(anon.status).toBe(303);
  });
});
