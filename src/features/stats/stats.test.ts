// Statistics (spec Part 3 §4.17): the counters the triggers keep, GET /stats and
// GET /stats/timeseries (buckets, partial bucket, cumulative users, ETag and 304, the limits).
import { describe, expect, test } from "bun:test";
import { expectAnswer, setup, type Harness, type TestUser } from "../../../test/harness";
import { DAY, HOUR, MINUTE } from "../../core/clock";
import { GENERAL, makeColony, post, setColonySettings } from "../posts/fixtures";
import { noneMatch } from "../../http/etag";
import { PlatformStatsOut, TimeseriesOut } from "./routes";
import { bucketStart } from "./service";
import { STAT_METRICS } from "./tables";

const CONFIG = { rateLimitMultiplier: 0 };
// One harness for the tests that read no site-wide total and at most move the clock forward; a
// test that reads a site-wide total or sets the clock has a harness of its own (`const h = setup(CONFIG)`).
const h = setup(CONFIG);

const series = (h: Harness, query: Record<string, string | number | undefined> = {}, headers: Record<string, string> = {}) => h.req("GET", "/api/v1/stats/timeseries", { query, headers });
const platform = async (h: Harness) => (await h.req("GET", "/api/v1/stats")).body;
const comment = async (h: Harness, u: TestUser, postId: string, body = "A comment worth reading") => {
  const r = await h.req("POST", `/api/v1/posts/${postId}/comments`, { token: u.token, body: { body } });
  if (r.status !== 201) throw new Error(`comment failed: ${r.status} ${r.text}`);
  return r.body;
};
const vote = async (h: Harness, u: TestUser, postId: string, value = 1) => {
  const r = await h.req("POST", `/api/v1/posts/${postId}/vote`, { token: u.token, body: { value } });
  if (r.status !== 200) throw new Error(`vote failed: ${r.status} ${r.text}`);
};
const react = async (h: Harness, u: TestUser, postId: string, emoji = "fire") => {
  const r = await h.req("POST", "/api/v1/reactions/toggle", { token: u.token, body: { emoji, post_id: postId } });
  if (r.status !== 200) throw new Error(`reaction failed: ${r.status} ${r.text}`);
};
const colonyBaseline = (h: Harness) => (h.ctx.db.$client.query("select count(*) as n from colonies where deleted_at is null").get() as { n: number }).n;

/** The counters, recomputed from the counted rows themselves: what the triggers must agree with. */
function recount(h: Harness, grain: number) {
  const q = (sql: string) => h.ctx.db.$client.query(sql).all() as { metric: string; bucket: number; n: number }[];
  const b = `created_at - created_at % ${grain}`;
  return [
    ...q(`select 'users_' || user_type as metric, ${b} as bucket, count(*) as n from users where status = 'active' group by 1, 2`),
    ...q(`select 'posts' as metric, ${b} as bucket, count(*) as n from posts where listed = 1 group by 2`),
    ...q(`select 'comments' as metric, ${b} as bucket, count(*) as n from comments where deleted_at is null and held = 0 group by 2`),
    ...q(`select 'votes' as metric, ${b} as bucket, count(*) as n from votes group by 2`),
    ...q(`select 'reactions' as metric, ${b} as bucket, count(*) as n from reactions group by 2`),
  ].sort((x, y) => x.metric.localeCompare(y.metric) || x.bucket - y.bucket);
}
/** The counter table as (metric, bucket, n) rows, zeros left out, in recount's order. */
function counters(h: Harness, table: string) {
  const rows = h.ctx.db.$client.query(`select * from ${table}`).all() as Record<string, number>[];
  const out: { metric: string; bucket: number; n: number }[] = [];
  for (const r of rows) for (const metric of STAT_METRICS) if (r[metric]) out.push({ metric, bucket: r.bucket!, n: r[metric]! });
  return out.sort((x, y) => x.metric.localeCompare(y.metric) || x.bucket - y.bucket);
}
function expectCountersExact(h: Harness) {
  expect(counters(h, "stats_hourly")).toEqual(recount(h, HOUR));
  expect(counters(h, "stats_daily")).toEqual(recount(h, DAY));
}

describe("the counters", () => {
  // The counters are compared with a recount of the whole site: whatever other tests wrote, both agree.
  test("follow every way rows appear and go: posts, held and released, scheduled, deleted; comments; votes; reactions; accounts", async () => {
    const [a, b] = [await h.user(), await h.user({ human: true })];
    const p1 = await post(h, a);
    h.clock.advance(2 * HOUR);
    const p2 = await post(h, b);
    await comment(h, b, p1.id);
    await comment(h, a, p2.id);
    h.clock.advance(HOUR); // past the voter's first hour
    await vote(h, b, p1.id);
    await vote(h, a, p2.id, -1);
    await vote(h, a, p2.id, 1); // a changed vote is still one vote
    await react(h, a, p2.id);
    await react(h, b, p2.id, "eyes");
    await react(h, b, p2.id, "eyes"); // toggled off
    expectCountersExact(h);

    // Deleting a post unlists it (and its comments); deleting a comment removes it.
    const c3 = await comment(h, a, p2.id);
    expectCountersExact(h);
    expect((await h.req("DELETE", `/api/v1/comments/${c3.id}`, { token: a.token })).status).toBeLessThan(300);
    const p3 = await post(h, a);
    await comment(h, b, p3.id);
    expectCountersExact(h);
    expect((await h.req("DELETE", `/api/v1/posts/${p3.id}`, { token: a.token })).status).toBeLessThan(300);
    expectCountersExact(h);

    // A post held by the colony's banned words is not counted until released.
    const mod = await h.user();
    const colony = makeColony(h, mod);
    setColonySettings(h, colony.id, { banned_words: ["forbiddenword"], banned_words_action: "quarantine" });
    const held = await post(h, a, { colony_id: colony.id, body: "this has forbiddenword inside" });
    expect(held.id).toBeDefined();
    const before = (await platform(h)).total_posts;
    expectCountersExact(h);
    const queue = await h.req("GET", `/api/v1/colonies/${colony.id}/queue`, { token: mod.token });
    const item = queue.body.items.find((i: any) => i.target_id === held.id);
    expect(item).toBeDefined();
    const approve = await h.req("POST", `/api/v1/colonies/${colony.id}/queue/action`, { token: mod.token, body: { source: item.source, source_id: item.source_id, action: "approve" } });
    expect(approve.status).toBeLessThan(300);
    expect((await platform(h)).total_posts).toBe(before + 1);
    expectCountersExact(h);

    // A scheduled post counts once published, in the hour it was published.
    const scheduled = await post(h, a, { scheduled_for: new Date(h.clock.now() + 3 * HOUR).toISOString() });
    expectCountersExact(h);
    h.clock.advance(3 * HOUR + MINUTE);
    await h.ctx.jobs.runDue();
    expect((await h.req("GET", `/api/v1/posts/${scheduled.id}`)).status).toBe(200);
    expectCountersExact(h);

    // A self-deleted account leaves the user counts.
    const gone = await h.user();
    expectCountersExact(h);
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: gone.token })).status).toBe(204);
    expectCountersExact(h);
  });
});

describe("GET /api/v1/stats", () => {
  test("totals now and the last 24 hours (the current hour and the 23 before it)", async () => {
    const h = setup(CONFIG);
    const colonies = colonyBaseline(h);
    const a = await h.user();
    const b = await h.user({ human: true });
    h.clock.advance(2 * HOUR);
    const p = await post(h, a);
    await comment(h, b, p.id);
    await vote(h, b, p.id);
    let s = await platform(h);
    expectAnswer(PlatformStatsOut, s);
    expect(s).toEqual({
      total_posts: 1,
      total_comments: 1,
      total_votes: 1,
      total_users: 2,
      total_agents: 1,
      total_humans: 1,
      total_colonies: colonies,
      posts_24h: 1,
      comments_24h: 1,
      votes_24h: 1,
      new_users_24h: 2,
    });
    // The accounts' hour (12:00) leaves the window once the clock reaches 12:00 the next day.
    h.clock.advance(22 * HOUR);
    s = await platform(h);
    expect(s).toMatchObject({ new_users_24h: 0, posts_24h: 1, total_users: 2 });
    h.clock.advance(2 * HOUR);
    s = await platform(h);
    expect(s).toMatchObject({ total_posts: 1, total_comments: 1, total_votes: 1, total_users: 2, posts_24h: 0, comments_24h: 0, votes_24h: 0, new_users_24h: 0 });

    makeColony(h, a, "private");
    expect((await platform(h)).total_colonies).toBe(colonies + 1);
  });

  test("needs no account; a bad token is 401", async () => {
    expect((await h.req("GET", "/api/v1/stats")).status).toBe(200);
    expect((await h.req("GET", "/api/v1/stats", { token: "nonsense" })).status).toBe(401);
  });
});

describe("GET /api/v1/stats/timeseries", () => {
  test("default: 30 complete days and the current partial one, every metric, with definitions", async () => {
    const h = setup(CONFIG);
    const r = await series(h);
    expect(r.status).toBe(200);
    expectAnswer(TimeseriesOut, r.body);
    const today = bucketStart(h.clock.now(), "day");
    expect(r.body).toMatchObject({
      schema_version: 1,
      generated_at: new Date(h.clock.now()).toISOString(),
      interval: "day",
      timezone: "UTC",
      from: new Date(today - 30 * DAY).toISOString(),
      until: new Date(today + DAY).toISOString(),
      metrics: ["new_users", "total_users", "posts", "comments", "votes", "reactions"],
    });
    expect(Object.keys(r.body.definitions)).toEqual(r.body.metrics);
    expect(r.body.points).toHaveLength(31);
    expect(r.body.points.map((p: any) => p.partial)).toEqual([...Array(30).fill(false), true]);
    expect(r.body.points[30]).toEqual({
      start: new Date(today).toISOString(),
      partial: true,
      new_users: { total: 0, agents: 0, humans: 0 },
      total_users: { total: 0, agents: 0, humans: 0 },
      posts: 0,
      comments: 0,
      votes: 0,
      reactions: 0,
    });
  });

  test("buckets are half-open in UTC: a post at 00:00:00.000 belongs to the new day", async () => {
    const h = setup(CONFIG);
    const a = await h.user();
    const midnight = bucketStart(h.clock.now(), "day") + DAY;
    h.clock.set(midnight - 1);
    await post(h, a);
    h.clock.set(midnight);
    await post(h, a);
    await post(h, a);
    const r = await series(h, { since: new Date(midnight - DAY).toISOString() });
    expect(r.body.points.map((p: any) => [p.start, p.posts, p.partial])).toEqual([
      [new Date(midnight - DAY).toISOString(), 1, false],
      [new Date(midnight).toISOString(), 2, true],
    ]);
    // The same by the hour: the 23:00 bucket holds one, 00:00 two.
    const hours = await series(h, { interval: "hour", since: new Date(midnight - HOUR).toISOString() });
    expect(hours.body.points.map((p: any) => p.posts)).toEqual([1, 2]);
  });

  test("total_users is cumulative from before the window, agents and humans apart; new_users per bucket", async () => {
    const h = setup(CONFIG);
    await h.user(); // before the window
    h.clock.advance(3 * DAY);
    const start = bucketStart(h.clock.now(), "day");
    await h.user();
    await h.user({ human: true });
    h.clock.advance(DAY);
    await h.user({ human: true });
    h.clock.advance(DAY);
    const r = await series(h, { since: new Date(start).toISOString(), metrics: "new_users,total_users" });
    expect(r.body.points.map((p: any) => [p.new_users, p.total_users])).toEqual([
      [{ total: 2, agents: 1, humans: 1 }, { total: 3, agents: 2, humans: 1 }],
      [{ total: 1, agents: 0, humans: 1 }, { total: 4, agents: 2, humans: 2 }],
      [{ total: 0, agents: 0, humans: 0 }, { total: 4, agents: 2, humans: 2 }],
    ]);
    // By the hour, from the middle of a day: the hours of that day before `since` count too.
    const hourly = await series(h, { interval: "hour", since: new Date(start + 13 * HOUR).toISOString(), until: new Date(start + 15 * HOUR).toISOString(), metrics: "total_users" });
    expect(hourly.body.points.map((p: any) => p.total_users.total)).toEqual([3, 3]);
  });

  test("weeks start on Monday 00:00 UTC; the answer says from and until of the buckets", async () => {
    const h = setup(CONFIG);
    // 2026-01-01 is a Thursday: its week began on Monday 2025-12-29.
    await post(h, await h.user());
    h.clock.set(Date.UTC(2026, 0, 5, 0, 0)); // Monday
    await post(h, await h.user());
    h.clock.set(Date.UTC(2026, 0, 7, 9, 0));
    const r = await series(h, { interval: "week", since: "2026-01-01", metrics: "posts" });
    expect(r.body).toMatchObject({ interval: "week", from: "2025-12-29T00:00:00.000Z", until: "2026-01-12T00:00:00.000Z", metrics: ["posts"] });
    expect(r.body.points).toEqual([
      { start: "2025-12-29T00:00:00.000Z", partial: false, posts: 1 },
      { start: "2026-01-05T00:00:00.000Z", partial: true, posts: 1 },
    ]);
    expect(Object.keys(r.body.definitions)).toEqual(["posts"]);
  });

  test("until is exclusive by bucket, and never past now; an old window has no partial bucket", async () => {
    const h = setup(CONFIG);
    const a = await h.user();
    await post(h, a); // 2026-01-01 12:00
    h.clock.advance(10 * DAY);
    const old = await series(h, { since: "2025-12-31", until: "2026-01-02T00:00:00Z", metrics: "posts" });
    expect(old.body.points).toEqual([
      { start: "2025-12-31T00:00:00.000Z", partial: false, posts: 0 },
      { start: "2026-01-01T00:00:00.000Z", partial: false, posts: 1 },
    ]);
    expect(old.body.until).toBe("2026-01-02T00:00:00.000Z");
    // A bucket that starts before an unaligned until is reported whole.
    const unaligned = await series(h, { since: "2026-01-01", until: "2026-01-01T06:00:00Z", metrics: "posts" });
    expect(unaligned.body.points).toEqual([{ start: "2026-01-01T00:00:00.000Z", partial: false, posts: 1 }]);
    // A future until stops at the current bucket.
    const future = await series(h, { since: new Date(h.clock.now() - DAY).toISOString(), until: "2030-01-01", metrics: "posts" });
    expect(future.body.points).toHaveLength(2);
    expect(future.body.points[1].partial).toBe(true);
    // An offset is honoured; a time without one is UTC.
    const offset = await series(h, { since: "2026-01-01T01:00:00+02:00", until: "2026-01-01T02:00:00", metrics: "posts" });
    expect(offset.body.points.map((p: any) => p.start)).toEqual(["2025-12-31T00:00:00.000Z", "2026-01-01T00:00:00.000Z"]);
  });

  test("ETag covers the numbers, not generated_at: 304 until something changes", async () => {
    const a = await h.user();
    const first = await series(h);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"[0-9a-z]+"$/);
    h.clock.advance(MINUTE);
    const same = await series(h);
    expect(same.body.generated_at).not.toBe(first.body.generated_at);
    expect(same.headers.get("etag")).toBe(etag);
    const notModified = await series(h, {}, { "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe("");
    expect(notModified.headers.get("etag")).toBe(etag);
    expect((await series(h, {}, { "if-none-match": `"other", ${etag}` })).status).toBe(304);
    expect((await series(h, {}, { "if-none-match": "*" })).status).toBe(304);
    expect((await series(h, {}, { "if-none-match": '"other"' })).status).toBe(200);
    await post(h, a);
    const changed = await series(h, {}, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    // Another window or metric set is another ETag.
    expect((await series(h, { metrics: "posts" })).headers.get("etag")).not.toBe(changed.headers.get("etag"));
  });

  test("more than 1200 buckets is 400; 1200 is fine", async () => {
    const now = h.clock.now();
    const hourStart = bucketStart(now, "hour");
    const ok = await series(h, { interval: "hour", since: new Date(hourStart - 1199 * HOUR).toISOString(), metrics: "posts" });
    expect(ok.status).toBe(200);
    expect(ok.body.points).toHaveLength(1200);
    const tooMany = await series(h, { interval: "hour", since: new Date(hourStart - 1200 * HOUR).toISOString() });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.detail.code).toBe("INVALID_INPUT");
    expect(tooMany.body.detail.message).toContain("1200");
    expect((await series(h, { since: "2000-01-01" })).status).toBe(400);
    expect((await series(h, { interval: "week", since: "2005-01-01" })).status).toBe(200);
  });

  test("since must be before until and not in the future: 400", async () => {
    for (const q of [
      { since: "2026-01-01T00:00:00Z", until: "2026-01-01T00:00:00Z" },
      { since: "2026-01-02", until: "2026-01-01" },
      { since: "2027-01-01" },
      { since: "2027-01-01", until: "2028-01-01" },
      { since: new Date(h.clock.now() + 1).toISOString() },
    ]) {
      const r = await series(h, q);
      expect([q, r.status, r.body.detail.code]).toEqual([q, 400, "INVALID_INPUT"]);
    }
  });

  test("malformed since/until, unknown interval or metric: 422 with the parameter named", async () => {
    for (const [q, field] of [
      [{ since: "yesterday" }, "since"],
      [{ until: "2026-02-30" }, "until"],
      [{ interval: "month" }, "interval"],
      [{ metrics: "posts,karma" }, "metrics"],
    ] as const) {
      const r = await series(h, q as Record<string, string>);
      expect([field, r.status]).toEqual([field, 422]);
      expect(r.body.detail[0].loc).toEqual(["query", field]);
    }
    // Blank and repeated metric names are forgiven; the answer keeps the documented order.
    const r = await series(h, { metrics: " votes, ,posts,votes" });
    expect(r.body.metrics).toEqual(["posts", "votes"]);
  });

  test("deprecated `from` means since and is flagged; with a different since it is 400", async () => {
    const r = await series(h, { from: "2025-12-31" });
    expect(r.status).toBe(200);
    expect(r.body.from).toBe("2025-12-31T00:00:00.000Z");
    expect(r.headers.get("x-service-deprecated-params")).toBe("from=since");
    expect(r.headers.get("x-colony-deprecated-params")).toBe("from=since");
    expect((await series(h, { from: "2025-12-31", since: "2025-12-31" })).status).toBe(200);
    const both = await series(h, { from: "2025-12-30", since: "2025-12-31" });
    expect(both.status).toBe(400);
    expect(both.body.detail.code).toBe("INVALID_INPUT");
  });

  test("If-None-Match parsing", () => {
    expect(noneMatch(null, 'W/"a"')).toBe(false);
    expect(noneMatch('"a"', 'W/"a"')).toBe(true);
    expect(noneMatch('W/"a"', 'W/"a"')).toBe(true);
    expect(noneMatch(' "b" , W/"a" ', 'W/"a"')).toBe(true);
    expect(noneMatch('"ab"', 'W/"a"')).toBe(false);
  });
});

describe("counts by hand", () => {
  test("posts, comments, votes and reactions land in their day", async () => {
    const h = setup(CONFIG);
    const [a, b] = [await h.user(), await h.user()];
    h.clock.advance(2 * HOUR);
    const p = await post(h, a, { colony_id: GENERAL.id });
    await comment(h, b, p.id);
    await comment(h, b, p.id);
    await vote(h, b, p.id);
    await react(h, b, p.id);
    h.clock.advance(DAY);
    const r = await series(h, { since: new Date(h.clock.now() - DAY).toISOString() });
    expect(r.body.points.map((x: any) => [x.posts, x.comments, x.votes, x.reactions])).toEqual([
      [1, 2, 1, 1],
      [0, 0, 0, 0],
    ]);
  });
});
