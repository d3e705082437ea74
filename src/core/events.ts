// Domain events: rows written in the same transaction as the change (the outbox), then handed
// to subscribers (notifications, webhooks, realtime) by a worker after the write commits.
import type { Statement } from "bun:sqlite";
import { and, eq, lt } from "drizzle-orm";
import { changes, inTransaction, type Db } from "../db/client";
import type { Clock } from "./clock";
import { uuidv7 } from "./ids";
import type { Logger } from "./log";
import { events } from "./tables";

export interface DomainEvent {
  id: string;
  type: string;
  actorId: string | null;
  subjectType: string | null;
  subjectId: string | null;
  payload: Record<string, unknown>;
  createdAt: number;
}

export interface EmitInput {
  type: string;
  actorId?: string | null;
  subject?: { type: string; id: string };
  payload?: Record<string, unknown>;
  /** Counts as activity of the actor (posts, comments, votes, reactions, messages …). */
  activity?: boolean;
}

export type EventHandler = (ev: DomainEvent) => void | Promise<void>;

/** A non-empty string field of an event payload, else null (payloads are JSON: check, never cast). */
export const payloadString = (v: unknown): string | null => (typeof v === "string" && v ? v : null);

/** A list-of-ids field of an event payload: its non-empty strings, each once. */
export const payloadStrings = (v: unknown): string[] => (Array.isArray(v) ? [...new Set(v.filter((x): x is string => typeof x === "string" && !!x))] : []);

/**
 * Events handed out per transaction. Small enough that a batch holds the thread for a few
 * milliseconds at most (about 0.15 ms per message event), so requests queued behind it wait
 * little; between batches the drain yields, once it has kept pace (see drainOnce).
 */
const DRAIN_BATCH = 20;

/** Subscribers written as `async` functions run outside the delivery transaction. */
const isAsync = (h: EventHandler) => h.constructor.name === "AsyncFunction";
type Tx = Pick<Db, "insert">;

export class EventBus {
  private handlers = new Map<string, EventHandler[]>();
  private draining: Promise<number> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private autoDrain = false;
  /**
   * Counts the writes of this process (every write emits an event in its transaction); read
   * caches compare it to drop what a write may have changed.
   */
  writes = 0;

  constructor(
    private db: Db,
    private clock: Clock,
    private log: Logger,
  ) {}

  /**
   * Writes the event row inside the caller's transaction. `tx` names that transaction; the row is
   * written through a statement prepared once on the same connection (every write pays for this
   * insert, and building it with the query builder cost as much as the rest of a small write).
   */
  emit(_tx: Tx, input: EmitInput): string {
    this.writes++;
    const now = this.clock.now();
    const id = uuidv7(now);
    this.stmts().insert.run(id, input.type, input.actorId ?? null, input.subject?.type ?? null, input.subject?.id ?? null, JSON.stringify(input.payload ?? {}), input.activity ? 1 : 0, now);
    this.kick();
    return id;
  }

  private prepared: { insert: Statement; pending: Statement; done: Statement } | null = null;
  private stmts() {
    return (this.prepared ??= {
      insert: this.db.$client.prepare("insert into events (id, type, actor_id, subject_type, subject_id, payload, activity, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)"),
      pending: this.db.$client.prepare(`select id, type, actor_id, subject_type, subject_id, payload, created_at from events where processed_at is null order by id limit ${DRAIN_BATCH}`),
      done: this.db.$client.prepare("update events set processed_at = ? where id in (select value from json_each(?))"),
    });
  }

  /**
   * Events not yet handed to their subscribers, counted up to `cap` when given (a range of
   * events_pending_idx, so its cost is bounded by the cap).
   */
  pendingCount(cap?: number): number {
    const sql = cap === undefined ? "select count(*) as n from events where processed_at is null" : "select count(*) as n from (select 1 from events where processed_at is null limit ?)";
    const row = this.db.$client.query(sql).get(...(cap === undefined ? [] : [cap])) as { n: number };
    return row.n;
  }

  /** When the oldest event not yet handed out was written (the first entry of events_pending_idx), or null. */
  oldestPendingAt(): number | null {
    const row = this.db.$client.query("select created_at from events where processed_at is null order by id limit 1").get() as { created_at: number } | null;
    return row?.created_at ?? null;
  }

  /** Subscribes to one event type, or "*" for every type. */
  on(type: string, handler: EventHandler): void {
    const list = this.handlers.get(type) ?? [];
    list.push(handler);
    this.handlers.set(type, list);
  }

  /** Whether the user has any event marked as activity. */
  hasActivity(userId: string): boolean {
    return !!this.db
      .select({ id: events.id })
      .from(events)
      .where(and(eq(events.actorId, userId), eq(events.activity, true)))
      .limit(1)
      .get();
  }

  /** Starts delivering automatically shortly after each emit (the server does; tests drain). */
  start(): void {
    this.autoDrain = true;
    this.kick();
  }

  stop(): void {
    this.autoDrain = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private kick(): void {
    if (!this.autoDrain || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.drain();
    }, 0);
  }

  /** Hands every unprocessed event to its handlers, oldest first. Returns how many were processed. */
  drain(): Promise<number> {
    if (this.draining) return this.draining.then(() => this.drain());
    this.draining = this.drainOnce().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  /**
   * Hands out one batch after another. The synchronous subscribers of a whole batch run in one
   * transaction, each call under its own savepoint (a subscriber that throws leaves nothing
   * behind and does not stop the others), so delivering a batch is one commit however many
   * notifications it writes; subscribers declared `async` run after it, one by one. A batch is
   * marked delivered when all of its subscribers have run: should the process die first, it is
   * handed out again (subscribers are idempotent per event id).
   */
  private async drainOnce(): Promise<number> {
    let total = 0;
    // Pacing: the drain yields to waiting requests only after handing out a quarter more events
    // than were emitted since it last yielded, so a backlog shrinks even under load. Yielding
    // after every batch let a busy server (each turn of the event loop serving up to one request
    // per connection, each emitting an event) emit faster than it delivered, and the backlog grew
    // for as long as the load lasted.
    let handedOut = 0;
    let emittedAtYield = this.writes;
    for (;;) {
      const batch = this.stmts().pending.all() as { id: string; type: string; actor_id: string | null; subject_type: string | null; subject_id: string | null; payload: string; created_at: number }[];
      if (!batch.length) return total;
      const later: [DomainEvent, EventHandler][] = [];
      const markDone = () => this.stmts().done.run(this.clock.now(), JSON.stringify(batch.map((r) => r.id)));
      inTransaction(this.db, () => {
        for (const row of batch) {
          const ev: DomainEvent = {
            id: row.id,
            type: row.type,
            actorId: row.actor_id,
            subjectType: row.subject_type,
            subjectId: row.subject_id,
            payload: JSON.parse(row.payload),
            createdAt: row.created_at,
          };
          for (const h of [...(this.handlers.get(row.type) ?? []), ...(this.handlers.get("*") ?? [])]) {
            if (isAsync(h)) {
              later.push([ev, h]);
              continue;
            }
            try {
              inTransaction(this.db, () => {
                const r = h(ev);
                if (r instanceof Promise) r.catch((err) => this.failed(ev, err));
              });
            } catch (err) {
              // A failing subscriber must not block the others; it owns its own retries.
              this.failed(ev, err);
            }
          }
        }
        if (!later.length) markDone();
      });
      for (const [ev, h] of later) {
        try {
          await h(ev);
        } catch (err) {
          this.failed(ev, err);
        }
      }
      if (later.length) markDone();
      total += batch.length;
      handedOut += batch.length;
      // Let waiting requests run between batches (delivery shares the server's one thread), once
      // the drain has kept pace with what they emitted meanwhile.
      if (batch.length === DRAIN_BATCH && handedOut >= 1.25 * (this.writes - emittedAtYield)) {
        handedOut = 0;
        emittedAtYield = this.writes;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  }

  private failed(ev: DomainEvent, err: unknown): void {
    this.log.error("event handler failed", { event: ev.type, id: ev.id, error: String(err) });
  }

  /** Deletes processed events older than `beforeMs`, keeping those that count as activity. */
  prune(beforeMs: number): number {
    return changes(this.db.delete(events).where(and(lt(events.processedAt, beforeMs), eq(events.activity, false))).run());
  }
}
