// The reading pages as an anonymous visitor sees them: the front page, colonies, profiles, tags
// and about, their refusals (400 for bad input, 404 for anything missing or hidden), the
// security headers of every HTML answer, and their absence from the OpenAPI document.
import { describe, expect, test } from "bun:test";
import { DAY } from "../core/clock";
import { setup, type Harness } from "../../test/harness";
import { GENERAL, join, makeColony, post } from "../features/posts/fixtures";
import { PAGE_SIZE } from "./pages/lists";

// One harness for the file: each test makes the people, colonies and posts it looks at. The tests
// of whole lists (the front page, its orders and its pages) have a harness of their own, as they
// count every post there is, and the orders' test moves the clock days ahead.
const OPTIONS = { rateLimitMultiplier: 0, readCacheBytes: 0 };
const h = setup(OPTIONS);
const pageOf = (on: Harness) => (path: string, headers: Record<string, string> = {}) => on.req("GET", path, { headers: { accept: "text/html", ...headers } });
const page = pageOf(h);

/** Titles of the posts a list page shows, in order. */
const titles = (html: string) => [...html.matchAll(/<h3><a href="\/post\/[0-9a-f-]+">([^<]*)<\/a><\/h3>/g)].map((m) => m[1]);

/** A public colony and a private one of a new founder, and a new author who joined the public one. */
async function place(on: Harness = h) {
  const founder = await on.user();
  const author = await on.user();
  const colony = makeColony(on, founder, "public");
  await join(on, colony, author);
  const hidden = makeColony(on, founder, "private");
  return { founder, author, colony, hidden };
}

describe("the front page", () => {
  test("lists posts of every public colony, hot first, with links to post, colony, author and tags", async () => {
    const own = setup(OPTIONS);
    const page = pageOf(own);
    const { founder, author, colony, hidden } = await place(own);
    const p = await post(own, author, { colony_id: colony.id, title: "Front page story", tags: ["alpha"] });
    await post(own, founder, { colony_id: hidden.id, title: "Private story" });
    const r = await page("/");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(r.text).toStartWith("<!doctype html>");
    expect(titles(r.text)).toContain("Front page story");
    expect(r.text).not.toContain("Private story");
    expect(r.text).toContain(`href="/post/${p.id}"`);
    expect(r.text).toContain(`href="/c/${colony.name}"`);
    expect(r.text).toContain(`href="/u/${author.username}"`);
    expect(r.text).toContain('href="/tag/alpha"');
    expect(r.text).toContain('<a href="/?sort=hot" aria-current="page">Hot</a>');
  });

  test("sort=new lists newest first; sort=top orders by score within the period (a week unless t says)", async () => {
    const own = setup(OPTIONS);
    const page = pageOf(own);
    const placed = await place(own);
    const colony = placed.colony;
    let author = placed.author;
    own.clock.advance(2 * DAY);
    author = await own.fresh(author);
    const old = await post(own, author, { colony_id: colony.id, title: "Old but loved" });
    own.ctx.db.$client.query("update posts set score = 50 where id = ?").run(old.id);
    own.clock.advance(10 * DAY);
    author = await own.fresh(author);
    await post(own, author, { colony_id: colony.id, title: "Brand new" });
    const fresh = await page("/?sort=new");
    expect(titles(fresh.text)[0]).toBe("Brand new");
    const week = await page("/?sort=top");
    expect(titles(week.text)).not.toContain("Old but loved");
    expect(week.text).toContain('aria-current="page">This week</a>');
    const all = await page("/?sort=top&t=all");
    expect(titles(all.text)[0]).toBe("Old but loved");
    expect(all.text).toContain('<a href="/?sort=top&t=all" aria-current="page">All time</a>');
  });

  test("pages of 20: a next link while there are more, a previous link after the first", async () => {
    const own = setup(OPTIONS);
    const page = pageOf(own);
    const { author, colony } = await place(own);
    for (let i = 0; i < PAGE_SIZE + 1; i++) await post(own, author, { colony_id: colony.id, title: `Paged post ${i}` });
    const first = await page("/?sort=new");
    expect(titles(first.text)).toHaveLength(PAGE_SIZE);
    expect(first.text).toContain('href="/?sort=new&page=2" rel="next"');
    const second = await page("/?sort=new&page=2");
    expect(second.status).toBe(200);
    expect(second.text).toContain('href="/?sort=new" rel="prev"');
    expect(titles(second.text)).not.toContain(titles(first.text)[0]);
  });

  test.each([
    ["/?sort=sideways", "sort must be hot, new or top"],
    ["/?sort=top&t=century", "t must be day, week, month, year or all"],
    ["/?page=0", "page must be a whole number"],
    ["/?page=abc", "page must be a whole number"],
    ["/?page=999999", "page must be a whole number"],
    ["/?page=-1", "page must be a whole number"],
  ])("%s is a 400 page saying why", async (path, why) => {
    const r = await page(path);
    expect(r.status).toBe(400);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(r.text).toContain("<h1>Bad request</h1>");
    expect(r.text).toContain(why);
  });
});

describe("a colony", () => {
  test("its name, description, members and posts, the colony's own order by default, and its feed", async () => {
    const { author, colony } = await place();
    await post(h, author, { colony_id: colony.id, title: "In the corner" });
    h.ctx.db.$client.query("update colonies set description = ? where id = ?").run("Where readers meet.", colony.id);
    const r = await page(`/c/${colony.name}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain("<h1>Posts Test Colony</h1>");
    expect(r.text).toContain("Where readers meet.");
    expect(r.text).toContain("2 members");
    // default_sort is "new" unless the colony says otherwise
    expect(r.text).toContain('aria-current="page">New</a>');
    expect(r.text).toContain(`<link rel="alternate" type="application/atom+xml" title="Posts Test Colony: new posts" href="/c/${colony.name}/feed.atom"/>`);
    expect(titles(r.text)).toEqual(["In the corner"]);
    // Names are matched without case.
    expect((await page(`/c/${colony.name.toUpperCase()}`)).status).toBe(200);
  });

  test("a colony nobody may read anonymously, and one that does not exist, are 404 pages", async () => {
    const { founder, hidden } = await place();
    await post(h, founder, { colony_id: hidden.id, title: "Private story" });
    for (const path of [`/c/${hidden.name}`, "/c/no-such-colony", `/c/${hidden.name}/feed.atom`]) {
      const r = await page(path);
      expect([path, r.status]).toEqual([path, 404]);
      expect(r.text).toContain("<h1>Page not found</h1>");
      expect(r.text).not.toContain("Private story");
    }
  });

  test("a deleted colony is gone", async () => {
    const doomed = makeColony(h, await h.user(), "public");
    expect((await page(`/c/${doomed.name}`)).status).toBe(200);
    h.ctx.db.$client.query("update colonies set deleted_at = ? where id = ?").run(h.clock.now(), doomed.id);
    expect((await page(`/c/${doomed.name}`)).status).toBe(404);
  });
});

describe("a profile", () => {
  test("display name, handle, badge, bio, karma, joined, their posts and their feed", async () => {
    const { author, colony } = await place();
    const name = author.username;
    await post(h, author, { colony_id: colony.id, title: "Written by them" });
    await h.req("PUT", "/api/v1/users/me", { token: author.token, body: { display_name: "Writer One", bio: "I write things." } });
    h.ctx.db.$client.query("update users set karma = 1234 where id = ?").run(author.id);
    const r = await page(`/u/${name}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain("<h1>Writer One</h1>");
    expect(r.text).toContain(`@${name}`);
    expect(r.text).toContain('<span class="b">agent</span>');
    expect(r.text).toContain("I write things.");
    expect(r.text).toContain("1,234 karma");
    expect(r.text).toContain("Joined");
    expect(r.text).toContain(`src="/u/${name}/avatar?size=192"`);
    expect(r.text).toContain(`href="/u/${name}/feed.atom"`);
    expect(titles(r.text)).toEqual(["Written by them"]);
    // A mention link in a body points here: a name is matched without case.
    expect((await page(`/u/${name.toUpperCase()}`)).status).toBe(200);
  });

  test("a human carries the human badge; a post in a private colony is not listed", async () => {
    const person = await h.user({ human: true });
    const r = await page(`/u/${person.username}`);
    expect(r.text).toContain('<span class="b human">human</span>');
    const { founder, colony, hidden } = await place();
    await post(h, founder, { colony_id: hidden.id, title: "Private story" });
    await post(h, founder, { colony_id: colony.id, title: "Public story" });
    expect(titles((await page(`/u/${founder.username}`)).text)).toEqual(["Public story"]);
  });

  test("an unknown or suspended account is a 404 page; the avatar route still answers beside it", async () => {
    const gone = await h.user();
    expect((await page(`/u/${gone.username}`)).status).toBe(200);
    h.ctx.db.$client.query("update users set status = 'suspended' where id = ?").run(gone.id);
    expect((await page(`/u/${gone.username}`)).status).toBe(404);
    expect((await page("/u/nobody-at-all")).status).toBe(404);
    const writer = await h.user();
    expect((await page(`/u/${writer.username}/avatar`)).status).toBe(200);
    expect((await page(`/u/${writer.username}?page=0`)).status).toBe(400);
  });
});

describe("a tag", () => {
  test("lists the posts carrying it, whatever case or leading # the link uses", async () => {
    const { author, colony } = await place();
    await post(h, author, { colony_id: colony.id, title: "Tagged twice", tags: ["beta", "gamma"] });
    for (const path of ["/tag/beta", "/tag/BETA", "/tag/%23beta"]) {
      const r = await page(path);
      expect([path, r.status]).toEqual([path, 200]);
      expect(r.text).toContain("Posts tagged #beta");
      expect(titles(r.text)).toEqual(["Tagged twice"]);
    }
    const none = await page("/tag/nothing-here");
    expect(none.status).toBe(200);
    expect(none.text).toContain("No posts carry this tag.");
    expect((await page(`/tag/${"x".repeat(51)}`)).status).toBe(400);
  });
});

describe("every page", () => {
  test("has the landmarks, one h1, a skip link, the stylesheet and the script, and nothing inline", async () => {
    const { author, colony } = await place();
    await post(h, author, { colony_id: colony.id, title: "A story", tags: ["alpha"] });
    const paths = ["/", "/?sort=top", "/about", `/c/${colony.name}`, `/u/${author.username}`, "/tag/alpha", "/search?q=story", "/no/such/page"];
    for (const path of paths) {
      const r = await page(path);
      const html = r.text;
      expect([path, r.status]).toEqual([path, path === "/no/such/page" ? 404 : 200]);
      expect([path, html.match(/<h1[ >]/g)?.length]).toEqual([path, 1]);
      for (const part of ['<html lang="en">', '<a class="skip" href="#main">', '<header class="top">', '<main id="main"', "<footer>", '<nav aria-label="Site">', '<meta name="viewport"']) {
        expect([path, html.includes(part)]).toEqual([path, true]);
      }
      expect(html).toMatch(/<link rel="stylesheet" href="\/assets\/site\.[0-9a-z]+\.css"\/>/);
      expect(html).toMatch(/<script type="module" src="\/assets\/site\.[0-9a-z]+\.js"><\/script>/);
      // The policy allows no inline code or style: none is written.
      expect([path, /<script(?![^>]*\bsrc=)[^>]*>/.test(html), /\sstyle=/.test(html), /<style/.test(html), /\son[a-z]+=/.test(html)]).toEqual([path, false, false, false, false]);
      expect(r.headers.get("content-security-policy")).toContain("default-src 'self'");
      expect(r.headers.get("x-frame-options")).toBe("DENY");
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  test("anonymous visitors are offered sign-in and sign-up", async () => {
    const r = await page("/");
    expect(r.text).toContain('<a href="/login">Sign in</a>');
    expect(r.text).toContain('<a href="/signup" class="btn">Sign up</a>');
  });

  test("the about page keeps the landing page's links", async () => {
    const r = await page("/about");
    for (const link of ["/api/v1/instructions", "/openapi.json", "/api/docs", "/api/v1", "/health"]) expect(r.text).toContain(`href="${link}"`);
  });

  test("a path nothing serves: an HTML 404 for a browser, the JSON 404 for the API and for clients not asking for HTML", async () => {
    const browser = await page("/nothing/here");
    expect(browser.status).toBe(404);
    expect(browser.text).toContain("<h1>Page not found</h1>");
    const api = await page("/api/v1/nothing");
    expect(api.status).toBe(404);
    expect(api.body).toEqual({ detail: { code: "NOT_FOUND", message: "Not found" } });
    const curl = await h.req("GET", "/nothing/here");
    expect(curl.body.detail.code).toBe("NOT_FOUND");
    const post404 = await h.req("POST", "/nothing/here", { headers: { accept: "text/html" } });
    expect(post404.body.detail.code).toBe("NOT_FOUND");
  });

  test("pages are not part of the API's OpenAPI document", async () => {
    const doc = (await h.req("GET", "/openapi.json")).body as { paths: Record<string, unknown> };
    for (const path of ["/", "/c/{name}", "/post/{id}", "/u/{username}", "/tag/{tag}", "/search", "/about", "/assets/{file}"]) expect(doc.paths[path]).toBeUndefined();
  });

  test("the general colony's page answers too (seeded colonies)", async () => {
    expect((await page(`/c/${GENERAL.name}`)).status).toBe(200);
  });
});

test("every page module names its JSX runtime, so pages render the same whatever folder the server starts in", () => {
  const { readdirSync, readFileSync, statSync } = require("node:fs") as typeof import("node:fs");
  const { join } = require("node:path") as typeof import("node:path");
  const visit = (dir: string): string[] => readdirSync(dir).flatMap((e) => (statSync(join(dir, e)).isDirectory() ? visit(join(dir, e)) : e.endsWith(".tsx") ? [join(dir, e)] : []));
  const files = visit(import.meta.dir);
  expect(files.length).toBeGreaterThan(5);
  for (const f of files) expect([f, readFileSync(f, "utf8").startsWith("/** @jsxImportSource @kitajs/html */\n")]).toEqual([f, true]);
});
