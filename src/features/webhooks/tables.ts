// Webhooks (spec Part 2 §2.9, §4.8, §6.1): subscriptions, the durable delivery queue and log,
// and one row per HTTP attempt.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;

/** A user's webhook. The signing secret is stored encrypted (AES-256-GCM), never returned. */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    url: text("url").notNull(),
    /** core/secrets `seal` (AES-256-GCM) under the server's data key, bound to the webhook id. */
    secretEnc: text("secret_enc").notNull(),
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    /** Consecutive failed deliveries (a delivery fails when its last attempt fails). */
    failureCount: integer("failure_count").notNull().default(0),
    lastTriggeredAt: integer("last_triggered_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    // One webhook per owner and URL (409 on a duplicate); the owner's list, newest first.
    uniqueIndex("webhooks_user_url_idx").on(t.userId, t.url),
    index("webhooks_user_created_idx").on(t.userId, t.createdAt),
  ],
);

/** Which event names a webhook subscribes to: the fan-out of an event reads it by name. */
export const webhookSubscriptions = sqliteTable(
  "webhook_subscriptions",
  {
    event: text("event").notNull(),
    webhookId: text("webhook_id").notNull(),
    userId: text("user_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.event, t.webhookId] }), index("webhook_subscriptions_webhook_idx").on(t.webhookId), index("webhook_subscriptions_user_idx").on(t.event, t.userId)],
);

/**
 * One event to one webhook (or a test ping, or a replay): the queue row the worker drives and the
 * entry of the delivery log. `body` is the exact JSON sent (and signed) on every attempt.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id").notNull(),
    userId: text("user_id").notNull(),
    event: text("event").notNull(),
    /** Stable across attempts and replays (X-Service-Event-Id). */
    eventId: text("event_id").notNull(),
    body: text("body").notNull(),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull().default("pending"),
    /** Attempts made so far. */
    attempt: integer("attempt").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    isReplay: integer("is_replay", { mode: "boolean" }).notNull().default(false),
    isTest: integer("is_test", { mode: "boolean" }).notNull().default(false),
    replayOf: text("replay_of"),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    error: text("error"),
    createdAt: integer("created_at").notNull(),
    lastAttemptAt: integer("last_attempt_at"),
    completedAt: integer("completed_at"),
  },
  (t) => [
    // The worker: due pending deliveries.
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
    // The log of one webhook, newest first.
    index("webhook_deliveries_webhook_idx").on(t.webhookId, t.createdAt),
    // An event is queued once per webhook even if the outbox hands it over twice.
    uniqueIndex("webhook_deliveries_event_idx").on(t.webhookId, t.eventId).where(sql`${t.isReplay} = 0 and ${t.isTest} = 0`),
  ],
);

/** One HTTP attempt of a delivery; `id` is the X-Service-Delivery header of that attempt. */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id").notNull(),
    webhookId: text("webhook_id").notNull(),
    attempt: integer("attempt").notNull(),
    success: integer("success", { mode: "boolean" }).notNull(),
    responseStatus: integer("response_status"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt), index("webhook_attempts_webhook_idx").on(t.webhookId)],
);
