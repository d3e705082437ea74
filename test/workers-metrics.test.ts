// /metrics of `colony serve --workers 2` as real processes: whichever worker a scrape lands on
// answers for the whole instance (the supervisor and both workers, src/cluster-metrics.ts).
// Each test reaches a chosen worker by opening connections until one lands on it and keeping
// that one (as test/workers.test.ts does), and counts from what the other tests left.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { childPids, Connection, connectionTo, PROCESS_TIMEOUT, twoWorkers } from "./worker-connections";

/** The value of one sample line, by its exact name and labels (0 when absent). */
const sample = (text: string, series: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
};
const lines = (text: string, prefix: string) => text.split("\n").filter((l) => l.startsWith(prefix));

const API_ROOT = 'colony_http_requests_total{method="GET",route="/api/v1",status="200"}';

async function scrape(c: Connection): Promise<string> {
  const r = await c.request("GET", "/metrics");
  expect(r.status).toBe(200);
  return r.body;
}

describe("/metrics with two workers", () => {
  const instance = twoWorkers();

  test("either worker answers with the requests of both summed", async () => {
    const one = await connectionTo(instance.server.url, 1);
    const two = await connectionTo(instance.server.url, 2);
    const before = sample(await scrape(one), API_ROOT);
    for (let i = 0; i < 3; i++) expect((await one.request("GET", "/api/v1")).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await two.request("GET", "/api/v1")).status).toBe(200);
    expect(two.worker).toBe(2);
    const throughTwo = await scrape(two);
    expect(sample(throughTwo, API_ROOT)).toBe(before + 8);
    const throughOne = await scrape(one);
    expect(sample(throughOne, API_ROOT)).toBe(before + 8);
    expect(one.worker).toBe(1);
    one.close();
    two.close();
  }, PROCESS_TIMEOUT);

  test("the instance's figures: workers, every process answered, memory per process, the outbox once", async () => {
    const two = await connectionTo(instance.server.url, 2);
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
  }, PROCESS_TIMEOUT);

  test("a worker killed and started again is counted in colony_worker_restarts_total", async () => {
    const two = await connectionTo(instance.server.url, 2);
    const before = sample(await scrape(two), "colony_worker_restarts_total");
    // Worker 1's process, by the number its supervisor gave it.
    const one = childPids(instance.server.proc.pid).find((pid) => readFileSync(`/proc/${pid}/environ`, "utf8").includes("COLONY_WORKER=1\0"))!;
    process.kill(one, "SIGKILL");
    const back = await connectionTo(instance.server.url, 1);
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
  }, PROCESS_TIMEOUT);
});

