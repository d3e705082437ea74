// Domain events: rows written in the same transaction as the change (the outbox), then handed
// to subscribers (notifications, webhooks, realtime) by a worker after the write commits.
import { and, asc, eq, isNull, lt } from "drizzle-orm";
import { changes, type Db } from "../db/client";
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

  /** Writes the event row inside the caller's transaction. */
  emit(tx: Tx, input: EmitInput): string {
    this.writes++;
    const id = uuidv7(this.clock.now());
    tx.insert(events)
      .values({
        id,
        type: input.type,
        actorId: input.actorId ?? null,
        subjectType: input.subject?.type ?? null,
        subjectId: input.subject?.id ?? null,
        payload: input.payload ?? {},
        activity: input.activity ?? false,
        createdAt: this.clock.now(),
      })
      .run();
    this.kick();
    return id;
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

  private async drainOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = this.db.select().from(events).where(isNull(events.processedAt)).orderBy(asc(events.id)).limit(100).all();
      if (!batch.length) return total;
      for (const row of batch) {
        const ev: DomainEvent = {
          id: row.id,
          type: row.type,
          actorId: row.actorId,
          subjectType: row.subjectType,
          subjectId: row.subjectId,
          payload: row.payload,
          createdAt: row.createdAt,
        };
        for (const h of [...(this.handlers.get(row.type) ?? []), ...(this.handlers.get("*") ?? [])]) {
          try {
            await h(ev);
          } catch (err) {
            // A failing subscriber must not block the others; it owns its own retries.
            this.log.error("event handler failed", { event: row.type, id: row.id, error: String(err) });
          }
        }
        this.db.update(events).set({ processedAt: this.clock.now() }).where(eq(events.id, row.id)).run();
        total++;
      }
    }
  }

  /** Deletes processed events older than `beforeMs`, keeping those that count as activity. */
  prune(beforeMs: number): number {
    return changes(this.db.delete(events).where(and(lt(events.processedAt, beforeMs), eq(events.activity, false))).run());
  }
}
