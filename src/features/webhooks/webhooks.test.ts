// Webhook management: /api/v1/webhooks CRUD, rotate-secret, the event catalogue, validation,
// ownership (404 for strangers), limits and the secret kept encrypted and write-only.
import { afterAll, describe, expect, test } from "bun:test";
import { HOUR } from "../../core/clock";
import { setup, type TestUser } from "../../../test/harness";
import { EVENT_NAMES } from "./mapping";
import { unsealSecret } from "./signing";
import { startReceiver } from "./test-receiver";

const SECRET = "s3cret-s3cret-s3cret";
const UNKNOWN = "00000000-0000-7000-8000-000000000000";

const h = setup({ allowPrivateWebhooks: true, webhookTimeoutMs: 2000, rateLimitMultiplier: 0 });
const rx = startReceiver();
afterAll(() => rx.stop());

let n = 0;
const create = (u: TestUser, body: Record<string, unknown> = {}) =>
  h.req("POST", "/api/v1/webhooks", { token: u.token, body: { url: rx.url(`/w${++n}`), secret: SECRET, events: ["post_created", "mention"], ...body } });

describe("POST /api/v1/webhooks", () => {
  test("creates a webhook; the secret is never returned and is stored encrypted", async () => {
    const a = await h.user();
    const r = await create(a, { url: rx.url("/created"), events: ["post_created", "mention", "post_created"] });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      url: rx.url("/created"),
      events: ["post_created", "mention"],
      is_active: true,
      failure_count: 0,
      last_triggered_at: null,
      created_at: new Date(h.clock.now()).toISOString(),
    });
    expect(r.text).not.toContain(SECRET);
    const row = h.ctx.db.$client.query("select secret_enc from webhooks where id = ?").get(r.body.id) as { secret_enc: string };
    expect(row.secret_enc).not.toContain(SECRET);
    expect(unsealSecret(h.ctx.secrets.dataKey, r.body.id, row.secret_enc)).toBe(SECRET);
    // Bound to its webhook: the sealed value does not open as another webhook's secret.
    expect(() => unsealSecret(h.ctx.secrets.dataKey, UNKNOWN, row.secret_enc)).toThrow();
    const subs = h.ctx.db.$client.query("select event from webhook_subscriptions where webhook_id = ? order by event").all(r.body.id);
    expect(subs).toEqual([{ event: "mention" }, { event: "post_created" }]);
  });

  test("anonymous is 401", async () => {
    expect((await h.req("POST", "/api/v1/webhooks", { body: { url: rx.url(), secret: SECRET, events: ["mention"] } })).status).toBe(401);
    expect((await h.req("GET", "/api/v1/webhooks")).status).toBe(401);
  });

  test("accepts every §6.2 event name (docs/decisions.md §5)", async () => {
    const a = await h.user();
    const r = await create(a, { events: [...EVENT_NAMES] });
    expect(r.status).toBe(201);
    expect(r.body.events).toHaveLength(58);
  });

  test.each([
    ["secret under 16 characters", { secret: "short-secret" }, "secret"],
    ["secret over 64 characters", { secret: "x".repeat(65) }, "secret"],
    ["unknown event", { events: ["post_created", "no_such_event"] }, "events"],
    ["test.ping is not subscribable", { events: ["test.ping"] }, "events"],
    ["empty events", { events: [] }, "events"],
    ["missing url", { url: undefined }, "url"],
    ["url over 2000 characters", { url: `https://example.com/${"a".repeat(2000)}` }, "url"],
  ])("422 for %s, nothing created", async (_name, body, field) => {
    const a = await h.user();
    const r = await create(a, body);
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body.detail)).toContain(field);
    expect((await h.req("GET", "/api/v1/webhooks", { token: a.token })).body).toEqual([]);
  });

  test("a secret of 16 spaces is 400 INVALID_INPUT", async () => {
    const a = await h.user();
    const r = await create(a, { secret: " ".repeat(16) });
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
  });

  test.each([
    ["ftp scheme", "ftp://example.com/hook", "scheme"],
    ["javascript scheme", "javascript:alert(1)", "scheme"],
    ["not a URL", "not a url", "invalid_url"],
    ["credentials in the URL", "https://user:pw@example.com/hook", "credentials"],
  ])("400 INVALID_INPUT for %s", async (_name, url, reason) => {
    const a = await h.user();
    const r = await create(a, { url });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatchObject({ code: "INVALID_INPUT", reason });
  });

  test("409 CONFLICT for the same owner and URL; another owner may use it", async () => {
    const a = await h.user();
    const b = await h.user();
    const url = rx.url("/dup");
    expect((await create(a, { url })).status).toBe(201);
    const dup = await create(a, { url, events: ["mention"] });
    expect(dup.status).toBe(409);
    expect(dup.body.detail.code).toBe("CONFLICT");
    expect((await create(b, { url })).status).toBe(201);
  });

  test("400 LIMIT_EXCEEDED past 10 webhooks per user", async () => {
    const a = await h.user();
    for (let i = 0; i < 10; i++) expect((await create(a)).status).toBe(201);
    const r = await create(a);
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("LIMIT_EXCEEDED");
    expect((await h.req("GET", "/api/v1/webhooks", { token: a.token })).body).toHaveLength(10);
  });
});

describe("GET /api/v1/webhooks and /{id}", () => {
  test("owner sees own webhooks newest first; a stranger sees none and gets 404 on the id", async () => {
    const a = await h.user();
    const b = await h.user();
    const first = await create(a);
    h.clock.advance(1000);
    const second = await create(a);
    const list = await h.req("GET", "/api/v1/webhooks", { token: a.token });
    expect(list.status).toBe(200);
    expect(list.body.map((w: any) => w.id)).toEqual([second.body.id, first.body.id]);
    expect(list.text).not.toContain(SECRET);
    expect((await h.req("GET", "/api/v1/webhooks", { token: b.token })).body).toEqual([]);

    const own = await h.req("GET", `/api/v1/webhooks/${first.body.id}`, { token: a.token });
    expect(own.status).toBe(200);
    expect(own.body).toEqual(first.body);
    for (const id of [first.body.id, UNKNOWN, "not-a-uuid"]) {
      const r = await h.req("GET", `/api/v1/webhooks/${id}`, { token: id === first.body.id ? b.token : a.token });
      expect(r.status).toBe(404);
      expect(r.body.detail.code).toBe("NOT_FOUND");
    }
    expect((await h.req("GET", `/api/v1/webhooks/${first.body.id}`)).status).toBe(401);
  });
});

describe("PUT /api/v1/webhooks/{id}", () => {
  test("changes url, events and secret; omitted and null fields stay", async () => {
    const a = await h.user();
    const w = (await create(a)).body;
    const r = await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { url: rx.url("/moved"), events: ["comment_created"], secret: null } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: w.id, url: rx.url("/moved"), events: ["comment_created"], is_active: true });
    const subs = h.ctx.db.$client.query("select event from webhook_subscriptions where webhook_id = ?").all(w.id);
    expect(subs).toEqual([{ event: "comment_created" }]);
    const row = h.ctx.db.$client.query("select secret_enc from webhooks where id = ?").get(w.id) as { secret_enc: string };
    expect(unsealSecret(h.ctx.secrets.dataKey, w.id, row.secret_enc)).toBe(SECRET);
    await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { secret: "another-secret-0123" } });
    const after = h.ctx.db.$client.query("select secret_enc from webhooks where id = ?").get(w.id) as { secret_enc: string };
    expect(unsealSecret(h.ctx.secrets.dataKey, w.id, after.secret_enc)).toBe("another-secret-0123");
  });

  test("is_active true on a disabled webhook re-enables it and resets failure_count", async () => {
    const a = await h.user();
    const w = (await create(a)).body;
    h.ctx.db.$client.query("update webhooks set is_active = 0, failure_count = 10 where id = ?").run(w.id);
    const r = await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { is_active: true } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ is_active: true, failure_count: 0 });
  });

  test("is_active true on an active webhook keeps the running count; false disables", async () => {
    const a = await h.user();
    const w = (await create(a)).body;
    h.ctx.db.$client.query("update webhooks set failure_count = 3 where id = ?").run(w.id);
    expect((await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { is_active: true } })).body.failure_count).toBe(3);
    const off = await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { is_active: false } });
    expect(off.body).toMatchObject({ is_active: false, failure_count: 3 });
  });

  test("422 for an unknown event or short secret, 400 for a bad URL, 409 for a duplicate; nothing changes", async () => {
    const a = await h.user();
    const w = (await create(a)).body;
    const other = (await create(a)).body;
    const cases: [Record<string, unknown>, number][] = [
      [{ events: ["bogus"] }, 422],
      [{ secret: "short" }, 422],
      [{ url: "gopher://example.com" }, 400],
      [{ url: other.url }, 409],
    ];
    for (const [body, status] of cases) {
      const r = await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body });
      expect(r.status).toBe(status);
    }
    expect((await h.req("GET", `/api/v1/webhooks/${w.id}`, { token: a.token })).body).toEqual(w);
  });

  test("a stranger's PUT is 404 and changes nothing; anonymous is 401", async () => {
    const a = await h.user();
    const b = await h.user();
    const w = (await create(a)).body;
    const r = await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: b.token, body: { is_active: false } });
    expect(r.status).toBe(404);
    expect((await h.req("PUT", `/api/v1/webhooks/${w.id}`, { body: { is_active: false } })).status).toBe(401);
    expect((await h.req("GET", `/api/v1/webhooks/${w.id}`, { token: a.token })).body.is_active).toBe(true);
  });
});

describe("DELETE /api/v1/webhooks/{id}", () => {
  test("owner deletes the webhook with its deliveries; stranger 404; anonymous 401", async () => {
    const a = await h.user();
    const b = await h.user();
    const w = (await create(a)).body;
    await h.req("POST", `/api/v1/webhooks/${w.id}/test`, { token: a.token });
    expect((await h.req("DELETE", `/api/v1/webhooks/${w.id}`)).status).toBe(401);
    expect((await h.req("DELETE", `/api/v1/webhooks/${w.id}`, { token: b.token })).status).toBe(404);
    const r = await h.req("DELETE", `/api/v1/webhooks/${w.id}`, { token: a.token });
    expect(r.status).toBe(204);
    expect((await h.req("GET", `/api/v1/webhooks/${w.id}`, { token: a.token })).status).toBe(404);
    expect((await h.req("DELETE", `/api/v1/webhooks/${w.id}`, { token: a.token })).status).toBe(404);
    for (const table of ["webhook_deliveries", "webhook_attempts", "webhook_subscriptions"]) {
      expect(h.ctx.db.$client.query(`select count(*) as n from ${table} where webhook_id = ?`).get(w.id)).toEqual({ n: 0 });
    }
  });
});

describe("POST /api/v1/webhooks/{id}/rotate-secret", () => {
  test("returns a fresh secret once and stores it; stranger 404", async () => {
    const a = await h.user();
    const b = await h.user();
    const w = (await create(a)).body;
    expect((await h.req("POST", `/api/v1/webhooks/${w.id}/rotate-secret`, { token: b.token })).status).toBe(404);
    expect((await h.req("POST", `/api/v1/webhooks/${w.id}/rotate-secret`)).status).toBe(401);
    const r = await h.req("POST", `/api/v1/webhooks/${w.id}/rotate-secret`, { token: a.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: w.id, secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), rotated_at: expect.any(String) });
    const row = h.ctx.db.$client.query("select secret_enc from webhooks where id = ?").get(w.id) as { secret_enc: string };
    expect(unsealSecret(h.ctx.secrets.dataKey, w.id, row.secret_enc)).toBe(r.body.secret);
    expect((await h.req("GET", `/api/v1/webhooks/${w.id}`, { token: a.token })).text).not.toContain(r.body.secret);
  });
});

describe("GET /api/v1/webhooks/events", () => {
  test("public catalogue of the 58 subscribable events with example payloads", async () => {
    const r = await h.req("GET", "/api/v1/webhooks/events");
    expect(r.status).toBe(200);
    expect(r.body.events).toHaveLength(58);
    const names = r.body.events.map((e: any) => e.name);
    expect(names).toEqual(expect.arrayContaining(["post_created", "direct_message", "security_2fa_disabled", "group_member_removed"]));
    expect(names).not.toContain("test.ping");
    const post = r.body.events.find((e: any) => e.name === "post_created");
    expect(post).toMatchObject({ payload_schema_ref: "#/components/schemas/PostCreatedPayload", example_payload: { event: "post_created" } });
  });
});

describe("rate limits", () => {
  test("webhook writes share 10 per hour; test pings 20 per hour", async () => {
    const limited = setup({ allowPrivateWebhooks: true, webhookTimeoutMs: 2000 });
    const a = await limited.user();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await limited.req("POST", "/api/v1/webhooks", { token: a.token, body: { url: rx.url(`/rl${i}`), secret: SECRET, events: ["mention"] } });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    for (let i = 0; i < 3; i++) expect((await limited.req("PUT", `/api/v1/webhooks/${ids[i]}`, { token: a.token, body: { is_active: true } })).status).toBe(200);
    expect((await limited.req("DELETE", `/api/v1/webhooks/${ids[5]}`, { token: a.token })).status).toBe(204);
    const refused = await limited.req("POST", `/api/v1/webhooks/${ids[0]}/rotate-secret`, { token: a.token });
    expect(refused.status).toBe(429);
    expect(refused.body.detail.code).toBe("RATE_LIMIT_WEBHOOK");
    limited.clock.advance(HOUR);
    for (let i = 0; i < 20; i++) expect((await limited.req("POST", `/api/v1/webhooks/${ids[0]}/test`, { token: a.token })).status).toBe(200);
    const tooMany = await limited.req("POST", `/api/v1/webhooks/${ids[0]}/test`, { token: a.token });
    expect(tooMany.status).toBe(429);
    expect(tooMany.body.detail.code).toBe("RATE_LIMIT_WEBHOOK_TEST");
    expect(tooMany.headers.get("retry-after")).toBeTruthy();
  });

  test("replays: 30 per hour", async () => {
    const limited = setup({ allowPrivateWebhooks: true, webhookTimeoutMs: 2000 });
    const a = await limited.user();
    const w = await limited.req("POST", "/api/v1/webhooks", { token: a.token, body: { url: rx.url("/replays"), secret: SECRET, events: ["security_2fa_disabled"] } });
    limited.ctx.db.transaction((tx) => limited.ctx.events.emit(tx, { type: "security_2fa_disabled", actorId: null, payload: { recipient_ids: [a.id], actor: a.username, actor_id: a.id, by: "you" } }));
    await limited.ctx.events.drain();
    const { id } = limited.ctx.db.$client.query("select id from webhook_deliveries where webhook_id = ?").get(w.body.id) as { id: string };
    const path = `/api/v1/webhooks/${w.body.id}/deliveries/${id}/replay`;
    for (let i = 0; i < 30; i++) expect((await limited.req("POST", path, { token: a.token })).status).toBe(202);
    const refused = await limited.req("POST", path, { token: a.token });
    expect(refused.status).toBe(429);
    expect(refused.body.detail.code).toBe("RATE_LIMIT_WEBHOOK_REPLAY");
    expect(limited.ctx.db.$client.query("select count(*) as n from webhook_deliveries where webhook_id = ?").get(w.body.id)).toEqual({ n: 31 });
  });
});

describe("SSRF guard without COLONY_ALLOW_PRIVATE_WEBHOOKS", () => {
  test("creating or moving a webhook to a private, loopback or link-local address is 400 INVALID_INPUT", async () => {
    const strict = setup({ rateLimitMultiplier: 0 });
    expect(strict.config.allowPrivateWebhooks).toBe(false);
    const a = await strict.user();
    for (const url of ["http://127.0.0.1:8080/hook", "http://localhost/hook", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://[::1]/", "http://[fd00::1]/", "http://100.64.1.1/", "http://0.0.0.0/", "http://[2002:7f00:1::]:8080/hook", "http://[64:ff9b::a9fe:a9fe]/", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/"]) {
      const r = await strict.req("POST", "/api/v1/webhooks", { token: a.token, body: { url, secret: SECRET, events: ["mention"] } });
      expect(r.status).toBe(400);
      expect(r.body.detail).toMatchObject({ code: "INVALID_INPUT", reason: "private_address" });
    }
    expect((await strict.req("GET", "/api/v1/webhooks", { token: a.token })).body).toEqual([]);
    // A webhook that exists (created while allowed) cannot be moved to a private address either.
    strict.ctx.config.allowPrivateWebhooks = true;
    const w = (await strict.req("POST", "/api/v1/webhooks", { token: a.token, body: { url: "http://93.184.216.34/hook", secret: SECRET, events: ["mention"] } })).body;
    strict.ctx.config.allowPrivateWebhooks = false;
    const moved = await strict.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { url: "http://192.168.0.10/hook" } });
    expect(moved.status).toBe(400);
    expect(moved.body.detail.reason).toBe("private_address");
    expect((await strict.req("GET", `/api/v1/webhooks/${w.id}`, { token: a.token })).body.url).toBe("http://93.184.216.34/hook");
  });
});

describe("account deletion", () => {
  test("a self-deleted account's webhooks go with it", async () => {
    const a = await h.user();
    const w = (await create(a)).body;
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: a.token })).status).toBeLessThan(300);
    await h.ctx.events.drain();
    expect(h.ctx.db.$client.query("select count(*) as n from webhooks where id = ?").get(w.id)).toEqual({ n: 0 });
    expect(h.ctx.db.$client.query("select count(*) as n from webhook_subscriptions where webhook_id = ?").get(w.id)).toEqual({ n: 0 });
  });
});

describe("OpenAPI", () => {
  test("documents the webhook routes", async () => {
    const doc = (await h.req("GET", "/openapi.json")).body;
    for (const p of ["/api/v1/webhooks", "/api/v1/webhooks/{webhook_id}", "/api/v1/webhooks/{webhook_id}/deliveries", "/api/v1/webhooks/{webhook_id}/test", "/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/replay", "/api/v1/webhooks/events"]) {
      expect(doc.paths[p]).toBeDefined();
    }
  });
});
