// Webhook delivery against a real receiver on 127.0.0.1: signatures and headers, the retry
// schedule driven by the TestClock, failure counting and disabling, the test ping, replay, and
// the SSRF check repeated at delivery time.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { MINUTE } from "../../core/clock";
import { setup, type TestUser } from "../../../test/harness";
import { RECEIVER_SECRET as SECRET, receiverHooks } from "./fixtures";
import { DISABLE_AFTER_FAILURES, enqueueForEvent, pendingCount, runDueDeliveries } from "./service";
import { startReceiver, type Received } from "./test-receiver";

const UNKNOWN = "00000000-0000-7000-8000-000000000000";
const h = setup({ allowPrivateWebhooks: true, webhookTimeoutMs: 2000, rateLimitMultiplier: 0 });
const rx = startReceiver();
afterAll(() => rx.stop());
beforeEach(() => {
  rx.clear();
  rx.respond(200);
});

const hooks = receiverHooks(h, rx, "d");
const hook = (u: TestUser) => hooks.hook(u, ["security_2fa_disabled"]);

/** A domain event through the outbox, the way features emit them (generic recipient rule). */
async function emit(recipients: string[], facts: { actor?: string; actor_id?: string; by?: string } = {}) {
  const payload = { recipient_ids: recipients, actor: "someone", actor_id: UNKNOWN, by: "you", ...facts };
  h.ctx.db.transaction((tx) => h.ctx.events.emit(tx, { type: "security_2fa_disabled", actorId: null, payload }));
  await h.ctx.events.drain();
}

/** Sends (or gives up on) whatever earlier tests left queued, so that only this test's deliveries are due. */
async function settleQueue() {
  for (let i = 0; i < 6 && pendingCount(h.ctx); i++) {
    h.clock.advance(60 * MINUTE);
    await runDueDeliveries(h.ctx);
  }
}

const hmac = (secret: string, data: string) => createHmac("sha256", secret).update(data).digest("hex");
const webhookRow = (id: string) => h.ctx.db.$client.query("select is_active, failure_count, last_triggered_at from webhooks where id = ?").get(id) as { is_active: number; failure_count: number; last_triggered_at: number | null };
const deliveries = async (u: TestUser, id: string) => (await h.req("GET", `/api/v1/webhooks/${id}/deliveries`, { token: u.token, query: { limit: 100 } })).body;

function expectSigned(r: Received, secret: string, nowMs: number) {
  const t = Math.floor(nowMs / 1000);
  expect(r.headers["x-service-signature"]).toBe(`sha256=${hmac(secret, r.body)}`);
  expect(r.headers["x-service-signature-256"]).toBe(`t=${t},v1=${hmac(secret, `${t}.${r.body}`)}`);
  expect(r.headers["x-service-timestamp"]).toBe(String(t));
  expect(r.headers["x-colony-signature"]).toBe(r.headers["x-service-signature"]);
  expect(r.headers["x-colony-signature-256"]).toBe(r.headers["x-service-signature-256"]);
  expect(r.headers["x-colony-timestamp"]).toBe(String(t));
}

describe("queueing follows subscription changes", () => {
  test("an event nobody subscribes to queues nothing; a new subscription hears the next one; changed or deleted ones stop", async () => {
    const a = await h.user();
    const before = pendingCount(h.ctx);
    await emit([a.id]);
    expect(pendingCount(h.ctx)).toBe(before);
    const w = await hook(a);
    await emit([a.id]);
    expect(pendingCount(h.ctx)).toBe(before + 1);
    expect((await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { events: ["post_created"] } })).status).toBe(200);
    await emit([a.id]);
    expect(pendingCount(h.ctx)).toBe(before + 1);
    expect((await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { events: ["security_2fa_disabled"] } })).status).toBe(200);
    await emit([a.id]);
    expect(pendingCount(h.ctx)).toBe(before + 2);
    expect((await h.req("DELETE", `/api/v1/webhooks/${w.id}`, { token: a.token })).status).toBe(204);
    const left = pendingCount(h.ctx);
    await emit([a.id]);
    expect(pendingCount(h.ctx)).toBe(left);
  });
});

describe("signed delivery", () => {
  test("every header of §6.1 and the X-Colony equivalents; signatures over the raw body bytes", async () => {
    await settleQueue();
    const a = await h.user();
    const w = await hook(a);
    await emit([a.id], { actor: "op", actor_id: UNKNOWN, by: "your claiming human" });
    expect(await runDueDeliveries(h.ctx)).toBe(1);
    const [r] = rx.to(w.path);
    expect(r.method).toBe("POST");
    expect(JSON.parse(r.body)).toEqual({ event: "security_2fa_disabled", actor: "op", actor_id: UNKNOWN, by: "your claiming human" });
    expect(r.body).not.toContain("recipient_ids");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["user-agent"]).toBe("Service-Webhooks/1.0");
    expect(r.headers["x-service-event"]).toBe("security_2fa_disabled");
    expect(r.headers["x-colony-event"]).toBe("security_2fa_disabled");
    expect(r.headers["x-service-attempt"]).toBe("1");
    expect(r.headers["x-service-delivery"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers["x-service-event-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers["x-colony-event-id"]).toBe(r.headers["x-service-event-id"]);
    expectSigned(r, SECRET, h.clock.now());
    // A wrong secret does not verify.
    expect(r.headers["x-service-signature"]).not.toBe(`sha256=${hmac("another-secret-123", r.body)}`);
    const [d] = await deliveries(a, w.id);
    expect(d).toMatchObject({ event: "security_2fa_disabled", event_id: r.headers["x-service-event-id"], success: true, status: "succeeded", attempt: 1, response_status: 200, response_body: "ok", is_replay: false });
    expect(d.attempts[0].id).toBe(r.headers["x-service-delivery"]);
    expect(d.id).toBe(r.headers["x-colony-delivery"]);
    expect(webhookRow(w.id)).toMatchObject({ failure_count: 0, last_triggered_at: h.clock.now() });
  });

  test("nothing is sent inside the outbox handler: deliveries wait for the worker", async () => {
    const a = await h.user();
    const w = await hook(a);
    await emit([a.id]);
    expect(rx.to(w.path)).toHaveLength(0);
    expect(pendingCount(h.ctx)).toBeGreaterThanOrEqual(1);
    await runDueDeliveries(h.ctx);
    expect(rx.to(w.path)).toHaveLength(1);
  });

  test("the outbox handing an event over twice queues it once", async () => {
    const a = await h.user();
    const w = await hook(a);
    h.ctx.db.transaction((tx) => h.ctx.events.emit(tx, { type: "security_2fa_disabled", actorId: null, payload: { recipient_ids: [a.id], actor: "someone", actor_id: UNKNOWN, by: "you" } }));
    await h.ctx.events.drain();
    const ev = h.ctx.db.$client.query("select * from events where type = 'security_2fa_disabled' order by id desc limit 1").get() as any;
    const again = enqueueForEvent(h.ctx, { id: ev.id, type: ev.type, actorId: null, subjectType: null, subjectId: null, payload: JSON.parse(ev.payload), audience: [], createdAt: ev.created_at });
    expect(again).toBe(0);
    await runDueDeliveries(h.ctx);
    expect(rx.to(w.path)).toHaveLength(1);
  });
});

describe("retries", () => {
  test("5 attempts: after 5 s, 30 s, 2 min and 10 min; new X-Service-Delivery each time, same event id", async () => {
    const a = await h.user();
    const w = await hook(a);
    rx.respond(500, "down");
    await emit([a.id]);
    const run = () => runDueDeliveries(h.ctx);
    await run();
    expect(rx.to(w.path)).toHaveLength(1);
    const steps = [5_000, 30_000, 2 * MINUTE, 10 * MINUTE];
    for (const [i, delay] of steps.entries()) {
      h.clock.advance(delay - 1);
      await run();
      expect(rx.to(w.path)).toHaveLength(i + 1); // not yet
      h.clock.advance(1);
      await run();
      expect(rx.to(w.path)).toHaveLength(i + 2);
      expectSigned(rx.to(w.path)[i + 1], SECRET, h.clock.now());
    }
    const sent = rx.to(w.path);
    expect(sent.map((r) => r.headers["x-service-attempt"])).toEqual(["1", "2", "3", "4", "5"]);
    expect(new Set(sent.map((r) => r.headers["x-service-delivery"])).size).toBe(5);
    expect(new Set(sent.map((r) => r.headers["x-service-event-id"])).size).toBe(1);
    expect(new Set(sent.map((r) => r.headers["x-colony-delivery"])).size).toBe(1);
    expect(new Set(sent.map((r) => r.body)).size).toBe(1);
    // No sixth attempt, however long we wait.
    h.clock.advance(3 * 60 * MINUTE);
    await run();
    expect(rx.to(w.path)).toHaveLength(5);
    const [d] = await deliveries(a, w.id);
    expect(d).toMatchObject({ status: "failed", success: false, attempt: 5, response_status: 500, response_body: "down", next_attempt_at: null });
    expect(d.attempts.map((x: any) => x.response_status)).toEqual([500, 500, 500, 500, 500]);
    expect(webhookRow(w.id).failure_count).toBe(1);
  });

  test("every attempt is counted in colony_webhook_deliveries_total: retrying, then succeeded or failed", async () => {
    // Whatever earlier tests left queued is settled first, so only this test's attempts count.
    await settleQueue();
    const counts = async () => {
      const text = await h.ctx.metrics.text();
      const n = (outcome: string) => Number(new RegExp(`^colony_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)$`, "m").exec(text)?.[1]);
      return { succeeded: n("succeeded"), retrying: n("retrying"), failed: n("failed") };
    };
    const before = await counts();
    for (const n of Object.values(before)) expect(n).toBeGreaterThanOrEqual(0);
    const a = await h.user();
    await hook(a);
    rx.respond(500, "down");
    await emit([a.id]);
    await runDueDeliveries(h.ctx);
    rx.respond(204, "");
    h.clock.advance(5_000);
    await runDueDeliveries(h.ctx);
    expect(await counts()).toEqual({ succeeded: before.succeeded + 1, retrying: before.retrying + 1, failed: before.failed });
  });

  test("a 3xx counts as a failure and is not followed; a later success resets failure_count", async () => {
    const a = await h.user();
    const w = await hook(a);
    h.ctx.db.$client.query("update webhooks set failure_count = 4 where id = ?").run(w.id);
    rx.respond(302);
    await emit([a.id]);
    await runDueDeliveries(h.ctx);
    expect(rx.received.filter((r) => r.path === "/elsewhere")).toHaveLength(0);
    let [d] = await deliveries(a, w.id);
    expect(d).toMatchObject({ status: "pending", response_status: 302, attempt: 1 });
    expect(webhookRow(w.id).failure_count).toBe(4); // a delivery still being retried counts nothing yet
    rx.respond(204, "");
    h.clock.advance(5_000);
    await runDueDeliveries(h.ctx);
    [d] = await deliveries(a, w.id);
    expect(d).toMatchObject({ status: "succeeded", success: true, attempt: 2, response_status: 204 });
    expect(webhookRow(w.id)).toMatchObject({ failure_count: 0, last_triggered_at: h.clock.now() });
  });

  test("10 consecutive failed deliveries disable the webhook; re-enabling resets and delivers again", async () => {
    const a = await h.user();
    const w = await hook(a);
    rx.respond(500);
    for (let i = 0; i < DISABLE_AFTER_FAILURES; i++) {
      await emit([a.id], { by: String(i) });
      await runDueDeliveries(h.ctx);
      for (const delay of [5_000, 30_000, 2 * MINUTE, 10 * MINUTE]) {
        h.clock.advance(delay);
        await runDueDeliveries(h.ctx);
      }
      expect(webhookRow(w.id)).toMatchObject({ failure_count: i + 1, is_active: i + 1 < DISABLE_AFTER_FAILURES ? 1 : 0 });
    }
    expect(rx.to(w.path)).toHaveLength(50);
    const got = (await h.req("GET", `/api/v1/webhooks/${w.id}`, { token: a.token })).body;
    expect(got).toMatchObject({ is_active: false, failure_count: 10 });
    // Disabled: nothing is queued or sent, and no notification is written for the owner.
    rx.respond(200);
    await emit([a.id], { by: String("while disabled") });
    await runDueDeliveries(h.ctx);
    expect(rx.to(w.path)).toHaveLength(50);
    expect((await h.req("GET", "/api/v1/notifications", { token: a.token })).text).not.toContain("webhook");
    // Re-enabled: clean slate, deliveries resume.
    const on = await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { is_active: true } });
    expect(on.body).toMatchObject({ is_active: true, failure_count: 0 });
    await emit([a.id], { by: String("after") });
    await runDueDeliveries(h.ctx);
    expect(rx.to(w.path)).toHaveLength(51);
    expect(JSON.parse(rx.to(w.path)[50].body).by).toBe("after");
  });

  test("a webhook disabled while a retry is pending gets nothing more, without counting", async () => {
    const a = await h.user();
    const w = await hook(a);
    rx.respond(500);
    await emit([a.id]);
    await runDueDeliveries(h.ctx);
    await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { is_active: false } });
    h.clock.advance(5_000);
    await runDueDeliveries(h.ctx);
    expect(rx.to(w.path)).toHaveLength(1);
    const [d] = await deliveries(a, w.id);
    expect(d).toMatchObject({ status: "failed", attempt: 1, error: "webhook disabled: not sent" });
    expect(webhookRow(w.id).failure_count).toBe(0);
  });

  test("the SSRF check runs again at delivery time", async () => {
    const a = await h.user();
    const w = await hook(a);
    await emit([a.id]);
    h.ctx.config.allowPrivateWebhooks = false;
    try {
      await runDueDeliveries(h.ctx);
    } finally {
      h.ctx.config.allowPrivateWebhooks = true;
    }
    expect(rx.to(w.path)).toHaveLength(0);
    const [d] = await deliveries(a, w.id);
    expect(d).toMatchObject({ status: "pending", attempt: 1, response_status: null });
    expect(d.error).toContain("refused");
  });
});

describe("POST /webhooks/{id}/test", () => {
  test("one synchronous signed test.ping; status, body and success; counters untouched", async () => {
    const a = await h.user();
    const w = await hook(a);
    h.ctx.db.$client.query("update webhooks set failure_count = 3 where id = ?").run(w.id);
    rx.respond(401, "bad signature");
    const failed = await h.req("POST", `/api/v1/webhooks/${w.id}/test`, { token: a.token });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ event: "test.ping", success: false, response_status: 401, response_body: "bad signature", attempt: 1, is_test: true, status: "failed" });
    expect(failed.body.payload).toMatchObject({ event: "test.ping", webhook_id: w.id });
    rx.respond(200, "pong");
    const ok = await h.req("POST", `/api/v1/webhooks/${w.id}/test`, { token: a.token });
    expect(ok.body).toMatchObject({ success: true, response_status: 200, response_body: "pong" });
    const sent = rx.to(w.path);
    expect(sent).toHaveLength(2);
    expect(sent[1].headers["x-service-event"]).toBe("test.ping");
    expectSigned(sent[1], SECRET, h.clock.now());
    expect(webhookRow(w.id)).toMatchObject({ failure_count: 3, last_triggered_at: null });
    // One attempt only: no retry is queued.
    h.clock.advance(MINUTE);
    await runDueDeliveries(h.ctx);
    expect(rx.to(w.path)).toHaveLength(2);
    expect((await deliveries(a, w.id)).map((d: any) => d.event)).toEqual(["test.ping", "test.ping"]);
  });

  test("works on a disabled webhook; stranger 404; anonymous 401", async () => {
    const a = await h.user();
    const b = await h.user();
    const w = await hook(a);
    await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { is_active: false } });
    expect((await h.req("POST", `/api/v1/webhooks/${w.id}/test`, { token: a.token })).body.success).toBe(true);
    expect((await h.req("POST", `/api/v1/webhooks/${w.id}/test`, { token: b.token })).status).toBe(404);
    expect((await h.req("POST", `/api/v1/webhooks/${UNKNOWN}/test`, { token: a.token })).status).toBe(404);
    expect((await h.req("POST", `/api/v1/webhooks/${w.id}/test`)).status).toBe(401);
  });
});

describe("POST /webhooks/{id}/deliveries/{delivery_id}/replay", () => {
  test("202; a new delivery flagged is_replay with the same event id, sent to the current URL with the current secret", async () => {
    const a = await h.user();
    const w = await hook(a);
    await emit([a.id], { by: String("replayed") });
    await runDueDeliveries(h.ctx);
    const [original] = await deliveries(a, w.id);
    const first = rx.to(w.path)[0];
    // Move and re-key the webhook: the replay follows.
    await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { url: rx.url("/moved-here") } });
    const secret = (await h.req("POST", `/api/v1/webhooks/${w.id}/rotate-secret`, { token: a.token })).body.secret;
    h.clock.advance(1000);
    const r = await h.req("POST", `/api/v1/webhooks/${w.id}/deliveries/${original.id}/replay`, { token: a.token });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ status: "queued", webhook_id: w.id, replayed_delivery_id: original.id, outbox_id: expect.any(String) });
    expect(rx.to("/moved-here")).toHaveLength(0); // queued, not sent in the request
    await runDueDeliveries(h.ctx);
    const [again] = rx.to("/moved-here");
    expect(again.body).toBe(first.body);
    expect(again.headers["x-service-event-id"]).toBe(first.headers["x-service-event-id"]);
    expect(again.headers["x-service-delivery"]).not.toBe(first.headers["x-service-delivery"]);
    expectSigned(again, secret, h.clock.now());
    const list = await deliveries(a, w.id);
    expect(list[0]).toMatchObject({ id: r.body.outbox_id, is_replay: true, replay_of: original.id, event_id: original.event_id, success: true });
    expect(list[1]).toMatchObject({ id: original.id, is_replay: false });
  });

  test("idempotent with an Idempotency-Key", async () => {
    const a = await h.user();
    const w = await hook(a);
    await emit([a.id]);
    await runDueDeliveries(h.ctx);
    const [original] = await deliveries(a, w.id);
    const path = `/api/v1/webhooks/${w.id}/deliveries/${original.id}/replay`;
    const one = await h.req("POST", path, { token: a.token, headers: { "Idempotency-Key": "replay-1" } });
    const two = await h.req("POST", path, { token: a.token, headers: { "Idempotency-Key": "replay-1" } });
    expect(one.status).toBe(202);
    expect(two.status).toBe(202);
    expect(two.headers.get("idempotent-replay")).toBe("true");
    expect(two.body).toEqual(one.body);
    expect(await deliveries(a, w.id)).toHaveLength(2);
  });

  test("404 for a stranger, an unknown delivery or another webhook's delivery; 400 for a test ping; 401 anonymous", async () => {
    const a = await h.user();
    const b = await h.user();
    const w = await hook(a);
    const other = await hook(a);
    await emit([a.id]);
    await runDueDeliveries(h.ctx);
    const [d] = await deliveries(a, w.id);
    expect((await h.req("POST", `/api/v1/webhooks/${w.id}/deliveries/${d.id}/replay`, { token: b.token })).status).toBe(404);
    expect((await h.req("POST", `/api/v1/webhooks/${w.id}/deliveries/${UNKNOWN}/replay`, { token: a.token })).status).toBe(404);
    expect((await h.req("POST", `/api/v1/webhooks/${other.id}/deliveries/${d.id}/replay`, { token: a.token })).status).toBe(404);
    expect((await h.req("POST", `/api/v1/webhooks/${w.id}/deliveries/${d.id}/replay`)).status).toBe(401);
    const ping = (await h.req("POST", `/api/v1/webhooks/${w.id}/test`, { token: a.token })).body;
    const r = await h.req("POST", `/api/v1/webhooks/${w.id}/deliveries/${ping.id}/replay`, { token: a.token });
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
  });
});

describe("replay and retention", () => {
  test("replaying to a disabled webhook is 409 CONFLICT and queues nothing", async () => {
    const a = await h.user();
    const w = await hook(a);
    await emit([a.id]);
    await runDueDeliveries(h.ctx);
    const [d] = await deliveries(a, w.id);
    await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { is_active: false } });
    const r = await h.req("POST", `/api/v1/webhooks/${w.id}/deliveries/${d.id}/replay`, { token: a.token });
    expect(r.status).toBe(409);
    expect(r.body.detail.code).toBe("CONFLICT");
    expect(await deliveries(a, w.id)).toHaveLength(1);
  });

  test("finished deliveries older than 30 days are pruned by the daily task; pending ones stay", async () => {
    const a = await h.user();
    const w = await hook(a);
    await emit([a.id], { by: String("old") });
    await runDueDeliveries(h.ctx);
    rx.respond(500);
    h.clock.advance(31 * 24 * 60 * MINUTE);
    await emit([a.id], { by: String("retrying") });
    await runDueDeliveries(h.ctx);
    await h.ctx.jobs.runRecurring("prune-webhook-deliveries");
    const left = h.ctx.db.$client.query("select status, body from webhook_deliveries where webhook_id = ?").all(w.id) as { status: string; body: string }[];
    expect(left).toHaveLength(1);
    expect(left[0].status).toBe("pending");
    expect(JSON.parse(left[0].body).by).toBe("retrying");
    expect(h.ctx.db.$client.query("select count(*) as n from webhook_attempts where webhook_id = ?").get(w.id)).toEqual({ n: 1 });
  });
});

describe("GET /webhooks/{id}/deliveries", () => {
  test("newest first, paged with X-Total-Count and X-Has-More; stranger 404; anonymous 401", async () => {
    const a = await h.user();
    const b = await h.user();
    const w = await hook(a);
    for (let i = 0; i < 3; i++) {
      await emit([a.id], { by: String(i) });
      h.clock.advance(1000);
    }
    await runDueDeliveries(h.ctx);
    const page = await h.req("GET", `/api/v1/webhooks/${w.id}/deliveries`, { token: a.token, query: { limit: 2 } });
    expect(page.status).toBe(200);
    expect(page.body.map((d: any) => d.payload.by)).toEqual(["2", "1"]);
    expect(page.headers.get("x-total-count")).toBe("3");
    expect(page.headers.get("x-has-more")).toBe("true");
    const rest = await h.req("GET", `/api/v1/webhooks/${w.id}/deliveries`, { token: a.token, query: { limit: 2, page: 2 } });
    expect(rest.body.map((d: any) => d.payload.by)).toEqual(["0"]);
    expect(rest.headers.get("x-has-more")).toBe("false");
    expect((await h.req("GET", `/api/v1/webhooks/${w.id}/deliveries`, { token: a.token, query: { limit: 101 } })).status).toBe(422);
    expect((await h.req("GET", `/api/v1/webhooks/${w.id}/deliveries`, { token: b.token })).status).toBe(404);
    expect((await h.req("GET", `/api/v1/webhooks/${w.id}/deliveries`)).status).toBe(401);
  });
});
