// What keeps GET /api/v1/search from starving the instance: caps on the words and prefix terms of a
// query (checked before anything is read) and the per-caller rate limits `search` (per account)
// and `search_ip` (per client address, callers without an account).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MINUTE } from "../../core/clock";
import { limitRule } from "../../core/limits";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { post } from "../posts/fixtures";
import { MAX_PREFIX_WORDS } from "../posts/search";
import { MAX_QUERY_PREFIX_TERMS, MAX_QUERY_TERMS, MAX_SEARCHES_PER_CALLER } from "./service";

let h: Harness;
let alice: TestUser;
let bob: TestUser;
/** Batches sent to the reader threads (every full-text read of a search is one). */
let batches = 0;

beforeAll(async () => {
  // Client addresses from X-Forwarded-For, so that tests can be several anonymous callers.
  h = setup({ trustProxy: true });
  const all = h.ctx.reads.all.bind(h.ctx.reads);
  h.ctx.reads.all = (batch) => (batches++, all(batch));
  alice = await h.user();
  bob = await h.user();
  await post(h, alice, { title: "Zebra crossing", body: "Stripes and more stripes." });
});
afterAll(() => h.close());

const words = (n: number, prefix = 0) => Array.from({ length: n }, (_, i) => `w${i.toString(36)}x${i < prefix ? "*" : ""}`).join(" ");
const search = (q: string, opts: { token?: string; ip?: string } = {}) =>
  h.req("GET", "/api/v1/search", { query: { q }, token: opts.token, headers: opts.ip ? { "x-forwarded-for": opts.ip } : {} });

describe("query caps", () => {
  test(`more than ${MAX_QUERY_TERMS} words is 400 INVALID_INPUT, and nothing is read`, async () => {
    expect(MAX_QUERY_TERMS).toBe(16);
    const before = batches;
    for (const q of [words(MAX_QUERY_TERMS + 1), `"${words(MAX_QUERY_TERMS + 1)}"`, `zebra ${words(8)} "${words(9)}"`]) {
      const r = await search(q, { token: alice.token });
      expect(r.status).toBe(400);
      expect(r.body.detail.code).toBe("INVALID_INPUT");
      expect(r.body.detail.message).toContain(`at most ${MAX_QUERY_TERMS} words`);
    }
    expect(batches).toBe(before);
  });

  test(`more than ${MAX_QUERY_PREFIX_TERMS} prefix terms is 400 INVALID_INPUT, and nothing is read`, async () => {
    expect(MAX_QUERY_PREFIX_TERMS).toBe(3);
    const before = batches;
    for (const q of ["a* b* c* d*", "s* t* zebra-cro* x*", words(6, 4)]) {
      const r = await search(q, { token: alice.token });
      expect(r.status).toBe(400);
      expect(r.body.detail).toEqual({ code: "INVALID_INPUT", message: expect.stringContaining(`at most ${MAX_QUERY_PREFIX_TERMS} prefix terms`) });
    }
    expect(batches).toBe(before);
  });

  test(`a prefix term reaching more than ${MAX_PREFIX_WORDS} indexed words is 400 INVALID_INPUT, and nothing is read; a longer prefix is searched`, async () => {
    // 60 distinct words starting with "qu" (quaa … quch), two of them with "quaa".
    const many = Array.from({ length: 60 }, (_, i) => `qu${String.fromCharCode(97 + Math.floor(i / 26))}${String.fromCharCode(97 + (i % 26))}x`);
    // By an author of its own: the file's other tests post as alice, up to her hourly limit.
    await post(h, await h.user(), { title: "Many prefixed words", body: many.join(" ") });
    const before = batches;
    for (const q of ["qu*", "zebra qu*", '"many prefixed" qu*']) {
      const r = await search(q, { token: alice.token });
      expect(r.status).toBe(400);
      expect(r.body.detail).toEqual({ code: "INVALID_INPUT", message: `The prefix term qu* matches more than ${MAX_PREFIX_WORDS} words; make it longer or use whole words` });
    }
    expect(batches).toBe(before);
    const longer = await search("quaa*", { token: alice.token });
    expect(longer.status).toBe(200);
    expect(longer.body.total).toBe(1);
  });

  test(`at most ${MAX_SEARCHES_PER_CALLER} searches of one caller run at once: a further one is 429 with Retry-After; another caller is not held up`, async () => {
    const all = h.ctx.reads.all;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    h.ctx.reads.all = async (batch) => (await held, all(batch));
    try {
      const running = [search("zebra", { token: alice.token }), search("stripes", { token: alice.token })];
      await Bun.sleep(0);
      const third = await search("zebra crossing", { token: alice.token });
      expect(third.status).toBe(429);
      expect(third.body.detail.code).toBe("RATE_LIMIT_SEARCH");
      expect(third.headers.get("retry-after")).toBe("1");
      const other = search("zebra", { token: (await h.user()).token });
      release();
      expect((await Promise.all([...running, other])).map((r) => r.status)).toEqual([200, 200, 200]);
    } finally {
      h.ctx.reads.all = all;
    }
    expect((await search("zebra", { token: alice.token })).status).toBe(200);
  });

  test("the caps themselves are accepted; a repeated term counts once", async () => {
    for (const q of [words(MAX_QUERY_TERMS), words(MAX_QUERY_TERMS, MAX_QUERY_PREFIX_TERMS), "zeb* zeb* zeb* zeb* zebra", Array(30).fill("zebra").join(" ")]) {
      expect((await search(q, { token: alice.token })).status).toBe(200);
    }
    expect((await search(Array(30).fill("zebra").join(" "), { token: alice.token })).body.total).toBe(1);
  });

  test("GET /posts?q= keeps the same caps", async () => {
    const r = await h.req("GET", "/api/v1/posts", { query: { q: "a* b* c* d*" } });
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
  });
});

describe("rate limits", () => {
  test("per account: 60 a minute, then 429 RATE_LIMIT_SEARCH with Retry-After; a refused query costs nothing", async () => {
    h.ctx.limits.reset();
    const rule = limitRule("search");
    expect(rule).toMatchObject({ windowMs: MINUTE, max: 60, scope: "user" });
    // A query over the caps is refused before it is charged.
    expect((await search(words(20), { token: bob.token })).status).toBe(400);
    for (let i = 0; i < 60; i++) {
      const r = await search("zebra", { token: bob.token, ip: "192.0.2.10" });
      expect(r.status).toBe(200);
      h.clock.advance(500);
    }
    const r = await search("zebra", { token: bob.token, ip: "192.0.2.10" });
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_SEARCH");
    const retry = Number(r.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
    expect(r.body.detail.retry_after).toBe(retry);
    // Another account is not limited by bob's searches, nor is bob by an anonymous bucket of his address.
    expect((await search("zebra", { token: alice.token, ip: "192.0.2.10" })).status).toBe(200);
    h.clock.advance(retry * 1000);
    expect((await search("zebra", { token: bob.token })).status).toBe(200);
  });

  test("without an account, per client address: 30 a minute, then 429 RATE_LIMIT_SEARCH_IP with Retry-After", async () => {
    h.ctx.limits.reset();
    expect(limitRule("search_ip")).toMatchObject({ windowMs: MINUTE, max: 30, scope: "ip", anonymousOnly: true });
    for (let i = 0; i < 30; i++) expect((await search("zebra", { ip: "198.51.100.7" })).status).toBe(200);
    const r = await search("zebra", { ip: "198.51.100.7" });
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_SEARCH_IP");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another address, and an account at the same address, still search.
    expect((await search("zebra", { ip: "198.51.100.8" })).status).toBe(200);
    expect((await search("zebra", { ip: "198.51.100.7", token: alice.token })).status).toBe(200);
  });

  test("GET /limits/me lists search with its window, ceiling and use", async () => {
    h.ctx.limits.reset();
    await search("zebra", { token: alice.token });
    const r = await h.req("GET", "/api/v1/limits/me", { token: alice.token });
    expect(r.status).toBe(200);
    const item = r.body.limits.find((l: any) => l.action === "search");
    expect(item).toEqual({ action: "search", description: expect.any(String), window_seconds: 60, max: 60, current: 1, remaining: 59, blocked: false, retry_after: null });
    // The anonymous bucket is not an account's limit.
    expect(r.body.limits.find((l: any) => l.action === "search_ip")).toBeUndefined();
  });
});

describe("a broad term is ranked over its newest matches (docs/decisions.md §131)", () => {
  test("the ranking scores the newest RANK_WINDOW matches: an older, better match is left out; with fewer matches than the window, all are ranked", async () => {
    const { rankingRead, countRead, indexPending, matchCount, RANK_WINDOW } = await import("../posts/search");
    expect(RANK_WINDOW).toBe(2000);
    // The oldest post matches best (the word in its title); eight newer ones in the body only.
    const best = await post(h, alice, { title: "Quokka quokka", body: "The quokka, again: quokka." });
    for (let i = 0; i < 8; i++) await post(h, alice, { title: `Note ${i}`, body: `A note that mentions a quokka once (${i}).` });
    indexPending(h.ctx);
    const ranked = async (window: number) => {
      const [rows] = await h.ctx.reads.all([rankingRead(h.ctx, '("quokka")', "relevance", 1000, 20, 0, window)!]);
      return rows.map((r) => r.rid as number);
    };
    const rowidOf = (id: string) => (h.ctx.db.$client.query("select rowid as r from posts where id = ?").get(id) as { r: number }).r;
    const all = await ranked(RANK_WINDOW);
    expect(all).toHaveLength(9);
    expect(all[0]).toBe(rowidOf(best.id));
    const newest = await ranked(5);
    expect(newest).toHaveLength(5);
    expect(newest).not.toContain(rowidOf(best.id));
    // The count stops past the cap.
    const [count] = await h.ctx.reads.all([countRead(h.ctx, '("quokka")', 3)]);
    expect([count[0].n, matchCount(count, 3)]).toEqual([4, 3]);
  });
});
