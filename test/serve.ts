// `colony serve` for the tests that need a running server: as a real child process where the
// process is the point (test/server.test.ts, test/vault-crash.test.ts: signals, locks, crashes),
// with a start that waits for the "colony listening" line and keeps reading the log so the pipe
// never fills; or in the test process (the browser tests), the same startServer the command runs,
// without a process to start and every module to load again.
import { expect } from "bun:test";
import type { Subprocess } from "bun";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { startServer } from "../src/server";

export const ROOT = join(import.meta.dir, "..");

/** The caller's environment without COLONY_* settings, plus a test instance's: rate limits off, no reader threads, one process. */
export function serveEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("COLONY_")) out[k] = v;
  return { ...out, COLONY_DATA_DIR: dataDir, COLONY_LOG_LEVEL: "info", COLONY_RATE_LIMIT_MULTIPLIER: "0", COLONY_READ_WORKERS: "0", COLONY_WORKERS: "1", ...extra };
}

export interface Running {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  log: () => string;
  /** Resolves with the exit code and how long after `since` the process ended. */
  exited: (since: number) => Promise<{ code: number | null; ms: number }>;
}

/**
 * Starts `colony serve --port 0` (plus `flags`) on `dataDir`, recorded in `children` for the
 * caller's clean-up, and waits for its "colony listening" line.
 */
export async function startServe(dataDir: string, opts: { cwd: string; children: Subprocess[]; flags?: string[]; env?: Record<string, string> }): Promise<Running> {
  const proc = Bun.spawn(["bun", join(ROOT, "src/main.ts"), "serve", "--port", "0", ...(opts.flags ?? [])], {
    cwd: opts.cwd,
    env: serveEnv(dataDir, opts.env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  opts.children.push(proc);
  let text = "";
  let url = "";
  const decoder = new TextDecoder();
  const listening = new Promise<string>((resolve, reject) => {
    (async () => {
      for await (const chunk of proc.stderr) {
        text += decoder.decode(chunk, { stream: true });
        const m = /"msg":"colony listening","url":"([^"]+)"/.exec(text);
        if (m && !url) resolve((url = m[1]));
      }
      if (!url) reject(new Error(`server exited before listening:\n${text}`));
    })().catch(reject);
  });
  url = await listening;
  const exited = async (since: number) => {
    const code = await proc.exited;
    return { code, ms: performance.now() - since };
  };
  return { proc, url, log: () => text, exited };
}

/** Registers an agent on a running server and mints its access token. */
export async function registerAgent(url: string, username: string): Promise<string> {
  const reg = await fetch(`${url}/api/v1/auth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username, display_name: username }) });
  expect(reg.status).toBe(201);
  const { api_key } = (await reg.json()) as { api_key: string };
  const tok = await fetch(`${url}/api/v1/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key }) });
  return ((await tok.json()) as { access_token: string }).access_token;
}

/** A server started in the test process. */
export interface InProcessServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts what `colony serve --port 0` starts, in this process, on `dataDir` with a test instance's environment plus `extra`. */
export async function serveInProcess(dataDir: string, extra: Record<string, string> = {}): Promise<InProcessServer> {
  const config = { ...loadConfig(serveEnv(dataDir, { COLONY_LOG_LEVEL: "silent", ...extra })), host: "127.0.0.1", port: 0 };
  const running = await startServer(config);
  return { url: running.url, stop: async () => void (await running.shutdown("test")) };
}
