// Prometheus metrics of one context, served at GET /metrics (src/http/observability.ts).
//
// Each context owns its registry (prom-client's global one is never used), so the many apps a
// test process builds do not share counters. prom-client's default metrics are not collected:
// several read Node internals Bun does not have (event-loop delay monitoring, handle lists), and
// resident memory, the one an operator needs, is a gauge here.
//
// Request counts and latencies are recorded on every request, so they are kept in a map of plain
// counters and handed to the registry at scrape time, instead of through prom-client's Counter
// and Histogram (label validation and hashing on each call, several times the cost of a counter).
// Everything else is either rare (job runs, webhook deliveries) or read when scraped
// (backlog, WAL size, reader threads, subscribers, memory).
//
// With several processes (`colony serve --workers N`) each has its registry, and a worker answers
// /metrics for the whole instance: it merges its own figures with the supervisor's and the other
// workers' (gathered over the supervisor's IPC channels: src/cluster-metrics.ts) by each metric's
// `aggregator`, prom-client's AggregatorRegistry rule for Node's cluster workers. What each
// process counts or holds of its own (requests, latencies, streams, reader threads, job runs,
// webhook deliveries) is summed; what every process reads from the same place (the outbox in the
// database, the WAL file, the supervisor's worker counts) is taken once, from the first process
// that has it, the supervisor first; resident memory is per process, labelled with its `worker`
// (0: the supervisor), as a sum would count the pages the processes share several times and hide
// which one grows. One process (`--workers 1`) exposes its own registry as it is.
import { statSync } from "node:fs";
import type { Metric, Registry } from "prom-client";
import type { Clock } from "./clock";
import type { EventBus } from "./events";
import type { Jobs } from "./jobs";
import type { RealtimeHub } from "./realtime";
import type { Reads } from "../db/read-pool";

/** What the gauges read at scrape time. */
export interface MetricsSources {
  clock: Clock;
  events: Pick<EventBus, "pendingCount" | "oldestPendingAt">;
  jobs: Pick<Jobs, "stats">;
  reads: Pick<Reads, "threads" | "queued">;
  realtime: Pick<RealtimeHub, "streams">;
  /** Which process this is (core/context.ts ProcessRole) and its worker number (0: the supervisor or a single process). */
  role: "single" | "worker" | "supervisor";
  worker: number;
  /** With several processes: how many workers the instance runs and how many were started again. */
  cluster: { workers: number; restarts: number } | null;
}

/** One metric as a registry's getMetricsAsJSON() gives it: what processes send each other to be merged. */
export interface MetricJSON {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  values: { value: number; labels: Record<string, string | number>; metricName?: string }[];
}

/** The other processes' figures, as a worker gathers them (src/cluster-metrics.ts). */
export interface OtherProcesses {
  /** One registry's metrics per process that answered, the supervisor's first when it did. */
  parts: MetricJSON[][];
  /** Processes of the instance that did not answer in time (or are being started again). */
  missing: number;
}

/**
 * The exposition text of the whole instance from each process's metrics, merged by their
 * `aggregator` ("sum" or "first": the first part that has the series gives it), plus
 * colony_metrics_sources: how many processes answered and how many are missing from the figures.
 */
export async function mergeMetrics(parts: MetricJSON[][], missing: number): Promise<string> {
  const { AggregatorRegistry } = await import("prom-client");
  const sources: MetricJSON = {
    name: "colony_metrics_sources",
    help: "Processes whose figures this answer holds (answered) and those that did not answer in time or are being started again (missing).",
    type: "gauge",
    aggregator: "first",
    values: [
      { labels: { state: "answered" }, value: parts.length },
      { labels: { state: "missing" }, value: missing },
    ],
  };
  return AggregatorRegistry.aggregate([...parts, [sources]]).metrics();
}

/** Upper bounds of the request-latency buckets, in seconds. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** Method labels: the methods the API serves, anything else as OTHER (labels must stay few). */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "OTHER"] as const;

function methodIndex(method: string): number {
  switch (method) {
    case "GET":
      return 0;
    case "HEAD":
      return 1;
    case "POST":
      return 2;
    case "PUT":
      return 3;
    case "PATCH":
      return 4;
    case "DELETE":
      return 5;
    case "OPTIONS":
      return 6;
    default:
      return 7;
  }
}

interface Series {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot counts those over every bound. */
  buckets: Float64Array;
}

/** Request counts and latencies per method, route pattern and status. */
export class RequestStats {
  /** Per route pattern (a string Elysia compiled in, so its hash is computed once), per method and status. */
  private byRoute = new Map<string, Map<number, Series>>();

  /** One finished request; `route` is the matched route pattern (never the raw path). */
  record(method: string, route: string, status: number, seconds: number): void {
    let byKey = this.byRoute.get(route);
    if (!byKey) this.byRoute.set(route, (byKey = new Map()));
    const m = methodIndex(method);
    const key = status * 8 + m;
    let s = byKey.get(key);
    if (!s) byKey.set(key, (s = { labels: { method: METHODS[m], route, status: String(status) }, count: 0, sum: 0, buckets: new Float64Array(LATENCY_BUCKETS.length + 1) }));
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]) i++;
    s.buckets[i]++;
  }

  private *all(): Iterable<Series> {
    for (const byKey of this.byRoute.values()) yield* byKey.values();
  }

  /** prom-client's metric interface (what Registry reads when scraped) for the counter. */
  counter(name: string, help: string) {
    return {
      name,
      help,
      type: "counter",
      aggregator: "sum",
      get: async () => ({ name, help, type: "counter", aggregator: "sum", values: [...this.all()].map((s) => ({ labels: s.labels, value: s.count })) }),
    };
  }

  /** …and for the latency histogram (cumulative buckets, `_sum`, `_count`). */
  histogram(name: string, help: string) {
    const values = () => {
      const out: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
      for (const s of this.all()) {
        let acc = 0;
        LATENCY_BUCKETS.forEach((le, i) => {
          acc += s.buckets[i];
          out.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le }, value: acc });
        });
        out.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le: "+Inf" }, value: s.count });
        out.push({ metricName: `${name}_sum`, labels: s.labels, value: s.sum });
        out.push({ metricName: `${name}_count`, labels: s.labels, value: s.count });
      }
      return out;
    };
    return { name, help, type: "histogram", aggregator: "sum", get: async () => ({ name, help, type: "histogram", aggregator: "sum", values: values() }) };
  }
}

export type WebhookOutcome = "succeeded" | "retrying" | "failed";

/** prom-client's Registry.PROMETHEUS_CONTENT_TYPE (checked in metrics.test.ts), without loading prom-client for it. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export class Metrics {
  readonly requests = new RequestStats();
  readonly contentType = PROMETHEUS_CONTENT_TYPE;
  private webhookDeliveries: Record<WebhookOutcome, number> = { succeeded: 0, retrying: 0, failed: 0 };
  /**
   * Built on the first scrape: loading prom-client (with the node:http and OpenTelemetry modules
   * it pulls in) would be work at every start, and most instances are never scraped.
   */
  private registry: Promise<Registry> | undefined;

  /**
   * `ctx` is read at scrape time (the server swaps in its reader pool after the context is made);
   * `walPath` is the database's write-ahead log, null for an in-memory database.
   */
  constructor(
    private ctx: MetricsSources,
    private walPath: string | null,
  ) {}

  /** Counts one webhook delivery attempt. */
  webhookDelivery(outcome: WebhookOutcome): void {
    this.webhookDeliveries[outcome]++;
  }

  /**
   * In a worker of several processes: gathers the other processes' figures (set by
   * src/cluster-metrics.ts); null in one process, whose text is its own registry's.
   */
  others: (() => Promise<OtherProcesses>) | null = null;

  /** The exposition text: this process's, or in a worker the whole instance's (see the top of this file). */
  async text(): Promise<string> {
    if (!this.others) return (await (this.registry ??= this.build())).metrics();
    const [others, own] = await Promise.all([this.others(), this.json()]);
    // After the supervisor's part, so that what is taken once comes from the supervisor when it answered.
    return mergeMetrics([...others.parts, own], others.missing);
  }

  /** This process's own metrics, for another process to merge. */
  async json(): Promise<MetricJSON[]> {
    // prom-client's declarations give `type` as a numeric enum; the objects carry the name ("counter").
    return (await (this.registry ??= this.build())).getMetricsAsJSON() as unknown as Promise<MetricJSON[]>;
  }

  private async build(): Promise<Registry> {
    const { Counter, Gauge, Registry } = await import("prom-client");
    const { ctx, walPath, webhookDeliveries } = this;
    const registry = new Registry();
    const registers = [registry];
    // prom-client's types list its own metric classes; these two follow the same interface.
    registry.registerMetric(this.requests.counter("colony_http_requests_total", "HTTP requests answered, by method, route pattern and status.") as unknown as Metric);
    registry.registerMetric(this.requests.histogram("colony_http_request_duration_seconds", "Time from a request's arrival to its response (a stream: to its headers), by method, route pattern and status.") as unknown as Metric);
    new Gauge({
      name: "colony_outbox_pending",
      help: "Events of the outbox not yet handed to their subscribers.",
      registers,
      aggregator: "first",
      collect() {
        this.set(ctx.events.pendingCount());
      },
    });
    new Gauge({
      name: "colony_outbox_oldest_pending_age_seconds",
      help: "Age of the oldest event not yet handed to its subscribers (0 when none is pending).",
      registers,
      aggregator: "first",
      collect() {
        const oldestAt = ctx.events.oldestPendingAt();
        this.set(oldestAt === null ? 0 : Math.max(0, ctx.clock.now() - oldestAt) / 1000);
      },
    });
    new Counter({
      name: "colony_job_runs_total",
      help: "Runs of scheduled tasks and one-shot jobs since start, by job and outcome (ok or failed).",
      labelNames: ["job", "outcome"] as const,
      registers,
      collect() {
        this.reset();
        for (const [job, s] of ctx.jobs.stats()) {
          this.inc({ job, outcome: "ok" }, s.ok);
          this.inc({ job, outcome: "failed" }, s.failed);
        }
      },
    });
    new Counter({
      name: "colony_webhook_deliveries_total",
      help: "Webhook delivery attempts by outcome: succeeded, retrying (failed, another attempt is scheduled) or failed (the last attempt failed).",
      labelNames: ["outcome"] as const,
      registers,
      collect() {
        this.reset();
        for (const [outcome, n] of Object.entries(webhookDeliveries)) this.inc({ outcome }, n);
      },
    });
    new Gauge({
      name: "colony_sqlite_wal_bytes",
      help: "Size of the SQLite write-ahead log file.",
      registers,
      aggregator: "first",
      collect() {
        this.set(walPath ? walSize(walPath) : 0);
      },
    });
    new Gauge({
      name: "colony_read_pool_threads",
      help: "Reader threads serving long reads (0: they run on the request thread).",
      registers,
      collect() {
        this.set(ctx.reads.threads);
      },
    });
    new Gauge({
      name: "colony_read_pool_queue",
      help: "Reads sent to the reader threads and not yet answered.",
      registers,
      collect() {
        this.set(ctx.reads.queued);
      },
    });
    new Gauge({
      name: "colony_realtime_subscribers",
      help: "Open realtime streams (GET /api/v1/stream and the web pages' GET /live).",
      registers,
      collect() {
        this.set(ctx.realtime.streams);
      },
    });
    if (ctx.role === "single") {
      new Gauge({
        name: "process_resident_memory_bytes",
        help: "Resident memory size in bytes.",
        registers,
        collect() {
          this.set(process.memoryUsage.rss());
        },
      });
      return registry;
    }
    // Several processes: memory per process, and the supervisor's counts of workers and restarts
    // (a worker has them as its supervisor last told it), taken once.
    const worker = String(ctx.worker);
    new Gauge({
      name: "process_resident_memory_bytes",
      help: "Resident memory size in bytes, by process (worker 0: the supervisor).",
      labelNames: ["worker"] as const,
      registers,
      collect() {
        this.set({ worker }, process.memoryUsage.rss());
      },
    });
    new Gauge({
      name: "colony_workers",
      help: "Worker processes the instance runs to serve HTTP (colony serve --workers).",
      registers,
      aggregator: "first",
      collect() {
        this.set(ctx.cluster?.workers ?? 0);
      },
    });
    new Counter({
      name: "colony_worker_restarts_total",
      help: "Workers started again after they died, since the supervisor started.",
      registers,
      aggregator: "first",
      collect() {
        this.reset();
        this.inc(ctx.cluster?.restarts ?? 0);
      },
    });
    return registry;
  }
}

function walSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
