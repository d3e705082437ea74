// The pages' assets (hashed names, a year of caching, gzip, 304) and the anonymous page cache:
// a repeated anonymous read runs no statement until a forum write or its time to live.
import { describe, expect, test } from "bun:test";
import { READ_CACHE_TTL_MS } from "../http/read-cache";
import { setup } from "../../test/harness";
import { comment } from "../features/comments/fixtures";
import { makeColony, post } from "../features/posts/fixtures";
import { SCRIPT, STYLESHEET } from "./assets";

// One harness for the file: the assets need nothing of their own, and each page-cache test reads
// pages nothing else reads.
const h = setup({ rateLimitMultiplier: 0 }, { countQueries: true });

describe("assets", () => {

  test.each([
    ["stylesheet", STYLESHEET, "text/css; charset=utf-8"],
    ["script", SCRIPT, "text/javascript; charset=utf-8"],
  ] as const)("the %s: served under its hash for a year, gzipped on request, 304 when unchanged", async (_, asset, type) => {
    expect(asset.path).toMatch(/^\/assets\/site\.[0-9a-z]+\.(css|js)$/);
    const plain = await h.req("GET", asset.path);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe(type);
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(plain.text).toBe(asset.body);
    const zipped = await h.app.handle(new Request(`http://localhost${asset.path}`, { headers: { "accept-encoding": "gzip" } }));
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("vary")).toBe("accept-encoding, origin");
    const again = await h.req("GET", asset.path, { headers: { "if-none-match": plain.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });

  test("an old or unknown name is 404", async () => {
    for (const path of ["/assets/site.0000.css", "/assets/other.js", "/assets/"]) expect((await h.req("GET", path)).status).toBe(404);
  });

  test("the script only enhances: it reads times and comments already on the page, and loads nothing but a vote or reaction form's own post and a comment link's own page (docs/decisions.md §160)", () => {
    expect(SCRIPT.body).not.toMatch(/XMLHttpRequest|import\(|eval\(|innerHTML/);
    expect([...SCRIPT.body.matchAll(/\bfetch\(/g)]).toHaveLength(2);
    expect(SCRIPT.body).toContain('fetch(action, { method: "POST"');
    expect(SCRIPT.body).toContain('fetch(link.href, { credentials: "same-origin"');
  });
});

describe("the anonymous page cache", () => {

  test("a repeated read runs nothing; a forum write, or the time to live, brings the page up to date", async () => {
    const a = await h.user();
    const colony = makeColony(h, a);
    const p = await post(h, a, { colony_id: colony.id, title: "Cached page" });
    const read = async () => {
      const { result, count } = await h.queries!.during(() => h.req("GET", `/post/${p.id}`));
      return { count, html: result.text };
    };
    const first = await read();
    expect(first.count).toBeGreaterThan(0);
    const second = await read();
    expect(second.count).toBe(0);
    expect(second.html).toBe(first.html);

    await comment(h, a, p.id, { body: "A new comment appears" });
    const third = await read();
    expect(third.count).toBeGreaterThan(0);
    expect(third.html).toContain("A new comment appears");

    // A change that is not a forum write (a display name) shows once the copy expires.
    await h.req("PUT", "/api/v1/users/me", { token: a.token, body: { display_name: "Renamed Author" } });
    expect((await read()).html).not.toContain("Renamed Author");
    h.clock.advance(READ_CACHE_TTL_MS);
    expect((await read()).html).toContain("Renamed Author");
  });

  test("gzip and plain answers are kept apart; error pages are never kept", async () => {
    const zipped = () => h.app.handle(new Request("http://localhost/about", { headers: { "accept-encoding": "gzip" } }));
    const z1 = await zipped();
    expect(z1.headers.get("content-encoding")).toBe("gzip");
    const z2 = await zipped();
    expect(z2.headers.get("content-encoding")).toBe("gzip");
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await z2.arrayBuffer())))).toContain("<h1>About Colony</h1>");
    const plain = await h.req("GET", "/about");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.text).toContain("<h1>About Colony</h1>");
    const { count } = await h.queries!.during(async () => {
      await h.req("GET", "/c/no-such-colony");
      await h.req("GET", "/c/no-such-colony");
    });
    expect(count).toBeGreaterThanOrEqual(2);
  });
});
