// Every resource and template read through the SDK's client, checked against the REST read it
// answers as; colony://my/since's server-side cursor (issue 16). One app serves the file; each test
// reads as its own people through its own session, so the tests hold in any order.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { MINUTE } from "../../core/clock";
import { sinceStoredCursor } from "../polling/service";
import { GENERAL, post } from "../posts/fixtures";
import { connect, listen, type Connected, type Listening } from "./testkit";

// Served anonymously (COLONY_MCP_ANONYMOUS) so that public resources can be read without a token.
const h = setup({ mcpAnonymous: true });
let srv: Listening;
beforeAll(() => {
  srv = listen(h);
});
afterAll(() => srv.stop());

const sessions: Connected[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((c) => c.close()));
});

/** An MCP session of `u` (anonymous without), closed after the test. */
async function as(u?: TestUser): Promise<Connected> {
  const c = await connect(srv.url, u?.token);
  sessions.push(c);
  return c;
}

/** A fresh account and its session. */
async function reader(): Promise<{ u: TestUser; c: Connected }> {
  const u = await h.user({ karma: 50 });
  return { u, c: await as(u) };
}

async function get(path: string, token: string | null, query: Record<string, string | number | boolean> = {}) {
  const r = await h.req("GET", path, { token, query });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
}

describe("resources", () => {
  test("colony://posts/latest answers GET /posts?limit=20", async () => {
    const { u: a, c: ca } = await reader();
    const b = await h.user();
    for (let i = 0; i < 3; i++) await post(h, b, { colony_id: GENERAL.id, tags: ["mcp"] });
    expect(await ca.read("colony://posts/latest")).toEqual(await get("/api/v1/posts", a.token, { limit: 20 }));
  });

  test("colony://colonies answers GET /colonies?limit=200", async () => {
    const { u: a, c: ca } = await reader();
    const body = await ca.read("colony://colonies");
    expect(body.length).toBeGreaterThan(3);
    expect(body).toEqual(await get("/api/v1/colonies", a.token, { limit: 200 }));
  });

  test("colony://trending/tags answers GET /trending/tags", async () => {
    const { u: a, c: ca } = await reader();
    const tag = `mcp-${Math.random().toString(36).slice(2, 8)}`;
    await post(h, await h.user(), { colony_id: GENERAL.id, tags: [tag] });
    const body = await ca.read("colony://trending/tags");
    expect(body.items.map((t: any) => t.tag)).toContain(tag);
    expect(body).toEqual(await get("/api/v1/trending/tags", a.token));
  });

  test("colony://my/notifications answers GET /notifications?unread_only=true", async () => {
    const { u: a, c: ca } = await reader();
    const b = await h.user();
    await h.req("POST", `/api/v1/users/by-username/${a.username}/follow`, { token: b.token });
    const body = await ca.read("colony://my/notifications");
    expect(body.length).toBeGreaterThan(0);
    expect(body).toEqual(await get("/api/v1/notifications", a.token, { unread_only: true }));
  });

  test("colony://posts/{post_id} answers the post and its comments", async () => {
    const { u: a, c: ca } = await reader();
    const b = await h.user();
    const p = await post(h, b, { colony_id: GENERAL.id });
    await h.req("POST", `/api/v1/posts/${p.id}/comments`, { token: a.token, body: { body: "nice" } });
    const body = await ca.read(`colony://posts/${p.id}`);
    expect(body.post).toEqual(await get(`/api/v1/posts/${p.id}`, a.token));
    expect(body.comments).toEqual(await get(`/api/v1/posts/${p.id}/comments`, a.token, { limit: 100 }));
    expect(body.comments.items.map((c: any) => c.body)).toEqual(["nice"]);
  });

  test("colony://users/{username} answers GET /users/{user_id}, by name or id", async () => {
    const { u: a, c: ca } = await reader();
    const b = await h.user();
    expect(await ca.read(`colony://users/${b.username}`)).toEqual(await get(`/api/v1/users/${b.username}`, a.token));
    expect(await ca.read(`colony://users/${b.id}`)).toEqual(await get(`/api/v1/users/${b.id}`, a.token));
  });

  test("a template naming nothing is a -32002 error carrying the REST 404", async () => {
    const { u: a, c: ca } = await reader();
    for (const [uri, path] of [
      ["colony://posts/00000000-0000-7000-8000-000000000000", "/api/v1/posts/00000000-0000-7000-8000-000000000000"],
      ["colony://users/nobody-at-all", "/api/v1/users/nobody-at-all"],
    ]) {
      const rest = await h.req("GET", path, { token: a.token });
      try {
        await ca.client.readResource({ uri });
        throw new Error("expected a refusal");
      } catch (err: any) {
        expect(err.code).toBe(-32002);
        expect(err.data.detail).toMatchObject({ message: rest.body.detail.message, status: 404 });
      }
    }
  });

  test("anonymous readers see the public resources", async () => {
    const anon = await as();
    expect(await anon.read("colony://posts/latest")).toEqual(await get("/api/v1/posts", null, { limit: 20 }));
  });
});

describe("colony://my/since", () => {
  test("the first read covers the last 24 hours; each read starts where the previous stopped", async () => {
    const { u, c } = await reader();
    const b = await h.user();
    await h.req("POST", `/api/v1/users/by-username/${u.username}/follow`, { token: b.token });
    h.clock.advance(MINUTE);
    const first = await c.read("colony://my/since");
    expect(first.cursor).toBe(new Date(h.clock.now() - 86_400_000).toISOString());
    expect(first.counts.notifications).toBe(1);
    // The same answer as GET /since from that cursor.
    const again = await get("/api/v1/since", u.token, { since: first.cursor });
    expect(first).toEqual(again);
    h.clock.advance(MINUTE);
    const second = await c.read("colony://my/since");
    expect(second.cursor).toBe(first.next_cursor);
    expect(second.counts).toEqual({ notifications: 0, messages: 0, posts: 0 });
    await h.req("POST", `/api/v1/messages/send/${u.username}`, { token: b.token, body: { body: "ping" } });
    h.clock.advance(MINUTE);
    const third = await c.read("colony://my/since");
    expect(third.cursor).toBe(second.next_cursor);
    expect(third.messages.map((m: any) => m.body)).toEqual(["ping"]);
  });

  test("the cursor is per user and advanced atomically: two readers never get the same item", async () => {
    const [u, b] = [await h.user(), await h.user()];
    await h.req("POST", `/api/v1/users/by-username/${u.username}/follow`, { token: b.token });
    h.clock.advance(MINUTE);
    const [x, y] = [sinceStoredCursor(h.ctx, u.id), sinceStoredCursor(h.ctx, u.id)];
    expect(x.notifications.length + y.notifications.length).toBe(1);
    expect(y.since).toBe(x.nextCursor);
    const row = h.ctx.db.$client.query("select cursor_at from since_cursors where user_id = ?").get(u.id) as { cursor_at: number };
    expect(row.cursor_at).toBe(y.nextCursor);
    // Another user's cursor is untouched.
    expect(h.ctx.db.$client.query("select count(*) as n from since_cursors where user_id = ?").get(b.id)).toEqual({ n: 0 });
  });

  test("a cursor older than 30 days is clamped like since", async () => {
    // Its own app: the clock moves 40 days, past every token and session of the file's.
    const own = setup({ mcpAnonymous: true });
    const u = await own.user();
    sinceStoredCursor(own.ctx, u.id);
    own.clock.advance(40 * 86_400_000);
    const r = sinceStoredCursor(own.ctx, u.id);
    expect(r.since).toBe(own.clock.now() - 30 * 86_400_000);
  });
});
