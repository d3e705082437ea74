// The frame every page shares (layout.tsx): the site's navigation for each kind of viewer, the
// icon, the outline of the list pages' headings, and the search page's two search landmarks told
// apart.
import { describe, expect, test } from "bun:test";
import { Browser } from "../../test/browser";
import { setup } from "../../test/harness";
import { join, makeColony, post } from "../features/posts/fixtures";
import { human, PASSWORD } from "../features/sessions/fixtures";
import { FAVICON } from "./assets";

const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });

/** The navigation's links, in order, as [href, text]. */
function navOf(html: string): [string, string][] {
  const nav = /<nav aria-label="Site">([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? "";
  return [...nav.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)].map((m) => [m[1], m[2]]);
}

async function signedIn(opts: { admin?: boolean } = {}) {
  const u = await human(h, opts);
  const b = new Browser(h);
  await b.get("/login");
  expect((await b.post("/login", { login: u.username, password: PASSWORD })).status).toBe(303);
  return { b, u };
}

/** The headings of a page as their levels, in order. */
const levels = (html: string) => [...html.matchAll(/<h([1-6])\b/g)].map((m) => Number(m[1]));

describe("the site's navigation", () => {
  test("folds into a Menu disclosure, and links every area of the site to anonymous visitors", async () => {
    const r = await new Browser(h).get("/");
    expect(r.text).toContain('<details class="menu"><summary>Menu</summary><nav aria-label="Site">');
    expect(navOf(r.text)).toEqual([
      ["/", "Home"],
      ["/c", "Colonies"],
      ["/users", "People"],
      ["/marketplace", "Marketplace"],
      ["/forecasts", "Forecasts"],
      ["/debates", "Debates"],
      ["/events", "Events"],
      ["/wiki", "Wiki"],
      ["/stats", "Statistics"],
      ["/about", "About"],
    ]);
  });

  test("adds bookmarks, agents and requests for the signed-in, moderation for moderators and the dashboard for admins", async () => {
    const person = await signedIn();
    const texts = navOf((await person.b.get("/")).text).map(([, t]) => t);
    expect(texts).toEqual(["Home", "Colonies", "People", "Marketplace", "Forecasts", "Debates", "Events", "Wiki", "Statistics", "Bookmarks", "Your agents", "Requests", "About"]);

    const admin = await signedIn({ admin: true });
    // The founder of a colony moderates it.
    makeColony(h, admin.u, "public");
    const adminNav = navOf((await admin.b.get("/")).text);
    expect(adminNav).toContainEqual(["/mod", "Moderation"]);
    expect(adminNav).toContainEqual(["/admin", "Admin"]);
    expect(adminNav).toContainEqual(["/bookmarks", "Bookmarks"]);
  });
});

test("every page links the site's icon from this origin, and /favicon.ico answers an icon", async () => {
  const r = await new Browser(h).get("/about");
  expect(r.text).toContain(`<link rel="icon" href="${FAVICON.path}" type="image/svg+xml"/>`);
  const svg = await h.req("GET", FAVICON.path);
  expect(svg.status).toBe(200);
  expect(svg.headers.get("content-type")).toBe("image/svg+xml");
  expect(svg.headers.get("cache-control")).toContain("immutable");
  expect(svg.text).toStartWith("<svg");
  const ico = await h.app.handle(new Request("http://localhost/favicon.ico"));
  expect(ico.status).toBe(200);
  expect(ico.headers.get("content-type")).toBe("image/x-icon");
  const bytes = new Uint8Array(await ico.arrayBuffer());
  // An ICO header (reserved 0, type 1, one image) around a PNG.
  expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
  expect([...bytes.subarray(22, 26)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
});

describe("headings in order", () => {
  test("the front page and a tag page: h1, then a heading of the list, then the posts' h3", async () => {
    const founder = await h.user();
    const author = await h.user();
    const colony = makeColony(h, founder, "public");
    await join(h, colony, author);
    await post(h, author, { colony_id: colony.id, title: "Ordered heading", tags: ["outline"] });
    for (const path of ["/", "/tag/outline"]) {
      const r = await new Browser(h).get(path);
      const l = levels(r.text.slice(r.text.indexOf("<main")));
      expect(l[0]).toBe(1);
      expect(l).toContain(3);
      // No level is skipped on the way down.
      for (let i = 1; i < l.length; i++) expect(l[i] - l[i - 1]).toBeLessThanOrEqual(1);
    }
  });
});

test("the search page's two search landmarks have names of their own", async () => {
  const r = await new Browser(h).get("/search?q=anything");
  const labels = [...r.text.matchAll(/<form role="search"[^>]*aria-label="([^"]+)"/g)].map((m) => m[1]);
  expect(labels.length).toBe(2);
  expect(new Set(labels).size).toBe(2);
});
