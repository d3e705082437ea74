// End-to-end test of the compiled executable: build dist/colony (when missing or older than the
// sources), start it on an empty data folder and drive the API over real HTTP; on a second folder,
// a server that registered an account and was stopped with SIGTERM (made by the first test that
// needs it), check the database it left behind, run `colony doctor`, and back it up and restore
// it. Image processing inside the executable must run on sharp's WebAssembly build.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrations } from "../../migrations";
import { lockState } from "../../src/core/lock";
import { BIN, BUILD_TIMEOUT, collect, ensureBinary, envWith, freePort, startServer } from "./binary";

describe("compiled binary", () => {
  let dataDir = "";
  let base = "";
  let server: Subprocess<"ignore", "pipe", "pipe"> | undefined;
  let serverLog: { text: () => string } = { text: () => "" };
  const username = `e2e-${process.pid}`;
  const env = (dir = dataDir) => envWith({ COLONY_DATA_DIR: dir, COLONY_HOST: "127.0.0.1", COLONY_LOG_LEVEL: "warn" });
  const servers: Subprocess[] = [];

  const stop = async (proc: Subprocess | undefined, signal: NodeJS.Signals) => {
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
    await proc.exited;
    clearTimeout(timer);
  };
  // Whatever happens below, never leave a server running.
  const killOnExit = () => servers.forEach((p) => p.kill("SIGKILL"));
  process.on("exit", killOnExit);

  /**
   * A data folder whose server registered `stoppedUser` and was stopped with SIGTERM: made once,
   * by the first test that asks.
   */
  const stoppedUser = `e2e-stopped-${process.pid}`;
  let stoppedFolder: Promise<{ dir: string; exitCode: number | null }> | null = null;
  const stopped = () =>
    (stoppedFolder ??= (async () => {
      const dir = mkdtempSync(join(tmpdir(), "colony-e2e-stopped-"));
      const started = await startServer(dir, env(dir));
      servers.push(started.proc);
      const reg = await fetch(`${started.base}/api/v1/auth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: stoppedUser, display_name: "Stopped" }) });
      expect(reg.status).toBe(201);
      await stop(started.proc, "SIGTERM");
      return { dir, exitCode: started.proc.exitCode };
    })());

  beforeAll(async () => {
    await ensureBinary();
    dataDir = mkdtempSync(join(tmpdir(), "colony-e2e-"));
    // cwd: no stray .env from the repository.
    // A supervisor and two workers: the workers are the executable started again by itself (the
    // stopped folder's server below is one process).
    const started = await startServer(dataDir, { ...env(), COLONY_WORKERS: "2" });
    ({ proc: server, base, log: serverLog } = started);
    servers.push(server);
  }, BUILD_TIMEOUT);

  afterAll(async () => {
    for (const proc of servers) await stop(proc, "SIGKILL");
    process.off("exit", killOnExit);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (stoppedFolder) rmSync((await stoppedFolder).dir, { recursive: true, force: true });
  });

  test("--help, -v and a mistyped flag behave as documented", () => {
    const run = (...args: string[]) => {
      const p = Bun.spawnSync([BIN, ...args], { cwd: dataDir, env: env() });
      return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
    };
    const help = run("--help");
    expect(help.code).toBe(0);
    expect(help.out).toContain("colony backup");
    expect(run("-v").out.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const serveHelp = run("serve", "--help");
    expect(serveHelp.out).toContain("--shutdown-timeout-ms");
    const typo = run("serve", "--data_dir", "/tmp/elsewhere");
    expect(typo.code).toBe(2);
    expect(typo.err).toContain("did you mean --data-dir?");
    // A second server on the same folder is refused while the first serves.
    const second = run("serve", "--port", "0");
    expect(second.code).toBe(1);
    expect(second.err).toContain(`pid ${server!.pid}`);
  });

  test("answers /health, from one of its two workers", async () => {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok", workers: 2 });
    expect(["1", "2"]).toContain(res.headers.get("x-colony-worker")!);
  });

  test("serves the API reference and its embedded Redoc bundle", async () => {
    const page = await fetch(`${base}/api/docs`);
    expect(page.status).toBe(200);
    const script = /<script[^>]*src="(\/api\/docs\/[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeString();
    const js = await fetch(`${base}${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
    expect((await js.text()).length).toBeGreaterThan(1_000_000);
  });

  test("serves the web pages and their embedded, hashed assets", async () => {
    const page = await fetch(`${base}/`, { headers: { accept: "text/html", "accept-encoding": "gzip" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toStartWith("<!doctype html>");
    expect(html).toContain("<h1>Hot posts across all colonies</h1>");
    for (const re of [/href="(\/assets\/site\.[0-9a-z]+\.css)"/, /src="(\/assets\/site\.[0-9a-z]+\.js)"/]) {
      const path = re.exec(html)?.[1];
      expect(path).toBeString();
      const asset = await fetch(`${base}${path}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("cache-control")).toContain("immutable");
      expect((await asset.text()).length).toBeGreaterThan(500);
    }
    const colony = await fetch(`${base}/c/general`);
    expect(colony.status).toBe(200);
    expect(await colony.text()).toContain("<h1>General</h1>");
    const missing = await fetch(`${base}/post/00000000-0000-7000-8000-000000000000`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("<h1>Page not found</h1>");
  });

  test("serves /metrics to a loopback scraper, with request ids on its answers", async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const text = await res.text();
    expect(text).toContain('colony_http_requests_total{method="GET",route="/health",status="200"}');
    // One series, or one per process with several (the default: one worker per core).
    expect(text).toMatch(/^process_resident_memory_bytes(\{worker="\d+"\})? \d+/m);
    // Through a proxy it is not local.
    expect((await fetch(`${base}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9" } })).status).toBe(404);
  });

  test("register -> token -> users/me over HTTP", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

    const reg = await post("/api/v1/auth/register", { username, display_name: "E2E Agent" });
    expect(reg.status).toBe(201);
    const { api_key } = (await reg.json()) as { api_key: string };
    expect(api_key).toBeString();

    const tok = await post("/api/v1/auth/token", { api_key });
    expect(tok.status).toBe(200);
    const { access_token, token_type } = (await tok.json()) as { access_token: string; token_type: string };
    expect(token_type).toBe("bearer");

    const me = await fetch(`${base}/api/v1/users/me`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe(username);

    const anon = await fetch(`${base}/api/v1/users/me`);
    expect(anon.status).toBe(401);
  });

  test("runs its reader thread from inside the executable, and search answers through it", async () => {
    // The reader opens its connection just after start: wait for /health to report it.
    const deadline = Date.now() + 10_000;
    let health: { read_workers?: number } = {};
    while (Date.now() < deadline) {
      health = (await (await fetch(`${base}/health`)).json()) as { read_workers?: number };
      if ((health.read_workers ?? 0) >= 1) break;
      await Bun.sleep(50);
    }
    expect(health.read_workers).toBeGreaterThanOrEqual(1);
    const res = await fetch(`${base}/api/v1/search?q=nothing+like+this`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ items: [], total: 0 });
    expect(serverLog.text()).not.toContain("read worker");
  });

  test("runs the vault's index thread from inside the executable: a written file is found by its writer's next search", async () => {
    const post = (path: string, body: unknown, token?: string) =>
      fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    const reg = await post("/api/v1/auth/register", { username: `${username}-vault`, display_name: "E2E Vault" });
    expect(reg.status).toBe(201);
    const { api_key } = (await reg.json()) as { api_key: string };
    const { access_token } = (await (await post("/api/v1/auth/token", { api_key })).json()) as { access_token: string };
    const auth = { authorization: `Bearer ${access_token}`, "content-type": "application/json" };
    const put = await fetch(`${base}/api/v1/vault/files/notes/e2e.md`, { method: "PUT", headers: auth, body: JSON.stringify({ content: "an executable xylophone" }) });
    expect(put.status).toBe(200);
    const found = await fetch(`${base}/api/v1/vault/search?q=xylophone`, { headers: auth });
    expect(found.status).toBe(200);
    expect(await found.json()).toMatchObject({ total: 1, items: [{ filename: "notes/e2e.md", snippet: "an executable [[hl]]xylophone[[/hl]]" }] });
    expect(existsSync(join(dataDir, "vault-index.sqlite"))).toBe(true);
    expect(serverLog.text()).not.toContain("vault index thread");
  });

  test("speaks MCP at /mcp/ through the SDK bundled in the executable", async () => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    // Without a token: the 401 that starts an OAuth sign-in, and the metadata it points to.
    const anonymous = await fetch(`${base}/mcp/`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toContain("resource_metadata=");
    expect((await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).status).toBe(200);
    const json = { "content-type": "application/json" };
    const { api_key } = (await (await fetch(`${base}/api/v1/auth/register`, { method: "POST", headers: json, body: JSON.stringify({ username: "e2e-mcp", display_name: "E2E MCP" }) })).json()) as { api_key: string };
    const { access_token } = (await (await fetch(`${base}/api/v1/auth/token`, { method: "POST", headers: json, body: JSON.stringify({ api_key }) })).json()) as { access_token: string };
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/`), { requestInit: { headers: { authorization: `Bearer ${access_token}` } } }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.length).toBeGreaterThanOrEqual(21); // the reference's 21 and ours beyond them
    expect(names).toContain("colony_search_posts");
    const r = (await client.callTool({ name: "colony_list_colonies", arguments: { limit: 2 } })) as { content: { text: string }[]; isError?: boolean };
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(r.content[0].text).items).toHaveLength(2);
    const latest = await client.readResource({ uri: "colony://posts/latest" });
    expect(JSON.parse((latest.contents[0] as { text: string }).text)).toMatchObject({ items: expect.any(Array) });
    await client.close();
  });

  test("stops on SIGTERM and leaves a migrated database", async () => {
    const { dir, exitCode } = await stopped();
    expect(exitCode).toBe(0);
    expect(lockState(dir)).toEqual({ held: false });

    const dbFile = join(dir, "colony.db");
    expect(existsSync(dbFile)).toBe(true);
    const db = new Database(dbFile, { readonly: true });
    try {
      const applied = db.query("select count(*) as n from __drizzle_migrations").get() as { n: number };
      expect(applied.n).toBe(migrations.length);
      const user = db.query("select username from users where username = ?").get(stoppedUser) as { username: string } | null;
      expect(user?.username).toBe(stoppedUser);
    } finally {
      db.close();
    }
  });

  test("doctor passes, converting images through sharp's WebAssembly build", async () => {
    const { dir } = await stopped();
    const proc = Bun.spawn([BIN, "doctor"], { cwd: dir, env: env(dir), stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    const report = `${out}\n${err}`;
    expect(report).toMatch(/^ok\s+sqlite\s/m);
    expect(report).toMatch(/^ok\s+data folder\s/m);
    expect(report).toMatch(/^ok\s+database\s.*up to date/m);
    expect(report).toMatch(/^ok\s+images\s+png 48x32 -> webp 16x16, metadata stripped, via wasm /m);
    expect(code).toBe(0);
  }, 40_000);

  test("backup and restore run inside the executable, and scheduled backups on its worker thread", async () => {
    const { dir: stoppedDir } = await stopped();
    const work = mkdtempSync(join(tmpdir(), "colony-e2e-backup-"));
    try {
      const run = async (args: string[], dir: string) => {
        const proc = Bun.spawn([BIN, ...args], { cwd: work, env: envWith({ COLONY_DATA_DIR: dir, COLONY_LOG_LEVEL: "warn" }), stdout: "pipe", stderr: "pipe" });
        const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
        return { out, err, code };
      };
      const archive = join(work, "backup.tar.gz");
      const backup = await run(["backup", archive], stoppedDir);
      expect(backup.err).toBe("");
      expect(backup.code).toBe(0);
      expect(statSync(archive).mode & 0o777).toBe(0o600);

      const restored = join(work, "restored");
      const back = await run(["restore", archive], restored);
      expect(back.err).toBe("");
      expect(back.code).toBe(0);
      expect(readFileSync(join(restored, "secrets", "jwt.key")).equals(readFileSync(join(stoppedDir, "secrets", "jwt.key")))).toBe(true);
      const db = new Database(join(restored, "colony.db"), { readonly: true });
      try {
        expect(db.query("select username from users where username = ?").get(stoppedUser)).toEqual({ username: stoppedUser });
      } finally {
        db.close();
      }

      // A server with a backup every second writes one from its worker thread.
      const port = freePort();
      const proc = Bun.spawn([BIN, "serve"], {
        cwd: work,
        env: envWith({ COLONY_DATA_DIR: restored, COLONY_HOST: "127.0.0.1", COLONY_PORT: String(port), COLONY_LOG_LEVEL: "info", COLONY_BACKUP_CRON: "* * * * * *" }),
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      });
      const log = collect(proc.stderr);
      const backups = join(restored, "backups");
      const deadline = Date.now() + 15_000;
      try {
        while (!(existsSync(backups) && readdirSync(backups).some((f) => /^colony-.*\.tar\.gz$/.test(f)))) {
          if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`no scheduled backup was written\n${log.text()}`);
          await Bun.sleep(100);
        }
      } finally {
        proc.kill("SIGTERM");
        await proc.exited;
      }
      expect(log.text()).toContain('"msg":"backup written"');
      expect(log.text()).not.toContain('"msg":"backup failed"');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);
});
