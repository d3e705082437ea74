// Collections (spec Part 3 §4.12): ordered items with notes, positions not compacted, private
// collections 404 to others, owner-only changes, the public-post rule, the list and its filters.
import { describe, expect, test } from "bun:test";
import { dbState } from "../../../test/db-state";
import { setup, type Harness } from "../../../test/harness";
import { HOUR } from "../../core/clock";
import { GENERAL, makeColony, post } from "../posts/fixtures";

const h = setup();
type U = Awaited<ReturnType<Harness["user"]>>;

const create = async (u: U, body: Record<string, unknown> = {}) => {
  const r = await h.req("POST", "/api/v1/collections", { token: u.token, body: { title: "Best threads", ...body } });
  expect(r.status).toBe(201);
  return r.body;
};
const add = (u: U, id: string, post_id: string, note?: string) => h.req("POST", `/api/v1/collections/${id}/items`, { token: u.token, body: { post_id, note } });

describe("collections", () => {
  test("create answers CollectionOut with author and its deprecated copy user", async () => {
    const u = await h.user();
    const c = await create(u, { description: "Reading list" });
    const author = { id: u.id, username: u.username, display_name: expect.any(String) };
    expect(c).toEqual({
      id: expect.any(String),
      title: "Best threads",
      description: "Reading list",
      is_public: true,
      post_count: 0,
      created_at: expect.any(String),
      updated_at: c.created_at,
      author,
      user: author,
    });
    const got = await h.req("GET", `/api/v1/collections/${c.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...c, items: [] });
  });

  test("items append in order with notes; removing leaves a gap and the next goes after the highest", async () => {
    const [u, author] = [await h.user(), await h.user()];
    const c = await create(u);
    const ps = [];
    for (let i = 0; i < 3; i++) ps.push(await post(h, author, { colony_id: GENERAL.id }));
    const first = await add(u, c.id, ps[0].id, "start here");
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      post: { id: ps[0].id, title: ps[0].title, post_type: "discussion", score: 0, comment_count: 0, created_at: ps[0].created_at },
      position: 0,
      note: "start here",
      added_at: expect.any(String),
    });
    await add(u, c.id, ps[1].id);
    await add(u, c.id, ps[2].id);
    expect((await h.req("DELETE", `/api/v1/collections/${c.id}/items/${ps[1].id}`, { token: u.token })).status).toBe(204);
    const again = await add(u, c.id, ps[1].id);
    expect(again.body.position).toBe(3);
    const got = (await h.req("GET", `/api/v1/collections/${c.id}`)).body;
    expect(got.items.map((i: any) => [i.post.id, i.position, i.note])).toEqual([
      [ps[0].id, 0, "start here"],
      [ps[2].id, 2, null],
      [ps[1].id, 3, null],
    ]);
    expect(got.post_count).toBe(3);
    const missing = await h.req("DELETE", `/api/v1/collections/${c.id}/items/${crypto.randomUUID()}`, { token: u.token });
    expect([missing.status, missing.body.detail.code]).toEqual([404, "NOT_FOUND"]);
  });

  test("a post already in is 409 CONFLICT; an unreadable post 404 POST_NOT_FOUND; a readable non-public one 403", async () => {
    const [u, author] = [await h.user(), await h.user()];
    const c = await create(u);
    const p = await post(h, author, { colony_id: GENERAL.id });
    await add(u, c.id, p.id);
    const secret = makeColony(h, author, "private");
    const hidden = await post(h, author, { colony_id: secret.id });
    const before = dbState(h);
    const dup = await add(u, c.id, p.id);
    expect([dup.status, dup.body.detail.code]).toEqual([409, "CONFLICT"]);
    const r404 = await add(u, c.id, hidden.id);
    expect([r404.status, r404.body.detail.code]).toEqual([404, "POST_NOT_FOUND"]);
    const nope = await add(u, c.id, crypto.randomUUID());
    expect([nope.status, nope.body.detail.code]).toEqual([404, "POST_NOT_FOUND"]);
    expect(dbState(h)).toEqual(before);
    // A member can read the private colony's post but may not republish it.
    const mine = await create(author);
    const r403 = await add(author, mine.id, hidden.id);
    expect([r403.status, r403.body.detail.code]).toEqual([403, "FORBIDDEN"]);
    // Nor a post that is not published yet (its author can read it).
    const later = await post(h, author, { colony_id: GENERAL.id, scheduled_for: new Date(h.clock.now() + 2 * HOUR).toISOString() });
    expect((await add(author, mine.id, later.id)).status).toBe(403);
  });

  test("a private collection is 404 to others, in reads, lists and writes", async () => {
    const [u, other] = [await h.user(), await h.user()];
    const c = await create(u, { is_public: false });
    expect((await h.req("GET", `/api/v1/collections/${c.id}`, { token: u.token })).status).toBe(200);
    for (const token of [undefined, other.token]) {
      const r = await h.req("GET", `/api/v1/collections/${c.id}`, { token });
      expect([r.status, r.body.detail.code]).toEqual([404, "NOT_FOUND"]);
    }
    const before = dbState(h);
    for (const [m, path, body] of [
      ["PUT", `/api/v1/collections/${c.id}`, { title: "mine" }],
      ["DELETE", `/api/v1/collections/${c.id}`, undefined],
      ["POST", `/api/v1/collections/${c.id}/items`, { post_id: crypto.randomUUID() }],
      ["DELETE", `/api/v1/collections/${c.id}/items/${crypto.randomUUID()}`, undefined],
    ] as const) {
      const r = await h.req(m, path, { token: other.token, body });
      expect([path, r.status]).toEqual([path, 404]);
    }
    expect(dbState(h)).toEqual(before);
  });

  test("someone else's public collection is 403 FORBIDDEN to change, and nothing changes", async () => {
    const [u, other, author] = [await h.user(), await h.user(), await h.user()];
    const c = await create(u);
    const p = await post(h, author, { colony_id: GENERAL.id });
    await add(u, c.id, p.id);
    const before = dbState(h);
    for (const [m, path, body] of [
      ["PUT", `/api/v1/collections/${c.id}`, { title: "mine" }],
      ["DELETE", `/api/v1/collections/${c.id}`, undefined],
      ["POST", `/api/v1/collections/${c.id}/items`, { post_id: p.id }],
      ["DELETE", `/api/v1/collections/${c.id}/items/${p.id}`, undefined],
    ] as const) {
      const r = await h.req(m, path, { token: other.token, body });
      expect([path, r.status, r.body.detail.code]).toEqual([path, 403, "FORBIDDEN"]);
    }
    expect(dbState(h)).toEqual(before);
  });

  test("update takes any subset; null description clears it; a blank title is 400; delete leaves posts", async () => {
    const [u, author] = [await h.user(), await h.user()];
    const c = await create(u, { description: "d" });
    h.clock.advance(1000);
    const r = await h.req("PUT", `/api/v1/collections/${c.id}`, { token: u.token, body: { is_public: false } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: "Best threads", description: "d", is_public: false });
    expect(r.body.updated_at > c.updated_at).toBe(true);
    expect((await h.req("PUT", `/api/v1/collections/${c.id}`, { token: u.token, body: { description: null, title: " New " } })).body).toMatchObject({ title: "New", description: null });
    const blank = await h.req("PUT", `/api/v1/collections/${c.id}`, { token: u.token, body: { title: "   " } });
    expect([blank.status, blank.body.detail.code]).toEqual([400, "INVALID_INPUT"]);
    const p = await post(h, author, { colony_id: GENERAL.id });
    await h.req("PUT", `/api/v1/collections/${c.id}`, { token: u.token, body: { is_public: true } });
    await add(u, c.id, p.id);
    expect((await h.req("DELETE", `/api/v1/collections/${c.id}`, { token: u.token })).status).toBe(204);
    expect((await h.req("GET", `/api/v1/collections/${c.id}`)).status).toBe(404);
    expect((await h.req("GET", `/api/v1/posts/${p.id}`)).status).toBe(200);
    expect(h.ctx.db.$client.query("select count(*) n from collection_items where collection_id = ?").get(c.id)).toEqual({ n: 0 });
  });

  test("input bounds: title 1-200, description 5000, note 500, the title required", async () => {
    const u = await h.user();
    for (const body of [{}, { title: "" }, { title: "x".repeat(201) }, { title: "t", description: "d".repeat(5001) }, { title: "  " }]) {
      const r = await h.req("POST", "/api/v1/collections", { token: u.token, body });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
    const c = await create(u);
    const p = await post(h, u, { colony_id: GENERAL.id });
    expect((await add(u, c.id, p.id, "n".repeat(501))).status).toBe(422);
  });

  test("a post deleted or hidden since leaves the items shown", async () => {
    const [u, author] = [await h.user(), await h.user()];
    const c = await create(u);
    const [p, q] = [await post(h, author, { colony_id: GENERAL.id }), await post(h, author, { colony_id: GENERAL.id })];
    await add(u, c.id, p.id);
    await add(u, c.id, q.id);
    await h.req("DELETE", `/api/v1/posts/${p.id}`, { token: author.token });
    expect((await h.req("GET", `/api/v1/collections/${c.id}`)).body.items.map((i: any) => i.post.id)).toEqual([q.id]);
  });

  test("the list: public ones most recently updated first, own private ones when signed in, user_id by id or username", async () => {
    const [a, b] = [await h.user(), await h.user()];
    // Newer than every collection other tests made, so these three lead the first page.
    h.clock.advance(1000);
    const pub = await create(a, { title: "A public" });
    h.clock.advance(1000);
    const priv = await create(a, { title: "A private", is_public: false });
    h.clock.advance(1000);
    const other = await create(b, { title: "B public" });
    const ids = async (token?: string, query: Record<string, string | number> = {}) =>
      (await h.req("GET", "/api/v1/collections", { token, query })).body.items.map((c: any) => c.id).filter((id: string) => [pub.id, priv.id, other.id].includes(id));
    expect(await ids()).toEqual([other.id, pub.id]);
    expect(await ids(a.token)).toEqual([other.id, priv.id, pub.id]);
    expect(await ids(b.token, { user_id: a.username })).toEqual([pub.id]);
    expect(await ids(a.token, { user_id: a.id })).toEqual([priv.id, pub.id]);
    // Touching a collection moves it up.
    h.clock.advance(1000);
    await h.req("PUT", `/api/v1/collections/${pub.id}`, { token: a.token, body: { description: "x" } });
    expect(await ids()).toEqual([pub.id, other.id]);
    const page = await h.req("GET", "/api/v1/collections", { query: { user_id: a.username, limit: 1 } });
    expect(page.body).toMatchObject({ total: 1, has_more: false });
    const unknown = await h.req("GET", "/api/v1/collections", { query: { user_id: "nobody-here" } });
    expect([unknown.status, unknown.body.detail.code]).toEqual([404, "USER_NOT_FOUND"]);
    const tooBig = await h.req("GET", "/api/v1/collections", { query: { limit: 101 } });
    expect(tooBig.status).toBe(422);
  });

  test("the cap of 100 collections is 400 LIMIT_EXCEEDED", async () => {
    const u = await h.user();
    const now = h.clock.now();
    const insert = h.ctx.db.$client.prepare("insert into collections (id, user_id, title, is_public, created_at, updated_at) values (?, ?, 't', 1, ?, ?)");
    for (let i = 0; i < 100; i++) insert.run(crypto.randomUUID(), u.id, now, now);
    const r = await h.req("POST", "/api/v1/collections", { token: u.token, body: { title: "one more" } });
    expect([r.status, r.body.detail.code]).toEqual([400, "LIMIT_EXCEEDED"]);
  });

  test("changes are rate limited (collection, 30 an hour)", async () => {
    const u = await h.user();
    for (let i = 0; i < 30; i++) expect((await h.req("POST", "/api/v1/collections", { token: u.token, body: { title: `c${i}` } })).status).toBe(201);
    const r = await h.req("POST", "/api/v1/collections", { token: u.token, body: { title: "c31" } });
    expect(r.status).toBe(429);
    h.clock.advance(HOUR);
    expect((await h.req("POST", "/api/v1/collections", { token: u.token, body: { title: "c31" } })).status).toBe(201);
  });

  test("anonymous writes are 401; a deleted account's collections go", async () => {
    const u = await h.user();
    const c = await create(u);
    expect((await h.req("POST", "/api/v1/collections", { body: { title: "x" } })).status).toBe(401);
    expect((await h.req("PUT", `/api/v1/collections/${c.id}`, { body: { title: "x" } })).status).toBe(401);
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: u.token })).status).toBe(204);
    await h.ctx.events.drain();
    expect((await h.req("GET", `/api/v1/collections/${c.id}`)).status).toBe(404);
  });
});
