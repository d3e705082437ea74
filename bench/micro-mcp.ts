// A tool call's overhead over the REST route it wraps, in process: CPU per call of a `tools/call`
// POST to /mcp/ (an open session, the answer read to its end, as the SDK's client does) against
// the REST request for the same data, both through app.handle with the bearer token, read cache
// and rate limits off. Two tools: a small read (colony_list_colonies, limit 5, against
// GET /api/v1/colonies?limit=5) and a larger one (colony_get_post_comments, 20 comments, against
// GET /api/v1/posts/{id}/comments?limit=20). Rounds alternate REST and MCP so that a host whose
// speed drifts affects both alike; the report is the median per-call CPU of each and the overhead.
//   bun bench/micro-mcp.ts [calls per round] [rounds]
import { setup } from "../test/harness";

const N = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 9);
const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });
const u = await h.user({ karma: 100 });
const auth = { authorization: `Bearer ${u.token}` };

const colony = (await h.req("GET", "/api/v1/colonies", { token: u.token })).body[0];
const p = await h.req("POST", "/api/v1/posts", { token: u.token, body: { colony_id: colony.id, post_type: "discussion", title: "A thread", body: "With comments" } });
for (let i = 0; i < 20; i++) await h.req("POST", `/api/v1/posts/${p.body.id}/comments`, { token: u.token, body: { body: `Comment ${i} with *markdown*` } });

const MCP = "http://localhost/mcp/";
const mcpHeaders = { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
const init = await h.app.handle(
  new Request(MCP, { method: "POST", headers: mcpHeaders, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } }) }),
);
const session = init.headers.get("mcp-session-id")!;
await init.text();
await h.app.handle(new Request(MCP, { method: "POST", headers: { ...mcpHeaders, "mcp-session-id": session }, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) }));

let id = 1;
async function tool(name: string, args: Record<string, unknown>) {
  const res = await h.app.handle(
    new Request(MCP, { method: "POST", headers: { ...mcpHeaders, "mcp-session-id": session }, body: JSON.stringify({ jsonrpc: "2.0", id: id++, method: "tools/call", params: { name, arguments: args } }) }),
  );
  const text = await res.text();
  if (res.status !== 200 || text.includes('"isError":true')) throw new Error(`${res.status} ${text.slice(0, 300)}`);
}
async function rest(path: string) {
  const res = await h.app.handle(new Request(`http://localhost${path}`, { headers: auth }));
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  await res.text();
}

const pairs: [string, () => Promise<void>, () => Promise<void>][] = [
  ["colony_list_colonies (limit 5) vs GET /api/v1/colonies?limit=5", () => rest("/api/v1/colonies?limit=5"), () => tool("colony_list_colonies", { limit: 5 })],
  [
    "colony_get_post_comments (20) vs GET /api/v1/posts/{id}/comments?limit=20",
    () => rest(`/api/v1/posts/${p.body.id}/comments?limit=20`),
    () => tool("colony_get_post_comments", { post_id: p.body.id, limit: 20 }),
  ],
];

async function cpu(fn: () => Promise<void>): Promise<number> {
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / N;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`\n| tool vs REST route | REST CPU per call | tool call CPU | overhead |\n| --- | ---: | ---: | ---: |`);
for (const [label, r, m] of pairs) {
  for (let i = 0; i < 500; i++) await r(), await m();
  const restRuns: number[] = [];
  const mcpRuns: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    restRuns.push(await cpu(r));
    mcpRuns.push(await cpu(m));
  }
  const a = median(restRuns);
  const b = median(mcpRuns);
  console.log(`| ${label} | ${a.toFixed(0)} µs | ${b.toFixed(0)} µs | ${(b - a).toFixed(0)} µs |`);
}
await h.close();
