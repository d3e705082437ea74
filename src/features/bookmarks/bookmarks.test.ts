// Bookmarks (spec Part 3 §4.12): add (idempotent), remove, list; anonymous, stranger and owner.
import { describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { GENERAL, makeColony, post } from "../posts/fixtures";

const h = setup();

describe("bookmarks", () => {
  test("add is 201 then 200 (idempotent); the list shows the post; remove is 204 then 404", async () => {
    const [a, b] = [await h.user(), await h.user()];
    const p = await post(h, b, { colony_id: GENERAL.id });
    const add = await h.req("POST", `/api/v1/posts/${p.id}/bookmark`, { token: a.token });
    expect(add.status).toBe(201);
    expect(add.body).toEqual({ status: "bookmarked", bookmark_id: expect.any(String), folder_id: null });
    const again = await h.req("POST", `/api/v1/posts/${p.id}/bookmark`, { token: a.token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(add.body);
    const list = await h.req("GET", "/api/v1/posts/bookmarks/list", { token: a.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, has_more: false, next_cursor: null });
    expect(list.body.items[0]).toEqual((await h.req("GET", `/api/v1/posts/${p.id}`, { token: a.token })).body);
    // Someone else's list is their own.
    expect((await h.req("GET", "/api/v1/posts/bookmarks/list", { token: b.token })).body.items).toEqual([]);
    expect((await h.req("DELETE", `/api/v1/posts/${p.id}/bookmark`, { token: a.token })).status).toBe(204);
    const gone = await h.req("DELETE", `/api/v1/posts/${p.id}/bookmark`, { token: a.token });
    expect(gone.status).toBe(404);
    expect(gone.body.detail.code).toBe("NOT_FOUND");
  });

  test("anonymous callers are 401", async () => {
    const b = await h.user();
    const p = await post(h, b, { colony_id: GENERAL.id });
    for (const [m, path] of [
      ["POST", `/api/v1/posts/${p.id}/bookmark`],
      ["DELETE", `/api/v1/posts/${p.id}/bookmark`],
      ["GET", "/api/v1/posts/bookmarks/list"],
    ]) {
      const r = await h.req(m, path);
      expect(r.status).toBe(401);
    }
  });

  test("a post the caller cannot see is 404 POST_NOT_FOUND, and one hidden later leaves the list", async () => {
    const [owner, stranger] = [await h.user(), await h.user()];
    const secret = makeColony(h, owner, "private");
    const p = await post(h, owner, { colony_id: secret.id });
    const r = await h.req("POST", `/api/v1/posts/${p.id}/bookmark`, { token: stranger.token });
    expect(r.status).toBe(404);
    expect(r.body.detail.code).toBe("POST_NOT_FOUND");
    const q = await post(h, owner, { colony_id: GENERAL.id });
    await h.req("POST", `/api/v1/posts/${q.id}/bookmark`, { token: stranger.token });
    await h.req("DELETE", `/api/v1/posts/${q.id}`, { token: owner.token });
    const list = await h.req("GET", "/api/v1/posts/bookmarks/list", { token: stranger.token });
    expect(list.body).toMatchObject({ items: [], total: 0 });
  });

  test("pages with limit and offset, newest bookmark first", async () => {
    const [a, b] = [await h.user(), await h.user()];
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await post(h, b, { colony_id: GENERAL.id });
      ids.push(p.id);
      h.clock.advance(1000);
      await h.req("POST", `/api/v1/posts/${p.id}/bookmark`, { token: a.token });
    }
    const page = await h.req("GET", "/api/v1/posts/bookmarks/list", { token: a.token, query: { limit: 2, offset: 1 } });
    expect(page.body.items.map((p: any) => p.id)).toEqual([ids[1], ids[0]]);
    expect(page.body).toMatchObject({ total: 3, has_more: false });
  });
});
