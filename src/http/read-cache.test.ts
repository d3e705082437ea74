// Anonymous reads of the post list and the post context are served from a short-lived cache
// that any write invalidates.
import { describe, expect, test } from "bun:test";
import { setup } from "../../test/harness";
import { GENERAL, post } from "../features/posts/fixtures";

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
