// `colony serve` as a real process: the data folder's lock and the graceful shutdown.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { BACKGROUND_START_MS, startServer } from "../src/server";
import { colonyWith } from "./cli";
import { ROOT, serveEnv, registerAgent, startServe, type Running } from "./serve";

const root = mkdtempSync(join(tmpdir(), "colony-server-"));
const children: Subprocess[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});
let n = 0;
const freshDir = () => join(root, `data-${++n}`);

const env = (dataDir: string) => serveEnv(dataDir);

/** `colony <args>` as a process of its own, for a second server beside the first. */
function colonyProcess(dataDir: string, ...args: string[]) {
  const p = Bun.spawnSync(["bun", join(ROOT, "src/main.ts"), ...args], { cwd: root, env: env(dataDir) });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

/** Starts `colony serve --port 0` and waits for its "colony listening" line. */
const start = (dataDir: string, ...flags: string[]): Promise<Running> => startServe(dataDir, { cwd: root, children, flags });

const register = registerAgent;

function usernames(dataDir: string): string[] {
  const db = new Database(join(dataDir, "colony.db"), { readonly: true });
  try {
    return (db.query("select username from users").all() as { username: string }[]).map((r) => r.username);
  } finally {
    db.close();
  }
}

/** A raw HTTP/1.1 connection, to send a body as slowly as a test needs. */
async function rawConnection(url: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let received = "";
  socket.on("data", (d) => (received += d.toString()));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => {});
  return { socket, received: () => received, closed };
}

/**
 * A request whose body never completes: 6 of its 100 declared bytes sent, then nothing. Resolves
 * once the server has read it: a request on another connection, sent after it, was answered (the
 * server reads its sockets in the order they became readable), however slow the machine.
 */
async function stalledUpload(url: string) {
  const c = await rawConnection(url);
  c.socket.write(`POST /api/v1/auth/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user`);
  await new Promise<void>((resolve) => c.socket.once("drain", resolve).write("", () => resolve()));
  for (let i = 0; i < 2; i++) await (await fetch(`${url}/health`)).text();
  return c;
}

describe("one server per data folder", () => {
  test("a second serve and a restore are refused while the first serves, and its writes stay", async () => {
    const dir = freshDir();
    const first = await start(dir);
    try {
      const backup = join(root, `before-${n}.db`);
      expect((await colonyWith(env(dir), "backup", backup)).code).toBe(0);

      const second = colonyProcess(dir, "serve", "--port", "0");
      expect(second.code).toBe(1);
      expect(second.err).toContain(`in use by colony serve (pid ${first.proc.pid}`);
      expect(second.err).toContain(first.url);

      const restore = await colonyWith(env(dir), "restore", backup);
      expect(restore.code).toBe(1);
      expect(restore.err).toContain(`in use by colony serve (pid ${first.proc.pid}`);

      // The write that an unguarded restore used to swallow.
      await register(first.url, "kept-after-refused-restore");
    } finally {
      first.proc.kill("SIGTERM");
      expect((await first.exited(performance.now())).code).toBe(0);
    }
    expect(usernames(dir)).toContain("kept-after-refused-restore");
    // Once the server has stopped, the folder is free again.
    expect((await colonyWith(env(dir), "migrate")).code).toBe(0);
  }, 30_000);
});

describe("graceful shutdown", () => {
  test("SIGTERM with an event stream open: the stream gets server.shutdown and ends, the server exits 0 at once", async () => {
    const dir = freshDir();
    const s = await start(dir, "--stream-heartbeat-ms", "100000");
    const token = await register(s.url, "streamer");
    const res = await fetch(`${s.url}/api/v1/stream`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let body = "";
    const decoder = new TextDecoder();
    const readAll = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        body += decoder.decode(value, { stream: true });
      }
    })();
    while (!body.includes("connected")) await Bun.sleep(10);

    const since = performance.now();
    s.proc.kill("SIGTERM");
    await readAll; // the stream ends
    expect(body).toContain("event: server.shutdown");
    expect(body).toMatch(/retry: \d+\n/);
    const data = JSON.parse(/event: server.shutdown\ndata: (.*)\n/.exec(body)![1]);
    expect(data.reconnect_after_ms).toBeGreaterThan(0);
    const { code, ms } = await s.exited(since);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5000); // the deadline is 10 s: the stream did not hold the shutdown
    expect(s.log()).toContain('"msg":"stopped"');
    expect(s.log()).toContain('"streams_closed":1');
  }, 30_000);

  test("SIGTERM during a slow upload: the upload is answered, then the server exits 0", async () => {
    const dir = freshDir();
    const s = await start(dir);
    const body = JSON.stringify({ username: "slow-uploader", display_name: "Slow" });
    const c = await rawConnection(s.url);
    c.socket.write(`POST /api/v1/auth/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
    c.socket.write(body.slice(0, 10));
    await Bun.sleep(200);
    const since = performance.now();
    s.proc.kill("SIGTERM");
    await Bun.sleep(300);
    c.socket.write(body.slice(10, 30));
    await Bun.sleep(300);
    c.socket.write(body.slice(30));
    await c.closed;
    expect(c.received()).toStartWith("HTTP/1.1 201");
    const { code } = await s.exited(since);
    expect(code).toBe(0);
    expect(usernames(dir)).toContain("slow-uploader");
  }, 30_000);

  test("a request still open at the deadline is cut, and the server exits 0 right after the deadline", async () => {
    const dir = freshDir();
    const s = await start(dir, "--shutdown-timeout-ms", "700");
    const c = await stalledUpload(s.url);
    const since = performance.now();
    s.proc.kill("SIGTERM");
    await c.closed;
    const { code, ms } = await s.exited(since);
    expect(code).toBe(0);
    expect(ms).toBeGreaterThanOrEqual(650);
    expect(ms).toBeLessThan(5000);
    expect(s.log()).toContain("shutdown deadline reached");
    expect(s.log()).toContain('"cut":true');
  }, 30_000);

  test("a second signal exits at once", async () => {
    const dir = freshDir();
    const s = await start(dir, "--shutdown-timeout-ms", "60000");
    const c = await stalledUpload(s.url);
    s.proc.kill("SIGTERM");
    while (!s.log().includes("shutting down")) await Bun.sleep(10);
    const since = performance.now();
    s.proc.kill("SIGTERM");
    const { code, ms } = await s.exited(since);
    expect(code).toBe(143);
    expect(ms).toBeLessThan(3000);
    expect(s.log()).toContain("second signal");
    c.socket.destroy();
    // The kernel released the lock with the process: the folder can be served again.
    expect((await colonyWith(env(dir), "migrate")).code).toBe(0);
  }, 30_000);
});

describe("what starts after the server listens", () => {
  // In process: startServer as `colony serve` runs it, on port 0 with one reader thread.
  const config = (dataDir: string) => ({ ...loadConfig({ COLONY_LOG_LEVEL: "silent" }), dataDir, host: "127.0.0.1", port: 0, readWorkers: 1 });

  test("the reader thread, the schedules and a new folder's signing key start once the server listens", async () => {
    const dir = freshDir();
    const running = await startServer(config(dir));
    try {
      expect((await fetch(`${running.url}/health`)).status).toBe(200);
      while (running.ctx.reads.threads < 1 || !existsSync(join(dir, "secrets", "oidc-rs256.pem"))) await Bun.sleep(10);
      expect((running.ctx.jobs as unknown as { crons: unknown[] }).crons.length).toBeGreaterThan(0);
    } finally {
      await running.shutdown("test");
    }
  }, 30_000);

  test("a shutdown before they start leaves them unstarted", async () => {
    const dir = freshDir();
    const running = await startServer(config(dir));
    const report = await running.shutdown("test");
    expect(report.cut).toBe(false);
    await Bun.sleep(BACKGROUND_START_MS * 3);
    expect(running.ctx.reads.threads).toBe(0);
    expect((running.ctx.jobs as unknown as { crons: unknown[] }).crons).toEqual([]);
    expect(existsSync(join(dir, "secrets", "oidc-rs256.pem"))).toBe(false);
  }, 30_000);
});
