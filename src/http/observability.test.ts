// Request ids, the access log, GET /metrics and who may read it.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../test/harness";
import { createLogger } from "../core/log";
import { isUuid } from "../core/ids";
import { UNMATCHED } from "./observability";
import { serverOptions } from "./serve-options";
import type { Ctx } from "../core/context";
import { Registry } from "prom-client";
import { PROMETHEUS_CONTENT_TYPE } from "../core/metrics";

type Line = Record<string, any>;

/** A harness whose log (level info) is captured, parsed line by line. */
function logged(overrides: Parameters<typeof setup>[0] = {}) {
  const h = setup({ logLevel: "info", ...overrides });
  const lines: Line[] = [];
  h.ctx.log = createLogger("info", () => h.clock.now(), (chunk) => {
    for (const l of chunk.split("\n")) if (l) lines.push(JSON.parse(l));
  });
  const access = () => {
    h.ctx.log.flush();
    return lines.filter((l) => l.msg === "request");
  };
  const clear = () => {
    h.ctx.log.flush();
    lines.length = 0;
  };
  return { ...h, lines, access, clear };
}

/** The socket peer an in-process request appears to come from (the context's server knows it). */
const peer = (address: string) => ({ requestIP: () => ({ address, family: address.includes(":") ? "IPv6" : "IPv4", port: 40000 }) });
const setPeer = (ctx: Ctx, address: string | null) => {
  ctx.server = address === null ? null : peer(address);
};

const UUIDV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("X-Request-Id", () => {
  const h = logged();
  beforeEach(() => h.clear());

  test("is generated (a UUIDv7) when the client sends none, and is the access line's request_id", async () => {
    const r = await h.req("GET", "/api/v1");
    const id = r.headers.get("x-request-id")!;
    expect(id).toMatch(UUIDV7);
    expect(h.access().at(-1)!.request_id).toBe(id);
    const again = await h.req("GET", "/api/v1");
    expect(again.headers.get("x-request-id")).not.toBe(id);
  });

  test.each(["abc-123", "req.42:7_x", "A".repeat(128), "0192a7c3-1111-7abc-8def-0123456789ab"])("a sane id from the client is echoed: %s", async (given) => {
    const r = await h.req("GET", "/api/v1", { headers: { "x-request-id": given } });
    expect(r.headers.get("x-request-id")).toBe(given);
    expect(h.access().at(-1)!.request_id).toBe(given);
  });

  test.each([
    ["too long", "A".repeat(129)],
    ["a space", "abc def"],
    ["a quote", 'abc"def'],
    ["a slash", "abc/def"],
    ["non-ASCII", "abcé"],
    ["empty", ""],
  ])("an insane id (%s) is replaced by a generated one", async (_why, given) => {
    const r = await h.req("GET", "/api/v1", { headers: { "x-request-id": given } });
    const id = r.headers.get("x-request-id")!;
    expect(id).toMatch(UUIDV7);
    expect(h.access().at(-1)!.request_id).toBe(id);
  });

  test("browsers may read it (Access-Control-Expose-Headers)", async () => {
    const r = await h.req("GET", "/api/v1", { headers: { origin: "https://agent-console.example" } });
    expect(r.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
  });

  test("is on errors too: 401, 404 of an unknown route, 404 of the service, 422, 413", async () => {
    const bad = [
      await h.req("GET", "/api/v1/users/me"),
      await h.req("GET", "/no/such/route"),
      await h.req("GET", "/api/v1/posts/00000000-0000-7000-8000-000000000000"),
      await h.req("GET", "/api/v1/instructions", { query: { format: "xml" } }),
      await h.req("POST", "/api/v1/auth/register", { raw: "x".repeat(64), headers: { "content-type": "application/json", "content-length": String(h.config.maxBodyBytes + 1) } }),
    ];
    expect(bad.map((r) => r.status)).toEqual([401, 404, 404, 422, 413]);
    for (const r of bad) expect(isUuid(r.headers.get("x-request-id") ?? "")).toBe(true);
    const ids = h.access().map((l) => l.request_id);
    expect(ids).toEqual(bad.map((r) => r.headers.get("x-request-id")));
  });
});

describe("access log", () => {
  const h = logged();
  beforeEach(() => h.clear());

  test("one line per request: method, route pattern, status, duration, request id and client address", async () => {
    const u = await h.user();
    h.clear();
    setPeer(h.ctx, "198.51.100.7");
    const r = await h.req("GET", "/api/v1/users/me", { token: u.token });
    setPeer(h.ctx, null);
    expect(r.status).toBe(200);
    const lines = h.access();
    expect(lines).toHaveLength(1);
    const line = lines[0];
    expect(line).toMatchObject({ level: "info", msg: "request", method: "GET", route: "/api/v1/users/me", status: 200, request_id: r.headers.get("x-request-id"), ip: "198.51.100.7" });
    expect(typeof line.duration_ms).toBe("number");
    expect(line.duration_ms).toBeGreaterThanOrEqual(0);
    expect(line.t).toBe(new Date(h.clock.now()).toISOString());
    // Neither the raw path nor the query string (which may carry ?token=) is logged.
    expect(JSON.stringify(line)).not.toContain(u.token);
  });

  test("the route is Elysia's pattern, not the path; unknown routes share one label", async () => {
    const id = "00000000-0000-7000-8000-000000000000";
    await h.req("GET", `/api/v1/posts/${id}`);
    await h.req("GET", `/api/v1/posts/${id}/comments`, { query: { limit: 5 } });
    await h.req("GET", `/api/v1/users/nobody-${Date.now()}`);
    await h.req("GET", "/no/such/route");
    await h.req("DELETE", "/api/v1");
    const lines = h.access();
    expect(lines.map((l) => [l.route, l.status])).toEqual([
      ["/api/v1/posts/:post_id", 404],
      ["/api/v1/posts/:post_id/comments", 404],
      [expect.stringMatching(/^\/api\/v1\/users\/:[a-z_]+$/), 404],
      [UNMATCHED, 404],
      [UNMATCHED, 404],
    ]);
    for (const l of lines) expect(JSON.stringify(l)).not.toContain(id);
  });

  test("validation errors and the body-size 413 are logged with their status", async () => {
    await h.req("POST", "/api/v1/auth/register", { body: { username: 5 } });
    await h.req("POST", "/api/v1/auth/register", { raw: "{}", headers: { "content-type": "application/json", "content-length": String(h.config.maxBodyBytes + 1) } });
    expect(h.access().map((l) => [l.method, l.route, l.status])).toEqual([
      ["POST", "/api/v1/auth/register", 422],
      // Answered before routing.
      ["POST", UNMATCHED, 413],
    ]);
  });

  test("bytes is logged when the response declares its length, 0 for a 204", async () => {
    await h.req("OPTIONS", "/api/v1/users/me", { headers: { origin: "https://x.example", "access-control-request-method": "GET" } });
    const [preflight] = h.access();
    expect(preflight).toMatchObject({ method: "OPTIONS", status: 204, bytes: 0 });
  });

  test("in-process requests (no socket) are logged as from 'local'", async () => {
    await h.req("GET", "/api/v1");
    expect(h.access()[0].ip).toBe("local");
  });

  test("lines are written in batches, and before any other line so the output stays in order", async () => {
    const chunks: string[] = [];
    const log = createLogger("info", () => 0, (c) => void chunks.push(c));
    log.access({ status: 200 });
    log.access({ status: 201 });
    expect(chunks).toHaveLength(0);
    log.warn("something else");
    expect(chunks).toHaveLength(2);
    expect(chunks[0].trim().split("\n").map((l) => JSON.parse(l).status)).toEqual([200, 201]);
    expect(JSON.parse(chunks[1]).msg).toBe("something else");
    log.access({ status: 202 });
    log.flush();
    expect(chunks).toHaveLength(3);
    log.flush();
    expect(chunks).toHaveLength(3);
  });

  test("a batch is written once it is large, without waiting for the timer", () => {
    const chunks: string[] = [];
    const log = createLogger("info", () => 0, (c) => void chunks.push(c));
    for (let i = 0; i < 1000 && !chunks.length; i++) log.access({ route: "/api/v1/some/route/:id", status: 200, request_id: "x".repeat(36) });
    expect(chunks).toHaveLength(1);
    expect(chunks[0].length).toBeGreaterThanOrEqual(16 * 1024);
    log.flush();
  });

  test("nothing is written above level info", () => {
    const chunks: string[] = [];
    const log = createLogger("warn", () => 0, (c) => void chunks.push(c));
    log.access({ status: 200 });
    log.flush();
    expect(chunks).toHaveLength(0);
  });
});

describe("COLONY_ACCESS_LOG=off", () => {
  const h = logged({ accessLog: false });

  test("writes no access lines, but still sends request ids and counts requests", async () => {
    const r = await h.req("GET", "/api/v1");
    expect(r.headers.get("x-request-id")).toMatch(UUIDV7);
    expect(h.access()).toHaveLength(0);
    expect(await h.ctx.metrics.text()).toContain('colony_http_requests_total{method="GET",route="/api/v1",status="200"} 1');
  });
});

describe("COLONY_LOG_LEVEL=warn", () => {
  const h = logged({ logLevel: "warn" });

  test("leaves the access lines out (they are info)", async () => {
    await h.req("GET", "/api/v1");
    expect(h.access()).toHaveLength(0);
  });
});

describe("GET /metrics: who may read it", () => {
  const h = setup();
  const scrape = (headers: Record<string, string> = {}) => h.req("GET", "/metrics", { headers });

  test.each(["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])("a loopback peer (%s) may", async (address) => {
    setPeer(h.ctx, address);
    const r = await scrape();
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe(Registry.PROMETHEUS_CONTENT_TYPE);
    expect(PROMETHEUS_CONTENT_TYPE).toBe(Registry.PROMETHEUS_CONTENT_TYPE);
    expect(r.text).toContain("# TYPE colony_http_requests_total counter");
  });

  test.each([
    ["a remote peer", "203.0.113.9", {}],
    ["a private-network peer", "10.0.0.2", {}],
    ["a loopback peer behind a proxy (X-Forwarded-For)", "127.0.0.1", { "x-forwarded-for": "203.0.113.9" }],
    ["a loopback peer behind a proxy (Fly-Client-IP)", "127.0.0.1", { "fly-client-ip": "203.0.113.9" }],
    ["a loopback peer behind a proxy (Forwarded)", "127.0.0.1", { forwarded: "for=203.0.113.9" }],
    ["a request without a socket", null, {}],
  ] as const)("%s gets the API's 404", async (_who, address, headers) => {
    setPeer(h.ctx, address);
    const r = await scrape({ ...headers });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: { code: "NOT_FOUND", message: "Not found" } });
    expect(r.text).not.toContain("colony_");
  });

  test("a bearer token is no key while no metrics token is configured", async () => {
    setPeer(h.ctx, "203.0.113.9");
    expect((await scrape({ authorization: "Bearer anything" })).status).toBe(404);
  });

  test("is left out of the OpenAPI document", async () => {
    const doc = await h.req("GET", "/openapi.json");
    expect(doc.body.paths["/metrics"]).toBeUndefined();
  });
});

describe("GET /metrics with COLONY_METRICS_TOKEN", () => {
  const token = "s3cret-metrics-token-0123456789";
  const h = setup({ metricsToken: token });

  test.each([
    ["the token", `Bearer ${token}`, 200],
    ["the token, scheme in lower case", `bearer ${token}`, 200],
    ["another token", "Bearer s3cret-metrics-token-012345678X", 404],
    ["a prefix of the token", `Bearer ${token.slice(0, 10)}`, 404],
    ["the token without the scheme", token, 404],
    ["nothing", "", 404],
  ])("a remote peer presenting %s gets %i", async (_what, authorization, status) => {
    setPeer(h.ctx, "203.0.113.9");
    const r = await h.req("GET", "/metrics", { headers: authorization ? { authorization } : {} });
    expect(r.status).toBe(status);
  });

  test("a loopback peer still needs none", async () => {
    setPeer(h.ctx, "127.0.0.1");
    expect((await h.req("GET", "/metrics")).status).toBe(200);
  });
});

describe("GET /metrics over a real socket", () => {
  const h = setup({ trustProxy: true });
  const server = Bun.serve({ ...serverOptions(h.ctx, h.app), hostname: "127.0.0.1", port: 0 });
  afterAll(() => server.stop(true));
  const url = `http://127.0.0.1:${server.port}`;

  test("from 127.0.0.1 it answers; the same request forwarded by a proxy does not", async () => {
    expect((await fetch(`${url}/api/v1`)).status).toBe(200);
    const direct = await fetch(`${url}/metrics`);
    expect(direct.status).toBe(200);
    expect(direct.headers.get("x-request-id")).toMatch(UUIDV7);
    expect(await direct.text()).toContain("colony_http_request_duration_seconds_bucket");
    const forwarded = await fetch(`${url}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(forwarded.status).toBe(404);
    expect(await forwarded.json()).toEqual({ detail: { code: "NOT_FOUND", message: "Not found" } });
  });
});

describe("GET /metrics content", () => {
  const h = setup();
  const scrape = async () => {
    setPeer(h.ctx, "127.0.0.1");
    const r = await h.req("GET", "/metrics");
    setPeer(h.ctx, null);
    return r.text;
  };
  /** The value of one sample line, by its exact name and labels. */
  const sample = (text: string, series: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  test("counts requests per method, route pattern and status, with latency buckets", async () => {
    // Counted from what the other tests of this describe left: only this test's requests move them.
    const base = 'method="GET",route="/api/v1",status="200"';
    const bucketsOf = (text: string) => text.split("\n").filter((l) => l.startsWith(`colony_http_request_duration_seconds_bucket{${base},`)).map((l) => Number(l.split(" ")[1]));
    const series = [
      'colony_http_requests_total{method="GET",route="/api/v1",status="200"}',
      'colony_http_requests_total{method="GET",route="/api/v1/posts/:post_id",status="404"}',
      `colony_http_requests_total{method="GET",route="${UNMATCHED}",status="404"}`,
      `colony_http_request_duration_seconds_count{${base}}`,
      `colony_http_request_duration_seconds_bucket{${base},le="+Inf"}`,
      `colony_http_request_duration_seconds_sum{${base}}`,
      'colony_http_requests_total{method="GET",route="/metrics",status="200"}',
    ];
    const before = await scrape();
    const was = (name: string) => sample(before, name) ?? 0;
    for (let i = 0; i < 3; i++) await h.req("GET", "/api/v1");
    await h.req("GET", "/api/v1/posts/00000000-0000-7000-8000-000000000000");
    await h.req("GET", "/nowhere");
    const text = await scrape();
    const moved = (name: string) => (sample(text, name) ?? 0) - was(name);
    expect(moved(series[0])).toBe(3);
    expect(moved(series[1])).toBe(1);
    expect(moved(series[2])).toBe(1);
    expect(moved(series[3])).toBe(3);
    expect(moved(series[4])).toBe(3);
    expect(moved(series[5])).toBeGreaterThan(0);
    // Cumulative buckets: never decreasing, ending at the count.
    const buckets = bucketsOf(text);
    expect(buckets).toHaveLength(14);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    expect(buckets.at(-1)).toBe(sample(text, series[3]));
    // The scrape itself is counted by the next one.
    expect((sample(await scrape(), series[6]) ?? 0) - (sample(text, series[6]) ?? 0)).toBe(1);
  });

  test("methods other than the API's are counted as OTHER", async () => {
    h.ctx.metrics.requests.record("BREW", UNMATCHED, 404, 0.001);
    expect(sample(await scrape(), `colony_http_requests_total{method="OTHER",route="${UNMATCHED}",status="404"}`)).toBe(1);
  });

  test("the outbox backlog and the age of its oldest event", async () => {
    await h.ctx.events.drain();
    expect(sample(await scrape(), "colony_outbox_pending")).toBe(0);
    expect(sample(await scrape(), "colony_outbox_oldest_pending_age_seconds")).toBe(0);
    const emit = () => h.ctx.db.transaction((tx) => h.ctx.events.emit(tx, { type: "email_verified", actorId: null }));
    emit();
    h.clock.advance(30_000);
    emit();
    h.clock.advance(15_000);
    let text = await scrape();
    expect(sample(text, "colony_outbox_pending")).toBe(2);
    expect(sample(text, "colony_outbox_oldest_pending_age_seconds")).toBe(45);
    await h.ctx.events.drain();
    text = await scrape();
    expect(sample(text, "colony_outbox_pending")).toBe(0);
    expect(sample(text, "colony_outbox_oldest_pending_age_seconds")).toBe(0);
  });

  test("job runs by job and outcome", async () => {
    let fail = true;
    h.ctx.jobs.every("flaky-task", "0 0 * * *", () => {
      if (fail) throw new Error("boom");
    });
    for (let i = 0; i < 2; i++) await h.ctx.jobs.runRecurring("flaky-task").catch(() => {});
    fail = false;
    await h.ctx.jobs.runRecurring("flaky-task");
    const text = await scrape();
    expect(sample(text, 'colony_job_runs_total{job="flaky-task",outcome="failed"}')).toBe(2);
    expect(sample(text, 'colony_job_runs_total{job="flaky-task",outcome="ok"}')).toBe(1);
  });

  test("gauges of the reader pool, realtime subscribers, WAL and memory, and the webhook counter at zero", async () => {
    const stop = h.ctx.realtime.subscribe("someone", () => {}, () => {});
    const text = await scrape();
    stop();
    expect(sample(text, "colony_read_pool_threads")).toBe(0);
    expect(sample(text, "colony_read_pool_queue")).toBe(0);
    expect(sample(text, "colony_realtime_subscribers")).toBe(1);
    expect(sample(text, "colony_sqlite_wal_bytes")).toBe(0);
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(1_000_000);
    for (const outcome of ["succeeded", "retrying", "failed"]) expect(sample(text, `colony_webhook_deliveries_total{outcome="${outcome}"}`)).toBe(0);
  });

  test("each app has its own registry", async () => {
    const other = setup();
    await other.req("GET", "/api/v1");
    setPeer(other.ctx, "127.0.0.1");
    const text = (await other.req("GET", "/metrics")).text;
    expect(sample(text, 'colony_http_requests_total{method="GET",route="/api/v1",status="200"}')).toBe(1);
  });
});
