import { beforeEach, describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { setup } from "../../test/harness";
import { DAY, HOUR, MINUTE } from "../core/clock";
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import { limitRule } from "../core/limits";
import { authPlugin } from "./auth";
import { errorHandling } from "./errors";
import { charge, rateLimitPlugin, subjectOf } from "./rate-limit";

let failMode: "none" | "api" | "crash" | "status" = "none";

/** Test routes that use the macro the way features do. */
function testApp(ctx: Ctx) {
  return new Elysia()
    .use(errorHandling(ctx))
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/api/v1/posts/:id/edit", ({ status }) => {
      if (failMode === "api") throw new ApiError(403, "POST_EDIT_FORBIDDEN", "Not your post");
      if (failMode === "crash") throw new Error("bug");
      if (failMode === "status") return status(404, { detail: { code: "NOT_FOUND", message: "gone" } });
      return { ok: true };
    }, { auth: "required", rateLimit: "post_edit" })
    .post("/api/v1/votes", () => ({ ok: true }), { auth: "required", rateLimit: "vote_hourly" })
    .post("/api/v1/messages", () => ({ ok: true }), { auth: "required", rateLimit: ["send_message", "send_message_daily"] })
    .post("/api/v1/avatar", ({ body }) => ({ ok: body.n }), { auth: "required", rateLimit: ["avatar_upload", "avatar_upload_daily"], body: t.Object({ n: t.Integer({ minimum: 1 }) }) })
    .post("/api/v1/open", () => ({ ok: true }), { rateLimit: "register" })
    .post("/api/v1/manual", ({ request }) => {
      charge(ctx, request, { userId: "manual-user" }, ["report"]);
      if (failMode === "api") throw new ApiError(400, "INVALID_INPUT", "bad report");
      return { ok: true };
    });
}

const h = setup();
const app = testApp(h.ctx);
type Handler = { handle(request: Request): Promise<Response> };

async function call(method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string>; on?: Handler } = {}) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] = "application/json";
  }
  const res = await (opts.on ?? app).handle(new Request(`http://localhost${path}`, { method, headers, body }));
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Sends until refused; returns how many were allowed and the refusal. */
async function exhaust(path: string, token?: string, opts: { on?: Handler; headers?: Record<string, string>; cap?: number } = {}) {
  for (let i = 0; i < (opts.cap ?? 500); i++) {
    const r = await call("POST", path, { token, on: opts.on, headers: opts.headers });
    if (r.status === 429) return { allowed: i, refusal: r };
    expect(r.status).toBe(200);
  }
  return { allowed: opts.cap ?? 500, refusal: null };
}

beforeEach(() => {
  failMode = "none";
  h.ctx.limits.reset();
});

describe("429 answers", () => {
  test('are {"detail": {code RATE_LIMIT_<ACTION>, message, retry_after}} with Retry-After', async () => {
    const u = await h.user();
    const { allowed, refusal } = await exhaust("/api/v1/posts/p1/edit", u.token);
    expect(allowed).toBe(10);
    expect(refusal!.status).toBe(429);
    expect(Object.keys(refusal!.body.detail).sort()).toEqual(["code", "message", "retry_after"]);
    expect(refusal!.body.detail.code).toBe("RATE_LIMIT_POST_EDIT");
    expect(refusal!.body.detail.retry_after).toBe(3600);
    expect(typeof refusal!.body.detail.message).toBe("string");
    expect(refusal!.headers.get("retry-after")).toBe("3600");
  });

  test("the window slides: capacity comes back as old attempts age out", async () => {
    const u = await h.user();
    for (let i = 0; i < 10; i++) {
      expect((await call("POST", "/api/v1/posts/p1/edit", { token: u.token })).status).toBe(200);
      h.clock.advance(MINUTE);
    }
    // 10 minutes in: full until the first attempt is an hour old.
    const r = await call("POST", "/api/v1/posts/p1/edit", { token: u.token });
    expect(r.status).toBe(429);
    expect(r.body.detail.retry_after).toBe(50 * 60);
    expect(r.headers.get("retry-after")).toBe(String(50 * 60));
    h.clock.advance(50 * MINUTE);
    expect((await call("POST", "/api/v1/posts/p1/edit", { token: u.token })).status).toBe(200);
    expect((await call("POST", "/api/v1/posts/p1/edit", { token: u.token })).status).toBe(429);
    h.clock.advance(MINUTE);
    expect((await call("POST", "/api/v1/posts/p1/edit", { token: u.token })).status).toBe(200);
  });

  test("a refused attempt is not charged", async () => {
    const u = await h.user();
    const t0 = h.clock.now();
    for (let i = 0; i < 5; i++) await call("POST", "/api/v1/posts/p1/edit", { token: u.token });
    h.clock.set(t0 + 30 * MINUTE);
    for (let i = 0; i < 5; i++) await call("POST", "/api/v1/posts/p1/edit", { token: u.token });
    h.clock.set(t0 + 45 * MINUTE);
    for (let i = 0; i < 10; i++) {
      const r = await call("POST", "/api/v1/posts/p1/edit", { token: u.token });
      expect(r.status).toBe(429);
      expect(r.body.detail.code).toBe("RATE_LIMIT_POST_EDIT");
    }
    h.clock.set(t0 + HOUR);
    expect((await exhaust("/api/v1/posts/p1/edit", u.token)).allowed).toBe(5);
  });

  test("each user has their own bucket", async () => {
    const a = await h.user();
    const b = await h.user();
    expect((await exhaust("/api/v1/posts/p1/edit", a.token)).allowed).toBe(10);
    expect((await exhaust("/api/v1/posts/p1/edit", b.token)).allowed).toBe(10);
  });

  test("a list of actions is charged together; the first full one answers", async () => {
    const u = await h.user();
    for (let hour = 0; hour < 2; hour++) {
      for (let i = 0; i < 5; i++) expect((await call("POST", "/api/v1/avatar", { token: u.token, body: { n: 1 } })).status).toBe(200);
      const r = await call("POST", "/api/v1/avatar", { token: u.token, body: { n: 1 } });
      expect(r.status).toBe(429);
      expect(r.body.detail.code).toBe("RATE_LIMIT_AVATAR_UPLOAD");
      h.clock.advance(HOUR);
    }
    const daily = await call("POST", "/api/v1/avatar", { token: u.token, body: { n: 1 } });
    expect(daily.status).toBe(429);
    expect(daily.body.detail.code).toBe("RATE_LIMIT_AVATAR_UPLOAD_DAILY");
    expect(daily.body.detail.retry_after).toBe((DAY - 2 * HOUR) / 1000);
  });
});

describe("failed requests are refunded", () => {
  test.each(["api", "crash", "status"] as const)("a %s failure does not count", async (mode) => {
    const u = await h.user();
    failMode = mode;
    for (let i = 0; i < 15; i++) {
      const r = await call("POST", "/api/v1/posts/p1/edit", { token: u.token });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).not.toBe(429);
    }
    expect(h.ctx.limits.status(limitRule("post_edit"), { userId: u.id }).current).toBe(0);
    failMode = "none";
    expect((await exhaust("/api/v1/posts/p1/edit", u.token)).allowed).toBe(10);
  });

  test("a validation failure is never charged", async () => {
    const u = await h.user();
    for (let i = 0; i < 8; i++) expect((await call("POST", "/api/v1/avatar", { token: u.token, body: { n: 0 } })).status).toBe(422);
    for (let i = 0; i < 5; i++) expect((await call("POST", "/api/v1/avatar", { token: u.token, body: { n: 1 } })).status).toBe(200);
  });

  test("charges made with charge() inside a handler are refunded too", async () => {
    failMode = "api";
    for (let i = 0; i < 12; i++) expect((await call("POST", "/api/v1/manual")).status).toBe(400);
    failMode = "none";
    for (let i = 0; i < 10; i++) expect((await call("POST", "/api/v1/manual")).status).toBe(200);
    const r = await call("POST", "/api/v1/manual");
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_REPORT");
  });

  test("a successful request keeps its charge", async () => {
    const u = await h.user();
    await call("POST", "/api/v1/posts/p1/edit", { token: u.token });
    expect(h.ctx.limits.status(limitRule("post_edit"), { userId: u.id }).current).toBe(1);
  });
});

describe("ceilings", () => {
  test("the trust multiplier raises per-user limits", async () => {
    const member = await h.user({ karma: 10 });
    expect((await exhaust("/api/v1/posts/p1/edit", member.token)).allowed).toBe(15);
    const trusted = await h.user({ karma: 50 });
    expect((await exhaust("/api/v1/posts/p1/edit", trusted.token)).allowed).toBe(20);
  });

  test("admins get the admin ceiling (vote_hourly: 100)", async () => {
    const admin = await h.user({ admin: true });
    expect((await exhaust("/api/v1/votes", admin.token)).allowed).toBe(100);
    const agent = await h.user();
    const { allowed, refusal } = await exhaust("/api/v1/votes", agent.token);
    expect(allowed).toBe(10);
    expect(refusal!.body.detail.code).toBe("RATE_LIMIT_VOTE_HOURLY");
  });

  test("new accounts get newAccountMax during their first 7 days", async () => {
    const fresh = await h.user();
    const first = await exhaust("/api/v1/messages", fresh.token);
    expect(first.allowed).toBe(10);
    expect(first.refusal!.body.detail.code).toBe("RATE_LIMIT_SEND_MESSAGE");
  });

  test("after 7 days the normal ceiling applies", async () => {
    const older = await h.user();
    h.clock.advance(7 * DAY);
    // A new token: the first one has expired.
    const { issueToken } = await import("../features/auth/service");
    const { access_token } = await issueToken(h.ctx, older.apiKey);
    expect((await exhaust("/api/v1/messages", access_token)).allowed).toBe(60);
  });

  test("anonymous requests are limited by IP", async () => {
    const { allowed, refusal } = await exhaust("/api/v1/open");
    expect(allowed).toBe(10);
    expect(refusal!.body.detail.code).toBe("RATE_LIMIT_REGISTER");
  });

  test("behind a trusted proxy, each client address has its own bucket", async () => {
    const p = setup({ trustProxy: true });
    const proxied = testApp(p.ctx);
    expect((await exhaust("/api/v1/open", undefined, { on: proxied, headers: { "x-forwarded-for": "203.0.113.1, 10.0.0.1" } })).allowed).toBe(10);
    expect((await exhaust("/api/v1/open", undefined, { on: proxied, headers: { "x-forwarded-for": "203.0.113.2" } })).allowed).toBe(10);
    expect((await exhaust("/api/v1/open", undefined, { on: proxied, headers: { "fly-client-ip": "203.0.113.3" } })).allowed).toBe(10);
  });

  test("without a trusted proxy, forwarded headers are ignored", async () => {
    expect((await exhaust("/api/v1/open", undefined, { headers: { "x-forwarded-for": "203.0.113.1" } })).allowed).toBe(10);
    const r = await call("POST", "/api/v1/open", { headers: { "x-forwarded-for": "203.0.113.99" } });
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_REGISTER");
  });
});

describe("multiplier 0", () => {
  test("turns rate limiting off", async () => {
    const off = setup({ rateLimitMultiplier: 0 });
    const offApp = testApp(off.ctx);
    const u = await off.user();
    expect((await exhaust("/api/v1/posts/p1/edit", u.token, { on: offApp, cap: 60 })).allowed).toBe(60);
    expect((await exhaust("/api/v1/open", undefined, { on: offApp, cap: 60 })).allowed).toBe(60);
  });

  test("on the assembled app too", async () => {
    const off = setup({ rateLimitMultiplier: 0 });
    for (let i = 0; i < 15; i++) {
      const r = await off.req("POST", "/api/v1/auth/register", { body: { username: `free-${i}`, display_name: "Free" } });
      expect(r.status).toBe(201);
    }
  });
});

describe("on a real route", () => {
  test("registration is limited per IP with the same 429 body, and failures are refunded", async () => {
    const p = setup();
    // Failed registrations (a taken name) cost nothing.
    await p.req("POST", "/api/v1/auth/register", { body: { username: "taken-name", display_name: "T" } });
    for (let i = 0; i < 12; i++) {
      const r = await p.req("POST", "/api/v1/auth/register", { body: { username: "taken-name", display_name: "T" } });
      expect(r.status).toBe(409);
    }
    for (let i = 1; i < 10; i++) {
      const r = await p.req("POST", "/api/v1/auth/register", { body: { username: `reg-${i}`, display_name: "R" } });
      expect(r.status).toBe(201);
    }
    const r = await p.req("POST", "/api/v1/auth/register", { body: { username: "reg-11", display_name: "R" } });
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_REGISTER");
    expect(r.body.detail.retry_after).toBe(3600);
    expect(r.headers.get("retry-after")).toBe("3600");
  });
});

describe("subjectOf", () => {
  test("a caller is limited as a user (with karma, admin flag and age); anyone else by IP", () => {
    const caller = { id: "u1", username: "x", userType: "agent", isAdmin: true, karma: 12, createdAt: 5, user: {} } as any;
    expect(subjectOf(caller, "1.2.3.4")).toEqual({ userId: "u1", ip: "1.2.3.4", karma: 12, isAdmin: true, createdAt: 5 });
    expect(subjectOf(null, "1.2.3.4")).toEqual({ ip: "1.2.3.4" });
  });
});
