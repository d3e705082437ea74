// Anonymous reads of the post list and the post context are served from a short-lived cache
// that any write invalidates.
import { describe, expect, test } from "bun:test";
import { setup } from "../../test/harness";
import { TestClock } from "../core/clock";
import { GENERAL, QUESTIONS, post } from "../features/posts/fixtures";
import { ReadCache, readCacheOf, requestKey } from "./read-cache";

describe("read cache", () => {
  test("a repeat anonymous read answers the same JSON, and a write or 15 s make it fresh", async () => {
    const h = setup({ rateLimitMultiplier: 0 });
    const author = await h.user();
    const p1 = await post(h, author, { colony_id: GENERAL.id });

    const first = await h.req("GET", "/api/v1/posts?sort=hot");
    const second = await h.req("GET", "/api/v1/posts?sort=hot");
    expect(first.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers.get("content-type")).toContain("application/json");

    // A row changed behind the app's back is not seen while the entry is fresh...
    h.ctx.db.$client.query("update posts set title = 'changed behind the back' where id = ?").run(p1.id);
    expect((await h.req("GET", "/api/v1/posts?sort=hot")).body.items[0].title).toBe(p1.title);
    // ...each caller has its own entry (a first authenticated read runs)...
    expect((await h.req("GET", "/api/v1/posts?sort=hot", { token: author.token })).body.items[0].title).toBe("changed behind the back");
    // ...and after 15 seconds the anonymous read runs again.
    h.clock.advance(15_001);
    expect((await h.req("GET", "/api/v1/posts?sort=hot")).body.items[0].title).toBe("changed behind the back");

    // Any write (here a new post) drops cached answers at once.
    const before = await h.req("GET", "/api/v1/posts?sort=newest");
    const p2 = await post(h, author, { colony_id: GENERAL.id });
    const after = await h.req("GET", "/api/v1/posts?sort=newest");
    expect(before.body.items.map((x: any) => x.id)).not.toContain(p2.id);
    expect(after.body.items[0].id).toBe(p2.id);
  });

  test("the context pack: cached for anonymous readers, fresh after a comment", async () => {
    const h = setup({ rateLimitMultiplier: 0 });
    const author = await h.user();
    const p = await post(h, author, { colony_id: GENERAL.id });
    const a = await h.req("GET", `/api/v1/posts/${p.id}/context`);
    expect((await h.req("GET", `/api/v1/posts/${p.id}/context`)).text).toBe(a.text);
    const c = await h.req("POST", `/api/v1/posts/${p.id}/comments`, { token: author.token, body: { body: "first" } });
    expect(c.status).toBe(201);
    const b = await h.req("GET", `/api/v1/posts/${p.id}/context`);
    expect(b.body.comment_count).toBe(a.body.comment_count + 1);
  });

  test("per caller: your_vote is never another account's, and a vote refreshes it", async () => {
    const h = setup({ rateLimitMultiplier: 0 });
    const author = await h.user();
    const voter = await h.user();
    const other = await h.user();
    const p = await post(h, author, { colony_id: GENERAL.id });
    expect((await h.req("GET", `/api/v1/posts/${p.id}/context`, { token: voter.token })).body.your_vote).toBeNull();
    expect((await h.req("POST", `/api/v1/posts/${p.id}/vote`, { token: voter.token, body: { value: 1 } })).status).toBe(200);
    expect((await h.req("GET", `/api/v1/posts/${p.id}/context`, { token: voter.token })).body.your_vote).toBe(1);
    expect((await h.req("GET", `/api/v1/posts/${p.id}/context`, { token: other.token })).body.your_vote).toBeNull();
    expect((await h.req("GET", `/api/v1/posts/${p.id}/context`, { token: voter.token })).body.your_vote).toBe(1);
  });

  test("a bad token is still a 401 on a cached route", async () => {
    const h = setup();
    expect((await h.req("GET", "/api/v1/posts")).status).toBe(200);
    const r = await h.req("GET", "/api/v1/posts", { token: "not.a.jwt" });
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("errors are not cached", async () => {
    const h = setup();
    const missing = "0190a0b0-0000-7000-8000-00000000dead";
    expect((await h.req("GET", `/api/v1/posts/${missing}/context`)).status).toBe(404);
    expect((await h.req("GET", `/api/v1/posts/${missing}/context`)).status).toBe(404);
  });
});

describe("read cache bounds", () => {
  const bytes = (n: number) => new Uint8Array(n);

  test("holds no more than its budget: the least recently used answers leave first", () => {
    const cache = new ReadCache(10_000, new TestClock());
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, bytes(1000), [], "0");
    expect(cache.bytes).toBeLessThanOrEqual(10_000);
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.get("k0", () => "0")).toBeUndefined();
    expect(cache.get("k99", () => "0")).toBeDefined();
    // A read refreshes an entry: k99 survives the next insertions, the older ones do not.
    for (let i = 100; i < 109; i++) {
      cache.get("k99", () => "0");
      cache.set(`k${i}`, bytes(1000), [], "0");
    }
    expect(cache.get("k99", () => "0")).toBeDefined();
    expect(cache.get("k98", () => "0")).toBeUndefined();
  });

  test("an answer over an eighth of the budget is not kept; a replaced entry is counted once", () => {
    const cache = new ReadCache(8_000, new TestClock());
    cache.set("big", bytes(1_500), [], "0");
    expect(cache.size).toBe(0);
    cache.set("k", bytes(500), [], "0");
    const used = cache.bytes;
    cache.set("k", bytes(500), [], "0");
    expect(cache.bytes).toBe(used);
  });

  test("expired and outdated entries are swept without being asked for", () => {
    const clock = new TestClock();
    const cache = new ReadCache(1_000_000, clock);
    cache.set("a", bytes(100), [], "1");
    cache.set("b", bytes(100), [], "2");
    expect(cache.sweep(() => "2")).toBe(1); // a was written before the last write
    clock.advance(15_000);
    expect(cache.sweep(() => "2")).toBe(1);
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
  });

  test("the key is the route, its parameters and its query, in any order", () => {
    expect(requestKey("/api/v1/posts", {}, { sort: "hot", limit: 10 })).toBe(requestKey("/api/v1/posts", {}, { limit: 10, sort: "hot" }));
    expect(requestKey("/api/v1/posts/:id/context", { id: "a" }, {})).not.toBe(requestKey("/api/v1/posts/:id/context", { id: "b" }, {}));
  });

  test("a flood of unique URLs with an undeclared parameter reuses one entry and stays within the budget", async () => {
    const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 256 * 1024 });
    const author = await h.user();
    for (let i = 0; i < 5; i++) await post(h, author, { colony_id: GENERAL.id });
    const cache = readCacheOf(h.ctx);
    const first = await h.req("GET", "/api/v1/posts?sort=hot&limit=100&x=0");
    for (let i = 1; i < 300; i++) {
      const r = await h.req("GET", `/api/v1/posts?sort=hot&limit=100&x=${i}`);
      expect(r.text).toBe(first.text);
    }
    expect(cache.size).toBe(1);
    // Declared parameters do make new entries, but never past the budget.
    for (let i = 1; i <= 100; i++) await h.req("GET", `/api/v1/posts?sort=hot&limit=${i}`);
    expect(cache.size).toBeGreaterThan(1);
    expect(cache.bytes).toBeLessThanOrEqual(256 * 1024);
  });

  test("a zero budget turns the cache off", async () => {
    const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });
    const author = await h.user();
    const p1 = await post(h, author, { colony_id: GENERAL.id });
    await h.req("GET", "/api/v1/posts");
    h.ctx.db.$client.query("update posts set title = 'changed behind the back' where id = ?").run(p1.id);
    expect((await h.req("GET", "/api/v1/posts")).body.items[0].title).toBe("changed behind the back");
    expect(readCacheOf(h.ctx).size).toBe(0);
  });
});

describe("read cache scopes", () => {
  test("a write outside the forum (a direct message) leaves cached post lists in place", async () => {
    const h = setup({ rateLimitMultiplier: 0 });
    const author = await h.user();
    const other = await h.user();
    const p1 = await post(h, author, { colony_id: GENERAL.id });
    const first = await h.req("GET", "/api/v1/posts?sort=newest");
    h.ctx.db.$client.query("update posts set title = 'changed behind the back' where id = ?").run(p1.id);
    expect((await h.req("POST", `/api/v1/messages/send/${other.username}`, { token: author.token, body: { body: "hello" } })).status).toBe(201);
    expect((await h.req("GET", "/api/v1/posts?sort=newest")).text).toBe(first.text);
    // A forum write does drop it.
    await post(h, author, { colony_id: GENERAL.id });
    expect((await h.req("GET", "/api/v1/posts?sort=newest")).body.items[1].title).toBe("changed behind the back");
  });

  test("a colony's list keeps its entry through writes in other colonies, not through its own", async () => {
    const h = setup({ rateLimitMultiplier: 0 });
    const author = await h.user();
    const inGeneral = await post(h, author, { colony_id: GENERAL.id });
    const path = `/api/v1/posts?colony_id=${GENERAL.id}&sort=newest`;
    const first = await h.req("GET", path);
    h.ctx.db.$client.query("update posts set title = 'changed behind the back' where id = ?").run(inGeneral.id);
    await post(h, author, { colony_id: QUESTIONS.id });
    expect((await h.req("GET", path)).text).toBe(first.text);
    // The unfiltered list is not narrowed: the post elsewhere refreshes it.
    expect((await h.req("GET", "/api/v1/posts?sort=newest")).body.items.map((x: any) => x.title)).toContain("changed behind the back");
    // A vote does not say its colony: every colony's list is refreshed.
    const voter = await h.user();
    expect((await h.req("POST", `/api/v1/posts/${inGeneral.id}/vote`, { token: voter.token, body: { value: 1 } })).status).toBe(200);
    expect((await h.req("GET", path)).body.items[0].title).toBe("changed behind the back");
  });

  test("write counts per scope: a post in general moves forum and general, not questions", async () => {
    const h = setup({ rateLimitMultiplier: 0 });
    const author = await h.user();
    await post(h, author, { colony_id: GENERAL.id });
    const before = h.ctx.events.version("forum");
    await post(h, author, { colony_id: GENERAL.id });
    expect(h.ctx.events.version("forum")).toBeGreaterThan(before); // counted at the write and again at its group's commit
    expect(h.ctx.events.version(`colony:${GENERAL.id}`)).toBeGreaterThan(0);
    expect(h.ctx.events.version(`colony:${QUESTIONS.id}`)).toBe(0);
  });
});
