import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { loadConfig } from "../config";
import { inGroupCommit } from "../db/client";
import { DAY, TestClock } from "./clock";
import { migratedImage } from "../../test/harness";
import { createContext, type Ctx } from "./context";
import { EventBus, type EmitInputOf, type EventOf } from "./events";
import type { Logger } from "./log";
import { events } from "./tables";

function captureLog() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  const log: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), access: (fields) => at("info")("request", fields), flush() {} };
  return { log, lines };
}

/** The events of these tests: any name, with an optional title or number. */
type TestEvents = Record<string, { title?: string; n?: number }>;

let ctx: Ctx;
let clock: TestClock;
let bus: EventBus<TestEvents>;
let logged: ReturnType<typeof captureLog>;

beforeEach(() => {
  clock = new TestClock();
  // A copy of the test process's migrated database: a context per test costs about 2 ms.
  ctx = createContext({ config: loadConfig({ COLONY_LOG_LEVEL: "silent" }), clock, dbPath: ":memory:", image: migratedImage() });
  logged = captureLog();
  bus = new EventBus<TestEvents>(ctx.db, clock, logged.log);
});

/** Emits in a transaction of its own, as a write does. */
const emit = (input: EmitInputOf<TestEvents>) => ctx.db.transaction((tx) => bus.emit(tx, input));

const rows = () => ctx.db.select().from(events).all();

describe("emit", () => {
  test("a write's read scopes are counted when it emits, and again when its group commit settles", async () => {
    const scoped = new EventBus<TestEvents>(ctx.db, clock, logged.log, () => ["forum"]);
    ctx.db.transaction((tx) => scoped.emit(tx, { type: "x", actorId: null }));
    expect(scoped.version("forum")).toBe(1);
    // In a group, a read between the write and the COMMIT may be cached under version 2; the
    // COMMIT's recount (3) makes it stale.
    const grouped = [inGroupCommit(ctx.db, (tx) => scoped.emit(tx, { type: "x", actorId: null })), inGroupCommit(ctx.db, (tx) => scoped.emit(tx, { type: "x", actorId: null }))];
    expect(scoped.version("forum")).toBe(3);
    await Promise.all(grouped);
    expect(scoped.version("forum")).toBe(4);
    await inGroupCommit(ctx.db, (tx) => scoped.emit(tx, { type: "x", actorId: null }));
    expect(scoped.version("forum")).toBe(6);
  });

  test("writes the event row inside the caller's transaction", () => {
    const id = emit({ type: "post_created", actorId: "u1", subject: { type: "post", id: "p1" }, payload: { title: "Hi" }, activity: true });
    const [row] = rows();
    expect(row).toMatchObject({
      id,
      type: "post_created",
      actorId: "u1",
      subjectType: "post",
      subjectId: "p1",
      payload: { title: "Hi" },
      activity: true,
      createdAt: clock.now(),
      processedAt: null,
    });
  });

  test("defaults: no actor, no subject, empty payload, not activity", () => {
    emit({ type: "tick", actorId: null });
    expect(rows()[0]).toMatchObject({ actorId: null, subjectType: null, subjectId: null, payload: {}, activity: false });
  });

  test("a rolled-back transaction leaves no event behind", () => {
    expect(() =>
      ctx.db.transaction((tx) => {
        bus.emit(tx, { type: "post_created", actorId: "u1" });
        throw new Error("the write failed");
      }),
    ).toThrow("the write failed");
    expect(rows()).toHaveLength(0);
  });
});

describe("emit inside the write's transaction", () => {
  test("an emit outside a transaction is refused and writes nothing", () => {
    expect(() => bus.emit(ctx.db, { type: "tick", actorId: null })).toThrow("outside a transaction");
    expect(rows()).toHaveLength(0);
  });

  test("the fan-out rule runs in the emitting transaction; whom it told is stored and handed to subscribers", async () => {
    ctx.db.$client.run("create table told (user_id text)");
    bus.fanOut("post_created", (ev, tx) => {
      ctx.db.$client.run("insert into told values ('u9')");
      expect(ctx.db.$client.inTransaction).toBe(true);
      expect(typeof tx.insert).toBe("function");
      return [{ user_id: "u9", kind: `about:${ev.payload.title}` }];
    });
    // Told at once: readable before any drain.
    emit({ type: "post_created", actorId: "u1", payload: { title: "Hi" } });
    expect(ctx.db.$client.query("select user_id from told").all()).toEqual([{ user_id: "u9" }]);
    const seen: unknown[] = [];
    bus.on("post_created", (ev) => void seen.push(ev.audience));
    await bus.drain();
    expect(seen).toEqual([[{ user_id: "u9", kind: "about:Hi" }]]);
  });

  test("a rolled-back write takes its fan-out with it", () => {
    ctx.db.$client.run("create table told2 (user_id text)");
    bus.fanOut("tick", () => {
      ctx.db.$client.run("insert into told2 values ('u9')");
      return [{ user_id: "u9", kind: "k" }];
    });
    expect(() =>
      ctx.db.transaction((tx) => {
        bus.emit(tx, { type: "tick", actorId: null });
        throw new Error("the write failed");
      }),
    ).toThrow("the write failed");
    expect(ctx.db.$client.query("select * from told2").all()).toEqual([]);
    expect(rows()).toHaveLength(0);
  });

  test("one fan-out rule per event", () => {
    bus.fanOut("tick", () => []);
    expect(() => bus.fanOut("tick", () => [])).toThrow("already has a fan-out rule");
  });
});

describe("drain", () => {
  test("hands each event to its handlers once and marks it processed", async () => {
    const seen: EventOf<TestEvents, string>[] = [];
    bus.on("post_created", (ev) => void seen.push(ev));
    ctx.db.transaction((tx) => bus.emit(tx, { type: "post_created", actorId: "u1", subject: { type: "post", id: "p1" }, payload: { n: 1 } }));
    clock.advance(1_000);
    expect(await bus.drain()).toBe(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ type: "post_created", actorId: "u1", subjectType: "post", subjectId: "p1", payload: { n: 1 }, createdAt: clock.now() - 1_000 });
    expect(rows()[0].processedAt).toBe(clock.now());
    expect(await bus.drain()).toBe(0);
    expect(seen).toHaveLength(1);
  });

  test("routes by type; '*' handlers see every event", async () => {
    const a: string[] = [];
    const all: string[] = [];
    bus.on("a", (ev) => void a.push(ev.type));
    bus.on("*", (ev) => void all.push(ev.type));
    emit({ type: "a", actorId: null });
    emit({ type: "b", actorId: null });
    expect(await bus.drain()).toBe(2);
    expect(a).toEqual(["a"]);
    expect(all).toEqual(["a", "b"]);
  });

  test("events without handlers are still marked processed", async () => {
    emit({ type: "nobody_listens", actorId: null });
    expect(await bus.drain()).toBe(1);
    expect(rows()[0].processedAt).not.toBeNull();
  });

  test("delivers oldest first, including events written in the same millisecond", async () => {
    const order: number[] = [];
    bus.on("*", (ev) => void order.push(ev.payload.n as number));
    for (let n = 0; n < 50; n++) emit({ type: "seq", actorId: null, payload: { n } });
    clock.advance(1);
    for (let n = 50; n < 60; n++) emit({ type: "seq", actorId: null, payload: { n } });
    await bus.drain();
    expect(order).toEqual(Array.from({ length: 60 }, (_, n) => n));
  });

  test("drains more than one batch", async () => {
    let count = 0;
    bus.on("*", () => void count++);
    ctx.db.transaction((tx) => {
      for (let i = 0; i < 250; i++) bus.emit(tx, { type: "bulk", actorId: null });
    });
    expect(await bus.drain()).toBe(250);
    expect(count).toBe(250);
  });

  test("keeps pace under load: between yields it hands out more than was emitted meanwhile, so a backlog shrinks", async () => {
    bus.on("*", () => {});
    const pending = () => (ctx.db.$client.query("select count(*) as n from events where processed_at is null").get() as { n: number }).n;
    ctx.db.transaction((tx) => {
      for (let i = 0; i < 200; i++) bus.emit(tx, { type: "backlog", actorId: null });
    });
    // The load: every turn of the event loop, 30 requests each emit one event (the drain's
    // batches are 20), for 30 turns.
    const seen: number[] = [];
    const drains: Promise<number>[] = [];
    const load = (async () => {
      for (let turn = 0; turn < 30; turn++) {
        ctx.db.transaction((tx) => {
          for (let i = 0; i < 30; i++) bus.emit(tx, { type: "request", actorId: null });
        });
        seen.push(pending());
        // As the server's emit does, make sure a drain is under way (without its timer).
        drains.push(bus.drain());
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    })();
    await load;
    await Promise.all(drains);
    await bus.drain();
    // A batch per turn would leave the backlog growing by 10 a turn for as long as the load
    // lasts; paced, the drain hands out a quarter more than was emitted and works it off.
    const steady = seen.slice(5);
    for (let i = 1; i < steady.length; i++) expect(steady[i]).toBeLessThanOrEqual(steady[i - 1]);
    expect(seen[seen.length - 1]).toBeLessThan(seen[5] - 100);
    expect(pending()).toBe(0);
  });

  test("a failing handler does not block the other handlers or later events", async () => {
    const got: string[] = [];
    bus.on("x", () => {
      throw new Error("subscriber down");
    });
    bus.onAsync("x", async (ev) => void got.push(`second:${ev.payload.n}`));
    bus.on("*", (ev) => void got.push(`any:${ev.payload.n}`));
    emit({ type: "x", actorId: null, payload: { n: 1 } });
    emit({ type: "x", actorId: null, payload: { n: 2 } });
    expect(await bus.drain()).toBe(2);
    // Synchronous subscribers of the batch run first (in one transaction), async ones after.
    expect(got).toEqual(["any:1", "any:2", "second:1", "second:2"]);
    expect(rows().every((r) => r.processedAt !== null)).toBe(true);
    const errors = logged.lines.filter((l) => l.level === "error");
    expect(errors).toHaveLength(2);
    expect(errors[0].msg).toBe("event handler failed");
    expect(String(errors[0].fields?.error)).toContain("subscriber down");
  });

  test("a synchronous subscriber that throws leaves none of its writes; the others' stay", async () => {
    ctx.db.$client.run("create table if not exists scratch (v text)");
    bus.on("w", () => {
      ctx.db.$client.run("insert into scratch values ('from the failing one')");
      throw new Error("after writing");
    });
    bus.on("w", () => void ctx.db.$client.run("insert into scratch values ('kept')"));
    emit({ type: "w", actorId: null, payload: {} });
    expect(await bus.drain()).toBe(1);
    expect(ctx.db.$client.query("select v from scratch").all()).toEqual([{ v: "kept" }]);
  });

  test("an async handler that rejects is contained too", async () => {
    const got: number[] = [];
    bus.onAsync("y", async () => {
      throw new Error("later");
    });
    bus.on("y", (ev) => void got.push(ev.payload.n as number));
    emit({ type: "y", actorId: null, payload: { n: 7 } });
    expect(await bus.drain()).toBe(1);
    expect(got).toEqual([7]);
  });

  test("concurrent drains deliver each event once", async () => {
    let count = 0;
    bus.on("*", () => void count++);
    for (let i = 0; i < 20; i++) emit({ type: "c", actorId: null });
    const [a, b] = await Promise.all([bus.drain(), bus.drain()]);
    expect(a + b).toBe(20);
    expect(count).toBe(20);
  });

  test("an event emitted by a handler is delivered in the same drain", async () => {
    const seen: string[] = [];
    bus.on("first", () => void bus.emit(ctx.db, { type: "second", actorId: null }));
    bus.on("*", (ev) => void seen.push(ev.type));
    emit({ type: "first", actorId: null });
    expect(await bus.drain()).toBe(2);
    expect(seen).toEqual(["first", "second"]);
  });

  test("after start(), an emit is delivered without an explicit drain", async () => {
    const seen: string[] = [];
    const delivered = new Promise<void>((resolve) =>
      bus.on("*", (ev) => {
        seen.push(ev.type);
        resolve();
      }),
    );
    bus.start();
    try {
      emit({ type: "auto", actorId: null });
      await delivered;
      expect(seen).toEqual(["auto"]);
    } finally {
      bus.stop();
    }
  });
});

describe("hasActivity", () => {
  test("is true only for events marked as activity of that actor", () => {
    emit({ type: "profile_viewed", actorId: "u1" });
    emit({ type: "post_created", actorId: "u2", activity: true });
    expect(bus.hasActivity("u1")).toBe(false);
    expect(bus.hasActivity("u2")).toBe(true);
    expect(bus.hasActivity("u3")).toBe(false);
    emit({ type: "comment_created", actorId: "u1", activity: true });
    expect(bus.hasActivity("u1")).toBe(true);
  });

  test("survives draining and pruning", async () => {
    emit({ type: "vote", actorId: "u1", activity: true });
    await bus.drain();
    clock.advance(60 * DAY);
    bus.prune(clock.now());
    expect(bus.hasActivity("u1")).toBe(true);
  });
});

describe("prune", () => {
  test("deletes processed non-activity events older than the cut-off, nothing else", async () => {
    emit({ type: "old_plain", actorId: null });
    emit({ type: "old_activity", actorId: "u1", activity: true });
    await bus.drain();
    const processedAt = clock.now();
    clock.advance(DAY);
    emit({ type: "pending_plain", actorId: null }); // never drained

    expect(bus.prune(processedAt)).toBe(0); // strictly older than the cut-off
    expect(bus.prune(processedAt + 1)).toBe(1);
    const left = rows().map((r) => r.type).sort();
    expect(left).toEqual(["old_activity", "pending_plain"]);
    const pending = ctx.db.select().from(events).where(eq(events.type, "pending_plain")).get();
    expect(pending?.processedAt).toBeNull();
  });

  test("the maintenance schedule prunes events older than 30 days", async () => {
    const { setup } = await import("../../test/harness");
    const h = setup();
    const old = h.ctx.db.transaction((tx) => h.ctx.events.emit(tx, { type: "email_verified", actorId: null }));
    await h.ctx.events.drain();
    h.clock.advance(29 * DAY);
    await h.ctx.jobs.runRecurring("prune-events");
    expect(h.ctx.db.select().from(events).all()).toHaveLength(1);
    h.clock.advance(DAY);
    const recent = h.ctx.db.transaction((tx) => h.ctx.events.emit(tx, { type: "email_verified", actorId: null }));
    await h.ctx.events.drain();
    h.clock.advance(DAY);
    await h.ctx.jobs.runRecurring("prune-events");
    expect(h.ctx.db.select({ id: events.id }).from(events).all()).toEqual([{ id: recent }]);
    expect(old).not.toBe(recent);
  });

  test("the newest row stays, however old: a new row never takes a rowid another process has read", async () => {
    emit({ type: "first", actorId: null });
    emit({ type: "second", actorId: null });
    await bus.drain();
    clock.advance(DAY);
    expect(bus.prune(clock.now())).toBe(1);
    expect(rows().map((r) => r.type)).toEqual(["second"]);
  });
});

describe("follow: several processes on one database", () => {
  // Two connections to one file stand for two processes: what one commits, the other's follower
  // reads in commit order.
  let dir: string;
  let a: { ctx: Ctx; bus: EventBus<TestEvents> };
  let b: { ctx: Ctx; bus: EventBus<TestEvents> };
  const open = (role: "worker" | "supervisor") => {
    const c = createContext({ config: loadConfig({ COLONY_LOG_LEVEL: "silent", COLONY_DATA_DIR: dir }), clock, role: role === "worker" ? "worker" : "single" });
    return { ctx: c, bus: new EventBus<TestEvents>(c.db, clock, captureLog().log, (type) => [`scope:${String(type)}`]) };
  };
  const emitOn = (p: typeof a, input: EmitInputOf<TestEvents>) => p.ctx.db.transaction((tx) => p.bus.emit(tx, input));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "colony-follow-"));
    a = open("supervisor");
    b = open("worker");
  });
  afterEach(() => {
    a.bus.unfollow();
    b.bus.unfollow();
    a.ctx.db.$client.close();
    b.ctx.db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("another process's commits count their read scopes here and run the live handlers, in commit order, once", () => {
    const heard: string[] = [];
    b.bus.onLive("*", (ev) => void heard.push(String(ev.type)));
    b.bus.on("*", () => void heard.push("not live"));
    emitOn(a, { type: "before", actorId: null });
    b.bus.follow({ live: true, intervalMs: 60_000 });
    emitOn(a, { type: "one", actorId: null });
    emitOn(a, { type: "two", actorId: null });
    expect(b.bus.version("scope:one")).toBe(0);
    b.bus.sync();
    expect(heard).toEqual(["one", "two"]);
    expect([b.bus.version("scope:before"), b.bus.version("scope:one"), b.bus.version("scope:two")]).toEqual([0, 1, 1]);
    b.bus.sync();
    expect(heard).toEqual(["one", "two"]);
  });

  test("its own events run the live handlers after commit and are not counted twice", async () => {
    const heard: string[] = [];
    b.bus.onLive("*", (ev) => void heard.push(String(ev.type)));
    b.bus.follow({ live: true, intervalMs: 60_000 });
    emitOn(b, { type: "mine", actorId: null });
    expect(b.bus.version("scope:mine")).toBe(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(heard).toEqual(["mine"]);
    expect(b.bus.version("scope:mine")).toBe(1);
  });

  test("without live, the follower counts scopes and kicks its outbox worker; liveInDrain false leaves live handlers out of the drain", async () => {
    const delivered: string[] = [];
    a.bus.liveInDrain = false;
    a.bus.on("*", (ev) => void delivered.push(`once ${String(ev.type)}`));
    a.bus.onLive("*", (ev) => void delivered.push(`live ${String(ev.type)}`));
    a.bus.follow({ live: false, intervalMs: 60_000 });
    emitOn(b, { type: "elsewhere", actorId: null });
    a.bus.sync();
    expect(a.bus.version("scope:elsewhere")).toBe(1);
    await a.bus.drain();
    expect(delivered).toEqual(["once elsewhere"]);
  });

  test("elsewhere moves when another process committed, not for this process's own commits", async () => {
    b.bus.follow({ live: true, intervalMs: 60_000 });
    const before = b.bus.elsewhere;
    emitOn(b, { type: "mine", actorId: null });
    await new Promise((r) => setTimeout(r, 0));
    b.bus.sync();
    expect(b.bus.elsewhere).toBe(before);
    a.ctx.db.$client.run("create table a_write (x)");
    b.bus.sync();
    expect(b.bus.elsewhere).toBe(before + 1);
  });

  test("the interval looks without being asked", async () => {
    const heard: string[] = [];
    b.bus.onLive("*", (ev) => void heard.push(String(ev.type)));
    b.bus.follow({ live: true, intervalMs: 1 });
    const arrived = new Promise<void>((resolve) => b.bus.onLive("*", () => resolve()));
    emitOn(a, { type: "polled", actorId: null });
    await arrived;
    expect(heard).toEqual(["polled"]);
  });

  test("while nobody waits (not busy), the interval looks only every idleMs; once busy, at every tick", async () => {
    let busy = false;
    let arrived = false;
    b.bus.onLive("*", () => void (arrived = true));
    b.bus.follow({ live: true, intervalMs: 1, busy: () => busy, idleMs: 60_000 });
    emitOn(a, { type: "polled", actorId: null });
    await Bun.sleep(30);
    expect(arrived).toBe(false);
    busy = true;
    for (let i = 0; i < 500 && !arrived; i++) await Bun.sleep(2);
    expect(arrived).toBe(true);
  });
});
