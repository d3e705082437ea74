// The writer of two workers (http/writer.ts, docs/decisions.md §186): what may write is made by
// worker 1, whichever worker took the connection; the outbox is delivered by one process at a
// time, handed over without a double delivery when the writer is replaced, and taken back by
// the supervisor while no writer listens.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { childPids, Connection, connectionTo, json, PROCESS_TIMEOUT, twoWorkers } from "./worker-connections";

/** Webhook deliveries received: the webhook's path and event id of each, in arrival order (post_created goes to every webhook for it). */
const deliveries: string[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    await request.text();
    deliveries.push(`${new URL(request.url).pathname} ${request.headers.get("x-service-event-id")}`);
    return new Response("ok");
  },
});
afterAll(() => receiver.stop(true));

const instance = twoWorkers({ COLONY_ALLOW_PRIVATE_WEBHOOKS: "1" });

/** An agent's token, and its webhook for post_created at the receiver. */
async function agentWithWebhook(username: string): Promise<string> {
  const c = await Connection.open(instance.server.url);
  try {
    const reg = await c.request("POST", "/api/v1/auth/register", { body: { username, display_name: username } });
    expect(reg.status).toBe(201);
    const token = json<{ access_token: string }>(await c.request("POST", "/api/v1/auth/token", { body: { api_key: json<{ api_key: string }>(reg).api_key } })).access_token;
    const hook = await c.request("POST", "/api/v1/webhooks", { token, body: { url: `http://127.0.0.1:${receiver.port}/${username}`, events: ["post_created"], secret: "a-secret-of-sixteen-chars" } });
    expect(hook.status).toBe(201);
    return token;
  } finally {
    c.close();
  }
}

const newPost = (title: string) => ({ title, body: "One of a series.", colony: "general", post_type: "discussion" });

/** Waits until every event of `ids` reached `username`'s webhook (or the time is up), then a moment more for a late double. */
async function deliveredOf(username: string, ids: string[]): Promise<Map<string, number>> {
  const count = () => {
    const m = new Map<string, number>();
    for (const d of deliveries) if (d.startsWith(`/${username} `)) m.set(d.slice(username.length + 2), (m.get(d.slice(username.length + 2)) ?? 0) + 1);
    return m;
  };
  for (let i = 0; i < 600 && !ids.every((id) => count().has(id)); i++) await Bun.sleep(25);
  await Bun.sleep(300);
  return count();
}

/** The event id of a post's post_created event, from the webhook's deliveries list. */
async function eventIds(token: string): Promise<Map<string, string>> {
  const c = await Connection.open(instance.server.url);
  try {
    const hooks = json<{ id: string }[]>(await c.request("GET", "/api/v1/webhooks", { token }));
    const out = new Map<string, string>();
    for (const h of hooks) {
      const list = json<{ event_id: string; payload: { post?: { id: string }; post_id?: string } }[]>(await c.request("GET", `/api/v1/webhooks/${h.id}/deliveries?limit=100`, { token }));
      for (const d of list) out.set(d.payload.post?.id ?? d.payload.post_id ?? "", d.event_id);
    }
    return out;
  } finally {
    c.close();
  }
}

describe("one writer for two workers", () => {
  test("a write through either worker is made by the writer (worker 1), logged with the client's address; reads stay where they land", async () => {
    const token = await agentWithWebhook("writes-here");
    const two = await connectionTo(instance.server.url, 2);
    const made = await two.request("POST", "/api/v1/posts", { token, body: newPost("Through worker two") });
    expect(made.status).toBe(201);
    expect(made.headers["x-colony-worker"]).toBe("1");
    const read = await two.request("GET", `/api/v1/posts/${json<{ id: string }>(made).id}`, { token });
    expect(read.status).toBe(200);
    expect(read.headers["x-colony-worker"]).toBe("2");
    two.close();
    const line = /"msg":"request","method":"POST","route":"\/api\/v1\/posts".*"ip":"127\.0\.0\.1".*"worker":1/;
    for (let i = 0; i < 200 && !line.test(instance.server.log()); i++) await Bun.sleep(25);
    expect(instance.server.log()).toMatch(line);
  }, PROCESS_TIMEOUT);

  test("a reload hands the outbox from the old writer to the new one: 40 posts made across it, each webhook delivered exactly once", async () => {
    const token = await agentWithWebhook("across-reload");
    const reloaded = () => instance.server.log().split('"msg":"reloaded"').length - 1;
    const before = reloaded();
    const ids: string[] = [];
    let sent = 0;
    const writing = (async () => {
      for (; sent < 40; sent++) {
        const r = await fetch(`${instance.server.url}/api/v1/posts`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(newPost(`Across the reload ${sent}`)) });
        expect(r.status).toBe(201);
        ids.push(((await r.json()) as { id: string }).id);
        if (sent === 5) instance.server.proc.kill("SIGHUP");
        await Bun.sleep(40);
      }
    })();
    await writing;
    for (let i = 0; i < 400 && reloaded() === before; i++) await Bun.sleep(25);
    expect(reloaded()).toBe(before + 1);
    const events = await eventIds(token);
    const eventOf = ids.map((id) => events.get(id)!);
    expect(eventOf.every(Boolean)).toBe(true);
    const got = await deliveredOf("across-reload", eventOf);
    expect(eventOf.map((e) => got.get(e) ?? 0)).toEqual(eventOf.map(() => 1));
  }, PROCESS_TIMEOUT);

  test("the writer killed: the other worker writes for itself and the supervisor delivers the outbox until the writer is back", async () => {
    const token = await agentWithWebhook("writer-down");
    const pids = childPids(instance.server.proc.pid);
    const writerPid = pids.find((pid) => readFileSync(`/proc/${pid}/environ`, "utf8").includes("COLONY_WORKER=1\0"))!;
    const two = await connectionTo(instance.server.url, 2);
    process.kill(writerPid, "SIGKILL");
    const ids: string[] = [];
    const madeBy = new Set<string>();
    // Until worker 2 hears the writer is gone, a write on its way answers 503 (nothing made).
    for (let i = 0; i < 400 && !(madeBy.has("2") && madeBy.has("1")); i++) {
      const r = await two.request("POST", "/api/v1/posts", { token, body: newPost(`While the writer restarts ${i}`) });
      expect([201, 503]).toContain(r.status);
      if (r.status === 201) {
        ids.push(json<{ id: string }>(r).id);
        madeBy.add(r.headers["x-colony-worker"]!);
      }
      await Bun.sleep(10);
    }
    // Written by worker 2 while no writer listened, then by the new writer.
    expect([...madeBy].sort()).toEqual(["1", "2"]);
    two.close();
    const events = await eventIds(token);
    const got = await deliveredOf("writer-down", ids.map((id) => events.get(id)!));
    // Each at least once: a batch the killed writer was delivering is delivered again.
    expect(ids.every((id) => (got.get(events.get(id)!) ?? 0) >= 1)).toBe(true);
  }, PROCESS_TIMEOUT);
});
