// /metrics of `colony serve --workers 2` as real processes: whichever worker a scrape lands on
// answers for the whole instance (the supervisor and both workers, src/cluster-metrics.ts).
// Each test reaches a chosen worker by opening connections until one lands on it and keeping
// that one (as test/workers.test.ts does), and counts from what the other tests left.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServe, type Running } from "./serve";

const root = mkdtempSync(join(tmpdir(), "colony-workers-metrics-"));
const children: Subprocess[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

const TIMEOUT = 60_000;

/** One kept-alive HTTP/1.1 connection, read by hand: which worker it reached is known from its answers. */
class Connection {
  private buffer = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  private closed = false;
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

  /** Sends a GET and reads its answer (a body with Content-Length). */
  async get(path: string): Promise<{ status: number; body: string }> {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    for (;;) {
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end >= 0) {
        const [statusLine, ...lines] = this.buffer.subarray(0, end).toString().split("\r\n");
        const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
        const length = Number(headers.get("content-length") ?? 0);
        if (this.buffer.length >= end + 4 + length) {
          const body = this.buffer.subarray(end + 4, end + 4 + length).toString();
          this.buffer = this.buffer.subarray(end + 4 + length);
          this.worker = Number(headers.get("x-colony-worker") ?? 0);
          return { status: Number(statusLine!.split(" ")[1]), body };
        }
      }
      if (this.closed) throw new Error(`connection closed; received: ${this.buffer.toString().slice(0, 300)}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A connection that reached worker `n` (found by asking /health on new connections). */
async function connectionTo(url: string, n: number): Promise<Connection> {
  // A worker that is starting again takes a moment to listen: try for a while.
  const until = performance.now() + 30_000;
  while (performance.now() < until) {
    const c = await Connection.open(url);
    const r = await c.get("/health").catch(() => ({ status: 0 }));
    if (r.status === 200 && c.worker === n) return c;
    c.close();
  }
  throw new Error(`no connection reached worker ${n}`);
}

/** The value of one sample line, by its exact name and labels (0 when absent). */
const sample = (text: string, series: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
};
const lines = (text: string, prefix: string) => text.split("\n").filter((l) => l.startsWith(prefix));

const API_ROOT = 'colony_http_requests_total{method="GET",route="/api/v1",status="200"}';

async function scrape(c: Connection): Promise<string> {
  const r = await c.get("/metrics");
  expect(r.status).toBe(200);
  return r.body;
}

describe("/metrics with two workers", () => {
  let server: Running;
  beforeAll(async () => {
    server = await startServe(join(root, "data"), { cwd: root, children, env: { COLONY_WORKERS: "2" } });
  }, TIMEOUT);
  afterAll(async () => {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
  }, TIMEOUT);

  test("either worker answers with the requests of both summed", async () => {
    const one = await connectionTo(server.url, 1);
    const two = await connectionTo(server.url, 2);
    const before = sample(await scrape(one), API_ROOT);
    for (let i = 0; i < 3; i++) expect((await one.get("/api/v1")).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await two.get("/api/v1")).status).toBe(200);
    expect(two.worker).toBe(2);
    const throughTwo = await scrape(two);
    expect(sample(throughTwo, API_ROOT)).toBe(before + 8);
    const throughOne = await scrape(one);
    expect(sample(throughOne, API_ROOT)).toBe(before + 8);
    expect(one.worker).toBe(1);
    one.close();
    two.close();
  }, TIMEOUT);

  test("the instance's figures: workers, every process answered, memory per process, the outbox once", async () => {
    const two = await connectionTo(server.url, 2);
    const text = await scrape(two);
    expect(lines(text, "colony_workers")).toEqual(["colony_workers 2"]);
    expect(sample(text, 'colony_metrics_sources{state="answered"}')).toBe(3);
    expect(sample(text, 'colony_metrics_sources{state="missing"}')).toBe(0);
    const memory = lines(text, "process_resident_memory_bytes{").map((l) => l.split(" ")[0]);
    expect(memory.sort()).toEqual(['process_resident_memory_bytes{worker="0"}', 'process_resident_memory_bytes{worker="1"}', 'process_resident_memory_bytes{worker="2"}']);
    expect(lines(text, "colony_outbox_pending")).toHaveLength(1);
    expect(lines(text, "colony_sqlite_wal_bytes")).toHaveLength(1);
    expect(lines(text, "# TYPE colony_http_requests_total ")).toHaveLength(1);
    two.close();
  }, TIMEOUT);

  test("a worker killed and started again is counted in colony_worker_restarts_total", async () => {
    const two = await connectionTo(server.url, 2);
    const before = sample(await scrape(two), "colony_worker_restarts_total");
    // Worker 1's process, by the number its supervisor gave it.
    const one = childPids(server.proc.pid).find((pid) => readFileSync(`/proc/${pid}/environ`, "utf8").includes("COLONY_WORKER=1\0"))!;
    process.kill(one, "SIGKILL");
    const back = await connectionTo(server.url, 1);
    expect(sample(await scrape(back), "colony_worker_restarts_total")).toBe(before + 1);
    expect(sample(await scrape(two), "colony_worker_restarts_total")).toBe(before + 1);
    // The new worker 1 is asked for its figures once its supervisor has heard it listens, a moment
    // after it first answers.
    let answered = 0;
    for (let i = 0; i < 100 && answered !== 3; i++) {
      if (i) await Bun.sleep(20);
      answered = sample(await scrape(two), 'colony_metrics_sources{state="answered"}');
    }
    expect(answered).toBe(3);
    back.close();
    two.close();
  }, TIMEOUT);
});

/** The process ids of a process's children. */
function childPids(pid: number): number[] {
  const out = Bun.spawnSync(["ps", "-o", "pid=", "--ppid", String(pid)]).stdout.toString();
  return out
    .split("\n")
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);
}
