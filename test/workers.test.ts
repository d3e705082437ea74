// `colony serve --workers 2` as real processes: a supervisor and two workers on one data folder.
// Each test reaches a chosen worker by opening connections until one lands on it (the kernel
// spreads connections over the workers; every answer names its worker) and keeping that one.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { colonyWith } from "./cli";
import { serveEnv, type Running } from "./serve";
import { childPids, Connection, connectionTo, json, PROCESS_TIMEOUT, twoWorkers } from "./worker-connections";

/**
 * Registers an agent and mints its token over a connection of its own (not fetch's pool, which
 * may still hold a connection to a worker a test killed).
 */
async function register(url: string, username: string): Promise<string> {
  const c = await Connection.open(url);
  try {
    const reg = await c.request("POST", "/api/v1/auth/register", { body: { username, display_name: username } });
    expect(reg.status).toBe(201);
    const tok = await c.request("POST", "/api/v1/auth/token", { body: { api_key: json<{ api_key: string }>(reg).api_key } });
    expect(tok.status).toBe(200);
    return json<{ access_token: string }>(tok).access_token;
  } finally {
    c.close();
  }
}

describe("two workers on one data folder", () => {
  const instance = twoWorkers({ COLONY_RATE_LIMIT_MULTIPLIER: "1" });

  test("each answer names its worker; /health counts the workers", async () => {
    const one = await connectionTo(instance.server.url, 1);
    const two = await connectionTo(instance.server.url, 2);
    const health = json<{ workers: number; worker_restarts: number; worker: number }>(await two.request("GET", "/health"));
    expect(health).toMatchObject({ workers: 2, worker: 2 });
    expect(health.worker_restarts).toBeNumber();
    expect(json<{ worker: number }>(await one.request("GET", "/health")).worker).toBe(1);
    one.close();
    two.close();
    expect(instance.server.log()).toContain('"workers":2');
    // Access lines are written in batches, a moment after their requests.
    for (let i = 0; i < 200 && !/"msg":"request".*"worker":1/.test(instance.server.log()); i++) await Bun.sleep(25);
    expect(instance.server.log()).toMatch(/"msg":"request".*"worker":1/);
  }, PROCESS_TIMEOUT);

  test("a write on one worker is read back through the other, with the read cache on", async () => {
    const token = await register(instance.server.url, "writer-one");
    const one = await connectionTo(instance.server.url, 1);
    const two = await connectionTo(instance.server.url, 2);
    // Both workers answer the list once, so both keep it in their read caches.
    const before = json<{ total: number }>(await two.request("GET", "/api/v1/posts?sort=new"));
    expect(json<{ total: number }>(await one.request("GET", "/api/v1/posts?sort=new")).total).toBe(before.total);
    for (let i = 0; i < 3; i++) {
      const made = await one.request("POST", "/api/v1/posts", { token, body: { title: `From worker one ${i}`, body: "Written on one, read on two.", colony: "general", post_type: "discussion" } });
      expect(made.status).toBe(201);
      const id = json<{ id: string }>(made).id;
      const list = json<{ items: { id: string }[]; total: number }>(await two.request("GET", "/api/v1/posts?sort=new"));
      expect(list.total).toBe(before.total + i + 1);
      expect(list.items[0]!.id).toBe(id);
      expect((await two.request("GET", `/api/v1/posts/${id}`)).status).toBe(200);
    }
    one.close();
    two.close();
  }, PROCESS_TIMEOUT);

  test("an event stream on one worker hears a message sent through the other", async () => {
    const reader = await register(instance.server.url, "stream-reader");
    const sender = await register(instance.server.url, "stream-sender");
    const listening = await connectionTo(instance.server.url, 1);
    const stream = listening.stream("/api/v1/stream", reader);
    await stream.until("\n\n");
    const sending = await connectionTo(instance.server.url, 2);
    const sent = await sending.request("POST", "/api/v1/messages/send/stream-reader", { token: sender, body: { body: "across the workers" } });
    expect(sent.status).toBe(201);
    const text = await stream.until("across the workers");
    expect(text).toContain("dm.new");
    listening.close();
    sending.close();
  }, PROCESS_TIMEOUT);

  test("a worker killed with SIGKILL is started again while the other keeps answering", async () => {
    const pids = childPids(instance.server.proc.pid);
    expect(pids).toHaveLength(2);
    const two = await connectionTo(instance.server.url, 2);
    const health = json<{ worker: number; worker_restarts: number }>(await two.request("GET", "/health"));
    expect(health.worker).toBe(2);
    // Worker 1's process, by the number its supervisor gave it.
    const one = pids.find((pid) => readFileSync(`/proc/${pid}/environ`, "utf8").includes("COLONY_WORKER=1\0"))!;
    process.kill(one, "SIGKILL");
    for (let i = 0; i < 20; i++) expect((await two.request("GET", "/health")).status).toBe(200);
    const back = await connectionTo(instance.server.url, 1);
    expect(json<{ worker_restarts: number }>(await back.request("GET", "/health")).worker_restarts).toBe(health.worker_restarts + 1);
    expect(childPids(instance.server.proc.pid)).not.toContain(one);
    expect(instance.server.log()).toContain('"msg":"worker exited; starting it again"');
    back.close();
    two.close();
  }, PROCESS_TIMEOUT);
});

describe("a reload under load", () => {
  const instance = twoWorkers();

  test("SIGHUP replaces both workers while 32 connections keep asking, 8 of them creating posts: every request answered, and an event stream is told to reconnect and does", async () => {
    const token = await register(instance.server.url, "reload-reader");
    const before = childPids(instance.server.proc.pid);
    const listening = await Connection.open(instance.server.url);
    const stream = listening.stream("/api/v1/stream", token);
    await stream.until("\n\n");
    let stop = false;
    const failures: string[] = [];
    let answered = 0;
    // 32 clients as wrk runs them: each keeps its connection alive, one request at a time, opens a
    // new one after an answer that says `Connection: close`, and counts a connection closed under
    // a request as a failure (a client library might retry it; a load generator does not). One in
    // four writes: worker 2 passes its posts on to the writer, which is replaced too.
    let made = 0;
    const clients = Array.from({ length: 32 }, async (_, i) => {
      let c: Connection | null = null;
      const writes = i % 4 === 0;
      while (!stop) {
        try {
          c ??= await Connection.open(instance.server.url);
          const r = writes
            ? await c.request("POST", "/api/v1/posts", { token, body: { title: `During the reload ${made++}`, body: "Sent while the workers are replaced.", colony: "general", post_type: "discussion" } })
            : await c.request("GET", "/api/v1/posts?limit=5");
          if (r.status === (writes ? 201 : 200)) answered++;
          else failures.push(`status ${r.status}`);
          if (r.headers.connection === "close") {
            c.close();
            c = null;
          }
        } catch (err) {
          failures.push(String(err).slice(0, 200));
          c?.close();
          c = null;
        }
      }
      c?.close();
    });
    while (answered < 200) await Bun.sleep(10);
    const reloads = reloadsLogged(instance.server);
    instance.server.proc.kill("SIGHUP");
    // The stream hears the shutdown of its worker and may reconnect elsewhere.
    expect(await stream.until("server.shutdown")).toContain("server.shutdown");
    while (reloadsLogged(instance.server) === reloads) await Bun.sleep(25);
    const atReload = answered;
    while (answered < atReload + 200) await Bun.sleep(10);
    stop = true;
    await Promise.all(clients);
    expect(failures).toEqual([]);
    const after = childPids(instance.server.proc.pid);
    expect(after).toHaveLength(2);
    for (const pid of before) expect(after).not.toContain(pid);
    const again = await Connection.open(instance.server.url);
    const resumed = again.stream("/api/v1/stream", token);
    expect(await resumed.until("\n\n")).toContain("retry:");
    listening.close();
    again.close();
  }, PROCESS_TIMEOUT);

  test("colony reload asks the supervisor to replace its workers", async () => {
    const before = reloadsLogged(instance.server);
    const r = await colonyWith(serveEnv(instance.dataDir), "reload");
    expect(r.code).toBe(0);
    expect(r.out).toContain(`asked colony serve (pid ${instance.server.proc.pid}) to replace its 2 workers`);
    while (reloadsLogged(instance.server) === before) await Bun.sleep(25);
    const c = await Connection.open(instance.server.url);
    expect((await c.request("GET", "/health")).status).toBe(200);
    c.close();
  }, PROCESS_TIMEOUT);
});

/** How many reloads the supervisor has finished. */
const reloadsLogged = (server: Running) => server.log().split('"msg":"reloaded"').length - 1;

