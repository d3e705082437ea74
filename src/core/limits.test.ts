import { beforeEach, describe, expect, test } from "bun:test";
import { DAY, HOUR, MINUTE, TestClock } from "./clock";
import { ApiError } from "./errors";
import { LIMITS, LIMITS_BY_ACTION, RateLimiter, TRUST_LEVELS, humanWindow, limitRule, rateLimitCode, trustLevelFor, type LimitSubject } from "./limits";

let clock: TestClock;
let limiter: RateLimiter;
const alice: LimitSubject = { userId: "alice", ip: "10.0.0.1", karma: 0, createdAt: Date.UTC(2025, 0, 1) };
const bob: LimitSubject = { userId: "bob", ip: "10.0.0.2", karma: 0, createdAt: Date.UTC(2025, 0, 1) };

beforeEach(() => {
  clock = new TestClock();
  limiter = new RateLimiter(clock, 1);
});

/** Consumes until refused; returns how many attempts were allowed. */
function fill(actions: string[], subject: LimitSubject, discriminator?: string, cap = 1000): number {
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

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("the LIMITS table", () => {
  test("every rule has a unique action, a positive window and max, a scope and a source", () => {
    const actions = LIMITS.map((r) => r.action);
    expect(new Set(actions).size).toBe(actions.length);
    for (const r of LIMITS) {
      expect(r.action).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(r.description.length).toBeGreaterThan(0);
      expect(Number.isInteger(r.windowMs) && r.windowMs > 0).toBe(true);
      expect(r.windowMs % 1000).toBe(0);
      expect(Number.isInteger(r.max) && r.max > 0).toBe(true);
      expect(["user", "ip", "global"]).toContain(r.scope);
      expect(r.source).toMatch(/^(part[123] §\d+(\.\d+)?|config)$/);
      if (r.adminMax !== undefined) expect(r.adminMax).toBeGreaterThan(r.max);
      if (r.newAccountMax !== undefined) expect(r.newAccountMax).toBeGreaterThan(0);
      expect(rateLimitCode(r)).toMatch(/^RATE_LIMIT_[A-Z0-9_]+$/);
    }
  });

  test("429 codes are unique", () => {
    const codes = LIMITS.map(rateLimitCode);
    expect(new Set(codes).size).toBe(codes.length);
  });

  test.each([
    // Spec Part 1 §8.2
    ["vote_hourly", HOUR, 10, "user", 100],
    ["post_edit", HOUR, 10, "user", undefined],
    ["post_delete", HOUR, 10, "user", undefined],
    ["comment_edit", HOUR, 30, "user", undefined],
    ["comment_delete", HOUR, 30, "user", undefined],
    ["comment_reparent", HOUR, 10, "user", undefined],
    ["og_image_disable", HOUR, 20, "user", undefined],
    ["og_image_disable_ip", HOUR, 60, "ip", undefined],
    ["notification_delete", HOUR, 120, "user", undefined],
    ["notification_batch", HOUR, 60, "user", undefined],
    ["notification_delete_read", HOUR, 30, "user", undefined],
    ["report", HOUR, 10, "user", undefined],
    ["avatar_upload", HOUR, 5, "user", undefined],
    ["avatar_upload_daily", DAY, 10, "user", undefined],
  ] as const)("Part 1 §8.2: %s", (action, windowMs, max, scope, adminMax) => {
    const r = limitRule(action);
    expect(r).toMatchObject({ windowMs, max, scope, source: "part1 §8.2" });
    expect(r.adminMax).toBe(adminMax);
  });

  test("LIMITS_BY_ACTION and limitRule find every rule; an unknown action throws", () => {
    for (const r of LIMITS) expect(LIMITS_BY_ACTION.get(r.action)).toBe(r);
    expect(() => limitRule("no_such_action")).toThrow('unknown rate-limit action "no_such_action"');
  });

  test("the 429 code is RATE_LIMIT_<ACTION> unless a rule names its own", () => {
    expect(rateLimitCode(limitRule("vote_hourly"))).toBe("RATE_LIMIT_VOTE_HOURLY");
    expect(rateLimitCode({ ...limitRule("report"), code: "RATE_LIMITED" })).toBe("RATE_LIMITED");
  });
});

describe("trust levels", () => {
  test.each([
    [-50, "Newcomer", 1],
    [0, "Newcomer", 1],
    [9, "Newcomer", 1],
    [10, "Member", 1.5],
    [49, "Member", 1.5],
    [50, "Trusted", 2],
    [199, "Trusted", 2],
    [200, "Veteran", 3],
    [1_000_000, "Veteran", 3],
  ] as const)("karma %p -> %s x%p", (karma, name, mult) => {
    expect(trustLevelFor(karma)).toMatchObject({ name, rate_multiplier: mult });
  });

  test("levels ascend in karma and multiplier", () => {
    for (let i = 1; i < TRUST_LEVELS.length; i++) {
      expect(TRUST_LEVELS[i].min_karma).toBeGreaterThan(TRUST_LEVELS[i - 1].min_karma);
      expect(TRUST_LEVELS[i].rate_multiplier).toBeGreaterThan(TRUST_LEVELS[i - 1].rate_multiplier);
    }
  });
});

// The window's behaviour itself (filling, sliding, refusals charging nothing, all or nothing) is
// tested against both stores in limit-store.test.ts.
describe("sliding window", () => {
  test("retry_after rounds up to whole seconds and is at least 1", () => {
    fill(["post_edit"], alice);
    clock.advance(HOUR - 1_500);
    expect(refusal(() => limiter.consume(["post_edit"], alice)).extra.retry_after).toBe(2);
  });

  test("the daily avatar cap applies across hourly windows", () => {
    let uploads = 0;
    for (let hour = 0; hour < 5; hour++) {
      for (let i = 0; i < 5; i++) {
        try {
          limiter.consume(["avatar_upload", "avatar_upload_daily"], alice);
          uploads++;
        } catch (err) {
          expect((err as ApiError).code).toMatch(/^RATE_LIMIT_AVATAR_UPLOAD/);
        }
      }
      clock.advance(HOUR);
    }
    expect(uploads).toBe(10);
  });

  test("a refund gives the attempt back", () => {
    const charges = [];
    for (let i = 0; i < 10; i++) charges.push(...limiter.consume(["post_edit"], alice));
    expect(() => limiter.consume(["post_edit"], alice)).toThrow(ApiError);
    limiter.refund(charges.slice(0, 3));
    expect(limiter.status(limitRule("post_edit"), alice)).toMatchObject({ current: 7, remaining: 3, blocked: false, retry_after: null });
    expect(fill(["post_edit"], alice)).toBe(3);
    limiter.refund([{ key: "post_edit|nobody", at: 1 }]); // unknown charges are ignored
  });

  test("tryConsume charges like consume but answers false instead of a 429", () => {
    for (let i = 0; i < 10; i++) expect(limiter.tryConsume(["post_edit"], alice)).toBe(true);
    expect(limiter.tryConsume(["post_edit"], alice)).toBe(false);
    expect(limiter.status(limitRule("post_edit"), alice).current).toBe(10);
    expect(() => limiter.tryConsume(["no_such_action"], alice)).toThrow("unknown rate-limit action");
  });

  test("reset clears every bucket", () => {
    fill(["post_edit"], alice);
    limiter.reset();
    expect(limiter.status(limitRule("post_edit"), alice).current).toBe(0);
  });
});

describe("scopes and keys", () => {
  test("per-user buckets are separate", () => {
    expect(fill(["post_edit"], alice)).toBe(10);
    expect(fill(["post_edit"], bob)).toBe(10);
  });

  test("actions are separate buckets", () => {
    expect(fill(["post_edit"], alice)).toBe(10);
    expect(fill(["post_delete"], alice)).toBe(10);
  });

  test("per-IP rules key on the address, whoever the user", () => {
    const sameIp = { ...bob, ip: alice.ip };
    expect(fill(["og_image_disable_ip"], alice, undefined, 40)).toBe(40);
    expect(fill(["og_image_disable_ip"], sameIp)).toBe(20);
    expect(fill(["og_image_disable_ip"], bob)).toBe(60);
    expect(fill(["register"], { ip: "192.0.2.1" })).toBe(10);
  });

  test("global rules are shared by everyone", () => {
    let n = 0;
    for (let i = 0; i < 60; i++) {
      limiter.consume(["tip_global"], i % 2 ? alice : bob);
      n++;
    }
    expect(fill(["tip_global"], { userId: "carol", ip: "10.9.9.9" })).toBe(100 - n);
  });

  test("a discriminator splits a bucket (e.g. edits of one wiki page)", () => {
    expect(fill(["wiki_page_edits"], alice, "page-a")).toBe(10);
    expect(fill(["wiki_page_edits"], alice, "page-b")).toBe(10);
  });

  test("an anonymousOnly rule limits callers without an account by address, and never an account", () => {
    expect(limitRule("search_ip").anonymousOnly).toBe(true);
    expect(fill(["search_ip"], { ip: alice.ip })).toBe(30);
    expect(fill(["search_ip"], alice, undefined, 50)).toBe(50);
    expect(fill(["search", "search_ip"], { ip: bob.ip })).toBe(30);
    expect(fill(["search", "search_ip"], bob)).toBe(60);
  });

  test("a subject without the scope's key is not limited by that rule", () => {
    expect(fill(["post_edit"], { ip: "10.0.0.9" }, undefined, 50)).toBe(50);
    expect(fill(["register"], { userId: "alice" }, undefined, 50)).toBe(50);
  });
});

describe("ceilings", () => {
  const rule = (a: string) => limitRule(a);

  test("the trust multiplier scales per-user limits", () => {
    expect(limiter.maxFor(rule("post_edit"), { userId: "u", karma: 0 })).toBe(10);
    expect(limiter.maxFor(rule("post_edit"), { userId: "u", karma: 10 })).toBe(15);
    expect(limiter.maxFor(rule("post_edit"), { userId: "u", karma: 50 })).toBe(20);
    expect(limiter.maxFor(rule("post_edit"), { userId: "u", karma: 200 })).toBe(30);
    expect(limiter.maxFor(rule("comment_edit"), { userId: "u", karma: 10 })).toBe(45);
    expect(fill(["post_edit"], { userId: "member", karma: 10 })).toBe(15);
  });

  test("trust does not scale rules marked trustScaled: false, nor IP or global rules", () => {
    expect(limiter.maxFor(rule("avatar_upload"), { userId: "u", karma: 500 })).toBe(5);
    expect(limiter.maxFor(rule("og_image_disable_ip"), { userId: "u", ip: "1.2.3.4", karma: 500 })).toBe(60);
    expect(limiter.maxFor(rule("tip_global"), { userId: "u", karma: 500 })).toBe(100);
  });

  test("admins get adminMax where a rule has one", () => {
    expect(limiter.maxFor(rule("vote_hourly"), { userId: "a", isAdmin: true, karma: 0 })).toBe(100);
    expect(limiter.maxFor(rule("vote_hourly"), { userId: "a", isAdmin: false, karma: 0 })).toBe(10);
    expect(limiter.maxFor(rule("post_edit"), { userId: "a", isAdmin: true, karma: 0 })).toBe(10);
    expect(fill(["vote_hourly"], { userId: "admin", isAdmin: true })).toBe(100);
  });

  test("newAccountMax applies during the first 7 days of an account", () => {
    const send = rule("send_message");
    const now = clock.now();
    expect(limiter.maxFor(send, { userId: "n", createdAt: now })).toBe(10);
    expect(limiter.maxFor(send, { userId: "n", createdAt: now - 7 * DAY + 1 })).toBe(10);
    expect(limiter.maxFor(send, { userId: "n", createdAt: now - 7 * DAY })).toBe(60);
    expect(limiter.maxFor(send, { userId: "n" })).toBe(60); // age unknown: the normal ceiling

    const fresh = { userId: "fresh", createdAt: now };
    expect(fill(["send_message"], fresh)).toBe(10);
    clock.advance(7 * DAY);
    expect(fill(["send_message"], fresh)).toBe(60);
  });

  test("the instance multiplier scales every ceiling", () => {
    const doubled = new RateLimiter(clock, 2);
    expect(doubled.maxFor(rule("post_edit"), { userId: "u" })).toBe(20);
    expect(doubled.maxFor(rule("register"), { ip: "1.1.1.1" })).toBe(20);
    const tiny = new RateLimiter(clock, 0.01);
    expect(tiny.maxFor(rule("post_edit"), { userId: "u" })).toBe(1); // never below 1
  });

  test("multiplier 0 turns limiting off", () => {
    const off = new RateLimiter(clock, 0);
    expect(off.enabled).toBe(false);
    for (let i = 0; i < 500; i++) expect(off.consume(["post_edit", "register"], alice)).toEqual([]);
    expect(off.status(rule("post_edit"), alice)).toMatchObject({ current: 0, blocked: false, retry_after: null });
    expect(limiter.enabled).toBe(true);
  });
});

describe("status", () => {
  test("reports usage the way GET /limits/me shows it", () => {
    const r = limitRule("post_edit");
    expect(limiter.status(r, alice)).toEqual({
      action: "post_edit",
      description: r.description,
      window_seconds: 3600,
      max: 10,
      current: 0,
      remaining: 10,
      blocked: false,
      retry_after: null,
    });
    fill(["post_edit"], alice);
    clock.advance(10 * MINUTE);
    expect(limiter.status(r, alice)).toMatchObject({ current: 10, remaining: 0, blocked: true, retry_after: 50 * 60 });
    clock.advance(50 * MINUTE);
    expect(limiter.status(r, alice)).toMatchObject({ current: 0, remaining: 10, blocked: false, retry_after: null });
  });

  test("reading status charges nothing", () => {
    for (let i = 0; i < 30; i++) limiter.status(limitRule("post_edit"), alice);
    expect(fill(["post_edit"], alice)).toBe(10);
  });
});

describe("humanWindow", () => {
  test.each([
    [1_000, "second"],
    [30_000, "30 seconds"],
    [MINUTE, "minute"],
    [5 * MINUTE, "5 minutes"],
    [HOUR, "hour"],
    [2 * HOUR, "2 hours"],
    [DAY, "day"],
    [3 * DAY, "3 days"],
    [7 * DAY, "week"],
    [14 * DAY, "2 weeks"],
  ] as const)("%p -> %p", (ms, text) => {
    expect(humanWindow(ms)).toBe(text);
  });
});
