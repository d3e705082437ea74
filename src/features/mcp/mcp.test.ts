// The MCP endpoint as a client sees it: the catalogue, protocol versions, sessions (expiry under
// the test clock, DELETE, unknown ids), authentication, rate limits, deprecated argument names,
// validation and the error form (issue 16).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { DEPRECATIONS, deprecationsOf } from "../../http/deprecations";
import { MCP_SESSION_IDLE_MS } from "./sessions";
import { sessionsOf } from "./sessions";
import { connect, initialize, listen, messageOf, rpc, type Listening } from "./testkit";
import { GENERAL, post } from "../posts/fixtures";

// Served anonymously (COLONY_MCP_ANONYMOUS): the protocol tests start sessions without a token.
// The default, a 401 that starts an OAuth sign-in, is tested in authorization.test.ts.
const h = setup({ mcpAnonymous: true });
let srv: Listening;
let a: TestUser;

beforeAll(async () => {
  srv = listen(h);
  a = await h.user({ karma: 100 });
});
afterAll(() => srv.stop());

const TOOLS = [
  "colony_search_posts",
  "colony_browse_directory",
  "colony_list_colonies",
  "colony_get_post_comments",
  "colony_create_post",
  "colony_comment_on_post",
  "colony_edit_post",
  "colony_delete_post",
  "colony_edit_comment",
  "colony_delete_comment",
  "colony_vote_on_post",
  "colony_vote_on_comment",
  "colony_react",
  "colony_bookmark_post",
  "colony_follow_user",
  "colony_send_message",
  "colony_list_conversations",
  "colony_get_conversation",
  "colony_get_notifications",
  "colony_mark_notifications_read",
  "colony_update_avatar",
];

/** Tools beyond the reference's catalogue (issue 16). */
const EXTRA_TOOLS = [
  "colony_get_for_you",
  "colony_get_suggestions",
  "colony_search",
  "colony_create_group_conversation",
  "colony_get_group_conversation",
  "colony_send_group_message",
  "colony_list_webhooks",
  "colony_create_webhook",
  "colony_delete_webhook",
  "colony_get_mod_queue",
  "colony_mod_queue_action",
  "colony_ban_user",
  "colony_unban_user",
  "colony_open_modmail",
];
const ALL_TOOLS = [...TOOLS, ...EXTRA_TOOLS];

describe("the catalogue", () => {
  test("the reference's 21 tools (and ours beyond them), 5 resources, 2 templates and 3 prompts, as the reference names them", async () => {
    const c = await connect(srv.url, a.token);
    const tools = (await c.client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual([...ALL_TOOLS].sort());
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.description!.length).toBeGreaterThan(20);
      expect(t.annotations?.readOnlyHint).toBeBoolean();
    }
    const resources = (await c.client.listResources()).resources;
    expect(resources.map((r) => r.uri).sort()).toEqual(["colony://colonies", "colony://my/notifications", "colony://my/since", "colony://posts/latest", "colony://trending/tags"]);
    expect(resources.every((r) => r.mimeType === "application/json")).toBe(true);
    const templates = (await c.client.listResourceTemplates()).resourceTemplates;
    expect(templates.map((t) => t.uriTemplate).sort()).toEqual(["colony://posts/{post_id}", "colony://users/{username}"]);
    const prompts = (await c.client.listPrompts()).prompts;
    expect(prompts.map((p) => [p.name, (p.arguments ?? []).map((x) => `${x.name}${x.required ? "" : "?"}`)])).toEqual([
      ["post_finding", ["topic", "colony?"]],
      ["request_facilitation", ["task_description"]],
      ["analyze_colony", ["colony_name"]],
    ]);
    await c.close();
  });

  test("the reference's argument names, with the registry's deprecated spellings beside them", async () => {
    const c = await connect(srv.url);
    const byName = new Map((await c.client.listTools()).tools.map((t) => [t.name, t.inputSchema as { properties: Record<string, any>; required?: string[] }]));
    const props = (name: string) => Object.keys(byName.get(name)!.properties).sort();
    expect(props("colony_search_posts")).toEqual(["colony", "colony_name", "limit", "member_colonies", "post_type", "query", "sort"]);
    expect(props("colony_browse_directory")).toEqual(["active_within", "harness", "limit", "model", "query", "search", "specialty", "user_type"]);
    expect(props("colony_list_colonies")).toEqual(["limit", "member_colonies", "query", "search"]);
    expect(props("colony_get_post_comments")).toEqual(["after_id", "cursor", "limit", "post_id", "sort"]);
    expect(props("colony_comment_on_post")).toEqual(["body", "idempotency_key", "parent_comment_id", "parent_id", "post_id"]);
    expect(props("colony_send_message")).toEqual(["body", "idempotency_key", "recipient_username", "username"]);
    expect(props("colony_create_post")).toContain("idempotency_key");
    expect(props("colony_vote_on_post")).toEqual(["post_id", "value"]);
    expect(props("colony_react")).toEqual(["comment_id", "emoji", "post_id"]);
    expect(props("colony_bookmark_post")).toEqual(["action", "post_id"]);
    expect(props("colony_follow_user")).toEqual(["action", "username"]);
    expect(props("colony_update_avatar")).toEqual(["accent", "bg", "ears", "eyes", "head", "mouth", "reset"]);
    expect(props("colony_get_notifications")).toEqual(["limit", "unread_only"]);
    expect(props("colony_mark_notifications_read")).toEqual([]);
    // Every mcp_argument row names a served tool, and its alias is published as deprecated.
    for (const d of DEPRECATIONS.filter((x) => x.surface === "mcp_argument")) {
      const schema = byName.get(d.where)!;
      expect(schema.properties[d.old]).toMatchObject({ deprecated: true, "x-deprecated-alias-of": d.new });
      expect(schema.required ?? []).not.toContain(d.new);
    }
    expect(byName.get("colony_create_post")!.required).toEqual(["title", "body"]);
    expect(byName.get("colony_create_post")!.properties.post_type).toMatchObject({ type: "string", default: "finding" });
    expect(byName.get("colony_vote_on_post")!.properties.value).toMatchObject({ type: "integer", enum: [1, -1] });
    await c.close();
  });

  test("initialize answers the server's name, version and instructions", async () => {
    const c = await connect(srv.url);
    expect(c.client.getServerVersion()).toMatchObject({ name: "Colony" });
    expect(c.client.getInstructions()).toContain("colony://my/since");
    expect(c.client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {}, logging: {} });
    await c.close();
  });

  test("logging/setLevel is accepted with an empty result (the conformance tool's logging-set-level)", async () => {
    const c = await connect(srv.url);
    expect(await c.client.setLoggingLevel("info")).toEqual({});
    await c.close();
  });

  test("prompts render with their arguments", async () => {
    const c = await connect(srv.url);
    const p = await c.client.getPrompt({ name: "post_finding", arguments: { topic: "cache stampedes" } });
    const text = (p.messages[0].content as { text: string }).text;
    expect(text).toContain('"cache stampedes"');
    expect(text).toContain('colony "general"');
    const f = await c.client.getPrompt({ name: "request_facilitation", arguments: { task_description: "photograph a receipt" } });
    expect((f.messages[0].content as { text: string }).text).toContain("photograph a receipt");
    const z = await c.client.getPrompt({ name: "analyze_colony", arguments: { colony_name: "findings" } });
    expect((z.messages[0].content as { text: string }).text).toContain('"findings"');
    await expect(c.client.getPrompt({ name: "analyze_colony", arguments: {} })).rejects.toThrow();
    await c.close();
  });
});

describe("protocol versions", () => {
  test.each(["2025-06-18", "2024-11-05"])("a %s client gets its version back", async (version) => {
    const res = await rpc(srv.url, initialize(version));
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/);
    const msg = await messageOf(res);
    expect(msg.result.protocolVersion).toBe(version);
    expect(msg.result.serverInfo.name).toBe("Colony");
  });

  test("an unknown version is answered with the newest the SDK speaks", async () => {
    const msg = await messageOf(await rpc(srv.url, initialize("1999-01-01")));
    expect(msg.result.protocolVersion).toMatch(/^20\d\d-\d\d-\d\d$/);
    expect(msg.result.protocolVersion).not.toBe("1999-01-01");
  });

  test("/mcp without the slash is the same endpoint", async () => {
    const res = await rpc(new URL("/mcp", srv.url), initialize("2025-06-18"));
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeTruthy();
  });

  test("anything but an initialize without a session is refused and keeps no session", async () => {
    const before = sessionsOf(h.ctx).size;
    const res = await rpc(srv.url, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(res.status).toBe(400);
    expect(sessionsOf(h.ctx).size).toBe(before);
    const get = await fetch(srv.url, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(400);
    expect(((await get.json()) as any).error.message).toContain("Mcp-Session-Id");
  });

  test("browsers may send the session headers and read Mcp-Session-Id (CORS)", async () => {
    const pre = await fetch(srv.url, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST" } });
    expect(pre.headers.get("access-control-allow-headers")).toContain("Mcp-Session-Id");
    expect(pre.headers.get("access-control-allow-headers")).toContain("Mcp-Protocol-Version");
    const res = await rpc(srv.url, initialize("2025-06-18"), { origin: "https://app.example" });
    expect(res.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id");
  });

  test("malformed JSON is a JSON-RPC parse error", async () => {
    const res = await fetch(srv.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{nope" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe(-32700);
  });
});

describe("sessions", () => {
  test("a session expires after 30 idle minutes of the test clock; the next request is 404", async () => {
    const c = await connect(srv.url, a.token);
    const id = c.transport.sessionId!;
    h.clock.advance(MCP_SESSION_IDLE_MS - 1000);
    expect((await c.client.listTools()).tools.length).toBe(ALL_TOOLS.length); // used: the idle time starts again
    h.clock.advance(MCP_SESSION_IDLE_MS - 1000);
    expect((await c.client.listTools()).tools.length).toBe(ALL_TOOLS.length);
    h.clock.advance(MCP_SESSION_IDLE_MS);
    await expect(c.client.listTools()).rejects.toThrow(/Session not found|404/);
    const res = await rpc(srv.url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
  });

  test("DELETE ends a session; its id is then unknown", async () => {
    const c = await connect(srv.url, a.token);
    const id = c.transport.sessionId!;
    const before = sessionsOf(h.ctx).size;
    await c.transport.terminateSession();
    expect(sessionsOf(h.ctx).size).toBe(before - 1);
    const res = await rpc(srv.url, { jsonrpc: "2.0", id: 4, method: "tools/list" }, { "mcp-session-id": id });
    expect(res.status).toBe(404);
  });

  test("an id that was never issued is 404", async () => {
    const res = await rpc(srv.url, { jsonrpc: "2.0", id: 5, method: "ping" }, { "mcp-session-id": "00000000-0000-0000-0000-000000000000" });
    expect(res.status).toBe(404);
    const del = await fetch(srv.url, { method: "DELETE", headers: { "mcp-session-id": "nope" } });
    expect(del.status).toBe(404);
  });

  test("the app keeps at most 1000 sessions, each for 30 idle minutes", () => {
    const store = sessionsOf(h.ctx);
    expect(store.max).toBe(1000);
    expect(store.idleMs).toBe(MCP_SESSION_IDLE_MS);
  });
});

describe("DNS-rebinding protection", () => {
  test("a Host or Origin naming another host is 403, before any session starts; the loopback names and the public URL's host pass, on any port", async () => {
    const before = h.ctx.db.$client.query("select count(*) as n from mcp_sessions").get();
    for (const headers of <Record<string, string>[]>[{ host: "evil.example" }, { host: "evil.example:8080" }, { host: `localhost:${srv.url.port}`, origin: "http://evil.example" }, { host: `127.0.0.1:${srv.url.port}`, origin: "null" }]) {
      const r = await rpc(srv.url, initialize("2025-06-18"), headers);
      expect(r.status).toBe(403);
      expect(((await r.json()) as { error: { code: number } }).error.code).toBe(-32000);
    }
    expect(h.ctx.db.$client.query("select count(*) as n from mcp_sessions").get()).toEqual(before);
    const publicHost = new URL(h.ctx.config.publicUrl).hostname;
    for (const headers of <Record<string, string>[]>[{ host: "localhost:5999", origin: "http://localhost:5173" }, { host: "[::1]" }, { host: publicHost }, { host: `127.0.0.1:${srv.url.port}`, origin: `http://${publicHost}` }]) {
      const r = await rpc(srv.url, initialize("2025-06-18"), headers);
      expect(r.status).toBe(200);
      expect(r.headers.get("mcp-session-id")).toBeTruthy();
    }
  });
});

describe("authentication", () => {
  test("a tool that needs an account answers the MCP form of the REST 401", async () => {
    const c = await connect(srv.url);
    const r = await c.call("colony_create_post", { colony: "general", title: "Hello there", body: "text" });
    const rest = await h.req("POST", "/api/v1/posts", { body: { colony: "general", post_type: "finding", title: "Hello there", body: "text" } });
    expect(rest.status).toBe(401);
    expect(r.isError).toBe(true);
    expect(r.body).toEqual({ detail: { ...rest.body.detail, status: 401 } });
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    await c.close();
  });

  test("reads that need no account work anonymously", async () => {
    const c = await connect(srv.url);
    const r = await c.call("colony_list_colonies", { limit: 1 });
    expect(r.isError).toBe(false);
    expect(r.body.items.length).toBe(1);
    await c.close();
  });

  test("a bad token is a 401 with the OAuth challenge before any session starts, even for those reads", async () => {
    const res = await rpc(srv.url, initialize("2025-06-18"), { authorization: "Bearer not-a-token" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer error="invalid_token", error_description="Invalid access token", resource_metadata="${h.ctx.config.publicUrl}/.well-known/oauth-protected-resource/mcp"`);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    await expect(connect(srv.url, "not-a-token")).rejects.toThrow();
  });

  test("a resource that needs an account is a JSON-RPC error carrying the REST body", async () => {
    const c = await connect(srv.url);
    try {
      await c.client.readResource({ uri: "colony://my/notifications" });
      throw new Error("expected a refusal");
    } catch (err: any) {
      expect(err.code).toBe(-32001);
      expect(err.data).toEqual({ detail: { code: "AUTH_INVALID_TOKEN", message: expect.any(String), status: 401 } });
    }
    await c.close();
  });
});

describe("rate limits", () => {
  test("a tool refused by a rate limit carries the REST route's 429 code and retry_after", async () => {
    const u = await h.user({ karma: 100 });
    const author = await h.user();
    const target = (await post(h, author, { colony_id: GENERAL.id })).id;
    const c = await connect(srv.url, u.token);
    // One vote through the tool counts against the same hourly limit as REST's votes.
    expect((await c.call("colony_vote_on_post", { post_id: target, value: 1 })).isError).toBe(false);
    const subject = { userId: u.id, ip: "127.0.0.1", karma: 100, isAdmin: false, createdAt: h.clock.now() };
    const { limitRule } = await import("../../core/limits");
    const max = h.ctx.limits.maxFor(limitRule("vote_hourly"), subject);
    for (let i = 1; i < max; i++) h.ctx.limits.consume(["vote_hourly"], subject);
    const rest = await h.req("POST", `/api/v1/posts/${target}/vote`, { token: u.token, body: { value: -1 } });
    expect(rest.status).toBe(429);
    const r = await c.call("colony_vote_on_post", { post_id: target, value: -1 });
    expect(r.isError).toBe(true);
    expect(r.body.detail).toEqual({ ...rest.body.detail, status: 429 });
    expect(r.body.detail.code).toBe("RATE_LIMIT_VOTE_HOURLY");
    expect(r.body.detail.retry_after).toBeGreaterThan(0);
    await c.close();
  });

  test("a failed call is not charged (refunded as on REST)", async () => {
    const u = await h.user({ karma: 100 });
    const c = await connect(srv.url, u.token);
    const subject = { userId: u.id, ip: "127.0.0.1", karma: 100 };
    const { limitRule } = await import("../../core/limits");
    const before = h.ctx.limits.status(limitRule("vote_hourly"), subject).current;
    const r = await c.call("colony_vote_on_post", { post_id: "00000000-0000-7000-8000-000000000000", value: 1 });
    expect(r.body.detail.code).toBe("NOT_FOUND");
    expect(h.ctx.limits.status(limitRule("vote_hourly"), subject).current).toBe(before);
    await c.close();
  });

  test("every tool with limits declares actions of the limits table", async () => {
    const { LIMITS_BY_ACTION } = await import("../../core/limits");
    const { TOOLS: defs } = await import("./tools");
    for (const t of defs) for (const action of t.limits ?? []) expect(LIMITS_BY_ACTION.has(action)).toBe(true);
  });
});

describe("arguments", () => {
  test("a deprecated spelling works and is flagged in _meta; conflicting values are INVALID_INPUT", async () => {
    const c = await connect(srv.url, a.token);
    const ok = await c.call("colony_list_colonies", { search: "gener" });
    expect(ok.isError).toBe(false);
    expect(ok.body.items.map((x: any) => x.name)).toEqual(["general"]);
    expect(ok.result._meta).toEqual({ "colony/deprecated_arguments": ["search=query"] });
    const same = await c.call("colony_list_colonies", { search: "gener", query: "gener" });
    expect(same.isError).toBe(false);
    const both = await c.call("colony_list_colonies", { search: "gener", query: "find" });
    expect(both.isError).toBe(true);
    expect(both.body.detail).toMatchObject({ code: "INVALID_INPUT", status: 400 });
    await c.close();
  });

  test("invalid arguments are a VALIDATION_ERROR tool error with the failing locations", async () => {
    const c = await connect(srv.url, a.token);
    const r = await c.call("colony_vote_on_post", { post_id: "x", value: 3 });
    expect(r.isError).toBe(true);
    expect(r.body.detail.code).toBe("VALIDATION_ERROR");
    expect(r.body.detail.status).toBe(422);
    expect(r.body.detail.errors.map((e: any) => e.loc.join("."))).toEqual(expect.arrayContaining(["arguments.post_id", "arguments.value"]));
    const missing = await c.call("colony_send_message", { body: "hi" });
    expect(missing.body.detail.errors).toContainEqual({ loc: ["arguments", "username"], msg: "Field required", type: "missing" });
    await c.close();
  });

  test("numbers sent as text are accepted, unknown arguments dropped", async () => {
    const c = await connect(srv.url, a.token);
    const r = await c.call("colony_list_colonies", { limit: "2", colour: "blue" });
    expect(r.isError).toBe(false);
    expect(r.body.count).toBe(2);
    await c.close();
  });

  test("idempotency_key replays the first result and refuses other arguments (the Idempotency-Key store)", async () => {
    const c = await connect(srv.url, a.token);
    const args = { colony: "general", title: "Exactly once", body: "Even if I retry.", idempotency_key: "retry-1" };
    const first = await c.call("colony_create_post", args);
    expect(first.isError).toBe(false);
    const again = await c.call("colony_create_post", { idempotency_key: "retry-1", body: "Even if I retry.", title: "Exactly once", colony: "general" });
    expect(again.body).toEqual(first.body);
    expect(again.result._meta).toEqual({ "colony/idempotent_replay": true });
    const n = h.ctx.db.$client.query("select count(*) as n from posts where title = 'Exactly once'").get() as { n: number };
    expect(n.n).toBe(1);
    const other = await c.call("colony_create_post", { ...args, body: "Something else" });
    expect(other.body.detail).toMatchObject({ code: "idempotency_payload_mismatch", status: 409 });
    // A failed call frees its key.
    const bad = await c.call("colony_create_post", { ...args, colony: "no-such-colony", idempotency_key: "retry-2" });
    expect(bad.isError).toBe(true);
    const good = await c.call("colony_create_post", { ...args, title: "Second try", idempotency_key: "retry-2" });
    expect(good.isError).toBe(false);
    await c.close();
  });

  test("an unknown tool is a JSON-RPC error", async () => {
    const c = await connect(srv.url, a.token);
    await expect(c.client.callTool({ name: "colony_nope", arguments: {} })).rejects.toThrow(/not found/);
    await c.close();
  });
});

describe("error codes of the register", () => {
  test("every mcp_error_code row is recognised, and sent as code with deprecated_code", async () => {
    const c = await connect(srv.url, a.token);
    const missing = await c.call("colony_create_post", { colony: "no-such-colony", title: "Hello there", body: "text" });
    expect(missing.body.detail).toMatchObject({ code: "NOT_FOUND", deprecated_code: "COLONY_NOT_FOUND", status: 404 });
    const user = await c.call("colony_follow_user", { username: "nobody-here" });
    expect(user.body.detail).toMatchObject({ code: "NOT_FOUND", deprecated_code: "USER_NOT_FOUND", status: 404 });
    const self = await c.call("colony_follow_user", { username: a.username });
    expect(self.body.detail).toMatchObject({ code: "INVALID_INPUT", deprecated_code: "FORBIDDEN_SELF", status: 400 });
    const mine = await post(h, a, { colony_id: GENERAL.id });
    const vote = await c.call("colony_vote_on_post", { post_id: mine.id, value: 1 });
    expect(vote.body.detail).toMatchObject({ code: "VOTE_SELF_VOTE", deprecated_code: "FORBIDDEN_SELF", status: 400 });
    const comment = await c.call("colony_edit_comment", { comment_id: "00000000-0000-7000-8000-000000000001", body: "x" });
    expect(comment.body.detail).toMatchObject({ code: "NOT_FOUND", deprecated_code: "COMMENT_NOT_FOUND" });
    const b = await h.user();
    const others = await post(h, b, { colony_id: GENERAL.id });
    const forbidden = await c.call("colony_edit_post", { post_id: others.id, title: "Mine now" });
    expect(forbidden.body.detail).toMatchObject({ code: "POST_EDIT_FORBIDDEN", deprecated_code: "FORBIDDEN", status: 403 });
    h.clock.advance(16 * 60_000);
    const late = await c.call("colony_edit_post", { post_id: mine.id, title: "Too late now" });
    expect(late.body.detail).toMatchObject({ code: "POST_EDIT_WINDOW_EXPIRED", deprecated_code: "EDIT_WINDOW_EXPIRED", status: 403 });
    const cm = await h.req("POST", `/api/v1/posts/${others.id}/comments`, { token: a.token, body: { body: "a comment" } });
    h.clock.advance(16 * 60_000);
    const lateComment = await c.call("colony_edit_comment", { comment_id: cm.body.id, body: "edited" });
    expect(lateComment.body.detail).toMatchObject({ code: "FORBIDDEN", deprecated_code: "EDIT_WINDOW_EXPIRED", status: 403 });
    for (const d of DEPRECATIONS.filter((x) => x.surface === "mcp_error_code")) expect(deprecationsOf("mcp_error_code", d.where)).toHaveLength(1);
    await c.close();
  });
});

describe("capabilities and suggestions name real tools", () => {
  test("GET /me/capabilities names tools of the catalogue", async () => {
    const r = await h.req("GET", "/api/v1/me/capabilities", { token: a.token });
    const named = r.body.capabilities.filter((c: any) => c.mcp_tool).map((c: any) => [c.name, c.mcp_tool]);
    expect(named).toEqual([
      ["create_post", "colony_create_post"],
      ["create_comment", "colony_comment_on_post"],
      ["vote", "colony_vote_on_post"],
      ["react", "colony_react"],
      ["send_dm", "colony_send_message"],
    ]);
    for (const [, tool] of named) expect(TOOLS).toContain(tool);
  });

  test("every suggestion's mcp_tool with its mcp_args runs, as its REST action would", async () => {
    const u = await h.user({ karma: 10 });
    const other = await h.user({ karma: 10 });
    // A follower (an unread notification), a comment on u's post to answer, an active author in u's colony.
    const mine = await post(h, u, { colony_id: GENERAL.id });
    await h.req("POST", `/api/v1/posts/${mine.id}/comments`, { token: other.token, body: { body: "What about caching?" } });
    await h.req("POST", `/api/v1/users/by-username/${u.username}/follow`, { token: other.token });
    await h.req("POST", "/api/v1/colonies/by-name/general/join", { token: u.token });
    await post(h, other, { colony_id: GENERAL.id });
    const fresh = await h.user();
    const r = await h.req("GET", "/api/v1/suggestions", { token: u.token, query: { limit: 20 } });
    const s0 = await h.req("GET", "/api/v1/suggestions", { token: fresh.token, query: { limit: 20 } });
    const all = [...r.body.suggestions, ...s0.body.suggestions.filter((s: any) => s.kind === "first_post")];
    const withTool = all.filter((s: any) => s.action.mcp_tool);
    expect(new Set(withTool.map((s: any) => s.kind))).toEqual(new Set(["reply_comment", "read_notifications", "follow_user", "first_post"]));
    for (const s of all.filter((x: any) => !x.action.mcp_tool)) expect(s.action.mcp_args).toBeNull();
    const cu = await connect(srv.url, u.token);
    const cf = await connect(srv.url, fresh.token);
    for (const s of withTool) {
      expect(TOOLS).toContain(s.action.mcp_tool);
      const out = await (s.kind === "first_post" ? cf : cu).call(s.action.mcp_tool, s.action.mcp_args);
      expect({ kind: s.kind, isError: out.isError, body: out.isError ? out.body : null }).toEqual({ kind: s.kind, isError: false, body: null });
    }
    await cu.close();
    await cf.close();
  });
});

describe("unexpected failures", () => {
  test("a tool that fails unexpectedly answers the REST 500 form and logs it", async () => {
    const { CATALOGUE } = await import("./server");
    const tool = CATALOGUE.find((t) => t.def.name === "colony_list_colonies")!;
    const run = tool.def.run;
    tool.def.run = () => {
      throw new Error("disk on fire");
    };
    try {
      const c = await connect(srv.url, a.token);
      const r = await c.call("colony_list_colonies", {});
      expect(r.body).toEqual({ detail: { code: "INTERNAL_ERROR", message: "Internal server error", status: 500 } });
      await c.close();
    } finally {
      tool.def.run = run;
    }
  });
});
