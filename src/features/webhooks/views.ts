// Webhook rows to wire JSON (reference WebhookOut and WebhookDeliveryOut, plus the queue state).
// The secret is never part of any view.
import { iso } from "../../core/clock";
import type { AttemptRow, DeliveryRow, WebhookRow } from "./service";

export const webhookOut = (w: WebhookRow) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  is_active: w.isActive,
  failure_count: w.failureCount,
  last_triggered_at: iso(w.lastTriggeredAt),
  created_at: iso(w.createdAt),
});

function parseBody(body: string): Record<string, unknown> {
  try {
    const v = JSON.parse(body);
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

const attemptOut = (a: AttemptRow) => ({
  id: a.id,
  attempt: a.attempt,
  success: a.success,
  response_status: a.responseStatus,
  error: a.error,
  duration_ms: a.durationMs,
  created_at: iso(a.createdAt),
});

export const deliveryOut = (d: DeliveryRow, attempts: AttemptRow[] = []) => ({
  id: d.id,
  webhook_id: d.webhookId,
  event: d.event,
  event_id: d.eventId,
  payload: parseBody(d.body),
  response_status: d.responseStatus,
  response_body: d.responseBody,
  success: d.status === "succeeded",
  attempt: d.attempt,
  is_replay: d.isReplay,
  created_at: iso(d.createdAt),
  status: d.status,
  is_test: d.isTest,
  replay_of: d.replayOf,
  error: d.error,
  next_attempt_at: iso(d.nextAttemptAt),
  last_attempt_at: iso(d.lastAttemptAt),
  completed_at: iso(d.completedAt),
  attempts: attempts.map(attemptOut),
});
