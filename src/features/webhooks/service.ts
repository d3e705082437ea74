// Webhooks (spec Part 2 §2.9, §4.8, §6): management, the outbox handler that queues deliveries,
// and the delivery worker (signed POSTs, at-least-once, retries after 5 s, 30 s, 2 min, 10 min).
//
// failure_count counts consecutive failed DELIVERIES: a delivery fails when its fifth attempt
// fails (one event that exhausts its retries counts once; attempts still being retried count
// nothing yet). The tenth consecutive failed delivery disables the webhook; any successful attempt
// resets the count. Test pings never touch it, nor last_triggered_at.
import { and, asc, count, desc, eq, inArray, lte, sql } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import { guardedPost, checkOutboundUrl, OutboundUrlError, type OutboundResult } from "../../adapters/http-out";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, conflict, invalid, notFound } from "../../core/errors";
import type { AnyDomainEvent } from "../../core/events";
import { isUuid, uuidv7 } from "../../core/ids";
import { keptWhile, preparedSql } from "../../db/statements";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import * as blocks from "../blocks/service";
import { eventBody, planWebhookEvents } from "./mapping";
import { nameUuid, sealSecret, sign, unsealSecret } from "./signing";
import { webhookAttempts, webhookDeliveries, webhooks, webhookSubscriptions } from "./tables";

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

const MAX_WEBHOOKS_PER_USER = 10;
const MAX_ATTEMPTS = 5;
/** Delay before attempt n+1 after attempt n failed (n = 1..4). */
const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000] as const;
export const DISABLE_AFTER_FAILURES = 10;
const USER_AGENT = "Service-Webhooks/1.0";
const TEST_EVENT = "test.ping";
/** Bytes of a receiver's answer kept in the log. */
const RESPONSE_KEEP_BYTES = 4096;
/** Deliveries sent in parallel by one worker run. */
const CONCURRENCY = 8;

const webhookNotFound = () => notFound("Webhook not found");

type Tx = Parameters<Parameters<Ctx["db"]["transaction"]>[0]>[0];

// ---------------------------------------------------------------------------------------------
// Management

interface WebhookInput {
  url: string;
  secret: string;
  events: string[];
}

interface WebhookPatch {
  url?: string | null;
  secret?: string | null;
  events?: string[] | null;
  is_active?: boolean | null;
}

/** Checks a target URL (scheme, credentials, SSRF) and returns its normalised form; else 400. */
async function checkedUrl(ctx: Ctx, raw: string): Promise<string> {
  try {
    const { url } = await checkOutboundUrl(raw.trim(), { allowPrivate: ctx.config.allowPrivateWebhooks });
    return url.href;
  } catch (err) {
    if (err instanceof OutboundUrlError) throw new ApiError(400, "INVALID_INPUT", `Webhook URL refused: ${err.message}`, { reason: err.reason });
    throw err;
  }
}

function checkSecret(secret: string): string {
  if (secret.trim().length < 16) throw invalid("secret must be at least 16 characters (not counting surrounding spaces)");
  return secret;
}

const uniqueEvents = (events: string[]) => [...new Set(events)];

function ownWebhook(ctx: Ctx, caller: Caller, id: string): WebhookRow {
  if (!isUuid(id)) throw webhookNotFound();
  const row = ctx.db.select().from(webhooks).where(eq(webhooks.id, id.toLowerCase())).get();
  if (!row || row.userId !== caller.id) throw webhookNotFound();
  return row;
}

function assertNoDuplicate(tx: Tx, userId: string, url: string, exceptId?: string): void {
  const dup = tx.select({ id: webhooks.id }).from(webhooks).where(and(eq(webhooks.userId, userId), eq(webhooks.url, url))).get();
  if (dup && dup.id !== exceptId) throw new ApiError(409, "CONFLICT", "You already have a webhook for this URL", { webhook_id: dup.id });
}

/**
 * Moves with every change to any webhook's subscriptions (in any database of the process), so
 * the set of subscribed event names below is read again after such a change (or after another
 * process committed: ctx.events.elsewhere).
 */
let subscriptionsVersion = 0;

/**
 * The event names at least one webhook subscribes to (active or not). Every committed event
 * asks whom to deliver to, and on most instances most event names have no subscriber at all.
 */
function subscribedEvents(ctx: Ctx): Set<string> {
  return keptWhile(ctx.db, "webhooks.subscribedEvents", `${subscriptionsVersion} ${ctx.events.elsewhere}`, () => {
    const rows = preparedSql(ctx.db, "webhooks.subscribedEvents", () => sql`select distinct event from webhook_subscriptions`).all();
    return new Set(rows.map((r) => r.event as string));
  });
}

function setSubscriptions(tx: Tx, webhookId: string, userId: string, events: string[]): void {
  subscriptionsVersion++;
  tx.delete(webhookSubscriptions).where(eq(webhookSubscriptions.webhookId, webhookId)).run();
  if (events.length) tx.insert(webhookSubscriptions).values(events.map((event) => ({ event, webhookId, userId }))).run();
}

export function listWebhooks(ctx: Ctx, caller: Caller): WebhookRow[] {
  return ctx.db.select().from(webhooks).where(eq(webhooks.userId, caller.id)).orderBy(desc(webhooks.createdAt), desc(webhooks.id)).all();
}

export function getWebhook(ctx: Ctx, caller: Caller, id: string): WebhookRow {
  return ownWebhook(ctx, caller, id);
}

export async function createWebhook(ctx: Ctx, caller: Caller, input: WebhookInput): Promise<WebhookRow> {
  const secret = checkSecret(input.secret);
  const url = await checkedUrl(ctx, input.url);
  const events = uniqueEvents(input.events);
  return ctx.db.transaction((tx) => {
    const n = tx.select({ n: count() }).from(webhooks).where(eq(webhooks.userId, caller.id)).get()?.n ?? 0;
    if (n >= MAX_WEBHOOKS_PER_USER) throw invalid(`You can have at most ${MAX_WEBHOOKS_PER_USER} webhooks`, "LIMIT_EXCEEDED");
    assertNoDuplicate(tx, caller.id, url);
    const now = ctx.clock.now();
    const id = uuidv7(now);
    const row = tx
      .insert(webhooks)
      .values({ id, userId: caller.id, url, secretEnc: sealSecret(ctx.secrets.dataKey, id, secret), events, createdAt: now, updatedAt: now })
      .returning()
      .get();
    setSubscriptions(tx, row.id, caller.id, events);
    ctx.events.emit(tx, { type: "webhook_created", actorId: caller.id, subject: { type: "webhook", id: row.id }, payload: { webhook_id: row.id } });
    return row;
  });
}

export async function updateWebhook(ctx: Ctx, caller: Caller, id: string, patch: WebhookPatch): Promise<WebhookRow> {
  const current = ownWebhook(ctx, caller, id);
  const url = patch.url != null ? await checkedUrl(ctx, patch.url) : null;
  const secret = patch.secret != null ? checkSecret(patch.secret) : null;
  const events = patch.events != null ? uniqueEvents(patch.events) : null;
  return ctx.db.transaction((tx) => {
    const row = tx.select().from(webhooks).where(eq(webhooks.id, current.id)).get();
    if (!row) throw webhookNotFound();
    if (url !== null) assertNoDuplicate(tx, caller.id, url, row.id);
    const set: Partial<WebhookRow> = { updatedAt: ctx.clock.now() };
    if (url !== null) set.url = url;
    if (secret !== null) set.secretEnc = sealSecret(ctx.secrets.dataKey, row.id, secret);
    if (events !== null) set.events = events;
    if (patch.is_active != null) {
      // Re-enabling a disabled webhook gives it a clean slate (§3).
      if (patch.is_active && !row.isActive) set.failureCount = 0;
      set.isActive = patch.is_active;
    }
    const updated = tx.update(webhooks).set(set).where(eq(webhooks.id, row.id)).returning().get();
    if (events !== null) setSubscriptions(tx, row.id, caller.id, events);
    ctx.events.emit(tx, { type: "webhook_updated", actorId: caller.id, subject: { type: "webhook", id: row.id }, payload: { webhook_id: row.id } });
    return updated;
  });
}

function purgeWebhooks(tx: Tx, ids: string[]): void {
  if (!ids.length) return;
  subscriptionsVersion++;
  tx.delete(webhookAttempts).where(inArray(webhookAttempts.webhookId, ids)).run();
  tx.delete(webhookDeliveries).where(inArray(webhookDeliveries.webhookId, ids)).run();
  tx.delete(webhookSubscriptions).where(inArray(webhookSubscriptions.webhookId, ids)).run();
  tx.delete(webhooks).where(inArray(webhooks.id, ids)).run();
}

/** Deletes the webhook with its whole delivery history. */
export function deleteWebhook(ctx: Ctx, caller: Caller, id: string): void {
  const row = ownWebhook(ctx, caller, id);
  ctx.db.transaction((tx) => {
    purgeWebhooks(tx, [row.id]);
    ctx.events.emit(tx, { type: "webhook_deleted", actorId: caller.id, subject: { type: "webhook", id: row.id }, payload: { webhook_id: row.id } });
  });
}

/** A fresh 32-byte URL-safe secret, returned once. */
export function rotateSecret(ctx: Ctx, caller: Caller, id: string): { id: string; secret: string; rotated_at: string } {
  const row = ownWebhook(ctx, caller, id);
  const secret = randomBytes(32).toString("base64url");
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.update(webhooks).set({ secretEnc: sealSecret(ctx.secrets.dataKey, row.id, secret), updatedAt: now }).where(eq(webhooks.id, row.id)).run();
    ctx.events.emit(tx, { type: "webhook_secret_rotated", actorId: caller.id, subject: { type: "webhook", id: row.id }, payload: { webhook_id: row.id } });
  });
  return { id: row.id, secret, rotated_at: iso(now) };
}

/** The webhook's deliveries, newest first, with each one's attempts. */
export function listDeliveries(ctx: Ctx, caller: Caller, webhookId: string, page: Page): { items: DeliveryRow[]; attempts: Map<string, AttemptRow[]>; total: number } {
  const hook = ownWebhook(ctx, caller, webhookId);
  const where = eq(webhookDeliveries.webhookId, hook.id);
  const total = ctx.db.select({ n: count() }).from(webhookDeliveries).where(where).get()?.n ?? 0;
  const items = ctx.db
    .select()
    .from(webhookDeliveries)
    .where(where)
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  return { items, attempts: attemptsOf(ctx, items.map((d) => d.id)), total };
}

function attemptsOf(ctx: Ctx, deliveryIds: string[]): Map<string, AttemptRow[]> {
  const out = new Map<string, AttemptRow[]>();
  if (!deliveryIds.length) return out;
  const rows = ctx.db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveryIds)).orderBy(asc(webhookAttempts.attempt)).all();
  for (const r of rows) {
    const list = out.get(r.deliveryId) ?? [];
    list.push(r);
    out.set(r.deliveryId, list);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sending

/** The headers of one attempt: spec §6.1 names plus the reference service's X-Colony-… ones. */
function deliveryHeaders(d: { id: string; event: string; eventId: string }, attemptId: string, attempt: number, secret: string, body: string, nowMs: number): Record<string, string> {
  const sig = sign(secret, body, nowMs);
  const ts = String(sig.timestamp);
  return {
    "Content-Type": "application/json",
    "User-Agent": USER_AGENT,
    "X-Service-Event": d.event,
    "X-Service-Signature": sig.legacy,
    "X-Service-Signature-256": sig.v1,
    "X-Service-Timestamp": ts,
    "X-Service-Delivery": attemptId,
    "X-Service-Event-Id": d.eventId,
    "X-Service-Attempt": String(attempt),
    "X-Colony-Event": d.event,
    "X-Colony-Signature": sig.legacy,
    "X-Colony-Signature-256": sig.v1,
    "X-Colony-Timestamp": ts,
    // The reference's delivery id is stable across the retries of one delivery.
    "X-Colony-Delivery": d.id,
    "X-Colony-Event-Id": d.eventId,
    "X-Colony-Attempt": String(attempt),
  };
}

/** One HTTP attempt of a delivery to the webhook's current URL, signed with its current secret. */
async function send(ctx: Ctx, hook: WebhookRow, d: DeliveryRow, attempt: number): Promise<{ attemptId: string; result: OutboundResult; at: number }> {
  const at = ctx.clock.now();
  const attemptId = uuidv7(at);
  let secret: string;
  try {
    secret = unsealSecret(ctx.secrets.dataKey, hook.id, hook.secretEnc);
  } catch {
    return { attemptId, at, result: { ok: false, status: null, body: null, error: "the stored secret cannot be decrypted with this server's data key", durationMs: 0 } };
  }
  const result = await guardedPost(hook.url, {
    headers: deliveryHeaders(d, attemptId, attempt, secret, d.body, at),
    body: d.body,
    timeoutMs: ctx.config.webhookTimeoutMs,
    maxResponseBytes: RESPONSE_KEEP_BYTES,
    allowPrivate: ctx.config.allowPrivateWebhooks,
  });
  return { attemptId, result, at };
}

function recordAttempt(tx: Tx, d: DeliveryRow, attemptId: string, attempt: number, r: OutboundResult, at: number): AttemptRow {
  const row: AttemptRow = { id: attemptId, deliveryId: d.id, webhookId: d.webhookId, attempt, success: r.ok, responseStatus: r.status, error: r.error, durationMs: r.durationMs, createdAt: at };
  tx.insert(webhookAttempts).values(row).run();
  return row;
}

/** Makes one due attempt of a queued delivery and records its outcome. */
async function attemptDelivery(ctx: Ctx, d: DeliveryRow): Promise<void> {
  const hook = ctx.db.select().from(webhooks).where(eq(webhooks.id, d.webhookId)).get();
  if (!hook) {
    ctx.db.delete(webhookDeliveries).where(eq(webhookDeliveries.id, d.id)).run();
    return;
  }
  if (!hook.isActive) {
    // A disabled webhook gets nothing; what was queued for it is given up, without counting.
    ctx.db
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null, completedAt: ctx.clock.now(), error: "webhook disabled: not sent" })
      .where(eq(webhookDeliveries.id, d.id))
      .run();
    return;
  }
  const attempt = d.attempt + 1;
  const { attemptId, result, at } = await send(ctx, hook, d, attempt);
  const done = ctx.clock.now();
  ctx.db.transaction((tx) => {
    // The webhook (and with it this delivery) may have been deleted while the request ran.
    if (!tx.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.id, d.id)).get()) return;
    recordAttempt(tx, d, attemptId, attempt, result, at);
    const outcome = { attempt, lastAttemptAt: at, responseStatus: result.status, responseBody: result.body, error: result.error };
    if (result.ok) {
      tx.update(webhookDeliveries).set({ ...outcome, status: "succeeded", nextAttemptAt: null, completedAt: done }).where(eq(webhookDeliveries.id, d.id)).run();
      tx.update(webhooks).set({ failureCount: 0, lastTriggeredAt: at }).where(eq(webhooks.id, hook.id)).run();
      return;
    }
    if (attempt < MAX_ATTEMPTS) {
      tx.update(webhookDeliveries)
        .set({ ...outcome, status: "pending", nextAttemptAt: at + RETRY_DELAYS_MS[attempt - 1] })
        .where(eq(webhookDeliveries.id, d.id))
        .run();
      tx.update(webhooks).set({ lastTriggeredAt: at }).where(eq(webhooks.id, hook.id)).run();
      return;
    }
    tx.update(webhookDeliveries).set({ ...outcome, status: "failed", nextAttemptAt: null, completedAt: done }).where(eq(webhookDeliveries.id, d.id)).run();
    const fresh = tx.select({ failureCount: webhooks.failureCount }).from(webhooks).where(eq(webhooks.id, hook.id)).get();
    const failures = (fresh?.failureCount ?? 0) + 1;
    // The tenth consecutive failed delivery disables the webhook; nothing notifies the owner (§3).
    tx.update(webhooks)
      .set({ failureCount: failures, lastTriggeredAt: at, ...(failures >= DISABLE_AFTER_FAILURES ? { isActive: false } : {}) })
      .where(eq(webhooks.id, hook.id))
      .run();
  });
  ctx.metrics.webhookDelivery(result.ok ? "succeeded" : attempt < MAX_ATTEMPTS ? "retrying" : "failed");
  if (!result.ok) ctx.log.debug("webhook attempt failed", { webhook_id: hook.id, delivery_id: d.id, attempt, status: result.status, error: result.error });
}

const running = new WeakMap<Ctx, Promise<number>>();

/**
 * Sends every delivery that is due now (the server runs it every second; tests call it after
 * moving the TestClock). One run at a time per context; returns how many attempts were made.
 */
export function runDueDeliveries(ctx: Ctx, limit = 500): Promise<number> {
  const current = running.get(ctx);
  if (current) return current.then(() => runDueDeliveries(ctx, limit));
  const run = runOnce(ctx, limit).finally(() => running.delete(ctx));
  running.set(ctx, run);
  return run;
}

async function runOnce(ctx: Ctx, limit: number): Promise<number> {
  const now = ctx.clock.now();
  const due = ctx.db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, now)))
    .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.id))
    .limit(limit)
    .all();
  let next = 0;
  const worker = async () => {
    while (next < due.length) {
      const d = due[next++];
      try {
        await attemptDelivery(ctx, d);
      } catch (err) {
        ctx.log.error("webhook delivery failed unexpectedly", { delivery_id: d.id, error: String(err) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, worker));
  return due.length;
}

/**
 * Synchronous `test.ping`: one attempt, logged, touching neither failure_count nor last_triggered_at.
 * Returns the delivery with that attempt.
 */
export async function testWebhook(ctx: Ctx, caller: Caller, id: string): Promise<{ delivery: DeliveryRow; attempt: AttemptRow }> {
  const hook = ownWebhook(ctx, caller, id);
  const now = ctx.clock.now();
  const deliveryId = uuidv7(now);
  const eventId = uuidv7(now);
  const body = eventBody(TEST_EVENT, {
    webhook_id: hook.id,
    message: "Test delivery from Colony: your endpoint is reachable if you see this.",
    sent_at: iso(now),
  });
  const draft: DeliveryRow = {
    id: deliveryId,
    webhookId: hook.id,
    userId: hook.userId,
    event: TEST_EVENT,
    eventId,
    body,
    status: "pending",
    attempt: 0,
    nextAttemptAt: null,
    isReplay: false,
    isTest: true,
    replayOf: null,
    responseStatus: null,
    responseBody: null,
    error: null,
    createdAt: now,
    lastAttemptAt: null,
    completedAt: null,
  };
  const { attemptId, result, at } = await send(ctx, hook, draft, 1);
  return ctx.db.transaction((tx) => {
    const row = tx
      .insert(webhookDeliveries)
      .values({
        ...draft,
        status: result.ok ? "succeeded" : "failed",
        attempt: 1,
        lastAttemptAt: at,
        completedAt: ctx.clock.now(),
        responseStatus: result.status,
        responseBody: result.body,
        error: result.error,
      })
      .returning()
      .get();
    return { delivery: row, attempt: recordAttempt(tx, row, attemptId, 1, result, at) };
  });
}

/** Queues a past delivery again: same event id and body, current URL and secret, flagged is_replay. */
export function replayDelivery(ctx: Ctx, caller: Caller, webhookId: string, deliveryId: string): { original: DeliveryRow; replay: DeliveryRow } {
  const hook = ownWebhook(ctx, caller, webhookId);
  const original = isUuid(deliveryId)
    ? ctx.db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.id, deliveryId.toLowerCase()), eq(webhookDeliveries.webhookId, hook.id)))
        .get()
    : undefined;
  if (!original) throw notFound("Delivery not found");
  if (original.isTest) throw invalid("A test ping cannot be replayed: call POST /webhooks/{webhook_id}/test again");
  if (!hook.isActive) throw conflict("This webhook is disabled: re-enable it (PUT with is_active true) before replaying");
  const now = ctx.clock.now();
  const replay = ctx.db.transaction((tx) => {
    const row = tx
      .insert(webhookDeliveries)
      .values({
        id: uuidv7(now),
        webhookId: hook.id,
        userId: hook.userId,
        event: original.event,
        eventId: original.eventId,
        body: original.body,
        status: "pending",
        nextAttemptAt: now,
        isReplay: true,
        replayOf: original.id,
        createdAt: now,
      })
      .returning()
      .get();
    ctx.events.emit(tx, { type: "webhook_delivery_replayed", actorId: caller.id, subject: { type: "webhook", id: hook.id }, payload: { webhook_id: hook.id, delivery_id: original.id, replay_id: row.id } });
    return row;
  });
  return { original, replay };
}

// ---------------------------------------------------------------------------------------------
// From the outbox

/**
 * Active webhooks subscribed to `event`, of the given users or of anyone (null). Prepared once per
 * database: every committed event asks, and most find nobody.
 */
function subscribers(ctx: Ctx, event: string, userIds: readonly string[] | null): { id: string; userId: string }[] {
  // One recipient (a direct message, most notifications) is an index lookup; a list goes through
  // json_each, whose set-up costs several times that even when nobody subscribes.
  const which = !userIds ? "all" : userIds.length === 1 ? "user" : "users";
  const stmt = preparedSql(ctx.db, `webhooks.subscribers.${which}`, () => {
    const base = sql`select w.id as id, w.user_id as userId from webhook_subscriptions s join webhooks w on w.id = s.webhook_id
      where s.event = ${sql.placeholder("event")} and w.is_active = 1`;
    if (which === "user") return sql`${base} and s.user_id = ${sql.placeholder("user")}`;
    return which === "users" ? sql`${base} and s.user_id in (select value from json_each(${sql.placeholder("users")}))` : base;
  });
  return stmt.all({ event, user: userIds?.[0] ?? null, users: which === "users" ? JSON.stringify(userIds) : null }) as { id: string; userId: string }[];
}

/**
 * Queues one delivery per matching active webhook for each webhook event the domain event maps
 * to. Idempotent: the event id is derived from the domain event, and a (webhook, event id) pair
 * is queued once.
 */
export function enqueueForEvent(ctx: Ctx, ev: AnyDomainEvent): number {
  const subscribed = subscribedEvents(ctx);
  if (!subscribed.size) return 0;
  const planned = planWebhookEvents(ctx, ev);
  if (!planned.length) return 0;
  const now = ctx.clock.now();
  let queued = 0;
  for (const p of planned) {
    if (!subscribed.has(p.name)) continue;
    if (p.audience.kind === "users" && !p.audience.userIds.length) continue;
    // A webhook owner who blocks the actor gets none of the actor's social events (blocks/service.ts).
    const targets = subscribers(ctx, p.name, p.audience.kind === "users" ? p.audience.userIds : null).filter(
      (w) => p.visibleTo(w.userId) && (p.audience.kind !== "users" || !blocks.suppressedByBlock(ctx, w.userId, ev.actorId, p.name)),
    );
    if (!targets.length) continue;
    const eventId = nameUuid(`${ev.id}:${p.name}`);
    const body = eventBody(p.name, p.data);
    ctx.db.transaction((tx) => {
      for (const w of targets) {
        const r = tx
          .insert(webhookDeliveries)
          .values({ id: uuidv7(now), webhookId: w.id, userId: w.userId, event: p.name, eventId, body, status: "pending", nextAttemptAt: now, createdAt: now })
          .onConflictDoNothing()
          .run() as unknown as { changes: number };
        queued += r.changes;
      }
    });
  }
  return queued;
}

/** How long finished deliveries (and their attempts) stay in the log. */
export const DELIVERY_LOG_RETENTION_MS = 30 * 24 * 3600_000;

/** Deletes finished deliveries completed before `beforeMs`, with their attempts; pending ones stay. */
export function pruneDeliveries(ctx: Ctx, beforeMs: number): number {
  return ctx.db.transaction((tx) => {
    const old = tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(inArray(webhookDeliveries.status, ["succeeded", "failed"]), lte(webhookDeliveries.completedAt, beforeMs)))
      .all()
      .map((r) => r.id);
    for (let i = 0; i < old.length; i += 500) {
      const chunk = old.slice(i, i + 500);
      tx.delete(webhookAttempts).where(inArray(webhookAttempts.deliveryId, chunk)).run();
      tx.delete(webhookDeliveries).where(inArray(webhookDeliveries.id, chunk)).run();
    }
    return old.length;
  });
}

/** Pending deliveries (for tests and the bench). */
export function pendingCount(ctx: Ctx): number {
  return ctx.db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.status, "pending")).get()?.n ?? 0;
}

/** Deletes every webhook of an account (self-deleted), with its deliveries. */
export function purgeUserWebhooks(ctx: Ctx, userId: string): void {
  const ids = ctx.db.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.userId, userId)).all().map((r) => r.id);
  ctx.db.transaction((tx) => purgeWebhooks(tx, ids));
}

/** Delivery health across the instance, for the admin dashboard: the figures behind failing webhooks. */
export interface DeliveryHealth {
  webhooks: number;
  /** Turned off after DISABLE_AFTER_FAILURES failures in a row (or by their owner). */
  inactive: number;
  /** Active webhooks whose last delivery failed (failure_count above 0). */
  failing: number;
  pending: number;
  /** Deliveries that ended failed, made since `since`. */
  failedSince: number;
  succeededSince: number;
}

export function deliveryHealth(ctx: Ctx, since: number): DeliveryHealth {
  const hooks = ctx.db
    .select({ n: count(), inactive: sql<number>`coalesce(sum(case when ${webhooks.isActive} then 0 else 1 end), 0)`, failing: sql<number>`coalesce(sum(case when ${webhooks.isActive} and ${webhooks.failureCount} > 0 then 1 else 0 end), 0)` })
    .from(webhooks)
    .get();
  const byStatus = ctx.db
    .select({ status: webhookDeliveries.status, n: count() })
    .from(webhookDeliveries)
    .where(sql`${webhookDeliveries.createdAt} >= ${since}`)
    .groupBy(webhookDeliveries.status)
    .all();
  const of = (s: string) => byStatus.find((r) => r.status === s)?.n ?? 0;
  return { webhooks: hooks?.n ?? 0, inactive: Number(hooks?.inactive ?? 0), failing: Number(hooks?.failing ?? 0), pending: pendingCount(ctx), failedSince: of("failed"), succeededSince: of("succeeded") };
}
