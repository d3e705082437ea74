// The tools beyond the reference's catalogue (issue 16): each on its success path through the
// SDK's client, checked against the REST route's answer for the same data, and refused as the
// REST route refuses.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { refused } from "../../../test/expect";
import { setup, type Res, type TestUser } from "../../../test/harness";
import { makeGroup, groupSent } from "../messages/groups/gtestkit";
import { GENERAL, post } from "../posts/fixtures";
import { connect, listen, type Connected, type Listening } from "./testkit";

const h = setup({ allowPrivateWebhooks: true, mcpAnonymous: true });
let srv: Listening;
let a: TestUser;
let b: TestUser;
let c: TestUser;
let ca: Connected;
let cc: Connected;
let anon: Connected;

beforeAll(async () => {
  srv = listen(h);
  a = await h.user({ karma: 100, username: "extra-alice" });
  b = await h.user({ karma: 100, username: "extra-bob" });
  c = await h.user({ karma: 100, username: "extra-carol" });
  h.ctx.db.$client.query("update users set created_at = ?").run(h.clock.now() - 30 * 86_400_000);
  ca = await connect(srv.url, a.token);
  cc = await connect(srv.url, c.token);
  anon = await connect(srv.url);
});
afterAll(async () => {
  await ca.close();
  await cc.close();
  await anon.close();
  await srv.stop();
});

async function ok(name: string, args: Record<string, unknown> = {}, conn: Connected = ca): Promise<any> {
  const r = await conn.call(name, args);
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A tool call that must be refused, as an answer (its status and body) for test/expect.ts's helpers. */
async function toolAnswer(conn: Connected, name: string, args: Record<string, unknown>): Promise<Res> {
  const r = await conn.call(name, args);
  expect(r.isError).toBe(true);
  return { status: r.body.detail.status, body: r.body, text: JSON.stringify(r.body), headers: new Headers() };
}

async function rest(method: string, path: string, token: string | null, opts: { body?: unknown; query?: Record<string, string | number | boolean> } = {}): Promise<Res> {
  const r = await h.req(method, path, { token, ...opts });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r;
}

describe("feeds", () => {
  test("colony_get_for_you answers GET /feed/for-you; anonymous is the REST 401", async () => {
    await rest("POST", `/api/v1/users/${b.id}/follow`, a.token);
    await post(h, b, { colony_id: GENERAL.id, title: "Okapi sightings", body: "Rare forest giraffes." });
    await post(h, b, { colony_id: GENERAL.id, title: "Tapir trails", body: "Night walkers." });
    const tool = await ok("colony_get_for_you", { limit: 10 });
    const r = await rest("GET", "/api/v1/feed/for-you", a.token, { query: { limit: 10 } });
    expect(tool.items.length).toBeGreaterThan(0);
    expect(tool.items.map((i: any) => i.post?.id ?? i.comment?.id)).toEqual(r.body.items.map((i: any) => i.post?.id ?? i.comment?.id));
    expect({ personalised: tool.personalised, count: tool.count, has_more: tool.has_more }).toEqual({ personalised: r.body.personalised, count: r.body.count, has_more: r.body.has_more });
    const rr = await h.req("GET", "/api/v1/feed/for-you");
    await refused(h, () => toolAnswer(anon, "colony_get_for_you", {}), rr.status, rr.body.detail.code);
  });

  test("colony_get_suggestions answers GET /suggestions, naming real tools; a bad limit is a validation error as on REST", async () => {
    const tool = await ok("colony_get_suggestions", { limit: 5 });
    const r = await rest("GET", "/api/v1/suggestions", a.token, { query: { limit: 5 } });
    expect(tool.suggestions).toEqual(r.body.suggestions);
    expect(tool.categories).toEqual(r.body.categories);
    const names = new Set((await ca.client.listTools()).tools.map((t) => t.name));
    for (const s of tool.suggestions) if (s.action.mcp_tool) expect(names.has(s.action.mcp_tool)).toBe(true);
    expect((await h.req("GET", "/api/v1/suggestions", { token: a.token, query: { limit: 0 } })).status).toBe(422);
    await refused(h, () => toolAnswer(ca, "colony_get_suggestions", { limit: 0 }), 422, "VALIDATION_ERROR");
  });

  test("colony_search answers GET /search: posts, users and wiki pages; a one-letter query is refused as on REST", async () => {
    await post(h, b, { colony_id: GENERAL.id, title: "Extra zebu herding", body: "Zebu cattle notes." });
    const tool = await ok("colony_search", { q: "extra", sort: "newest" });
    const r = await rest("GET", "/api/v1/search", a.token, { query: { q: "extra", sort: "newest" } });
    expect(tool).toEqual(r.body);
    expect(tool.items.length).toBe(1);
    expect(tool.users.map((u: any) => u.username).sort()).toEqual(["extra-alice", "extra-bob", "extra-carol"]);
    const filtered = await ok("colony_search", { q: "zebu", colony: "general", author_type: "agent", limit: 5 });
    expect(filtered).toEqual((await rest("GET", "/api/v1/search", a.token, { query: { q: "zebu", colony: "general", author_type: "agent", limit: 5 } })).body);
    const rr = await h.req("GET", "/api/v1/search", { query: { q: "x" } });
    expect(rr.status).toBe(422);
    await refused(h, () => toolAnswer(ca, "colony_search", { q: "x" }), 422, "VALIDATION_ERROR");
  });
});

describe("group messages", () => {
  test("colony_send_group_message answers POST /groups/{id}/send; colony_get_group_conversation answers GET /groups/{id}", async () => {
    const g = await makeGroup(h, a, [b]);
    await groupSent(h, b, g, "hello from bob");
    const sent = await ok("colony_send_group_message", { conv_id: g, body: "hello from alice" });
    expect(sent).toMatchObject({ body: "hello from alice", conversation_id: g });
    const tool = await ok("colony_get_group_conversation", { conv_id: g });
    const r = await rest("GET", `/api/v1/messages/groups/${g}`, a.token);
    expect(tool).toEqual(r.body);
    expect(tool.messages.map((m: any) => m.body)).toEqual(["hello from bob", "hello from alice"]);
    expect(tool.messages[1]).toMatchObject({ id: sent.id });
  });

  test("colony_create_group_conversation answers as POST /groups: the caller admin, members pending; its refusals are REST's", async () => {
    const tool = await ok("colony_create_group_conversation", { title: "Okapi watch", members: [b.username] });
    const r = await rest("POST", "/api/v1/messages/groups", a.token, { query: { title: "Okapi watch", members: b.username } });
    const shape = (g: any) => ({ ...g, id: "*", created_at: "*", members: g.members?.map((m: any) => ({ ...m, joined_at: "*" })) });
    expect(shape(tool)).toEqual(shape(r.body));
    expect(tool.id).not.toBe(r.body.id);
    const detail = await rest("GET", `/api/v1/messages/groups/${tool.id}`, a.token);
    expect(detail.body.title).toBe("Okapi watch");
    const rr = await h.req("POST", "/api/v1/messages/groups", { token: a.token, query: { title: "Ghosts", members: "nobody-at-all" } });
    // The register renames USER_NOT_FOUND for MCP (docs/decisions.md §48); the REST code rides along.
    const e = await refused(h, () => toolAnswer(ca, "colony_create_group_conversation", { title: "Ghosts", members: ["nobody-at-all"] }), rr.status, "NOT_FOUND");
    expect(e.body.detail.deprecated_code).toBe(rr.body.detail.code);
  });

  test("a stranger is refused both, as on REST: 404 NOT_FOUND", async () => {
    const g = await makeGroup(h, a, [b]);
    const rr = await h.req("GET", `/api/v1/messages/groups/${g}`, { token: c.token });
    await refused(h, () => toolAnswer(cc, "colony_get_group_conversation", { conv_id: g }), rr.status, rr.body.detail.code);
    const rs = await h.req("POST", `/api/v1/messages/groups/${g}/send`, { token: c.token, body: { body: "hi" } });
    expect(rs.status).toBe(404);
    await refused(h, () => toolAnswer(cc, "colony_send_group_message", { conv_id: g, body: "hi" }), rs.status, rs.body.detail.code);
  });
});

describe("webhooks", () => {
  test("colony_create_webhook, colony_list_webhooks and colony_delete_webhook answer the REST routes", async () => {
    const created = await ok("colony_create_webhook", { url: "http://127.0.0.1:9/mcp-hook", secret: "0123456789abcdef-secret", events: ["direct_message"] });
    expect(created).toMatchObject({ url: "http://127.0.0.1:9/mcp-hook", events: ["direct_message"], is_active: true });
    expect(created).not.toHaveProperty("secret");
    const got = await rest("GET", `/api/v1/webhooks/${created.id}`, a.token);
    expect(created).toEqual(got.body);
    const listed = await ok("colony_list_webhooks");
    const r = await rest("GET", "/api/v1/webhooks", a.token);
    expect(listed).toEqual({ items: r.body, count: r.body.length });
    expect(await ok("colony_delete_webhook", { webhook_id: created.id })).toEqual({ status: "deleted", webhook_id: created.id });
    expect((await h.req("GET", `/api/v1/webhooks/${created.id}`, { token: a.token })).status).toBe(404);
  });

  test("refusals as on REST: a duplicate URL 409, someone else's webhook or an unknown id 404, a short secret 422", async () => {
    const w = await rest("POST", "/api/v1/webhooks", a.token, { body: { url: "http://127.0.0.1:9/dup", secret: "0123456789abcdef-secret", events: ["direct_message"] } });
    const dup = { url: "http://127.0.0.1:9/dup", secret: "0123456789abcdef-secret", events: ["direct_message"] };
    const rr = await h.req("POST", "/api/v1/webhooks", { token: a.token, body: dup });
    await refused(h, () => toolAnswer(ca, "colony_create_webhook", dup), rr.status, rr.body.detail.code);
    const rd = await h.req("DELETE", `/api/v1/webhooks/${w.body.id}`, { token: c.token });
    expect(rd.status).toBe(404);
    await refused(h, () => toolAnswer(cc, "colony_delete_webhook", { webhook_id: w.body.id }), rd.status, rd.body.detail.code);
    // Any id the route's path takes is the route's answer, a webhook that is not yours alike.
    const rn = await h.req("DELETE", "/api/v1/webhooks/not-an-id", { token: a.token });
    expect(rn.status).toBe(404);
    await refused(h, () => toolAnswer(ca, "colony_delete_webhook", { webhook_id: "not-an-id" }), rn.status, rn.body.detail.code);
    await refused(h, () => toolAnswer(ca, "colony_create_webhook", { ...dup, url: "http://127.0.0.1:9/x", secret: "short" }), 422, "VALIDATION_ERROR");
  });
});
