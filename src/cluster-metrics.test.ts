// The relay of /metrics between a supervisor and its workers (cluster-metrics.ts), over fake IPC
// channels that deliver messages as Bun's do, one turn later. The real processes are in
// test/workers-metrics.test.ts.
import { describe, expect, test } from "bun:test";
import type { Ctx } from "./core/context";
import { TestClock } from "./core/clock";
import { Metrics, type MetricsSources } from "./core/metrics";
import { metricsRelay, shareMetrics, type MetricsRelay, type SupervisorChannel } from "./cluster-metrics";

const ROUTE = 'colony_http_requests_total{method="GET",route="/api/v1",status="200"}';
const sample = (text: string, series: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

/** A context with just what the relay reads: its metrics, log, cluster counts and configuration. */
function processCtx(role: MetricsSources["role"], worker: number, requests: number): Ctx {
  const cluster = { workers: 3, restarts: 1 };
  const sources: MetricsSources = {
    clock: new TestClock(),
    events: { pendingCount: () => 0, oldestPendingAt: () => null },
    jobs: { stats: () => new Map() },
    reads: { threads: 0, queued: 0 },
    realtime: { streams: 0 },
    role,
    worker,
    cluster,
  };
  const metrics = new Metrics(sources, null);
  for (let i = 0; i < requests; i++) metrics.requests.record("GET", "/api/v1", 200, 0.001);
  return { metrics, cluster, config: { workers: 3 }, log: { warn: () => {} } } as unknown as Ctx;
}

/** A worker process: its context, the supervisor's handle on it (`proc`), and its end of the channel. */
interface FakeWorker {
  ctx: Ctx;
  proc: { send(message: unknown): void };
  /** Whether it answers the supervisor (a stuck worker does not). */
  answers: boolean;
  /** Messages the supervisor sent it. */
  asked: number;
}

/** A supervisor with three worker slots, each joined to its worker by a fake channel. */
function instance(opts: { silent?: number[]; notListening?: number[]; supervisorSilent?: boolean; collectTimeoutMs?: number } = {}) {
  const supervisorCtx = processCtx("supervisor", 0, 0);
  const workers: FakeWorker[] = [];
  let relay!: MetricsRelay;
  for (let n = 1; n <= 3; n++) {
    const ctx = processCtx("worker", n, n);
    const listeners: ((m: unknown) => void)[] = [];
    const worker: FakeWorker = {
      ctx,
      answers: !opts.silent?.includes(n),
      asked: 0,
      // Supervisor → worker.
      proc: { send: (m) => void (worker.asked++, queueMicrotask(() => worker.answers && listeners.forEach((l) => l(structuredClone(m))))) },
    };
    const channel: SupervisorChannel = {
      // Worker → supervisor.
      send: (m) => void queueMicrotask(() => !opts.supervisorSilent && relay.fromWorker(worker.proc, structuredClone(m))),
      on: (_event, listener) => void listeners.push(listener),
    };
    shareMetrics(ctx, channel, 200);
    workers.push(worker);
  }
  relay = metricsRelay(supervisorCtx, 3, () => workers.map((w) => ({ proc: w.proc })), opts.collectTimeoutMs ?? 50);
  for (const [i, w] of workers.entries()) if (!opts.notListening?.includes(i + 1)) relay.fromWorker(w.proc, { t: "listening", port: 1 });
  return workers;
}

describe("a worker's /metrics through the supervisor", () => {
  test("sums its own requests with the other workers', and says all answered", async () => {
    const [one] = instance();
    const text = await one!.ctx.metrics.text();
    expect(sample(text, ROUTE)).toBe(1 + 2 + 3);
    expect(sample(text, 'colony_metrics_sources{state="answered"}')).toBe(4);
    expect(sample(text, 'colony_metrics_sources{state="missing"}')).toBe(0);
    expect(sample(text, "colony_workers")).toBe(3);
    expect(text.split("\n").filter((l) => l.startsWith("process_resident_memory_bytes{"))).toHaveLength(4);
  });

  test("a worker that does not answer in time is left out and counted missing", async () => {
    const [, two] = instance({ silent: [3] });
    const text = await two!.ctx.metrics.text();
    expect(sample(text, ROUTE)).toBe(1 + 2);
    expect(sample(text, 'colony_metrics_sources{state="answered"}')).toBe(3);
    expect(sample(text, 'colony_metrics_sources{state="missing"}')).toBe(1);
  });

  test("a worker that has not said it listens is not asked (and not waited for)", async () => {
    // A collect that waited for it would outlast the test's own time limit.
    const [one, two] = instance({ notListening: [2], collectTimeoutMs: 60_000 });
    const text = await one!.ctx.metrics.text();
    expect(two!.asked).toBe(0);
    expect(sample(text, ROUTE)).toBe(1 + 3);
    expect(sample(text, 'colony_metrics_sources{state="missing"}')).toBe(1);
  });

  test("without the supervisor's answer, a worker answers with its own figures and says the rest are missing", async () => {
    const [, , three] = instance({ supervisorSilent: true });
    const text = await three!.ctx.metrics.text();
    expect(sample(text, ROUTE)).toBe(3);
    expect(sample(text, 'colony_metrics_sources{state="answered"}')).toBe(1);
    expect(sample(text, 'colony_metrics_sources{state="missing"}')).toBe(3);
  });

  test("messages that are not the relay's are left to the supervisor", () => {
    const relay = metricsRelay(processCtx("supervisor", 0, 0), 1, () => []);
    expect(relay.fromWorker({ send() {} }, { t: "listening", port: 1 })).toBe(false);
    expect(relay.fromWorker({ send() {} }, null)).toBe(false);
    expect(relay.fromWorker({ send() {} }, { t: "metrics:own", id: 99, metrics: [] })).toBe(true);
  });
});
