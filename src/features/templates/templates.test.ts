// Post templates (spec Part 3 §4.12): own only (foreign ids 404), the cap of 50, clearing fields,
// tags normalised, use returns the fields and bumps the count without creating a post.
import { describe, expect, test } from "bun:test";
import { dbState } from "../../../test/db-state";
import { setup, type Harness } from "../../../test/harness";

const h = setup();
type U = Awaited<ReturnType<Harness["user"]>>;

const create = async (u: U, body: Record<string, unknown> = {}) => {
  const r = await h.req("POST", "/api/v1/post-templates", { token: u.token, body: { name: "Weekly finding", ...body } });
  expect(r.status).toBe(201);
  return r.body;
};

describe("post templates", () => {
  test("create, read, list newest first; unset fields are null", async () => {
    const u = await h.user();
    const a = await create(u, { title_template: "Finding: ", body_template: "## What\n\n## Why", post_type: "finding", default_tags: ["#Research", "research", "ai safety"] });
    expect(a).toEqual({
      id: expect.any(String),
      name: "Weekly finding",
      title_template: "Finding: ",
      body_template: "## What\n\n## Why",
      post_type: "finding",
      default_tags: ["research", "ai-safety"],
      usage_count: 0,
      created_at: expect.any(String),
    });
    h.clock.advance(1000);
    const b = await create(u, { name: "  Bare  " });
    expect(b).toMatchObject({ name: "Bare", title_template: null, body_template: null, post_type: null, default_tags: null });
    expect((await h.req("GET", `/api/v1/post-templates/${a.id}`, { token: u.token })).body).toEqual(a);
    const list = await h.req("GET", "/api/v1/post-templates", { token: u.token });
    expect(list.body).toEqual({ items: [b, a], total: 2, has_more: false });
    expect((await h.req("GET", "/api/v1/post-templates", { token: u.token, query: { limit: 1, page: 2 } })).body).toEqual({ items: [a], total: 2, has_more: false, page: 2 });
  });

  test("use returns the fields, bumps usage_count and creates no post", async () => {
    const u = await h.user();
    const a = await create(u, { title_template: "T" });
    const posts = () => h.ctx.db.$client.query("select count(*) n from posts").get();
    const before = posts();
    const r = await h.req("POST", `/api/v1/post-templates/${a.id}/use`, { token: u.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...a, usage_count: 1 });
    expect((await h.req("POST", `/api/v1/post-templates/${a.id}/use`, { token: u.token })).body.usage_count).toBe(2);
    expect(posts()).toEqual(before);
  });

  test("update takes any subset; empty string, empty list and null clear a field; a blank name is 400", async () => {
    const u = await h.user();
    const a = await create(u, { title_template: "T", body_template: "B", post_type: "question", default_tags: ["x"] });
    const r = await h.req("PUT", `/api/v1/post-templates/${a.id}`, { token: u.token, body: { title_template: "", default_tags: [], post_type: null } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...a, title_template: null, default_tags: null, post_type: null });
    expect((await h.req("PUT", `/api/v1/post-templates/${a.id}`, { token: u.token, body: { name: "Renamed" } })).body).toMatchObject({ name: "Renamed", body_template: "B" });
    const before = dbState(h);
    const blank = await h.req("PUT", `/api/v1/post-templates/${a.id}`, { token: u.token, body: { name: "  " } });
    expect([blank.status, blank.body.detail.code]).toEqual([400, "INVALID_INPUT"]);
    const badTag = await h.req("PUT", `/api/v1/post-templates/${a.id}`, { token: u.token, body: { default_tags: ["a,b<"] } });
    expect([badTag.status, badTag.body.detail.code]).toEqual([400, "INVALID_INPUT"]);
    const badType = await h.req("PUT", `/api/v1/post-templates/${a.id}`, { token: u.token, body: { post_type: "essay" } });
    expect(badType.status).toBe(422);
    expect(dbState(h)).toEqual(before);
  });

  test("someone else's template is 404 on every route, and nothing changes", async () => {
    const [u, other] = [await h.user(), await h.user()];
    const a = await create(u);
    const before = dbState(h);
    for (const [m, path, body] of [
      ["GET", `/api/v1/post-templates/${a.id}`, undefined],
      ["PUT", `/api/v1/post-templates/${a.id}`, { name: "mine" }],
      ["DELETE", `/api/v1/post-templates/${a.id}`, undefined],
      ["POST", `/api/v1/post-templates/${a.id}/use`, undefined],
      ["GET", `/api/v1/post-templates/${crypto.randomUUID()}`, undefined],
    ] as const) {
      const r = await h.req(m, path, { token: other.token, body });
      expect([path, m, r.status, r.body.detail.code]).toEqual([path, m, 404, "NOT_FOUND"]);
    }
    expect(dbState(h)).toEqual(before);
    expect((await h.req("GET", "/api/v1/post-templates", { token: other.token })).body.items).toEqual([]);
  });

  test("delete is 204 then 404", async () => {
    const u = await h.user();
    const a = await create(u);
    expect((await h.req("DELETE", `/api/v1/post-templates/${a.id}`, { token: u.token })).status).toBe(204);
    expect((await h.req("DELETE", `/api/v1/post-templates/${a.id}`, { token: u.token })).status).toBe(404);
  });

  test("the 51st template is 400 LIMIT_EXCEEDED; bounds on the fields", async () => {
    const u = await h.user();
    for (let i = 0; i < 50; i++) await create(u, { name: `t${i}` });
    const r = await h.req("POST", "/api/v1/post-templates", { token: u.token, body: { name: "one more" } });
    expect([r.status, r.body.detail.code]).toEqual([400, "LIMIT_EXCEEDED"]);
    const v = await h.user();
    for (const body of [{}, { name: "" }, { name: "x".repeat(201) }, { name: "n", title_template: "t".repeat(301) }, { name: "n", default_tags: Array(11).fill("a") }]) {
      const x = await h.req("POST", "/api/v1/post-templates", { token: v.token, body });
      expect(x.status).toBeGreaterThanOrEqual(400);
      expect(x.status).toBeLessThan(500);
    }
    expect((await h.req("GET", "/api/v1/post-templates", { token: v.token })).body.total).toBe(0);
  });

  test("anonymous callers are 401; a deleted account's templates go", async () => {
    expect((await h.req("GET", "/api/v1/post-templates")).status).toBe(401);
    expect((await h.req("POST", "/api/v1/post-templates", { body: { name: "x" } })).status).toBe(401);
    const u = await h.user();
    await create(u);
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: u.token })).status).toBe(204);
    await h.ctx.events.drain();
    expect(h.ctx.db.$client.query("select count(*) n from post_templates where user_id = ?").get(u.id)).toEqual({ n: 0 });
  });
});
