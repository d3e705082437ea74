// Raw HTTP/1.1 connections for the tests of several worker processes (test/workers*.test.ts):
// which worker a connection reached is known from its answers (`X-Colony-Worker`), and a test
// keeps the connection to keep talking to that worker. fetch's pool cannot be pinned to a worker,
// and it may hold a connection to a worker a test killed.
import { afterAll, beforeAll } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServe, type Running } from "./serve";

/** How long a hook that starts or stops an instance of several processes may take. */
export const PROCESS_TIMEOUT = 60_000;

/**
 * `colony serve --workers 2` (plus `env`) on a data folder of its own, started before the tests of
 * the file or describe block that calls this and stopped (SIGTERM, then whatever is left killed)
 * after them.
 */
export function twoWorkers(env: Record<string, string> = {}): { readonly server: Running; readonly dataDir: string; readonly root: string } {
  const root = mkdtempSync(join(tmpdir(), "colony-workers-"));
  const dataDir = join(root, "data");
  const children: Subprocess[] = [];
  let server: Running | null = null;
  beforeAll(async () => {
    server = await startServe(dataDir, { cwd: root, children, env: { COLONY_WORKERS: "2", ...env } });
  }, PROCESS_TIMEOUT);
  afterAll(async () => {
    server?.proc.kill("SIGTERM");
    await server?.proc.exited;
    for (const c of children) c.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  }, PROCESS_TIMEOUT);
  return {
    get server() {
      if (!server) throw new Error("the instance is not started yet (twoWorkers starts it before the tests)");
      return server;
    },
    dataDir,
    root,
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  /** Every Set-Cookie header of the answer. */
  cookies: string[];
  body: string;
}

/** One kept-alive HTTP/1.1 connection, read by hand: which worker it reached is known from its first answer. */
export class Connection {
  private buffer = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;
  worker = 0;

  private constructor(private socket: Socket) {
    socket.on("data", (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d]);
      for (const w of this.waiters.splice(0)) w();
    });
    const end = () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    };
    socket.on("close", end);
    socket.on("error", end);
  }

  static async open(url: string): Promise<Connection> {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    return new Connection(socket);
  }

  private more(): Promise<void> {
    if (this.closed) throw new Error(`connection closed; received so far: ${this.buffer.toString().slice(0, 300)}`);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Sends a request (a JSON body, or a form with `form`) and reads its answer (Content-Length or chunked). */
  async request(method: string, path: string, opts: { token?: string; body?: unknown; form?: Record<string, string>; cookie?: string } = {}): Promise<Answer> {
    const body = opts.form ? new URLSearchParams(opts.form).toString() : opts.body === undefined ? "" : JSON.stringify(opts.body);
    let head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`;
    if (opts.token) head += `Authorization: Bearer ${opts.token}\r\n`;
    if (opts.cookie) head += `Cookie: ${opts.cookie}\r\n`;
    if (body) head += `Content-Type: ${opts.form ? "application/x-www-form-urlencoded" : "application/json"}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
    this.socket.write(`${head}\r\n${body}`);
    for (;;) {
      const answer = this.parse();
      if (answer) return answer;
      await this.more();
    }
  }

  /** The first complete answer in the buffer (taken out of it), or null while one is incomplete. */
  private parse(): Answer | null {
    const end = this.buffer.indexOf("\r\n\r\n");
    if (end < 0) return null;
    const [statusLine, ...lines] = this.buffer.subarray(0, end).toString().split("\r\n");
    const headers: Record<string, string> = {};
    const cookies: string[] = [];
    for (const l of lines) {
      const name = l.slice(0, l.indexOf(":")).toLowerCase();
      const value = l.slice(l.indexOf(":") + 1).trim();
      if (name === "set-cookie") cookies.push(value);
      headers[name] = value;
    }
    let at = end + 4;
    let text: string;
    if (headers["transfer-encoding"]?.includes("chunked")) {
      const parts: Buffer[] = [];
      for (;;) {
        const line = this.buffer.indexOf("\r\n", at);
        if (line < 0) return null;
        const size = parseInt(this.buffer.subarray(at, line).toString(), 16);
        if (this.buffer.length < line + 2 + size + 2) return null;
        parts.push(this.buffer.subarray(line + 2, line + 2 + size));
        at = line + 2 + size + 2;
        if (size === 0) break;
      }
      text = Buffer.concat(parts).toString();
    } else {
      const length = Number(headers["content-length"] ?? 0);
      if (this.buffer.length < at + length) return null;
      text = this.buffer.subarray(at, at + length).toString();
      at += length;
    }
    this.buffer = this.buffer.subarray(at);
    // The worker that took the connection answers first; a write it passed on to the writer is
    // answered by the writer (http/writer.ts).
    if (!this.worker) this.worker = Number(headers["x-colony-worker"] ?? 0);
    return { status: Number(statusLine!.split(" ")[1]), headers, cookies, body: text };
  }

  /** Starts a request whose answer is a stream; `until` resolves once the text received contains `needle`. */
  stream(path: string, token: string): { until: (needle: string) => Promise<string> } {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`);
    return {
      until: async (needle: string) => {
        while (!this.buffer.includes(needle)) await this.more();
        return this.buffer.toString();
      },
    };
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A connection that reached worker `n` (found by asking /health on new connections). */
export async function connectionTo(url: string, n: number): Promise<Connection> {
  // A worker that is starting again takes a moment to listen: try for a while.
  const until = performance.now() + 30_000;
  while (performance.now() < until) {
    const c = await Connection.open(url);
    // A connection the kernel queued for a worker that was just killed is reset: try another.
    const r = await c.request("GET", "/health").catch(() => null);
    if (r?.status === 200 && c.worker === n) return c;
    c.close();
  }
  throw new Error(`no connection reached worker ${n}`);
}

export const json = <T>(a: Answer) => JSON.parse(a.body) as T;

/** The process ids of a process's children (a supervisor's workers). */
export function childPids(pid: number): number[] {
  const out = Bun.spawnSync(["ps", "-o", "pid=", "--ppid", String(pid)]).stdout.toString();
  return out
    .split("\n")
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);
}
