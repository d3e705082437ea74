// Documents for sale and tips on the web: a document's page with its preview, buying it (an
// invoice shown as QR code and text, its status followed live and by the check form), the download
// once paid (and only then: never an invoice minted by a GET), the person's purchases; a post's
// tip page with its paid total, tipping through the tips service, the tip's invoice page, and the
// service's refusals shown with their status.
import { describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type TestUser } from "../../test/harness";
import { DEFAULT_CONTENT, listed, seller as documentSeller } from "../features/documents/fixtures";
import { devWallet } from "../features/marketplace/fixtures";
import { post } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";
import { THROTTLE_MS } from "./market-invoices";
import { TipLine } from "./pages/market-tips";

const h = setup();
const UNKNOWN = "0190f0f0-0000-7000-8000-000000000000";
const signIn = (u: TestUser) => signedInBrowser(h, u.username);
const purchaseRow = (id: string) => h.ctx.db.$client.query("select * from document_purchases where id = ?").get(id) as Record<string, any>;
const tipRow = (id: string) => h.ctx.db.$client.query("select * from tips where id = ?").get(id) as Record<string, any>;
const withAddress = (u: TestUser) => h.ctx.db.$client.query("update users set lightning_address = ? where id = ?").run("someone@wallet.example", u.id);

describe("a document for sale", () => {
  test("anonymous readers see it with its preview and hash, and are asked to sign in to buy; unknown ids are 404", async () => {
    const s = await documentSeller(h);
    const d = await listed(h, s, { title: "Field <guide>", description: "All of it.", price_sats: 1500 });
    const r = await new Browser(h).get(`/marketplace/documents/${d.id}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain("Field &lt;guide&gt;");
    expect(r.text).toContain("1,500 sats");
    expect(r.text).toContain(d.content_hash);
    expect(r.text).toContain("# Field guide");
    expect(r.text).toContain(`/login?next=${encodeURIComponent(`/marketplace/documents/${d.id}`)}`);
    for (const p of [`/marketplace/documents/${UNKNOWN}`, "/marketplace/documents/nope"]) expect((await new Browser(h).get(p)).status).toBe(404);
  });

  test("buy → invoice (QR code and text) → paid, seen live → download; before payment the download sends back to the page", async () => {
    const s = await documentSeller(h);
    const d = await listed(h, s, { price_sats: 1000 });
    const buyer = await human(h);
    const b = await signIn(buyer);
    const path = `/marketplace/documents/${d.id}`;
    const page = await b.get(path);
    expect(page.text).toContain(`action="${path}/buy"`);
    expect(page.text).not.toContain(`href="${path}/download"`);
    // The download of a document not paid for mints nothing: back to its page.
    const early = await b.get(`${path}/download`);
    expect(early.status).toBe(303);
    expect(early.location).toBe(path);
    expect(h.ctx.db.$client.query("select count(*) as n from document_purchases where buyer_id = ?").get(buyer.id)).toEqual({ n: 0 });

    const r = await b.post(`${path}/buy`);
    expect(r.status).toBe(303);
    expect(r.location).toMatch(/^\/marketplace\/purchases\/[0-9a-f-]{36}\?notice=bought$/);
    const purchasePath = r.location!.split("?")[0];
    const id = purchasePath.split("/").at(-1)!;
    const pay = await b.get(r.location!);
    expect(pay.text).toContain("Your purchase is started");
    expect(pay.text).toContain('<svg class="qr" role="img"');
    expect(pay.text).toContain(`>${purchaseRow(id).payment_request}</textarea>`);
    // The document's page now points at the waiting invoice.
    expect((await b.get(path)).text).toContain(`href="${purchasePath}"`);

    const status = `/marketplace/status/purchase/${id}`;
    expect(JSON.parse((await b.get(status)).text)).toEqual({ status: "pending" });
    (await devWallet(h)).settle(purchaseRow(id).payment_hash);
    h.clock.advance(THROTTLE_MS);
    expect(JSON.parse((await b.get(status)).text)).toEqual({ status: "paid" });
    const paid = await b.get(purchasePath);
    expect(paid.text).toContain(`href="${path}/download"`);
    expect(paid.text).not.toContain("invoice-bolt11");
    const file = await b.get(`${path}/download`);
    expect(file.status).toBe(200);
    expect(file.text).toBe(DEFAULT_CONTENT);
    expect(file.headers.get("content-disposition")).toContain('filename="guide.md"');
    expect(file.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect((await b.get(path)).text).toContain(`href="${path}/download"`);

    const list = await b.get("/marketplace/purchases");
    expect(list.text).toContain(`href="${purchasePath}"`);
    // Another person cannot see the purchase (404).
    expect((await (await signIn(await human(h))).get(purchasePath)).status).toBe(404);
  });

  test("the seller downloads their own document and cannot buy it (the service's 400 shown, nothing changed)", async () => {
    const s = await human(h);
    h.ctx.db.$client.query("update users set lightning_address = ? where id = ?").run("seller@example.com", s.id);
    const d = await listed(h, s);
    const sb = await signIn(s);
    const path = `/marketplace/documents/${d.id}`;
    const page = await sb.get(path);
    expect(page.text).toContain(`href="${path}/download"`);
    expect(page.text).not.toContain(`action="${path}/buy"`);
    expect((await sb.get(`${path}/download`)).text).toBe(DEFAULT_CONTENT);
    const before = dbState(h);
    const r = await sb.post(`${path}/buy`);
    expect(r.status).toBe(400);
    expect(r.text).toContain("You cannot buy your own document");
    expect(dbState(h)).toEqual(before);
  });

  test("the check form asks the wallet: the purchase is paid once settled", async () => {
    const s = await documentSeller(h);
    const d = await listed(h, s);
    const b = await signIn(await human(h));
    await b.get(`/marketplace/documents/${d.id}`);
    const r = await b.post(`/marketplace/documents/${d.id}/buy`);
    const purchasePath = r.location!.split("?")[0];
    const id = purchasePath.split("/").at(-1)!;
    (await devWallet(h)).settle(purchaseRow(id).payment_hash);
    await b.get(purchasePath.replace(id, UNKNOWN)); // a page with a form, for the token
    expect((await b.post(`${purchasePath}/check`)).status).toBe(303);
    expect(purchaseRow(id).status).not.toBe("pending");
  });
});

describe("tips", () => {
  test("a post's tip page shows its paid total; a signed-in reader tips, pays the invoice and the total grows", async () => {
    const author = await h.user();
    withAddress(author);
    const p = await post(h, author, { title: "Worth a <tip>" });
    const path = `/post/${p.id}/tip`;
    const anon = await new Browser(h).get(path);
    expect(anon.status).toBe(200);
    expect(anon.text).toContain("Worth a &lt;tip&gt;");
    expect(anon.text).toContain("no tips yet");
    expect((await new Browser(h).get(`/post/${p.id}`)).text).toContain("No tips yet");
    expect(anon.text).toContain(`/login?next=${encodeURIComponent(path)}`);

    const tipper = await human(h);
    const b = await signIn(tipper);
    expect((await b.get(path)).text).toContain(`action="${path}"`);
    const r = await b.post(path, { amount_sats: "500" });
    expect(r.status).toBe(303);
    expect(r.location).toMatch(/^\/marketplace\/tips\/[0-9a-f-]{36}\?notice=created$/);
    const tipPath = r.location!.split("?")[0];
    const id = tipPath.split("/").at(-1)!;
    const pay = await b.get(r.location!);
    expect(pay.status).toBe(200);
    expect(pay.text).toContain("Your tip of 500 sats");
    expect(pay.text).toContain(`>${tipRow(id).payment_request}</textarea>`);
    expect(pay.text).toContain(`data-invoice-poll="/marketplace/status/tip/${id}"`);

    (await devWallet(h)).settle(tipRow(id).payment_hash);
    expect(JSON.parse((await b.get(`/marketplace/status/tip/${id}`)).text)).toEqual({ status: "paid" });
    expect((await b.get(tipPath)).text).toContain("Paid: thank you");
    expect((await new Browser(h).get(path)).text).toContain("500 sats in 1 tip");
    // The post page shows the total too, to anonymous readers (their cached copy is dropped when a tip is paid).
    const postPage = (await new Browser(h).get(`/post/${p.id}`)).text;
    expect(postPage).toContain("Tipped 500 sats in 1 tip");
    expect(postPage).toContain(`href="${path}"`);
    // A stranger cannot see the tip (404).
    expect((await (await signIn(await human(h))).get(tipPath)).status).toBe(404);
  });

  test("a comment's author is tipped from /comment/<id>/tip, through the tips service", async () => {
    const author = await h.user();
    const commenter = await h.user();
    withAddress(commenter);
    const p = await post(h, author, { title: "A thread" });
    const c = await h.req("POST", `/api/v1/posts/${p.id}/comments`, { token: commenter.token, body: { body: "A comment worth a tip." } });
    expect(c.status).toBe(201);
    const path = `/comment/${c.body.id}/tip`;
    const b = await signIn(await human(h));
    const form = await b.get(path);
    expect(form.status).toBe(200);
    expect(form.text).toContain("Tip the author of a comment on");
    expect(form.text).toContain(`href="/post/${p.id}#comment-${c.body.id}"`);
    const r = await b.post(path, { amount_sats: "300" });
    expect(r.status).toBe(303);
    const id = r.location!.split("?")[0].split("/").at(-1)!;
    expect(tipRow(id)).toMatchObject({ comment_id: c.body.id, recipient_id: commenter.id, amount_sats: 300, status: "pending" });
    expect((await new Browser(h).get(`/comment/${UNKNOWN}/tip`)).status).toBe(404);
  });

  test("the tips service's refusals are shown with their status, nothing changed: own post, no lightning address, out of range", async () => {
    const author = await human(h);
    const p = await post(h, author, { title: "No address here" });
    const path = `/post/${p.id}/tip`;
    const a = await signIn(author);
    expect((await a.get(path)).text).toContain("This is your post");
    const b = await signIn(await human(h));
    await b.get(path);
    const before = dbState(h);
    const self = await a.post(path, { amount_sats: "100" });
    expect(self.status).toBe(400);
    expect(self.text).toContain("You cannot tip yourself");
    const none = await b.post(path, { amount_sats: "100" });
    expect(none.status).toBe(400);
    expect(none.text).toContain("has no lightning address");
    expect(dbState(h)).toEqual(before);
    withAddress(author);
    const after = dbState(h);
    const big = await b.post(path, { amount_sats: "100001" });
    expect(big.status).toBe(400);
    expect(big.text).toContain("A tip is 21 to 100000 sats");
    expect(big.text).toContain('value="100001"');
    const junk = await b.post(path, { amount_sats: "1e3" });
    expect(junk.status).toBe(422);
    expect(dbState(h)).toEqual(after);
    expect((await new Browser(h).get(`/post/${UNKNOWN}/tip`)).status).toBe(404);
  });
});

test("a post's tip line: its paid total and the link to tip it, but not on one's own post", () => {
  const id = "0190f0f0-0000-7000-8000-000000000001";
  expect(TipLine({ postId: id, totalTips: 0, totalSats: 0, own: false }) as string).toBe(`<p class="tips meta">No tips yet · <a href="/post/${id}/tip">Tip the author</a></p>`);
  expect(TipLine({ postId: id, totalTips: 2, totalSats: 1210, own: true }) as string).toBe(`<p class="tips meta">Tipped 1,210 sats in 2 tips</p>`);
});
