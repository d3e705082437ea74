// Domain events: rows written in the same transaction as the change (the outbox), then handed
// to subscribers (webhooks, realtime, clean-up, mail) by a worker after the write commits.
//
// Three kinds of subscriber, each declared by what it is, never guessed:
//   fanOut(type, rule)   runs inside the emitting transaction: the one rule per event that tells
//                        people (writes their notifications) and returns whom it told; that list
//                        is stored with the event (`audience`) for the outbox subscribers;
//   on(type, handler)    runs after commit, inside the delivery transaction of its batch;
//   onAsync(type, h)     runs after commit and after that transaction (slow or remote work);
//   onLive(type, h)      pushes to this process's realtime hub after commit, in every process that
//                        serves clients: in one process the outbox worker runs it with the others;
//                        with several workers each worker runs it as it reads the events table
//                        (follow()), and the outbox worker (the writer's or the supervisor's)
//                        leaves it out.
// `emit`, `fanOut`, `on` and `onAsync` are generic over the DomainEvents map
// (core/domain-events.ts): a misspelled event or a payload field that is not there does not compile.
import type { Statement } from "bun:sqlite";
import { and, eq, lt, sql } from "drizzle-orm";
import { changes, inTransaction, onGroupSettled, type Db, type Tx } from "../db/client";
import type { Clock } from "./clock";
import type { DomainEvents, EventName, Told } from "./domain-events";
import { uuidv7 } from "./ids";
import type { Logger } from "./log";
import { events } from "./tables";

export type { DomainEvents, EventName, Told };

/** A map from event name to payload type: DomainEvents for the server, any such map in tests. */
export type EventMap<M> = { [K in keyof M]: object };

/** One event of map M, as subscribers receive it. */
export interface EventOf<M, K extends keyof M> {
  id: string;
  type: K;
  actorId: string | null;
  subjectType: string | null;
  subjectId: string | null;
  payload: M[K];
  /** Whom the event's fan-out rule told, as it committed with the event. */
  audience: Told[];
  createdAt: number;
}

/** Any event of map M: a union discriminated by `type` (what a "*" subscriber receives). */
export type AnyEventOf<M> = { [K in keyof M]: EventOf<M, K> }[keyof M];

export type DomainEvent<K extends EventName = EventName> = EventOf<DomainEvents, K>;
export type AnyDomainEvent = AnyEventOf<DomainEvents>;

type PayloadField<P> = {} extends P ? { payload?: P } : { payload: P };

/** What an emitter writes: the event name, its payload (typed by the map) and who acted on what. */
export type EmitInputOf<M> = {
  [K in keyof M]: {
    type: K;
    actorId: string | null;
    subject?: { type: string; id: string };
    /** Counts as activity of the actor (posts, comments, votes, reactions, messages …). */
    activity?: boolean;
  } & PayloadField<M[K]>;
}[keyof M];
export type EmitInput = EmitInputOf<DomainEvents>;

/** The fan-out rule of an event: tells people inside the emitting transaction; returns whom. */
export type FanOutRule<M, K extends keyof M> = (ev: EventOf<M, K>, tx: Tx) => Told[];

/**
 * Events handed out per transaction. Small enough that a batch holds the thread for a few
 * milliseconds at most, so requests queued behind it wait
 * little; between batches the drain yields, once it has kept pace (see drainOnce).
 */
const DRAIN_BATCH = 20;

/** Rows read per statement when following the events table. */
const FOLLOW_BATCH = 200;

/** An events row as the outbox and the follower read it. */
interface EventRow {
  id: string;
  type: string;
  actor_id: string | null;
  subject_type: string | null;
  subject_id: string | null;
  payload: string;
  audience: string | null;
  created_at: number;
}

function toEvent<M>(row: EventRow, payload: object): AnyEventOf<M> {
  return {
    id: row.id,
    type: row.type,
    actorId: row.actor_id,
    subjectType: row.subject_type,
    subjectId: row.subject_id,
    payload,
    audience: row.audience ? (JSON.parse(row.audience) as Told[]) : [],
    createdAt: row.created_at,
  } as AnyEventOf<M>;
}

type Handler<M> = { run: (ev: AnyEventOf<M>) => void | Promise<void>; async: boolean; live?: boolean };

export class EventBus<M extends EventMap<M> = DomainEvents> {
  private handlers = new Map<keyof M | "*", Handler<M>[]>();
  private rules = new Map<keyof M, FanOutRule<M, any>>();
  private draining: Promise<number> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private autoDrain = false;
  /**
   * Counts the writes of this process (every write emits an event in its transaction); read
   * caches compare it to drop what a write may have changed.
   */
  writes = 0;
  /**
   * Moves each time sync() finds that another process committed (only while following): a cache
   * of rows that no event names (webhook subscriptions, automod rules, queue counts) is kept while
   * both its own write counter and this stay.
   */
  elsewhere = 0;
  /** Per read scope ("forum", "colony:<id>"), how many writes touched it (see readScopes). */
  private scopeWrites = new Map<string, number>();

  constructor(
    private db: Db,
    private clock: Clock,
    private log: Logger,
    /** The read scopes an event changes (core/domain-events.ts READ_SCOPES for the server's map). */
    private readScopes: (type: keyof M, payload: object) => readonly string[] = () => [],
  ) {}

  /**
   * Following the events table (several processes on one database, see follow()): the last row
   * read, by rowid — each insert takes the database's write lock and gets the next rowid, so rowid
   * order is commit order — the database's data_version when last looked at, and the ids this
   * process emitted that the reader has not passed yet (their read scopes are counted already).
   */
  private followed: {
    rowid: number;
    dataVersion: number;
    own: Set<string>;
    timer: ReturnType<typeof setInterval>;
    soon: ReturnType<typeof setTimeout> | null;
    live: boolean;
    /** When data_version was last looked at (performance.now()). */
    looked: number;
  } | null = null;

  /** Read scopes written by the open group commit (db/client.ts inGroupCommit), counted again when it commits. */
  private groupScopes = new Set<string>();

  /**
   * In a group commit, a read between this write and the group's COMMIT may cache what it saw
   * under the new version; counting the scopes again when the group settles makes such entries stale.
   */
  private recountWhenGroupSettles(scopes: readonly string[]): void {
    if (!this.groupScopes.size && !onGroupSettled(this.db, () => this.recountGroupScopes())) return;
    for (const scope of scopes) this.groupScopes.add(scope);
  }

  private recountGroupScopes(): void {
    for (const scope of this.groupScopes) this.count(scope);
    this.groupScopes.clear();
  }

  private count(scope: string): void {
    this.scopeWrites.set(scope, (this.scopeWrites.get(scope) ?? 0) + 1);
  }

  /** Counts a write to read scopes, inside its transaction: every emit, and writes that emit no event (a reaction taken back). */
  touch(scopes: readonly string[]): void {
    this.writes++;
    for (const scope of scopes) this.count(scope);
    if (scopes.length) this.recountWhenGroupSettles(scopes);
  }

  /** How many writes have touched a read scope so far: a cached read of it is fresh while this stays. */
  version(scope: string): number {
    return this.scopeWrites.get(scope) ?? 0;
  }

  /**
   * Writes the event inside the caller's transaction (`tx`; an emit outside one is a programming
   * error and throws): first its fan-out rule tells whom it tells (their notifications commit with
   * the change), then the event row, with that audience, is written through a statement prepared
   * once on the connection (every write pays for this insert).
   */
  emit(tx: Tx, input: EmitInputOf<M>): string {
    if (!this.db.$client.inTransaction) throw new Error(`emit(${String(input.type)}) outside a transaction: emit inside the write's transaction`);
    const now = this.clock.now();
    const id = uuidv7(now);
    const payload = (input as { payload?: object }).payload ?? {};
    this.touch(this.readScopes(input.type, payload));
    const ev = { id, type: input.type, actorId: input.actorId ?? null, subjectType: input.subject?.type ?? null, subjectId: input.subject?.id ?? null, payload, audience: [] as Told[], createdAt: now } as AnyEventOf<M>;
    const rule = this.rules.get(input.type);
    if (rule) ev.audience = rule(ev, tx);
    this.stmts().insert.run(id, String(input.type), ev.actorId, ev.subjectType, ev.subjectId, JSON.stringify(payload), ev.audience.length ? JSON.stringify(ev.audience) : null, input.activity ? 1 : 0, now);
    this.kick();
    const f = this.followed;
    if (f) {
      f.own.add(id);
      // After this transaction commits: the live handlers of this process's own events.
      f.soon ??= setTimeout(() => {
        f.soon = null;
        this.sync(true);
      }, 0);
    }
    return id;
  }

  /**
   * Starts reading the events table for commits of other processes (a worker, or the supervisor
   * of several workers): every `intervalMs`, and whenever sync() is called (each request does),
   * PRAGMA data_version tells whether another connection committed; if so, the new event rows
   * are read in commit order, their read scopes counted as if written here (read caches drop
   * what they changed) and, with `live`, their live handlers run against this process's hub.
   * A process that delivers the outbox (the writer, or the supervisor) is kicked to deliver what arrived.
   * While `busy` says nobody waits for what others commit (no stream to push to, no outbox to
   * wake), the interval looks only every `idleMs`: requests look for themselves.
   */
  follow(opts: { live: boolean; intervalMs: number; busy?: () => boolean; idleMs?: number }): void {
    if (this.followed) return;
    const { rowid } = this.db.$client.query("select coalesce(max(rowid), 0) as rowid from events").get() as { rowid: number };
    const { busy, idleMs = 0 } = opts;
    const f = {
      rowid,
      dataVersion: this.dataVersion(),
      own: new Set<string>(),
      timer: setInterval(() => {
        if (!busy || busy() || performance.now() - f.looked >= idleMs) this.sync();
      }, opts.intervalMs),
      soon: null,
      live: opts.live,
      looked: performance.now(),
    };
    this.followed = f;
  }

  /** Stops follow(). */
  unfollow(): void {
    const f = this.followed;
    if (!f) return;
    clearInterval(f.timer);
    if (f.soon) clearTimeout(f.soon);
    this.followed = null;
  }

  private dataVersion(): number {
    return (this.stmts().dataVersion.values() as [[number]])[0][0];
  }

  /**
   * Catches up with the events committed since the last look (see follow()); one PRAGMA when no
   * other connection committed. Nothing happens inside a transaction (its reads must not move).
   */
  sync(ownCommitted = false): void {
    const f = this.followed;
    if (!f || this.db.$client.inTransaction) return;
    f.looked = performance.now();
    const version = this.dataVersion();
    if (version === f.dataVersion && !ownCommitted && !f.own.size) return;
    if (version !== f.dataVersion) this.elsewhere++;
    f.dataVersion = version;
    let foreign = 0;
    for (;;) {
      const rows = this.stmts().after.all(f.rowid) as (EventRow & { rowid: number })[];
      if (!rows.length) break;
      for (const row of rows) {
        f.rowid = row.rowid;
        const payload = JSON.parse(row.payload) as object;
        if (!f.own.delete(row.id)) {
          foreign++;
          this.touch(this.readScopes(row.type as keyof M, payload));
        }
        if (f.live) this.runLive(toEvent<M>(row, payload));
      }
      if (rows.length < FOLLOW_BATCH) break;
    }
    if (foreign) this.kick();
  }

  /** The handlers of one event type: its own, then those of every type ("*"). */
  private handlersOf(type: keyof M): Handler<M>[] {
    return [...(this.handlers.get(type) ?? []), ...(this.handlers.get("*") ?? [])];
  }

  /** Runs the live handlers of one event (each on its own: one that throws does not stop the others). */
  private runLive(ev: AnyEventOf<M>): void {
    for (const h of this.handlersOf(ev.type)) {
      if (!h.live) continue;
      try {
        void h.run(ev);
      } catch (err) {
        this.failed(ev, err);
      }
    }
  }

  private prepared: { insert: Statement; pending: Statement; done: Statement; after: Statement; dataVersion: Statement } | null = null;
  private stmts() {
    return (this.prepared ??= {
      after: this.db.$client.prepare(`select rowid, id, type, actor_id, subject_type, subject_id, payload, audience, created_at from events where rowid > ? order by rowid limit ${FOLLOW_BATCH}`),
      dataVersion: this.db.$client.prepare("pragma data_version"),
      insert: this.db.$client.prepare("insert into events (id, type, actor_id, subject_type, subject_id, payload, audience, activity, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
      pending: this.db.$client.prepare(`select id, type, actor_id, subject_type, subject_id, payload, audience, created_at from events where processed_at is null order by id limit ${DRAIN_BATCH}`),
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

  /**
   * Declares the fan-out rule of an event: who is told, run inside the emitting transaction. One
   * rule per event, so that whom an event tells is decided in one place.
   */
  fanOut<K extends keyof M>(type: K, rule: FanOutRule<M, K>): void {
    if (this.rules.has(type)) throw new Error(`${String(type)} already has a fan-out rule`);
    this.rules.set(type, rule);
  }

  /** Subscribes to one event type after commit, inside the delivery transaction of its batch. */
  on<K extends keyof M>(type: K, handler: (ev: EventOf<M, K>) => void): void;
  /** Subscribes to every event type after commit. */
  on(type: "*", handler: (ev: AnyEventOf<M>) => void): void;
  on(type: keyof M | "*", handler: (ev: any) => void): void {
    this.subscribe(type, { run: handler, async: false });
  }

  /**
   * Subscribes a realtime push (the hub's subscribers are this process's open streams) to one
   * event type, or to every type with "*". Runs after commit like `on`, in each process that
   * serves clients (see the header).
   */
  onLive<K extends keyof M>(type: K, handler: (ev: EventOf<M, K>) => void): void;
  onLive(type: "*", handler: (ev: AnyEventOf<M>) => void): void;
  onLive(type: keyof M | "*", handler: (ev: any) => void): void {
    this.subscribe(type, { run: handler, async: false, live: true });
  }

  /**
   * Whether this process's outbox worker runs the `onLive` handlers: true in a single process;
   * false with several workers (in the writer and the supervisor), whose serving processes run
   * them from follow().
   */
  liveInDrain = true;

  /** Subscribes to one event type after commit, outside any transaction (slow or remote work). */
  onAsync<K extends keyof M>(type: K, handler: (ev: EventOf<M, K>) => Promise<void>): void {
    this.subscribe(type, { run: handler as (ev: AnyEventOf<M>) => Promise<void>, async: true });
  }

  private subscribe(type: keyof M | "*", h: Handler<M>): void {
    const list = this.handlers.get(type) ?? [];
    list.push(h);
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
  /** Whether the bus delivers on its own (the server's background work runs): start() until stop(). */
  get running(): boolean {
    return this.autoDrain;
  }

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

  /** Resolves when no delivery is under way (after stop(), the outbox is then left alone). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining.catch(() => 0);
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
      const batch = this.stmts().pending.all() as EventRow[];
      if (!batch.length) return total;
      // What other processes committed before these events is seen by their handlers' caches.
      this.sync();
      const later: [AnyEventOf<M>, Handler<M>][] = [];
      const markDone = () => this.stmts().done.run(this.clock.now(), JSON.stringify(batch.map((r) => r.id)));
      inTransaction(this.db, () => {
        for (const row of batch) {
          const ev = toEvent<M>(row, JSON.parse(row.payload));
          for (const h of this.handlersOf(row.type as keyof M)) {
            if (h.live && !this.liveInDrain) continue;
            if (h.async) {
              later.push([ev, h]);
              continue;
            }
            try {
              inTransaction(this.db, () => void h.run(ev));
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
          await h.run(ev);
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

  private failed(ev: AnyEventOf<M>, err: unknown): void {
    this.log.error("event handler failed", { event: String(ev.type), id: ev.id, error: String(err) });
  }

  /** Deletes processed events older than `beforeMs`, keeping those that count as activity. */
  prune(beforeMs: number): number {
    // The newest row stays, so that a new row never takes the rowid of one another process has
    // already read (SQLite gives the next insert max(rowid) + 1; see follow()).
    return changes(
      this.db
        .delete(events)
        .where(and(lt(events.processedAt, beforeMs), eq(events.activity, false), sql`rowid < (select max(rowid) from events)`))
        .run(),
    );
  }
}
