// /search?q=: posts (ranked, with highlighted snippets), people, colonies and wiki pages, paging, the
// refusals (400) and the search budget anonymous readers share with GET /api/v1/search.
import { describe, expect, test } from "bun:test";
import { setup } from "../../test/harness";
import { makeColony, post } from "../features/posts/fixtures";
import { SEARCH_PAGE_SIZE } from "./pages/search";

describe("the search page", () => {
  const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });
  const page = (q: string, extra = "") => h.req("GET", `/search?q=${encodeURIComponent(q)}${extra}`, { headers: { accept: "text/html" } });

  test("finds posts with highlighted snippets, people and colonies", async () => {
    const a = await h.user({ username: "zebra-keeper" });
    const c = makeColony(h, a, "public", "zebra-watchers");
    const hidden = makeColony(h, a, "private", "zebra-secrets");
    await post(h, a, { colony_id: c.id, title: "Stripes explained", body: "Why the zebra has stripes is an old question." });
    await post(h, a, { colony_id: hidden.id, title: "Secret zebra notes", body: "The zebra in the back room." });
    const r = await page("zebra");
    expect(r.status).toBe(200);
    expect(r.text).toContain("Results for “zebra”");
    expect(r.text).toContain('<meta name="robots" content="noindex"/>');
    expect(r.text).toContain("Stripes explained");
    expect(r.text).toContain("<mark>zebra</mark>");
    expect(r.text).not.toContain("Secret zebra notes");
    expect(r.text).toContain('<a href="/u/zebra-keeper">zebra-keeper</a>');
    expect(r.text).toContain('<a href="/c/zebra-watchers">Posts Test Colony</a>');
    expect(r.text).not.toContain('href="/c/zebra-secrets"');
    expect(r.text).toContain("Posts (1)");
  });

  test("finds wiki pages: the site wiki's and readable colonies', linked to their pages on the web; a private colony's stay hidden", async () => {
    const a = await h.user({ karma: 50 });
    const open = makeColony(h, a, "public", "okapi-watchers");
    const hidden = makeColony(h, a, "private", "okapi-secrets");
    const wiki = (colony: string | undefined, slug: string, title: string) =>
      h.req("POST", "/api/v1/wiki", { token: a.token, body: { title, slug, content: `All about the okapi: ${title.toLowerCase()}.`, ...(colony ? { colony } : {}) } });
    for (const r of [await wiki(undefined, "okapi-basics", "Okapi basics"), await wiki(open.name, "okapi-sightings", "Okapi sightings"), await wiki(hidden.name, "okapi-hideouts", "Okapi hideouts")]) expect(r.status).toBe(201);
    const r = await page("okapi");
    expect(r.text).toContain('<h2 id="found-wiki">Wiki pages</h2>');
    expect(r.text).toContain('<a href="/wiki/okapi-basics">Okapi basics</a> <span class="meta">in the site wiki</span>');
    expect(r.text).toContain('<a href="/c/okapi-watchers/wiki/okapi-sightings">Okapi sightings</a> <span class="meta">in the wiki of okapi-watchers</span>');
    expect(r.text).toContain('<p class="meta">All about the okapi: okapi sightings.</p>');
    expect(r.text).not.toContain("Okapi hideouts");
  });

  test("pages through many results", async () => {
    const a = await h.user();
    const c = makeColony(h, a);
    for (let i = 0; i < SEARCH_PAGE_SIZE + 2; i++) await post(h, a, { colony_id: c.id, title: `Quokka report ${i}`, body: "A quokka was seen." });
    const first = await page("quokka");
    expect(first.text).toContain(`Posts (${SEARCH_PAGE_SIZE + 2})`);
    expect(first.text).toContain('href="/search?q=quokka&page=2" rel="next"');
    const second = await page("quokka", "&page=2");
    expect(second.text.match(/<li><h3>/g)?.length).toBe(2);
  });

  test("no query or one character: the form and a hint; too long or a bad page: 400", async () => {
    const empty = await h.req("GET", "/search");
    expect(empty.status).toBe(200);
    expect(empty.text).toContain("Search posts, people, colonies and wiki pages.");
    expect((await page("a")).text).toContain("Type at least two characters.");
    expect((await page("x".repeat(201))).status).toBe(400);
    expect((await page("zebra", "&page=nope")).status).toBe(400);
    // Over the search service's own caps (docs/decisions.md §23): its 400, as a page.
    const words = Array.from({ length: 17 }, (_, i) => `word${i}`).join(" ");
    const tooMany = await page(words);
    expect(tooMany.status).toBe(400);
    expect(tooMany.text).toContain("<h1>Bad request</h1>");
  });
});

describe("the search budget", () => {
  const h = setup();

  test("anonymous searches from one address share GET /api/v1/search's budget: 429 with Retry-After once it is spent", async () => {
    let last = await h.req("GET", "/search?q=anything");
    let n = 1;
    while (last.status === 200 && n < 100) {
      last = await h.req("GET", "/search?q=anything");
      n++;
    }
    expect(last.status).toBe(429);
    expect(n).toBeGreaterThan(1);
    expect(last.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(last.headers.get("content-type")).toContain("text/html");
    expect(last.text).toContain("<h1>Too many requests</h1>");
    expect((await h.req("GET", "/api/v1/search?q=anything")).status).toBe(429);
    // The form alone costs nothing.
    expect((await h.req("GET", "/search")).status).toBe(200);
  });
});
