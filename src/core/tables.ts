// Tables owned by the core: the event outbox, durable one-shot jobs and idempotency records.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Domain events, written in the same transaction as the change they describe (the outbox). */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    actorId: text("actor_id"),
    subjectType: text("subject_type"),
    subjectId: text("subject_id"),
    payload: text("payload", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** Whom the event's fan-out rule told, [{user_id, kind}] as JSON; null when nobody. */
    audience: text("audience"),
    /** Whether the event is activity attributable to the actor (blocks account self-delete). */
    activity: integer("activity", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    processedAt: integer("processed_at"),
  },
  (t) => [index("events_pending_idx").on(t.processedAt, t.id), index("events_actor_idx").on(t.actorId, t.activity)],
);

/** Durable one-shot jobs: side effects that must happen at or after `run_at`, surviving restarts. */
export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    payload: text("payload", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    runAt: integer("run_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    lockedUntil: integer("locked_until"),
    doneAt: integer("done_at"),
    lastError: text("last_error"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("jobs_due_idx").on(t.doneAt, t.runAt)],
);

/** Stored responses of requests sent with an Idempotency-Key (spec Part 1 §8.1). */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    userId: text("user_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: ["in_progress", "done"] }).notNull(),
    status: integer("status"),
    contentType: text("content_type"),
    body: text("body"),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index("idempotency_expires_idx").on(t.expiresAt)],
);
