// MCP sessions across serving processes: two apps on two contexts over one database file stand
// for two workers of `colony serve --workers`, which share nothing else. A session started on one
// is served by the other, as a client whose next connection the kernel gives to either worker
// sees it; DELETE on one ends it on both; expiry and the bound on open sessions hold for both.
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createApp } from "../../app";
import { loadConfig } from "../../config";
import { TestClock } from "../../core/clock";
import { createContext, type Ctx } from "../../core/context";
import { hashSecret, newApiKey } from "../../core/ids";
import { issueToken } from "../auth/service";
import * as users from "../users/service";
import { purgeExpiredSessionRecords, recordSession, sessionOpen, TOUCH_EVERY_MS } from "./session-rows";
import type { Session } from "./server";
import { MCP_SESSION_IDLE_MS, MCP_SESSIONS_MAX, sessionsOf } from "./sessions";
import { connect, initialize, listen, messageOf, rpc, type Listening } from "./testkit";

interface Worker {
  ctx: Ctx;
  app: ReturnType<typeof createApp>;
  srv: Listening;
}

let dir: string;
const clock = new TestClock();
let a: Worker;
let b: Worker;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "colony-mcp-workers-"));
  const config = loadConfig({ COLONY_LOG_LEVEL: "silent", COLONY_DATA_DIR: dir, COLONY_MCP_ANONYMOUS: "true" });
  const open = (role: "single" | "worker"): Worker => {
    const ctx = createContext({ config, clock, role });
    const app = createApp(ctx);
    return { ctx, app, srv: listen({ ctx, app }) };
  };
  a = open("single"); // migrates the database, as the supervisor does before it starts workers
  b = open("worker");
});

afterAll(async () => {
  for (const w of [a, b]) {
    await w.srv.stop();
    await sessionsOf(w.ctx).closeAll();
    w.ctx.db.$client.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A client's fetch that sends each request to the worker `to.worker` names when it is sent: the
 * test plays the kernel, which gives each new connection to any worker.
 */
function balanced() {
  const to = { worker: a };
  const fetch: FetchLike = (_url, init) => globalThis.fetch(to.worker.srv.url, init);
  return { to, fetch };
}

async function token(): Promise<string> {
  const apiKey = newApiKey();
  const username = `agent-${Math.random().toString(36).slice(2, 9)}`;
  a.ctx.db.transaction((tx) => users.createAccount(a.ctx, tx, { username, displayName: username, apiKeyHash: hashSecret(apiKey) }));
  return (await issueToken(a.ctx, apiKey)).access_token;
}

const toolsList = (id: string, n = 1) => ({ body: { jsonrpc: "2.0", id: n, method: "tools/list" }, headers: { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" } });
const listOn = (w: Worker, id: string) => {
  const r = toolsList(id);
  return rpc(w.srv.url, r.body, r.headers);
};
const NOT_FOUND = { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null };

const rowOf = (ctx: Ctx, id: string) => ctx.db.$client.query("select * from mcp_sessions where id_hash = ?").get(hashSecret(id)) as Record<string, unknown> | null;
const held = (w: Worker, id: string) => sessionsOf<Session>(w.ctx).get(id);

describe("a session started on one worker", () => {
  test("is served by the other: tools/list and tool calls, with the bearer token of each request", async () => {
    const lb = balanced();
    const c = await connect(a.srv.url, await token(), lb.fetch);
    const id = c.transport.sessionId!;
    expect(held(a, id)).toBeDefined();
    lb.to.worker = b;
    expect((await c.client.listTools()).tools.map((t) => t.name)).toContain("colony_get_notifications");
    const notes = await c.call("colony_get_notifications", {});
    expect(notes.isError).toBe(false);
    const colonies = await c.call("colony_list_colonies", {});
    expect(colonies.isError).toBe(false);
    // B rebuilt it, initialised as on A: the server knows the client from its initialize.
    const rebuilt = held(b, id)!;
    expect(rebuilt.transport.sessionId).toBe(id);
    expect(rebuilt.server.server.getClientVersion()).toEqual({ name: "colony-tests", version: "1.0.0" });
    // And back on A, which still holds it.
    lb.to.worker = a;
    expect((await c.call("colony_list_colonies", {})).isError).toBe(false);
    await c.close();
  });

  test("is recorded by the hash of its id, with the negotiated version and the client's initialize", async () => {
    const res = await rpc(a.srv.url, { ...initialize("1999-01-01"), params: { ...initialize("1999-01-01").params, capabilities: { roots: { listChanged: true } } } });
    const answer = await messageOf(res);
    const id = res.headers.get("mcp-session-id")!;
    const row = rowOf(b.ctx, id)!;
    expect(row).toMatchObject({ id_hash: hashSecret(id), protocol_version: answer.result.protocolVersion, created_at: clock.now(), last_seen_at: clock.now() });
    expect(JSON.parse(row.client_info as string)).toEqual({ name: "raw", version: "1" });
    expect(JSON.parse(row.client_capabilities as string)).toEqual({ roots: { listChanged: true } });
    expect(JSON.stringify(row)).not.toContain(id);
    // The other worker answers it in that version, and knows the client's capabilities.
    const list = await rpc(b.srv.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": id, "mcp-protocol-version": answer.result.protocolVersion });
    expect(list.status).toBe(200);
    expect((await messageOf(list)).result.tools.length).toBeGreaterThan(0);
    expect(held(b, id)!.server.server.getClientCapabilities()).toEqual({ roots: { listChanged: true } });
  });

  test("requests arriving together at a worker that does not hold it share one rebuild", async () => {
    const res = await rpc(a.srv.url, initialize("2025-06-18"));
    const id = res.headers.get("mcp-session-id")!;
    // Each session, new or rebuilt, is one McpServer connected to its transport.
    const rebuild = spyOn(McpServer.prototype, "connect");
    let answers: Response[];
    let rebuilt: number;
    try {
      // Handed to the app in one turn, so that each arrives while the first is being rebuilt.
      answers = await Promise.all(
        [1, 2, 3].map((n) =>
          b.app.handle(
            new Request(b.srv.url.href, {
              method: "POST",
              headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...toolsList(id, n).headers },
              body: JSON.stringify(toolsList(id, n).body),
            }),
          ),
        ),
      );
      rebuilt = rebuild.mock.calls.length;
    } finally {
      rebuild.mockRestore();
    }
    expect(rebuilt).toBe(1);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await Promise.all(answers.map(messageOf))).map((m) => m.id)).toEqual([1, 2, 3]);
  });

  test("a POST that is not an initialize on either worker keeps nothing", async () => {
    const n = (a.ctx.db.$client.query("select count(*) as n from mcp_sessions").get() as { n: number }).n;
    const res = await rpc(b.srv.url, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(res.status).toBe(400);
    expect((a.ctx.db.$client.query("select count(*) as n from mcp_sessions").get() as { n: number }).n).toBe(n);
  });
});

describe("ending a session", () => {
  test("DELETE on one worker ends it on the other, which still held it: 404", async () => {
    const lb = balanced();
    const c = await connect(a.srv.url, null, lb.fetch);
    const id = c.transport.sessionId!;
    expect((await listOn(b, id)).status).toBe(200); // both hold it now
    lb.to.worker = b;
    await c.transport.terminateSession();
    expect(rowOf(a.ctx, id)).toBeNull();
    expect(held(b, id)).toBeUndefined();
    const res = await listOn(a, id);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(NOT_FOUND);
    expect(held(a, id)).toBeUndefined(); // A let its copy go
    expect((await listOn(b, id)).status).toBe(404);
    const del = await fetch(a.srv.url, { method: "DELETE", headers: { "mcp-session-id": id } });
    expect(del.status).toBe(404);
    await c.close();
  });

  test("a session unused for 30 minutes is refused on both workers, and its row goes", async () => {
    const res = await rpc(a.srv.url, initialize("2025-06-18"));
    const id = res.headers.get("mcp-session-id")!;
    expect((await listOn(b, id)).status).toBe(200);
    clock.advance(MCP_SESSION_IDLE_MS);
    const [onA, onB] = [await listOn(a, id), await listOn(b, id)];
    expect([onA.status, onB.status]).toEqual([404, 404]);
    expect(await onA.json()).toEqual(NOT_FOUND);
    expect(rowOf(a.ctx, id)).toBeNull();
  });

  test("use on one worker keeps the session open on the other, whose own copy had gone idle", async () => {
    const res = await rpc(a.srv.url, initialize("2025-06-18"));
    const id = res.headers.get("mcp-session-id")!;
    clock.advance(MCP_SESSION_IDLE_MS - 60_000);
    expect((await listOn(b, id)).status).toBe(200);
    clock.advance(MCP_SESSION_IDLE_MS - 60_000);
    // A last served it 58 minutes ago, B 29 minutes ago: it is open, and A rebuilds its copy.
    expect((await listOn(a, id)).status).toBe(200);
    clock.advance(MCP_SESSION_IDLE_MS);
    expect((await listOn(b, id)).status).toBe(404);
  });
});

describe("the record", () => {
  test("the use is recorded at most once a minute", () => {
    const id = crypto.randomUUID();
    recordSession(a.ctx, id, { protocolVersion: "2025-06-18", clientInfo: { name: "x", version: "1" }, clientCapabilities: {} }, MCP_SESSIONS_MAX);
    const created = clock.now();
    clock.advance(TOUCH_EVERY_MS - 1);
    expect(sessionOpen(b.ctx, id, MCP_SESSION_IDLE_MS)).toBe(true);
    expect(rowOf(a.ctx, id)!.last_seen_at).toBe(created);
    clock.advance(1);
    expect(sessionOpen(b.ctx, id, MCP_SESSION_IDLE_MS)).toBe(true);
    expect(rowOf(a.ctx, id)!.last_seen_at).toBe(clock.now());
  });

  test("the sweep deletes the rows of expired sessions and keeps the open ones", async () => {
    const rec = { protocolVersion: "2025-06-18", clientInfo: { name: "x", version: "1" }, clientCapabilities: {} };
    const old = crypto.randomUUID();
    recordSession(a.ctx, old, rec, MCP_SESSIONS_MAX);
    clock.advance(MCP_SESSION_IDLE_MS / 2);
    const live = crypto.randomUUID();
    recordSession(a.ctx, live, rec, MCP_SESSIONS_MAX);
    clock.advance(MCP_SESSION_IDLE_MS / 2);
    await a.ctx.jobs.runRecurring("mcp-sessions-sweep");
    expect(rowOf(b.ctx, old)).toBeNull();
    expect(rowOf(b.ctx, live)).not.toBeNull();
    expect(purgeExpiredSessionRecords(b.ctx, MCP_SESSION_IDLE_MS)).toBe(0);
  });
});

describe("the bound", () => {
  test("at most 1000 sessions are open across workers: a new one ends the least recently used, on every worker", async () => {
    const res = await rpc(a.srv.url, initialize("2025-06-18"));
    const id = res.headers.get("mcp-session-id")!;
    expect((await listOn(b, id)).status).toBe(200);
    clock.advance(1);
    // Other workers start 1000 more sessions.
    const rec = { protocolVersion: "2025-06-18", clientInfo: { name: "x", version: "1" }, clientCapabilities: {} };
    for (let i = 0; i < MCP_SESSIONS_MAX; i++) recordSession(b.ctx, crypto.randomUUID(), rec, MCP_SESSIONS_MAX);
    expect((a.ctx.db.$client.query("select count(*) as n from mcp_sessions").get() as { n: number }).n).toBe(MCP_SESSIONS_MAX);
    expect(rowOf(a.ctx, id)).toBeNull();
    expect((await listOn(a, id)).status).toBe(404);
    expect((await listOn(b, id)).status).toBe(404);
    expect(sessionsOf(a.ctx).max).toBe(MCP_SESSIONS_MAX);
  });
});
