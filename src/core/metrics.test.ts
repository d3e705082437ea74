// The metrics of several processes merged into the instance's answer (mergeMetrics), and what each
// process contributes by its role. The HTTP side of /metrics is in http/observability.test.ts.
import { describe, expect, test } from "bun:test";
import { TestClock } from "./clock";
import { Metrics, mergeMetrics, type MetricsSources } from "./metrics";

type Role = MetricsSources["role"];

/** A process's metrics over sources it is given: outbox backlog, open streams, job runs. */
function processMetrics(role: Role, worker: number, o: { pending?: number; streams?: number; jobs?: [string, number][]; cluster?: MetricsSources["cluster"] } = {}) {
  const clock = new TestClock();
  const sources: MetricsSources = {
    clock,
    events: { pendingCount: () => o.pending ?? 0, oldestPendingAt: () => (o.pending ? clock.now() - 5_000 : null) },
    jobs: { stats: () => new Map((o.jobs ?? []).map(([job, ok]) => [job, { ok, failed: 0, consecutiveFailures: 0 }])) },
    reads: { threads: 1, queued: 0 },
    realtime: { streams: o.streams ?? 0 },
    role,
    worker,
    cluster: o.cluster ?? null,
  };
  return new Metrics(sources, null);
}

/** The value of one sample line, by its exact name and labels. */
const sample = (text: string, series: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
const lines = (text: string, prefix: string) => text.split("\n").filter((l) => l.startsWith(prefix));

const GET_POSTS = 'method="GET",route="/api/v1/posts",status="200"';

describe("merging the processes' metrics", () => {
  const cluster = { workers: 2, restarts: 3 };
  const supervisor = processMetrics("supervisor", 0, { pending: 7, jobs: [["prune-events", 4]], cluster });
  const one = processMetrics("worker", 1, { pending: 6, streams: 2, cluster: { workers: 2, restarts: 2 } });
  const two = processMetrics("worker", 2, { pending: 6, streams: 5, cluster: { workers: 2, restarts: 2 } });
  for (let i = 0; i < 3; i++) one.requests.record("GET", "/api/v1/posts", 200, 0.002);
  for (let i = 0; i < 4; i++) two.requests.record("GET", "/api/v1/posts", 200, 0.02);
  two.requests.record("POST", "/api/v1/posts", 201, 0.004);
  one.webhookDelivery("succeeded");
  const merged = async () => mergeMetrics([await supervisor.json(), await one.json(), await two.json()], 0);

  test("request counts and latency histograms are summed, series by series", async () => {
    const text = await merged();
    expect(sample(text, `colony_http_requests_total{${GET_POSTS}}`)).toBe(7);
    expect(sample(text, 'colony_http_requests_total{method="POST",route="/api/v1/posts",status="201"}')).toBe(1);
    expect(sample(text, `colony_http_request_duration_seconds_count{${GET_POSTS}}`)).toBe(7);
    expect(sample(text, `colony_http_request_duration_seconds_sum{${GET_POSTS}}`)).toBeCloseTo(3 * 0.002 + 4 * 0.02, 9);
    // Cumulative buckets still: 3 under 2.5 ms, all 7 under 25 ms.
    expect(sample(text, `colony_http_request_duration_seconds_bucket{${GET_POSTS},le="0.0025"}`)).toBe(3);
    expect(sample(text, `colony_http_request_duration_seconds_bucket{${GET_POSTS},le="0.025"}`)).toBe(7);
    expect(sample(text, `colony_http_request_duration_seconds_bucket{${GET_POSTS},le="+Inf"}`)).toBe(7);
    expect(lines(text, "# TYPE colony_http_request_duration_seconds ")).toEqual(["# TYPE colony_http_request_duration_seconds histogram"]);
  });

  test("what each process holds of its own is summed: streams, reader threads, job runs, webhook deliveries", async () => {
    const text = await merged();
    expect(sample(text, "colony_realtime_subscribers")).toBe(7);
    expect(sample(text, "colony_read_pool_threads")).toBe(3);
    expect(sample(text, 'colony_job_runs_total{job="prune-events",outcome="ok"}')).toBe(4);
    expect(sample(text, 'colony_webhook_deliveries_total{outcome="succeeded"}')).toBe(1);
  });

  test("what every process reads from the database appears once, the first part's (the supervisor's)", async () => {
    const text = await merged();
    expect(lines(text, "colony_outbox_pending")).toEqual(["colony_outbox_pending 7"]);
    expect(lines(text, "colony_outbox_oldest_pending_age_seconds")).toEqual(["colony_outbox_oldest_pending_age_seconds 5"]);
    expect(lines(text, "colony_sqlite_wal_bytes")).toEqual(["colony_sqlite_wal_bytes 0"]);
    expect(lines(text, "# TYPE colony_outbox_pending ")).toHaveLength(1);
  });

  test("workers and restarts once, from the supervisor; memory per process", async () => {
    const text = await merged();
    expect(lines(text, "colony_workers")).toEqual(["colony_workers 2"]);
    expect(lines(text, "colony_worker_restarts_total")).toEqual(["colony_worker_restarts_total 3"]);
    expect(lines(text, "# TYPE colony_worker_restarts_total ")).toEqual(["# TYPE colony_worker_restarts_total counter"]);
    const rss = lines(text, "process_resident_memory_bytes{");
    expect(rss.map((l) => l.split(" ")[0])).toEqual(['process_resident_memory_bytes{worker="0"}', 'process_resident_memory_bytes{worker="1"}', 'process_resident_memory_bytes{worker="2"}']);
    for (const l of rss) expect(Number(l.split(" ")[1])).toBeGreaterThan(1_000_000);
  });

  test("the answer says how many processes it holds and how many are missing", async () => {
    const text = await merged();
    expect(sample(text, 'colony_metrics_sources{state="answered"}')).toBe(3);
    expect(sample(text, 'colony_metrics_sources{state="missing"}')).toBe(0);
    // Worker 2 did not answer: its requests are not in the sum, and the answer says one is missing.
    const partial = await mergeMetrics([await supervisor.json(), await one.json()], 1);
    expect(sample(partial, `colony_http_requests_total{${GET_POSTS}}`)).toBe(3);
    expect(sample(partial, 'colony_metrics_sources{state="answered"}')).toBe(2);
    expect(sample(partial, 'colony_metrics_sources{state="missing"}')).toBe(1);
  });

  test("a worker whose `others` are set answers for the instance, its own figures after theirs", async () => {
    const asked = processMetrics("worker", 1, { pending: 1, streams: 1, cluster });
    asked.requests.record("GET", "/api/v1/posts", 200, 0.002);
    asked.others = async () => ({ parts: [await supervisor.json(), await two.json()], missing: 0 });
    const text = await asked.text();
    expect(sample(text, `colony_http_requests_total{${GET_POSTS}}`)).toBe(5);
    expect(sample(text, "colony_realtime_subscribers")).toBe(6);
    expect(sample(text, "colony_outbox_pending")).toBe(7);
    expect(sample(text, 'colony_metrics_sources{state="answered"}')).toBe(3);
  });
});

describe("one process", () => {
  test("exposes its own registry: memory without a worker label, no worker counts, no sources", async () => {
    const single = processMetrics("single", 0, { pending: 2 });
    single.requests.record("GET", "/api/v1/posts", 200, 0.002);
    const text = await single.text();
    expect(sample(text, `colony_http_requests_total{${GET_POSTS}}`)).toBe(1);
    expect(sample(text, "colony_outbox_pending")).toBe(2);
    expect(lines(text, "process_resident_memory_bytes ")).toHaveLength(1);
    expect(text).not.toContain("colony_workers");
    expect(text).not.toContain("colony_worker_restarts_total");
    expect(text).not.toContain("colony_metrics_sources");
  });
});
