import { unseal } from "../core/secrets";
import { beforeEach, describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { setup, type TestUser } from "../../test/harness";
import { DAY, HOUR, MINUTE } from "../core/clock";
import { ApiError } from "../core/errors";
import { issueToken } from "../features/auth/service";
import { idempotencyKeys } from "../core/tables";
import { authPlugin } from "./auth";
import { errorHandling } from "./errors";
import { IDEMPOTENCY_TTL_MS, idempotencyPlugin, purgeExpiredIdempotencyKeys } from "./idempotency";
import { rateLimitPlugin } from "./rate-limit";

const h = setup();

/** How many times each test route's handler actually ran. */
let runs: Record<string, number> = {};
const ran = (name: string) => (runs[name] = (runs[name] ?? 0) + 1);
/** A promise the "slow" handler waits on, so a test can hold a request open. */
let gate: Promise<void> = Promise.resolve();
/** Resolves when the "slow" handler next starts: the request has claimed its key and is held at the gate. */
let slowStarted: Promise<void> = Promise.resolve();
let markSlowStarted = () => {};
function expectSlowStart(): Promise<void> {
  slowStarted = new Promise((r) => (markSlowStarted = r));
  return slowStarted;
}
let failNext = false;

const Body = t.Object({ a: t.Optional(t.Number()), s: t.Optional(t.String()) });

const app = new Elysia()
  .use(errorHandling(h.ctx))
  .use(idempotencyPlugin(h.ctx))
  .use(authPlugin(h.ctx))
  .use(rateLimitPlugin(h.ctx))
  .post("/api/v1/things", ({ body, set }) => {
    const n = ran("create");
    set.status = 201;
    return { n, body };
  }, { auth: "required", body: Body })
  .put("/api/v1/things/:id", ({ params, body }) => ({ n: ran("put"), id: params.id, body }), { auth: "required", body: Body })
  .patch("/api/v1/things/:id", ({ params }) => ({ n: ran("patch"), id: params.id }), { auth: "required", body: Body })
  .delete("/api/v1/things/:id", ({ set }) => {
    ran("delete");
    set.status = 204;
  }, { auth: "required" })
  .get("/api/v1/things", () => ({ n: ran("list") }), { auth: "required" })
  .post("/api/v1/slow", async ({ body }) => {
    const n = ran("slow");
    markSlowStarted();
    await gate;
    return { n, body };
  }, { auth: "required", body: Body })
  .post("/api/v1/flaky", ({ body }) => {
    const n = ran("flaky");
    if (failNext) throw new ApiError(409, "CONFLICT", "Not now");
    return { n, body };
  }, { auth: "required", body: Body })
  .post("/api/v1/crash", () => {
    ran("crash");
    throw new Error("unexpected");
  }, { auth: "required", body: Body })
  .post("/api/v1/refuse", ({ status, body }) => {
    const n = ran("refuse");
    return failNext ? status(403, { detail: { code: "FORBIDDEN", message: "no" } }) : status(202, { n, body });
  }, { auth: "required", body: Body })
  .post("/api/v1/text", ({ set }) => {
    set.headers["content-type"] = "text/markdown; charset=utf-8";
    return `# note ${ran("text")}`;
  }, { auth: "required", body: Body })
  .post("/api/v1/raw", () => new Response(`<b>${ran("raw")}</b>`, { status: 200, headers: { "content-type": "text/html" } }), { auth: "required", body: Body })
  .post("/api/v1/open", ({ body }) => ({ n: ran("open"), body }), { body: Body })
  .post("/api/v1/limited", () => ({ n: ran("limited") }), { auth: "required", rateLimit: "post_edit", body: Body })
  .post("/outside/things", () => ({ n: ran("outside") }), { auth: "required", body: Body });

interface CallOptions {
  token?: string | null;
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

async function call(method: string, path: string, opts: CallOptions = {}) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.key !== undefined) headers["idempotency-key"] = opts.key;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    headers["content-type"] = "application/json";
  }
  const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, text, body: json };
}

const replayed = (r: { headers: Headers }) => r.headers.get("idempotent-replay");
const stored = () => h.ctx.db.select().from(idempotencyKeys).all();

let alice: TestUser;
let bob: TestUser;
let seq = 0;
/** A key no earlier test used. */
const freshKey = () => `key-${++seq}-${Math.random().toString(36).slice(2)}`;

beforeEach(async () => {
  runs = {};
  gate = Promise.resolve();
  failNext = false;
  h.ctx.limits.reset();
  // Fresh tokens: a test that moved the clock days ahead has expired the ones minted before.
  alice = alice ? await h.fresh(alice) : await h.user();
  bob = bob ? await h.fresh(bob) : await h.user();
});

describe("replay", () => {
  test("the same key and body replays the stored status and body without running again", async () => {
    const key = freshKey();
    const first = await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: 1 } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ n: 1, body: { a: 1 } });
    expect(replayed(first)).toBeNull();

    const second = await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: 1 } });
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(replayed(second)).toBe("true");
    expect(second.headers.get("content-type")).toContain("application/json");
    expect(runs.create).toBe(1);
  });

  test("the stored answer is sealed at rest (a rotated key or recovery codes never sit in clear)", async () => {
    const key = freshKey();
    const first = await call("POST", "/api/v1/things", { token: alice.token, key, body: { secret: "s3cr3t-value" } });
    expect(first.status).toBe(201);
    await Bun.sleep(0);
    const row = h.ctx.db.$client.query("select body from idempotency_keys where key = ?").get(key) as { body: string };
    expect(row.body).not.toContain("s3cr3t-value");
    expect((await call("POST", "/api/v1/things", { token: alice.token, key, body: { secret: "s3cr3t-value" } })).text).toBe(first.text);
  });

  test("without a key every request runs", async () => {
    await call("POST", "/api/v1/things", { token: alice.token, body: { a: 1 } });
    const r = await call("POST", "/api/v1/things", { token: alice.token, body: { a: 1 } });
    expect(r.body.n).toBe(2);
    expect(replayed(r)).toBeNull();
  });

  test.each([
    ["PUT", "/api/v1/things/x1", "put"],
    ["PATCH", "/api/v1/things/x1", "patch"],
  ])("%s is covered too", async (method, path, name) => {
    const key = freshKey();
    const a = await call(method, path, { token: alice.token, key, body: { s: "v" } });
    const b = await call(method, path, { token: alice.token, key, body: { s: "v" } });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.text).toBe(a.text);
    expect(replayed(b)).toBe("true");
    expect(runs[name]).toBe(1);
  });

  test("a 204 replays as a 204 with no body", async () => {
    const key = freshKey();
    const a = await call("DELETE", "/api/v1/things/x9", { token: alice.token, key });
    expect(a.status).toBe(204);
    expect(a.text).toBe("");
    const b = await call("DELETE", "/api/v1/things/x9", { token: alice.token, key });
    expect(b.status).toBe(204);
    expect(b.text).toBe("");
    expect(replayed(b)).toBe("true");
    expect(runs.delete).toBe(1);
  });

  test("the content type is replayed: text set by the handler", async () => {
    const key = freshKey();
    const a = await call("POST", "/api/v1/text", { token: alice.token, key, body: {} });
    const b = await call("POST", "/api/v1/text", { token: alice.token, key, body: {} });
    expect(a.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(b.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(b.text).toBe("# note 1");
    expect(runs.text).toBe(1);
  });

  test("the content type is replayed: a Response returned by the handler", async () => {
    const key = freshKey();
    await call("POST", "/api/v1/raw", { token: alice.token, key, body: {} });
    const b = await call("POST", "/api/v1/raw", { token: alice.token, key, body: {} });
    expect(b.status).toBe(200);
    expect(b.headers.get("content-type")).toBe("text/html");
    expect(b.text).toBe("<b>1</b>");
    expect(replayed(b)).toBe("true");
  });

  test("a status(2xx, …) answer replays with its own status", async () => {
    const key = freshKey();
    const a = await call("POST", "/api/v1/refuse", { token: alice.token, key, body: { a: 5 } });
    expect(a.status).toBe(202);
    expect(a.body).toEqual({ n: 1, body: { a: 5 } });
    const b = await call("POST", "/api/v1/refuse", { token: alice.token, key, body: { a: 5 } });
    expect(b.status).toBe(202);
    expect(b.body).toEqual({ n: 1, body: { a: 5 } });
    expect(runs.refuse).toBe(1);
  });

  test("a replay does not spend a rate-limit slot", async () => {
    const key = freshKey();
    for (let i = 0; i < 25; i++) {
      const r = await call("POST", "/api/v1/limited", { token: alice.token, key, body: {} });
      expect(r.status).toBe(200);
    }
    expect(runs.limited).toBe(1);
    // Nine more distinct requests still fit in post_edit's 10 per hour.
    for (let i = 0; i < 9; i++) expect((await call("POST", "/api/v1/limited", { token: alice.token, body: {} })).status).toBe(200);
    const over = await call("POST", "/api/v1/limited", { token: alice.token, body: {} });
    expect(over.status).toBe(429);
    expect(over.body.detail.code).toBe("RATE_LIMIT_POST_EDIT");
  });
});

describe("payload mismatch", () => {
  test("the same key with a different body is 409 idempotency_payload_mismatch", async () => {
    const key = freshKey();
    await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: 1 } });
    const r = await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: 2 } });
    expect(r.status).toBe(409);
    expect(r.body.detail.code).toBe("idempotency_payload_mismatch");
    expect(runs.create).toBe(1);
  });

  test("the same key on another endpoint is a mismatch too", async () => {
    const key = freshKey();
    await call("PUT", "/api/v1/things/a", { token: alice.token, key, body: { a: 1 } });
    const r = await call("PUT", "/api/v1/things/b", { token: alice.token, key, body: { a: 1 } });
    expect(r.status).toBe(409);
    expect(r.body.detail.code).toBe("idempotency_payload_mismatch");
  });

  test("the original can still be replayed after a mismatch", async () => {
    const key = freshKey();
    await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: 1 } });
    await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: 2 } });
    const r = await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: 1 } });
    expect(r.status).toBe(201);
    expect(replayed(r)).toBe("true");
  });
});

describe("in progress", () => {
  test("a duplicate while the first request runs is 409 idempotency_in_progress", async () => {
    const key = freshKey();
    let release!: () => void;
    gate = new Promise((r) => (release = r));
    const started = expectSlowStart();
    const first = call("POST", "/api/v1/slow", { token: alice.token, key, body: { a: 1 } });
    // Let the first request claim the key and reach its handler.
    await started;
    expect(runs.slow).toBe(1);

    const dup = await call("POST", "/api/v1/slow", { token: alice.token, key, body: { a: 1 } });
    expect(dup.status).toBe(409);
    expect(dup.body.detail.code).toBe("idempotency_in_progress");
    expect(dup.headers.get("retry-after")).toBe("1");

    release();
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ n: 1, body: { a: 1 } });

    const after = await call("POST", "/api/v1/slow", { token: alice.token, key, body: { a: 1 } });
    expect(after.status).toBe(200);
    expect(replayed(after)).toBe("true");
    expect(after.text).toBe(done.text);
    expect(runs.slow).toBe(1);
  });

  test("two requests fired together: one runs, the other is refused", async () => {
    const key = freshKey();
    let release!: () => void;
    gate = new Promise((r) => (release = r));
    const started = expectSlowStart();
    const requests = [
      call("POST", "/api/v1/slow", { token: alice.token, key, body: { a: 2 } }),
      call("POST", "/api/v1/slow", { token: alice.token, key, body: { a: 2 } }),
    ];
    const both = Promise.all(requests);
    // One claims the key and is held at the gate; the other is answered while it is held.
    await started;
    await Promise.race(requests);
    release();
    const statuses = (await both).map((r) => `${r.status} ${r.body?.detail?.code ?? ""}`.trim()).sort();
    expect(statuses).toEqual(["200", "409 idempotency_in_progress"]);
    expect(runs.slow).toBe(1);
  });

  test("a request that died in progress can be taken over after 5 minutes", async () => {
    const key = freshKey();
    let release!: () => void;
    gate = new Promise((r) => (release = r));
    const started = expectSlowStart();
    const first = call("POST", "/api/v1/slow", { token: alice.token, key, body: { a: 3 } });
    await started;

    h.clock.advance(5 * MINUTE - 1);
    expect((await call("POST", "/api/v1/slow", { token: alice.token, key, body: { a: 3 } })).status).toBe(409);
    h.clock.advance(2);
    gate = Promise.resolve();
    const takeover = await call("POST", "/api/v1/slow", { token: alice.token, key, body: { a: 3 } });
    expect(takeover.status).toBe(200);
    expect(takeover.body.n).toBe(2);
    release();
    await first;
  });
});

describe("failures are not stored", () => {
  test("a non-2xx answer frees the key: the retry runs", async () => {
    const key = freshKey();
    failNext = true;
    const a = await call("POST", "/api/v1/flaky", { token: alice.token, key, body: { a: 1 } });
    expect(a.status).toBe(409);
    expect(a.body.detail.code).toBe("CONFLICT");
    failNext = false;
    const b = await call("POST", "/api/v1/flaky", { token: alice.token, key, body: { a: 1 } });
    expect(b.status).toBe(200);
    expect(replayed(b)).toBeNull();
    expect(runs.flaky).toBe(2);
    const c = await call("POST", "/api/v1/flaky", { token: alice.token, key, body: { a: 1 } });
    expect(replayed(c)).toBe("true");
    expect(runs.flaky).toBe(2);
  });

  test("after a failure the key may be reused with another body", async () => {
    const key = freshKey();
    failNext = true;
    await call("POST", "/api/v1/flaky", { token: alice.token, key, body: { a: 1 } });
    failNext = false;
    const r = await call("POST", "/api/v1/flaky", { token: alice.token, key, body: { a: 2 } });
    expect(r.status).toBe(200);
    expect(r.body.body).toEqual({ a: 2 });
  });

  test("a 500 is not stored", async () => {
    const key = freshKey();
    const a = await call("POST", "/api/v1/crash", { token: alice.token, key, body: {} });
    expect(a.status).toBe(500);
    expect(a.body.detail.code).toBe("INTERNAL_ERROR");
    const b = await call("POST", "/api/v1/crash", { token: alice.token, key, body: {} });
    expect(b.status).toBe(500);
    expect(replayed(b)).toBeNull();
    expect(runs.crash).toBe(2);
  });

  test("a status(4xx, …) answer is not stored", async () => {
    const key = freshKey();
    failNext = true;
    const a = await call("POST", "/api/v1/refuse", { token: alice.token, key, body: {} });
    expect(a.status).toBe(403);
    expect(a.body.detail.code).toBe("FORBIDDEN");
    failNext = false;
    const b = await call("POST", "/api/v1/refuse", { token: alice.token, key, body: {} });
    expect(b.status).toBe(202);
    expect(runs.refuse).toBe(2);
  });

  test("a validation failure is not stored", async () => {
    const key = freshKey();
    const a = await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: "not a number" } });
    expect(a.status).toBe(422);
    const b = await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: 1 } });
    expect(b.status).toBe(201);
    expect(replayed(b)).toBeNull();
  });

  test("nothing is left in progress after failures", async () => {
    const key = freshKey();
    failNext = true;
    await call("POST", "/api/v1/flaky", { token: alice.token, key, body: {} });
    await call("POST", "/api/v1/crash", { token: alice.token, key: freshKey(), body: {} });
    expect(stored().filter((r) => r.state === "in_progress")).toEqual([]);
  });
});

describe("scope", () => {
  test("keys are per user", async () => {
    const key = freshKey();
    const a = await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: 1 } });
    const b = await call("POST", "/api/v1/things", { token: bob.token, key, body: { a: 2 } });
    expect(b.status).toBe(201);
    expect(replayed(b)).toBeNull();
    expect(b.body).toEqual({ n: 2, body: { a: 2 } });
    const againA = await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: 1 } });
    expect(againA.text).toBe(a.text);
    const againB = await call("POST", "/api/v1/things", { token: bob.token, key, body: { a: 2 } });
    expect(againB.text).toBe(b.text);
    expect(runs.create).toBe(2);
  });

  test("GET ignores the header", async () => {
    const key = freshKey();
    const a = await call("GET", "/api/v1/things", { token: alice.token, key });
    const b = await call("GET", "/api/v1/things", { token: alice.token, key });
    expect(a.body.n).toBe(1);
    expect(b.body.n).toBe(2);
    expect(replayed(b)).toBeNull();
  });

  test("anonymous requests are not affected", async () => {
    const key = freshKey();
    await call("POST", "/api/v1/open", { key, body: { a: 1 } });
    const b = await call("POST", "/api/v1/open", { key, body: { a: 2 } });
    expect(b.status).toBe(200);
    expect(b.body.n).toBe(2);
    expect(replayed(b)).toBeNull();
  });

  test("a bad token is answered by the route (401), not by the key", async () => {
    const key = freshKey();
    const r = await call("POST", "/api/v1/things", { token: "not-a-token", key, body: { a: 1 } });
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    expect(runs.create).toBeUndefined();
  });

  test("paths outside /api/v1 are not affected", async () => {
    const key = freshKey();
    await call("POST", "/outside/things", { token: alice.token, key, body: { a: 1 } });
    const b = await call("POST", "/outside/things", { token: alice.token, key, body: { a: 1 } });
    expect(b.body.n).toBe(2);
    expect(replayed(b)).toBeNull();
  });
});

describe("the key itself", () => {
  test("up to 255 characters is accepted", async () => {
    const key = "k".repeat(254) + String(++seq % 10);
    const a = await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: 1 } });
    expect(a.status).toBe(201);
    const b = await call("POST", "/api/v1/things", { token: alice.token, key, body: { a: 1 } });
    expect(replayed(b)).toBe("true");
  });

  test("longer than 255 is a 400 INVALID_INPUT and nothing runs", async () => {
    const r = await call("POST", "/api/v1/things", { token: alice.token, key: "k".repeat(256), body: { a: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
    expect(r.body.detail.message).toContain("255");
    expect(runs.create).toBeUndefined();
  });

  test("an empty key is a 400 INVALID_INPUT", async () => {
    const r = await call("POST", "/api/v1/things", { token: alice.token, key: "", body: { a: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
  });
});

describe("lifetime", () => {
  // Access tokens last 24 hours too, so each test here signs in a user after the clock moved.
  test("a key lives 24 hours; after that the same key runs again", async () => {
    expect(IDEMPOTENCY_TTL_MS).toBe(24 * HOUR);
    const u = await h.user();
    const key = freshKey();
    await call("POST", "/api/v1/things", { token: u.token, key, body: { a: 1 } });
    h.clock.advance(24 * HOUR - 1);
    // The first token has run out by now: sign in again as the same user.
    const { access_token } = await issueToken(h.ctx, u.apiKey);
    const within = await call("POST", "/api/v1/things", { token: access_token, key, body: { a: 1 } });
    expect(within.status).toBe(201);
    expect(replayed(within)).toBe("true");
    h.clock.advance(2);
    const after = await call("POST", "/api/v1/things", { token: access_token, key, body: { a: 2 } });
    expect(after.status).toBe(201);
    expect(replayed(after)).toBeNull();
    expect(after.body.body).toEqual({ a: 2 });
    expect(runs.create).toBe(2);
  });

  test("the maintenance schedule purges expired records, and only those", async () => {
    const u = await h.user();
    const oldKey = freshKey();
    await call("POST", "/api/v1/things", { token: u.token, key: oldKey, body: { a: 1 } });
    h.clock.advance(12 * HOUR);
    const newKey = freshKey();
    await call("POST", "/api/v1/things", { token: u.token, key: newKey, body: { a: 1 } });
    const keys = () => stored().map((r) => r.key);
    expect(keys()).toContain(oldKey);

    await h.ctx.jobs.runRecurring("purge-idempotency");
    expect(keys()).toContain(oldKey);

    h.clock.advance(12 * HOUR + 1);
    await h.ctx.jobs.runRecurring("purge-idempotency");
    expect(keys()).not.toContain(oldKey);
    expect(keys()).toContain(newKey);

    h.clock.advance(DAY);
    expect(purgeExpiredIdempotencyKeys(h.ctx)).toBeGreaterThanOrEqual(1);
    expect(keys()).not.toContain(newKey);
  });

  test("records are stored per user with their hash, status and body", async () => {
    const u = await h.user();
    const key = freshKey();
    await call("POST", "/api/v1/things", { token: u.token, key, body: { a: 9 } });
    const row = stored().find((r) => r.key === key)!;
    expect(row).toMatchObject({ userId: u.id, state: "done", status: 201, contentType: "application/json" });
    expect(row.requestHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(unseal(h.ctx.secrets.dataKey, row.body!, `idempotency:${u.id}:${key}`))).toEqual({ n: 1, body: { a: 9 } });
    expect(row.expiresAt - row.createdAt).toBe(IDEMPOTENCY_TTL_MS);
  });
});

describe("the assembled app", () => {
  test("a real write replays, with CORS headers", async () => {
    const key = freshKey();
    const u = await h.user();
    const headers = { "idempotency-key": key, origin: "https://agent.example" };
    const a = await h.req("POST", "/api/v1/auth/rotate-key", { token: u.token, headers });
    expect(a.status).toBe(200);
    const b = await h.req("POST", "/api/v1/auth/rotate-key", { token: u.token, headers });
    expect(b.status).toBe(200);
    expect(b.headers.get("idempotent-replay")).toBe("true");
    expect(b.body.api_key).toBe(a.body.api_key);
    expect(b.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("an over-long key is refused on a real route", async () => {
    const u = await h.user();
    const r = await h.req("POST", "/api/v1/auth/rotate-key", { token: u.token, headers: { "idempotency-key": "x".repeat(300) } });
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
  });
});
