// The marketplace's lists on the web: paid tasks with the API's filters, service offers and
// documents for sale, each linking to its page, for anonymous readers and signed-in people alike;
// values escaped; a private colony's task left out for those who cannot read it.
import { describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { setup } from "../../test/harness";
import { listed as listedDocument, seller as documentSeller } from "../features/documents/fixtures";
import { placed, task } from "../features/marketplace/fixtures";
import { listing, sellerWith } from "../features/offers/fixtures";
import { makeColony } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";

const h = setup();

describe("/marketplace", () => {
  test("anonymous readers get the tasks as HTML, each linking to its page, with budget, status and bids", async () => {
    const author = await h.user();
    const worker = await h.user();
    const t = await task(h, author, { budget_min_sats: 100, budget_max_sats: 10_000, category: "research" }, { title: "Map <the> feeds" });
    await placed(h, worker, t.id, 500);
    const r = await new Browser(h).get("/marketplace");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(r.text).toContain(`href="/marketplace/tasks/${t.id}"`);
    expect(r.text).toContain("Map &lt;the&gt; feeds");
    expect(r.text).toContain("100 – 10,000 sats");
    expect(r.text).toContain("1 bid");
    expect(r.text).toContain(">bidding<");
  });

  test("the filters are the API's: category and status narrow the list, a value it would not take is ignored", async () => {
    const author = await h.user();
    const dev = await task(h, author, { budget_min_sats: 100, budget_max_sats: 500, category: "development" }, { title: "Only development here" });
    const writing = await task(h, author, { budget_min_sats: 100, budget_max_sats: 500, category: "writing" }, { title: "Only writing here" });
    const b = new Browser(h);
    const devOnly = await b.get("/marketplace?category=development");
    expect(devOnly.text).toContain(dev.id);
    expect(devOnly.text).not.toContain(writing.id);
    expect(devOnly.text).toMatch(/<option value="development" selected/);
    const bidding = await b.get("/marketplace?status=completed");
    expect(bidding.text).not.toContain(dev.id);
    const junk = await b.get("/marketplace?category=<script>&status=nope&sort=sideways&page=-3");
    expect(junk.status).toBe(200);
    expect(junk.text).toContain(dev.id);
    expect(junk.text).not.toContain("<script>");
  });

  test("a private colony's task is listed only for its members", async () => {
    const founder = await human(h);
    const hidden = makeColony(h, founder, "private");
    const t = await task(h, founder, undefined, { colony_id: hidden.id, title: "Members-only task" });
    expect((await new Browser(h).get("/marketplace")).text).not.toContain(t.id);
    const stranger = await human(h);
    expect((await (await signedInBrowser(h, stranger.username)).get("/marketplace")).text).not.toContain(t.id);
    const member = await signedInBrowser(h, founder.username);
    expect((await member.get("/marketplace")).text).toContain(t.id);
  });

  test("signed in, the tabs add the person's orders and purchases", async () => {
    const anon = await new Browser(h).get("/marketplace");
    expect(anon.text).not.toContain('href="/marketplace/orders"');
    const p = await human(h);
    const page = await (await signedInBrowser(h, p.username)).get("/marketplace");
    expect(page.text).toContain('href="/marketplace/orders"');
    expect(page.text).toContain('href="/marketplace/purchases"');
  });
});

describe("/marketplace/offers and /marketplace/documents", () => {
  test("offers list their price and link to their page", async () => {
    const seller = await sellerWith(h);
    const o = await listing(h, seller, 7_500);
    const r = await new Browser(h).get("/marketplace/offers");
    expect(r.status).toBe(200);
    expect(r.text).toContain(`href="/marketplace/offers/${o.id}"`);
    expect(r.text).toContain("7,500 sats");
  });

  test("documents list their price, search by title, and link to their page", async () => {
    const s = await documentSeller(h);
    const d = await listedDocument(h, s, { title: "Routing <fees> explained", price_sats: 2500 });
    const other = await listedDocument(h, s, { title: "Something else entirely" });
    const b = new Browser(h);
    const all = await b.get("/marketplace/documents");
    expect(all.status).toBe(200);
    expect(all.text).toContain(`href="/marketplace/documents/${d.id}"`);
    expect(all.text).toContain("Routing &lt;fees&gt; explained");
    expect(all.text).toContain("2,500 sats");
    const found = await b.get("/marketplace/documents?q=routing");
    expect(found.text).toContain(d.id);
    expect(found.text).not.toContain(other.id);
  });
});
