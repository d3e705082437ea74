// Test fixtures of the webhooks feature: webhooks registered through the API and aimed at a real
// receiver (test-receiver.ts), each on its own path, and a flush of the outbox and the worker.
import type { Harness, TestUser } from "../../../test/harness";
import { planWebhookEvents } from "./mapping";
import { runDueDeliveries } from "./service";
import type { Receiver } from "./test-receiver";

export const RECEIVER_SECRET = "receiver-secret-0123456789";

/** Webhooks of `h`'s users pointing at `rx`, on the paths `/{prefix}1`, `/{prefix}2`, … */
export function receiverHooks(h: Harness, rx: Receiver, prefix: string) {
  let n = 0;
  return {
    /** Registers a webhook (signed with RECEIVER_SECRET) through the API; throws unless 201. */
    async hook(u: TestUser, events: string[]) {
      const path = `/${prefix}${++n}`;
      const r = await h.req("POST", "/api/v1/webhooks", { token: u.token, body: { url: rx.url(path), secret: RECEIVER_SECRET, events } });
      if (r.status !== 201) throw new Error(`create failed ${r.status} ${r.text}`);
      return { ...r.body, path } as { id: string; url: string; path: string };
    },
    /** Hands the committed events to the outbox, then sends every delivery that is due. */
    async flush() {
      await h.ctx.events.drain();
      await runDueDeliveries(h.ctx);
    },
    /** The parsed bodies one webhook received, in order. */
    got: (w: { path: string }) => rx.to(w.path).map((r) => JSON.parse(r.body)),
  };
}

/**
 * The webhook events the newest domain event of `type` (about `subjectId` when given) becomes:
 * name, body, recipients (user ids, or the audience kind).
 */
export function plannedWebhooks(h: Harness, type: string, subjectId?: string) {
  const row = (
    subjectId === undefined
      ? h.ctx.db.$client.query("select * from events where type = ? order by id desc").get(type)
      : h.ctx.db.$client.query("select * from events where type = ? and subject_id = ? order by id desc").get(type, subjectId)
  ) as Record<string, any>;
  const ev = { id: row.id, type: row.type, actorId: row.actor_id, subjectType: row.subject_type, subjectId: row.subject_id, payload: JSON.parse(row.payload), audience: JSON.parse(row.audience ?? "[]"), createdAt: row.created_at };
  return planWebhookEvents(h.ctx, ev as never).map((p) => ({ name: p.name, data: p.data, to: p.audience.kind === "users" ? [...p.audience.userIds] : p.audience.kind }));
}
