import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { DAY, HOUR, MINUTE, TestClock } from "./clock";
import { ApiError } from "./errors";
import { MemoryLimitStore, SqliteLimitStore, type LimitStore } from "./limit-store";
import { LIMITS, LONGEST_WINDOW_MS, RateLimiter, limitRule, type LimitSubject } from "./limits";

let dir: string;
const opened: LimitStore[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "colony-limits-"));
});

afterAll(() => {
  for (const s of opened) s.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
/** A SQLite store on a file of its own, or a second connection to `path`. */
function sqliteStore(path = join(dir, `limits-${++files}.db`)): SqliteLimitStore {
  const s = new SqliteLimitStore(path);
  opened.push(s);
  return s;
}

const alice: LimitSubject = { userId: "alice", ip: "10.0.0.1", karma: 0, createdAt: Date.UTC(2025, 0, 1) };

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

/** The lines a child process writes, as they come. */
async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      yield buf.slice(0, nl);
      buf = buf.slice(nl + 1);
    }
  }
  if (buf) yield buf;
}

/** Consumes until refused; returns how many attempts were allowed. */
function fill(limiter: RateLimiter, actions: string[], subject: LimitSubject, discriminator?: string, cap = 1000): number {
  for (let i = 0; i < cap; i++) {
    try {
      limiter.consume(actions, subject, discriminator);
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      return i;
    }
  }
  return cap;
}

// The same cases run against both stores: the SQLite store must behave exactly like memory.
describe.each([
  ["memory", () => new MemoryLimitStore()],
  ["sqlite", () => sqliteStore()],
] as const)("the %s store", (_name, makeStore) => {
  let clock: TestClock;
  let limiter: RateLimiter;
  let store: LimitStore;

  beforeEach(() => {
    clock = new TestClock();
    store = makeStore();
    limiter = new RateLimiter(clock, 1, store);
  });

  test("allows max attempts per window, then refuses with a 429 and its retry_after", () => {
    expect(fill(limiter, ["post_edit"], alice)).toBe(10);
    const err = refusal(() => limiter.consume(["post_edit"], alice));
    expect(err).toMatchObject({ status: 429, code: "RATE_LIMIT_POST_EDIT", extra: { retry_after: 3600 }, headers: { "Retry-After": "3600" } });
    expect(err.message).toContain("10 per hour");
  });

  test("the window slides: slots free one by one as the oldest charges slide out", () => {
    const t0 = clock.now();
    for (let i = 0; i < 10; i++) {
      limiter.consume(["post_edit"], alice);
      clock.advance(MINUTE);
    }
    clock.set(t0 + 45 * MINUTE);
    expect(refusal(() => limiter.consume(["post_edit"], alice)).extra.retry_after).toBe(15 * 60);
    clock.set(t0 + HOUR - 1);
    expect(refusal(() => limiter.consume(["post_edit"], alice)).extra.retry_after).toBe(1);
    clock.set(t0 + HOUR);
    limiter.consume(["post_edit"], alice);
    expect(() => limiter.consume(["post_edit"], alice)).toThrow(ApiError);
    clock.set(t0 + HOUR + MINUTE);
    limiter.consume(["post_edit"], alice);
    expect(() => limiter.consume(["post_edit"], alice)).toThrow(ApiError);
    expect(limiter.status(limitRule("post_edit"), alice)).toMatchObject({ current: 10, blocked: true, retry_after: 60 });
  });

  test("retry_after names the charge that keeps a window full, when it holds more than its ceiling", () => {
    // Ten charges at one-minute steps under a doubled ceiling, then read with the normal one.
    const doubled = new RateLimiter(clock, 2, store);
    const t0 = clock.now();
    for (let i = 0; i < 10; i++) {
      doubled.consume(["avatar_upload"], alice);
      clock.advance(MINUTE);
    }
    // 10 charges, ceiling 5: the slot frees when the 6th oldest (t0 + 5 min) slides out.
    expect(limiter.status(limitRule("avatar_upload"), alice)).toMatchObject({ current: 10, max: 5, blocked: true, retry_after: (HOUR - 5 * MINUTE) / 1000 });
    expect(refusal(() => limiter.consume(["avatar_upload"], alice)).extra.retry_after).toBe((HOUR - 5 * MINUTE) / 1000);
    clock.set(t0 + HOUR + 5 * MINUTE);
    expect(limiter.status(limitRule("avatar_upload"), alice)).toMatchObject({ current: 4, blocked: false, retry_after: null });
  });

  test("a refused attempt charges nothing", () => {
    const t0 = clock.now();
    for (let i = 0; i < 5; i++) limiter.consume(["post_edit"], alice);
    clock.set(t0 + 30 * MINUTE);
    for (let i = 0; i < 5; i++) limiter.consume(["post_edit"], alice);
    clock.set(t0 + 45 * MINUTE);
    for (let i = 0; i < 20; i++) expect(() => limiter.consume(["post_edit"], alice)).toThrow(ApiError);
    expect(limiter.status(limitRule("post_edit"), alice).current).toBe(10);
    clock.set(t0 + HOUR);
    expect(fill(limiter, ["post_edit"], alice)).toBe(5);
  });

  test("several rules are charged all or nothing", () => {
    expect(fill(limiter, ["avatar_upload"], alice)).toBe(5);
    // The hourly window is full, whichever rule comes first: the daily one is not charged.
    expect(refusal(() => limiter.consume(["avatar_upload_daily", "avatar_upload"], alice)).code).toBe("RATE_LIMIT_AVATAR_UPLOAD");
    expect(limiter.status(limitRule("avatar_upload_daily"), alice).current).toBe(0);
    clock.advance(HOUR);
    expect(limiter.consume(["avatar_upload", "avatar_upload_daily"], alice)).toHaveLength(2);
    expect(limiter.status(limitRule("avatar_upload_daily"), alice).current).toBe(1);
    expect(limiter.status(limitRule("avatar_upload"), alice).current).toBe(1);
  });

  test("a refund removes that one charge, even beside others of the same instant", () => {
    const charges = [];
    for (let i = 0; i < 10; i++) charges.push(...limiter.consume(["post_edit"], alice));
    expect(new Set(charges.map((c) => c.at)).size).toBe(1);
    limiter.refund(charges.slice(0, 3));
    expect(limiter.status(limitRule("post_edit"), alice)).toMatchObject({ current: 7, remaining: 3, blocked: false, retry_after: null });
    expect(fill(limiter, ["post_edit"], alice)).toBe(3);
    limiter.refund([{ key: "post_edit|nobody", at: 1 }]);
    limiter.refund([]);
    expect(limiter.status(limitRule("post_edit"), alice).current).toBe(10);
  });

  test("a refund of a consume over several rules gives every rule its slot back", () => {
    const charges = limiter.consume(["avatar_upload", "avatar_upload_daily"], alice);
    limiter.refund(charges);
    expect(limiter.status(limitRule("avatar_upload"), alice).current).toBe(0);
    expect(limiter.status(limitRule("avatar_upload_daily"), alice).current).toBe(0);
  });

  test("status reads without charging, and reports the window", () => {
    const r = limitRule("post_edit");
    for (let i = 0; i < 30; i++) limiter.status(r, alice);
    expect(limiter.status(r, alice)).toEqual({ action: "post_edit", description: r.description, window_seconds: 3600, max: 10, current: 0, remaining: 10, blocked: false, retry_after: null });
    fill(limiter, ["post_edit"], alice);
    clock.advance(10 * MINUTE);
    expect(limiter.status(r, alice)).toMatchObject({ current: 10, remaining: 0, blocked: true, retry_after: 50 * 60 });
    clock.advance(50 * MINUTE);
    expect(limiter.status(r, alice)).toMatchObject({ current: 0, remaining: 10, blocked: false, retry_after: null });
  });

  test("keys stay apart: users, actions, addresses and discriminators", () => {
    expect(fill(limiter, ["post_edit"], alice)).toBe(10);
    expect(fill(limiter, ["post_edit"], { userId: "bob" })).toBe(10);
    expect(fill(limiter, ["post_delete"], alice)).toBe(10);
    expect(fill(limiter, ["wiki_page_edits"], alice, "page-a")).toBe(10);
    expect(fill(limiter, ["wiki_page_edits"], alice, "page-b")).toBe(10);
    expect(fill(limiter, ["register"], { ip: "192.0.2.1" })).toBe(10);
  });

  test("sweep deletes the charges older than the longest window, and only those", () => {
    expect(LONGEST_WINDOW_MS).toBe(Math.max(...LIMITS.map((r) => r.windowMs)));
    expect(LONGEST_WINDOW_MS).toBe(7 * DAY);
    limiter.consume(["post_edit"], alice);
    limiter.consume(["capsule_create"], alice);
    clock.advance(2 * DAY);
    limiter.consume(["post_delete"], alice);
    clock.advance(5 * DAY);
    // Seven days on, the first two charges are out of even the longest window (capsule_create's).
    expect(limiter.sweep()).toBe(2);
    expect(limiter.status(limitRule("capsule_create"), alice).current).toBe(0);
    clock.advance(1);
    expect(limiter.sweep()).toBe(0);
    clock.advance(2 * DAY);
    expect(limiter.sweep()).toBe(1);
    expect(limiter.sweep()).toBe(0);
  });

  test("reset forgets every charge", () => {
    fill(limiter, ["post_edit"], alice);
    limiter.reset();
    expect(limiter.status(limitRule("post_edit"), alice).current).toBe(0);
    expect(fill(limiter, ["post_edit"], alice)).toBe(10);
  });
});

describe("SqliteLimitStore", () => {
  test("keeps its charges in a table indexed by (key, at), in WAL mode, readable by the owner only", () => {
    const path = join(dir, "layout.db");
    const store = sqliteStore(path);
    new RateLimiter(new TestClock(), 1, store).consume(["post_edit"], alice);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
      expect(db.query("SELECT key, at FROM charges").all()).toEqual([{ key: "post_edit|alice", at: new TestClock().now() }]);
      const plan = db.query("EXPLAIN QUERY PLAN SELECT count(*) FROM charges WHERE key = ? AND at > ?").all("k", 0) as { detail: string }[];
      expect(plan.map((p) => p.detail).join()).toContain("USING COVERING INDEX charges_key_at (key=? AND at>?)");
    } finally {
      db.close();
    }
  });

  test("a key's expired charges are deleted when it is charged again", () => {
    const path = join(dir, "prune.db");
    const clock = new TestClock();
    const limiter = new RateLimiter(clock, 1, sqliteStore(path));
    for (let i = 0; i < 5; i++) limiter.consume(["post_edit"], alice);
    clock.advance(HOUR);
    limiter.consume(["post_edit"], alice);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.query("SELECT count(*) AS n FROM charges").get()).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });

  test("close closes its database", () => {
    const store = new SqliteLimitStore(join(dir, "closed.db"));
    const limiter = new RateLimiter(new TestClock(), 1, store);
    limiter.consume(["post_edit"], alice);
    limiter.close();
    expect(() => limiter.consume(["post_edit"], alice)).toThrow();
  });
});

describe("two processes' limiters on one limits.db", () => {
  let clock: TestClock;
  let a: RateLimiter;
  let b: RateLimiter;

  beforeEach(() => {
    // Each limiter has a connection of its own, as each worker process does.
    const path = join(dir, `shared-${++files}.db`);
    clock = new TestClock();
    a = new RateLimiter(clock, 1, sqliteStore(path));
    b = new RateLimiter(clock, 1, sqliteStore(path));
  });

  test("share one window: 10 charges through either refuse the 11th through both", () => {
    for (let i = 0; i < 10; i++) (i % 3 ? a : b).consume(["post_edit"], alice);
    for (const l of [a, b]) {
      expect(refusal(() => l.consume(["post_edit"], alice))).toMatchObject({ status: 429, code: "RATE_LIMIT_POST_EDIT", extra: { retry_after: 3600 } });
      expect(l.status(limitRule("post_edit"), alice)).toMatchObject({ current: 10, remaining: 0, blocked: true, retry_after: 3600 });
    }
    // A refund through one frees the slot for the other.
    const charges = a.consume(["post_delete"], alice);
    expect(b.status(limitRule("post_delete"), alice).current).toBe(1);
    a.refund(charges);
    expect(b.status(limitRule("post_delete"), alice).current).toBe(0);
    clock.advance(HOUR);
    expect(b.status(limitRule("post_edit"), alice).current).toBe(0);
    expect(fill(a, ["post_edit"], alice) + fill(b, ["post_edit"], alice)).toBe(10);
  });

  test("a sign-in lockout holds whichever process the attempts land on", () => {
    // Failed password attempts at one account, from a new address each time, alternating workers.
    const attempt = (l: RateLimiter, n: number) => l.consume(["sign_in_account", "sign_in_ip"], { userId: "victim", ip: `198.51.100.${n}` });
    for (let n = 0; n < 10; n++) attempt(n % 2 ? a : b, n);
    for (const l of [a, b]) expect(refusal(() => attempt(l, 99)).code).toBe("RATE_LIMIT_SIGN_IN_ACCOUNT");
    // The refused attempts charged no address.
    expect(a.status(limitRule("sign_in_ip"), { ip: "198.51.100.99" }).current).toBe(0);
    // The lockout lifts for both when the first failures are 15 minutes old.
    clock.advance(15 * MINUTE);
    expect(b.status(limitRule("sign_in_account"), { userId: "victim" })).toMatchObject({ current: 0, blocked: false });
    attempt(a, 100);
  });

  test("interleaved consumes at the window's edge cannot both take the last slot", () => {
    for (let i = 0; i < 9; i++) a.consume(["post_edit", "post_delete"], alice);
    // One slot left in each window: exactly one of the two takes it, all-or-nothing.
    b.consume(["post_edit", "post_delete"], alice);
    expect(refusal(() => a.consume(["post_delete", "post_edit"], alice)).code).toBe("RATE_LIMIT_POST_DELETE");
    expect(refusal(() => b.consume(["post_edit"], alice)).code).toBe("RATE_LIMIT_POST_EDIT");
    // One window refunded: a consume over both is still refused, and charges neither.
    expect(a.status(limitRule("post_delete"), alice).current).toBe(10);
    a.refund([{ key: "post_delete|alice", at: clock.now() }]);
    expect(refusal(() => b.consume(["post_delete", "post_edit"], alice)).code).toBe("RATE_LIMIT_POST_EDIT");
    expect(a.status(limitRule("post_delete"), alice).current).toBe(9);
    expect(b.consume(["post_delete"], alice)).toHaveLength(1);
    expect(() => a.consume(["post_delete"], alice)).toThrow(ApiError);
  });

  test("processes racing for one window take exactly its ceiling between them", async () => {
    const path = join(dir, "race.db");
    const holder = sqliteStore(path);
    const at = clock.now();
    // Each child charges post_edit (ceiling 200 with the multiplier of 20) 150 times at one instant.
    const child = `
      import { SqliteLimitStore } from ${JSON.stringify(join(import.meta.dir, "limit-store.ts"))};
      import { RateLimiter } from ${JSON.stringify(join(import.meta.dir, "limits.ts"))};
      import { TestClock } from ${JSON.stringify(join(import.meta.dir, "clock.ts"))};
      const store = new SqliteLimitStore(${JSON.stringify(path)});
      const limiter = new RateLimiter(new TestClock(${at}), 20, store);
      console.log("ready");
      let ok = 0;
      for (let i = 0; i < 150; i++) if (limiter.tryConsume(["post_edit"], { userId: "alice" })) ok++;
      console.log(ok);
      store.close();
    `;
    // The parent holds the write lock until every child is about to charge, so they start together.
    const lock = new Database(path);
    lock.run("PRAGMA busy_timeout = 5000");
    lock.run("BEGIN IMMEDIATE");
    const children = Array.from({ length: 4 }, () => Bun.spawn([process.execPath, "-e", child], { stdout: "pipe", stderr: "pipe" }));
    const outputs = children.map((p) => lines(p.stdout));
    try {
      for (const out of outputs) expect((await out.next()).value).toBe("ready");
    } finally {
      lock.run("COMMIT");
      lock.close();
    }
    const taken: number[] = [];
    for (const [i, out] of outputs.entries()) {
      const { value } = await out.next();
      const code = await children[i].exited;
      if (code !== 0) throw new Error(`child failed (${code}): ${await new Response(children[i].stderr).text()}`);
      taken.push(Number(value));
    }
    expect(taken.reduce((x, y) => x + y, 0)).toBe(200);
    expect(new RateLimiter(clock, 20, holder).status(limitRule("post_edit"), alice)).toMatchObject({ current: 200, blocked: true });
  }, 30_000);
});
