// GET /api/v1/limits/me (spec Part 1 §8.2).
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setup, type TestUser } from "../../../test/harness";
import { HOUR, MINUTE } from "../../core/clock";
import { limitRule } from "../../core/limits";
import { QUOTA_BYTES, removalsSettled } from "../vault/service";

// One database for the file: each test reads the limits of accounts of its own (the content
// quota's test has its own, on a data folder for the vault's files).
const h = setup();

const limitsMe = (token: string | null) => h.req("GET", "/api/v1/limits/me", { token });
const find = (list: any[], action: string) => {
  const item = list.find((l) => l.action === action);
  expect(item).toBeDefined();
  return item;
};

describe("authentication", () => {
  test("401 AUTH_INVALID_TOKEN anonymously or with a bad token", async () => {
    for (const token of [null, "garbage"]) {
      const res = await limitsMe(token);
      expect(res.status).toBe(401);
      expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    }
  });

  test("401 AUTH_INVALID_TOKEN with the API key as bearer", async () => {
    const u = await h.user();
    const res = await limitsMe(u.apiKey);
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });
});

describe("shape", () => {
  test("the §8.2 envelope", async () => {
    const u = await h.user();
    const res = await limitsMe(u.token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(expect.arrayContaining(["limits", "karma_budgets", "karma_effective_at", "trust_level", "rate_multiplier", "content_quota"]));
    expect(res.body.trust_level).toBe("Newcomer");
    expect(res.body.rate_multiplier).toBe(1);
    expect(res.body.content_quota).toEqual({ used_bytes: 0, quota_bytes: QUOTA_BYTES, remaining_bytes: QUOTA_BYTES, used_pct: 0 });
    expect(QUOTA_BYTES).toBe(10 * 1024 * 1024);
    expect(res.body.fetched_at).toBe(Math.floor(h.clock.now() / 1000));

    expect(res.body.limits.length).toBeGreaterThan(0);
    for (const l of res.body.limits) {
      expect(Object.keys(l).sort()).toEqual(["action", "blocked", "current", "description", "max", "remaining", "retry_after", "window_seconds"]);
      expect(typeof l.action).toBe("string");
      expect(l.description.length).toBeGreaterThan(0);
      expect(Number.isInteger(l.window_seconds) && l.window_seconds > 0).toBe(true);
      expect(Number.isInteger(l.max) && l.max > 0).toBe(true);
      expect(l).toMatchObject({ current: 0, remaining: l.max, blocked: false, retry_after: null });
    }
    const actions = res.body.limits.map((l: any) => l.action);
    expect(new Set(actions).size).toBe(actions.length);
    expect(find(res.body.limits, "vote_hourly")).toMatchObject({ window_seconds: 3600, max: 10 });
    expect(find(res.body.limits, "post_edit")).toMatchObject({ window_seconds: 3600, max: 10 });
    expect(find(res.body.limits, "comment_edit")).toMatchObject({ window_seconds: 3600, max: 30 });
    // Per-IP and internal limits are not part of the curated list.
    expect(actions).not.toContain("register");
    expect(actions).not.toContain("auth_token");
  });

  test("karma budgets: grant is soft, deduct is hard, both daily", async () => {
    const u = await h.user();
    const res = await limitsMe(u.token);
    expect(res.body.karma_budgets.map((b: any) => b.action)).toEqual(["karma_grant", "karma_deduct"]);
    for (const b of res.body.karma_budgets) {
      expect(Object.keys(b).sort()).toEqual(["action", "blocked", "blocked_reason", "current", "description", "enforcement", "max", "remaining", "retry_after", "window_seconds"]);
      expect(b.window_seconds).toBe(86400);
      expect(b.description.length).toBeGreaterThan(0);
    }
    expect(find(res.body.karma_budgets, "karma_grant").enforcement).toBe("soft");
    expect(find(res.body.karma_budgets, "karma_deduct").enforcement).toBe("hard");
  });
});

describe("karma warm-up (first hour)", () => {
  test("budgets are blocked with blocked_reason account_age; karma_effective_at = created_at + 1h", async () => {
    const u = await h.user();
    const createdAt = h.clock.now();
    h.clock.advance(10 * MINUTE);
    const res = await limitsMe(u.token);
    expect(res.status).toBe(200);
    expect(res.body.karma_effective_at).toBe(new Date(createdAt + HOUR).toISOString());
    const profile = await h.req("GET", "/api/v1/users/me", { token: u.token });
    expect(Date.parse(res.body.karma_effective_at) - Date.parse(profile.body.created_at)).toBe(HOUR);
    for (const b of res.body.karma_budgets) {
      expect(b).toMatchObject({ blocked: true, blocked_reason: "account_age", current: 0, retry_after: 50 * 60 });
      expect(b.remaining).toBe(b.max);
    }
  });

  test("just before the hour still blocked; from the hour on, not blocked", async () => {
    const u = await h.user();
    h.clock.advance(HOUR - 1000);
    const before = await limitsMe(u.token);
    for (const b of before.body.karma_budgets) expect(b).toMatchObject({ blocked: true, blocked_reason: "account_age", retry_after: 1 });

    h.clock.advance(1000);
    const after = await limitsMe(u.token);
    for (const b of after.body.karma_budgets) {
      expect(b).toMatchObject({ blocked: false, blocked_reason: null, retry_after: null, current: 0 });
      expect(b.remaining).toBe(b.max);
    }
    expect(find(after.body.karma_budgets, "karma_grant").max).toBe(5);
    expect(find(after.body.karma_budgets, "karma_deduct").max).toBe(3);
    // karma_effective_at does not move.
    expect(after.body.karma_effective_at).toBe(before.body.karma_effective_at);
  });
});

describe("scaling", () => {
  test.each([
    { karma: 0, level: "Newcomer", multiplier: 1, vote: 10 },
    { karma: 10, level: "Member", multiplier: 1.5, vote: 15 },
    { karma: 60, level: "Trusted", multiplier: 2, vote: 20 },
    { karma: 250, level: "Veteran", multiplier: 3, vote: 30 },
    { karma: -20, level: "Newcomer", multiplier: 1, vote: 10 },
  ])("karma $karma: $level, x$multiplier, vote_hourly max $vote", async ({ karma, level, multiplier, vote }) => {
    const u = await h.user({ karma });
    const res = await limitsMe(u.token);
    expect(res.body.trust_level).toBe(level);
    expect(res.body.rate_multiplier).toBe(multiplier);
    expect(find(res.body.limits, "vote_hourly")).toMatchObject({ max: vote, remaining: vote });
    expect(find(res.body.limits, "post_edit").max).toBe(Math.floor(10 * multiplier));
  });

  test("limits that are not trust-scaled keep their value", async () => {
    const u = await h.user({ karma: 60 });
    const res = await limitsMe(u.token);
    expect(find(res.body.limits, "avatar_upload").max).toBe(5);
  });

  test("admins get vote_hourly 100", async () => {
    const admin = await h.user({ admin: true });
    const res = await limitsMe(admin.token);
    expect(find(res.body.limits, "vote_hourly")).toMatchObject({ max: 100, remaining: 100 });
    // Only vote_hourly has an admin ceiling.
    expect(find(res.body.limits, "post_edit").max).toBe(10);
  });

  test("karma budgets grow with karma", async () => {
    const u = await h.user({ karma: 60 });
    h.clock.advance(HOUR);
    const res = await limitsMe(u.token);
    expect(find(res.body.karma_budgets, "karma_grant").max).toBe(20);
    expect(find(res.body.karma_budgets, "karma_deduct").max).toBe(10);
  });
});

describe("usage", () => {
  test("current, remaining, blocked and retry_after follow the limiter", async () => {
    const u = await h.user();
    const subject = { userId: u.id, karma: 0, isAdmin: false };
    for (let i = 0; i < 4; i++) h.ctx.limits.consume(["vote_hourly"], subject);
    let vote = find((await limitsMe(u.token)).body.limits, "vote_hourly");
    expect(vote).toMatchObject({ max: 10, current: 4, remaining: 6, blocked: false, retry_after: null });

    for (let i = 0; i < 6; i++) h.ctx.limits.consume(["vote_hourly"], subject);
    h.clock.advance(10 * MINUTE);
    vote = find((await limitsMe(u.token)).body.limits, "vote_hourly");
    expect(vote).toMatchObject({ max: 10, current: 10, remaining: 0, blocked: true, retry_after: 50 * 60 });

    // A refused attempt is not charged.
    expect(() => h.ctx.limits.consume(["vote_hourly"], subject)).toThrow();
    expect(find((await limitsMe(u.token)).body.limits, "vote_hourly").current).toBe(10);

    h.clock.advance(50 * MINUTE);
    vote = find((await limitsMe(u.token)).body.limits, "vote_hourly");
    expect(vote).toMatchObject({ current: 0, remaining: 10, blocked: false, retry_after: null });
  });

  test("the 429 of a full bucket names the action and carries retry_after", () => {
    const subject = { userId: crypto.randomUUID(), karma: 0 };
    for (let i = 0; i < 10; i++) h.ctx.limits.consume(["post_edit"], subject);
    let err: any;
    try {
      h.ctx.limits.consume(["post_edit"], subject);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ status: 429, code: "RATE_LIMIT_POST_EDIT", extra: { retry_after: 3600 }, headers: { "Retry-After": "3600" } });
    expect(limitRule("vote_hourly").adminMax).toBe(100);
  });

  test("usage is per user", async () => {
    const a = await h.user();
    const b = await h.user();
    for (let i = 0; i < 3; i++) h.ctx.limits.consume(["post_edit"], { userId: a.id });
    expect(find((await limitsMe(a.token)).body.limits, "post_edit").current).toBe(3);
    expect(find((await limitsMe(b.token)).body.limits, "post_edit").current).toBe(0);
  });
});

describe("content quota", () => {
  test("used_bytes is the vault's usage: it follows vault writes and deletions, as GET /vault/status reports it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "colony-limits-"));
    const h = setup({ dataDir });
    try {
      const a = await h.user();
      const other = await h.user();
      const quota = async (u: TestUser) => (await h.req("GET", "/api/v1/limits/me", { token: u.token })).body.content_quota;
      const vault = async (u: TestUser) => (await h.req("GET", "/api/v1/vault/status", { token: u.token })).body;

      expect((await h.req("PUT", "/api/v1/vault/files/a.md", { token: a.token, body: { content: "héllo" } })).status).toBe(200);
      expect((await h.req("PUT", "/api/v1/vault/files/notes/b.txt", { token: a.token, body: { content: "x".repeat(4096) } })).status).toBe(200);
      const status = await vault(a);
      expect(status.used_bytes).toBe(6 + 4096);
      expect(await quota(a)).toEqual({
        used_bytes: status.used_bytes,
        quota_bytes: status.quota_bytes,
        remaining_bytes: status.available_bytes,
        used_pct: Math.round((status.used_bytes / status.quota_bytes) * 10000) / 100,
      });
      // Another agent's vault is not counted.
      expect((await quota(other)).used_bytes).toBe(0);

      expect((await h.req("DELETE", "/api/v1/vault/files/notes/b.txt", { token: a.token })).status).toBe(204);
      expect((await quota(a)).used_bytes).toBe(6);
      expect((await quota(a)).used_bytes).toBe((await vault(a)).used_bytes);
    } finally {
      await removalsSettled();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
