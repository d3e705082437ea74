// Driving the compiled executable in end-to-end tests: build dist/colony when it is missing or
// older than its sources, start `colony serve` on a data folder and wait for /health, run its
// other commands, and collect a child's output for error messages.
import type { Subprocess } from "bun";
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
export const BIN = join(ROOT, "dist", "colony");
export const BUILD_TIMEOUT = 240_000;

/** Newest modification time among the files the executable is built from. */
function newestSource(): number {
  let newest = 0;
  const visit = (path: string) => {
    if (!existsSync(path)) return;
    const st = statSync(path);
    if (st.isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of ["src", "migrations", "public", "scripts/build.ts", "package.json", "bun.lock"]) visit(join(ROOT, p));
  return newest;
}

const fresh = () => existsSync(BIN) && statSync(BIN).mtimeMs >= newestSource();

/**
 * Builds dist/colony unless it is newer than its sources. Test processes running side by side
 * (`bun test --parallel`) build it once: each looks under a lock (a folder beside it), so the
 * others wait while the first builds and then find the executable fresh.
 */
export async function ensureBinary(): Promise<void> {
  const lock = join(ROOT, "dist", ".building");
  const deadline = Date.now() + BUILD_TIMEOUT;
  mkdirSync(join(ROOT, "dist"), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another process builds it; a lock older than a build may take was left by one that died.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > BUILD_TIMEOUT) rmdirSync(lock);
      if (Date.now() > deadline) throw new Error("waited too long for another process's build of dist/colony");
      await Bun.sleep(200);
    }
  }
  try {
    if (fresh()) return;
    const proc = Bun.spawn([process.execPath, "scripts/build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0) throw new Error(`bun scripts/build.ts exited with ${code}\n${out}\n${err}`);
  } finally {
    rmdirSync(lock);
  }
}

export function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/** The caller's environment without any COLONY_* setting, plus the given ones. */
export function envWith(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("COLONY_")) env[k] = v;
  return { ...env, ...extra };
}

/** Collects a child's output stream as it arrives, for error messages. */
export function collect(stream: ReadableStream<Uint8Array> | undefined): { text: () => string } {
  let text = "";
  if (stream) {
    (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
    })().catch(() => {});
  }
  return { text: () => text };
}

export interface RunningServer {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  base: string;
  log: { text: () => string };
}

/** Starts `colony serve` on 127.0.0.1 and a free port with `env`, and waits (15 s at most) for /health. */
export async function startServer(cwd: string, env: Record<string, string>): Promise<RunningServer> {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([BIN, "serve"], { cwd, env: { ...env, COLONY_HOST: "127.0.0.1", COLONY_PORT: String(port) }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const log = collect(proc.stderr);
  collect(proc.stdout);
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}\n${log.text()}`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`server did not answer /health within 15 s\n${log.text()}`);
    }
    await Bun.sleep(50);
  }
  return { proc, base, log };
}

/** Runs one command of the executable to its end. */
export async function runBinary(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn([BIN, ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, err };
}
