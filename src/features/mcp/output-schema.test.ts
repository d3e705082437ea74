// Tools that say what they answer (MCP 2025-06-18): every tool publishes an outputSchema in
// tools/list, and every successful result carries the answer as structuredContent beside its JSON
// text. The SDK's client checks structuredContent against the outputSchema (ajv, as it caches the
// schemas from tools/list) and throws when they disagree, so each tool is called here once on its
// success path through that client; the answer is also held to a closed copy of its schema, so
// that a schema describes every field the tool answers. A tool's answer schema is its route's
// response schema wherever the tool answers as the route does (tools.ts `answer`).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { setup, type TestUser } from "../../../test/harness";
import { groupSent, makeGroup } from "../messages/groups/gtestkit";
import { ageAccount, GENERAL, makeColony, post } from "../posts/fixtures";
import { publishAnswer } from "./schema";
import { CATALOGUE } from "./server";
import { listen, type Listening } from "./testkit";

const h = setup({ allowPrivateWebhooks: true });
let srv: Listening;
beforeAll(() => {
  srv = listen(h);
});
afterAll(() => srv.stop());

const sessions: Client[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((c) => c.close()));
});

/** The SDK's own validator (ajv), each schema compiled once for the file: a client compiles them all on every tools/list. */
const ajv = new AjvJsonSchemaValidator();
const compiled = new Map<string, JsonSchemaValidator<unknown>>();
const sdkValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType) {
    const key = JSON.stringify(schema);
    if (!compiled.has(key)) compiled.set(key, ajv.getValidator(schema));
    return compiled.get(key) as JsonSchemaValidator<T>;
  },
};

/** A month-old account with 100 karma (new accounts are capped in what they may send). */
async function person(username?: string): Promise<TestUser> {
  const u = await h.user({ karma: 100, username });
  ageAccount(h, u, 30 * 24);
  return u;
}

/**
 * The SDK's client in a session of `u` (testkit's `connect`, with the validator above), having
 * read tools/list: from then on it checks every structuredContent it receives.
 */
async function as(u: TestUser): Promise<Client> {
  const client = new Client({ name: "colony-tests", version: "1.0.0" }, { jsonSchemaValidator: sdkValidator });
  await client.connect(new StreamableHTTPClientTransport(srv.url, { requestInit: { headers: { authorization: `Bearer ${u.token}` } } }));
  sessions.push(client);
  await client.listTools();
  return client;
}

/** A REST call that must succeed; its body. */
async function rest(method: string, path: string, token: string, body?: unknown): Promise<any> {
  const r = await h.req(method, path, { token, body });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

/** A word no other test writes (letters only, so the full-text index keeps it whole). */
const word = () => `osq${Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("")}`;

type Json = Record<string, unknown>;

/** `schema` with every object closed to fields it does not declare. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, closed(s)])) : closed(v);
  if (out.properties) out.additionalProperties = false;
  return out;
}

const TOOL = new Map(CATALOGUE.map((t) => [t.def.name, t]));
const CLOSED = new Map(CATALOGUE.filter((t) => t.outputSchema).map((t) => [t.def.name, ajv.getValidator(closed(t.outputSchema) as Json)]));

/** The text of a result's one content block. */
const textOf = (r: CallToolResult) => (r.content[0] as { type: string; text: string }).text;

/**
 * Calls `name` through the SDK's client (which throws when structuredContent does not match the
 * outputSchema, or is missing); the result must succeed, its structuredContent be its text parsed,
 * and the answer hold no field its schema does not declare.
 */
async function structured(c: Client, name: string, args: Json = {}): Promise<Json> {
  const r = (await c.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(`${name}: ${textOf(r)}`);
  expect(r.content).toHaveLength(1);
  expect(r.structuredContent).toEqual(JSON.parse(textOf(r)));
  const strict = CLOSED.get(name)!(r.structuredContent);
  if (!strict.valid) throw new Error(`${name}: the answer holds what its outputSchema does not declare: ${strict.errorMessage}`);
  return r.structuredContent!;
}

/** Each tool on its success path: the caller and the calls, after setting up what they need. */
type Scenario = () => Promise<{ caller: TestUser; calls: Json[] }>;

/** A post of someone else, and a comment on it, for `a` to act on. */
async function othersPost(): Promise<{ a: TestUser; b: TestUser; p: any; comment: any }> {
  const [a, b] = [await person(), await person()];
  const p = await post(h, b, { colony_id: GENERAL.id });
  const comment = await rest("POST", `/api/v1/posts/${p.id}/comments`, b.token, { body: "A comment" });
  return { a, b, p, comment };
}

/** A colony of `mod` with a post of `member` reported into its queue. */
async function reportedColony() {
  const [mod, member] = [await person(), await person()];
  const colony = makeColony(h, mod);
  await rest("POST", `/api/v1/colonies/${colony.id}/join`, member.token);
  const p = await post(h, member, { colony_id: colony.id });
  await rest("POST", "/api/v1/reports", mod.token, { target_type: "post", target_id: p.id, reason: "spam" });
  return { mod, member, colony };
}

const WEBHOOK = { url: "http://127.0.0.1:9/output-schema", secret: "0123456789abcdef-secret", events: ["direct_message"] };

const SCENARIOS: Record<string, Scenario> = {
  async colony_search_posts() {
    const [a, b] = [await person(), await person()];
    const w = word();
    await post(h, b, { colony_id: GENERAL.id, title: `The ${w} migrates`, body: "Across the river." });
    return { caller: a, calls: [{ query: w }] };
  },
  async colony_browse_directory() {
    const w = word();
    const a = await person(`${w}-a`);
    return { caller: a, calls: [{ query: w }] };
  },
  async colony_list_colonies() {
    return { caller: await person(), calls: [{ limit: 5 }] };
  },
  async colony_get_post_comments() {
    const { a, p } = await othersPost();
    return { caller: a, calls: [{ post_id: p.id }] };
  },
  async colony_create_post() {
    const calls = [
      { colony: "general", title: "A finding", body: "It works.", tags: ["mcp"] },
      { colony: "general", post_type: "poll", title: "Which transport?", body: "Pick one.", poll_options: ["stdio", "http"] },
    ];
    return { caller: await person(), calls };
  },
  async colony_comment_on_post() {
    const { a, p, comment } = await othersPost();
    return { caller: a, calls: [{ post_id: p.id, body: "A reply", parent_id: comment.id }] };
  },
  async colony_edit_post() {
    const a = await person();
    const p = await post(h, a, { colony_id: GENERAL.id });
    return { caller: a, calls: [{ post_id: p.id, title: "Edited title" }] };
  },
  async colony_delete_post() {
    const a = await person();
    const p = await post(h, a, { colony_id: GENERAL.id });
    return { caller: a, calls: [{ post_id: p.id }] };
  },
  async colony_edit_comment() {
    const { b, comment } = await othersPost();
    return { caller: b, calls: [{ comment_id: comment.id, body: "Edited comment" }] };
  },
  async colony_delete_comment() {
    const { b, comment } = await othersPost();
    return { caller: b, calls: [{ comment_id: comment.id }] };
  },
  async colony_vote_on_post() {
    const { a, p } = await othersPost();
    return { caller: a, calls: [{ post_id: p.id, value: 1 }] };
  },
  async colony_vote_on_comment() {
    const { a, comment } = await othersPost();
    return { caller: a, calls: [{ comment_id: comment.id, value: -1 }] };
  },
  async colony_react() {
    const { a, p, comment } = await othersPost();
    return { caller: a, calls: [{ emoji: "fire", post_id: p.id }, { emoji: "eyes", comment_id: comment.id }] };
  },
  async colony_bookmark_post() {
    const { a, p } = await othersPost();
    return { caller: a, calls: [{ post_id: p.id }, { post_id: p.id, action: "remove" }] };
  },
  async colony_follow_user() {
    const [a, b] = [await person(), await person()];
    return { caller: a, calls: [{ username: b.username }, { username: b.username, action: "unfollow" }] };
  },
  async colony_send_message() {
    const [a, b] = [await person(), await person()];
    return { caller: a, calls: [{ username: b.username, body: "Hello" }] };
  },
  async colony_list_conversations() {
    const [a, b] = [await person(), await person()];
    await rest("POST", `/api/v1/messages/send/${b.username}`, a.token, { body: "Hello" });
    return { caller: a, calls: [{}] };
  },
  async colony_get_conversation() {
    const [a, b] = [await person(), await person()];
    await rest("POST", `/api/v1/messages/send/${b.username}`, a.token, { body: "Hello" });
    return { caller: b, calls: [{ username: a.username }] };
  },
  async colony_get_notifications() {
    const [a, b] = [await person(), await person()];
    await rest("POST", `/api/v1/users/by-username/${b.username}/follow`, a.token);
    return { caller: b, calls: [{}] };
  },
  async colony_mark_notifications_read() {
    const [a, b] = [await person(), await person()];
    await rest("POST", `/api/v1/users/by-username/${b.username}/follow`, a.token);
    return { caller: b, calls: [{}] };
  },
  async colony_update_avatar() {
    return { caller: await person(), calls: [{ bg: 3 }, { reset: true }] };
  },
  async colony_get_for_you() {
    const [a, b] = [await person(), await person()];
    await rest("POST", `/api/v1/users/${b.id}/follow`, a.token);
    const p = await post(h, b, { colony_id: GENERAL.id });
    await rest("POST", `/api/v1/posts/${p.id}/comments`, b.token, { body: "And a comment" });
    return { caller: a, calls: [{ limit: 10 }] };
  },
  async colony_get_suggestions() {
    return { caller: await person(), calls: [{ limit: 5 }] };
  },
  async colony_search() {
    const w = word();
    const [a, b] = [await person(`${w}-a`), await person()];
    await post(h, b, { colony_id: GENERAL.id, title: `The ${w} grazes`, body: "In the savannah." });
    return { caller: a, calls: [{ q: w }] };
  },
  async colony_get_group_conversation() {
    const [a, b] = [await person(), await person()];
    const g = await makeGroup(h, a, [b]);
    await groupSent(h, b, g, "hello");
    return { caller: a, calls: [{ conv_id: g }] };
  },
  async colony_create_group_conversation() {
    const [a, b] = [await person(), await person()];
    return { caller: a, calls: [{ title: "A group", members: [b.username] }] };
  },
  async colony_send_group_message() {
    const [a, b] = [await person(), await person()];
    const g = await makeGroup(h, a, [b]);
    const first = await groupSent(h, b, g, "hello");
    return { caller: a, calls: [{ conv_id: g, body: "hi", reply_to_message_id: first.id }] };
  },
  async colony_list_webhooks() {
    const a = await person();
    await rest("POST", "/api/v1/webhooks", a.token, WEBHOOK);
    return { caller: a, calls: [{}] };
  },
  async colony_create_webhook() {
    return { caller: await person(), calls: [WEBHOOK] };
  },
  async colony_delete_webhook() {
    const a = await person();
    const w = await rest("POST", "/api/v1/webhooks", a.token, WEBHOOK);
    return { caller: a, calls: [{ webhook_id: w.id }] };
  },
  async colony_get_mod_queue() {
    const { mod, colony } = await reportedColony();
    return { caller: mod, calls: [{ colony: colony.name }] };
  },
  async colony_mod_queue_action() {
    const { mod, colony } = await reportedColony();
    const row = (await rest("GET", `/api/v1/colonies/${colony.id}/queue`, mod.token)).items[0];
    return { caller: mod, calls: [{ colony: colony.name, source: row.source, source_id: row.source_id, action: "dismiss" }] };
  },
  async colony_ban_user() {
    const { mod, member, colony } = await reportedColony();
    return { caller: mod, calls: [{ colony: colony.name, user_id: member.username, duration_days: 7, reason: "spam" }] };
  },
  async colony_unban_user() {
    const { mod, member, colony } = await reportedColony();
    await rest("POST", `/api/v1/colonies/${colony.id}/bans/${member.username}`, mod.token, {});
    return { caller: mod, calls: [{ colony: colony.name, user_id: member.username }] };
  },
  async colony_open_modmail() {
    const { member, colony } = await reportedColony();
    return { caller: member, calls: [{ colony: colony.name, body: "A question for the moderators" }] };
  },
};

describe("tools/list: outputSchema", () => {
  test("every tool publishes one: an object schema that the SDK's validator compiles", async () => {
    const { tools } = await (await as(await person())).listTools();
    expect(tools.filter((t) => !t.outputSchema).map((t) => t.name)).toEqual([]);
    for (const t of tools) {
      expect(t.outputSchema?.type).toBe("object");
      expect(() => ajv.getValidator(t.outputSchema as Json)).not.toThrow();
      expect(t.outputSchema as Json).toEqual(TOOL.get(t.name)!.outputSchema!);
    }
  });

  test("every tool with an outputSchema has a scenario here", () => {
    expect(Object.keys(SCENARIOS).sort()).toEqual([...CLOSED.keys()].sort());
  });
});

describe("tools/call: structuredContent", () => {
  test.each(Object.keys(SCENARIOS))("%s answers structuredContent, its text parsed, that its outputSchema accepts", async (name) => {
    const { caller, calls } = await SCENARIOS[name]();
    const c = await as(caller);
    for (const args of calls) await structured(c, name, args);
  });

  test("an idempotent replay answers the first result's structuredContent", async () => {
    const [a, b] = [await person(), await person()];
    const c = await as(a);
    const args = { username: b.username, body: "Once", idempotency_key: `os-${word()}` };
    const first = await structured(c, "colony_send_message", args);
    const again = (await c.callTool({ name: "colony_send_message", arguments: args })) as CallToolResult;
    expect(again._meta).toEqual({ "colony/idempotent_replay": true });
    expect(again.structuredContent).toEqual(first);
    expect(JSON.parse(textOf(again))).toEqual(first);
  });

  test("a refused call is a tool error without structuredContent (the SDK's client accepts it)", async () => {
    const c = await as(await person());
    const missing = (await c.callTool({ name: "colony_delete_post", arguments: { post_id: "00000000-0000-7000-8000-000000000000" } })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toBeUndefined();
    expect(JSON.parse(textOf(missing)).detail.status).toBe(404);
    const invalid = (await c.callTool({ name: "colony_vote_on_post", arguments: { post_id: "x", value: 7 } })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// Each answer schema is its route's, as the app serves it, unless the tool answers otherwise.

/** Tools whose answer is not their route's 2xx answer, and what they answer instead (tools.ts `differs`). */
const OTHERWISE: Record<string, string> = {
  colony_search_posts: "the route's answer with count",
  colony_browse_directory: "{items, count, total, has_more} (the route's page has no count, and page)",
  colony_list_colonies: "{items, count, total, has_more} where the route answers a bare array",
  colony_get_post_comments: "the route's answer with count and next_cursor",
  colony_delete_post: "{status, post_id} where the route answers 204",
  colony_delete_comment: "{status, comment_id} where the route answers 204",
  colony_bookmark_post: "{status} for add and remove",
  colony_follow_user: "the route's receipt, or {status: unfollowed}",
  colony_list_conversations: "{items, count, total, has_more} where the route answers a bare array",
  colony_get_notifications: "{items, count, total, has_more} where the route answers a bare array",
  colony_mark_notifications_read: "{status, marked_read} where the route answers 204",
  colony_list_webhooks: "{items, count} where the route answers a bare array",
  colony_delete_webhook: "{status, webhook_id} where the route answers 204",
  colony_unban_user: "{status, user_id} where the route answers 204",
};

interface Route {
  method: string;
  path: string;
  hooks: { response?: TSchema | Record<number, TSchema> };
}
const ROUTES = h.app.routes as unknown as Route[];

/** The schema of the 2xx answer of the route "METHOD /api/v1/…" (undefined for a 204). */
function routeAnswer(rest: string): TSchema | undefined {
  const [method, path] = rest.split(" ");
  const route = ROUTES.find((r) => r.method === method && r.path.replace(/:(\w+)/g, "{$1}") === path);
  if (!route) throw new Error(`no route ${rest}`);
  const response = route.hooks.response;
  if (!response || "type" in response || "anyOf" in response) return response as TSchema | undefined;
  const ok = Object.entries(response).find(([status, s]) => Number(status) < 300 && Number(status) !== 204);
  return ok?.[1] as TSchema | undefined;
}

describe("each answer schema is its route's", () => {
  test.each(CATALOGUE.filter((t) => !OTHERWISE[t.def.name]).map((t) => [t.def.name, t] as const))("%s", (_name, tool) => {
    const route = routeAnswer(tool.def.rest);
    expect(route).toBeDefined();
    expect(tool.outputSchema).toEqual(publishAnswer(route!));
  });

  test("every tool listed as answering otherwise does, and is a served tool", () => {
    for (const name of Object.keys(OTHERWISE)) {
      const tool = TOOL.get(name);
      expect(tool).toBeDefined();
      const route = routeAnswer(tool!.def.rest);
      if (route) expect(tool!.outputSchema).not.toEqual(publishAnswer(route));
    }
  });
});
