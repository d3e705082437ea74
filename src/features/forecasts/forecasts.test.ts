// Forecasts (spec Part 3 §4.8): create (probability and date rules), list filters and sorts,
// resolve (author or admin, once), the Brier score, correct count and buckets, the leaderboard's
// five-resolution floor, and the reminder when the date passes unresolved (test clock).
import { describe, expect, test } from "bun:test";
import { dbState } from "../../../test/db-state";
import { setup, type Harness } from "../../../test/harness";
import { DAY } from "../../core/clock";

const h = setup();
type U = Awaited<ReturnType<Harness["user"]>>;

const date = (daysAhead: number) => new Date(h.clock.now() + daysAhead * DAY).toISOString().slice(0, 10);
const fresh = h.fresh;
const predict = async (u: U, body: Record<string, unknown> = {}) => {
  const r = await h.req("POST", "/api/v1/forecasts", { token: u.token, body: { title: "Will it rain in Lisbon?", probability: 0.7, resolution_date: date(3), ...body } });
  expect(r.status).toBe(201);
  return r.body;
};
const resolve = (u: U, id: string, outcome: string) => h.req("POST", `/api/v1/forecasts/${id}/resolve`, { token: u.token, body: { outcome } });

describe("forecasts", () => {
  test("create answers ForecastOut; read it back", async () => {
    const a = await h.user();
    const f = await predict(a, { body: "Looking at the models." });
    expect(f).toEqual({
      id: expect.any(String),
      author: { id: a.id, username: a.username, display_name: expect.any(String) },
      title: "Will it rain in Lisbon?",
      body: "Looking at the models.",
      probability: 0.7,
      resolution_date: date(3),
      status: "open",
      resolved_at: null,
      resolved_by_id: null,
      created_at: expect.any(String),
    });
    expect((await h.req("GET", `/api/v1/forecasts/${f.id}`)).body).toEqual(f);
    expect((await h.req("GET", `/api/v1/forecasts/${crypto.randomUUID()}`)).status).toBe(404);
  });

  test("probability outside 0.01-0.99, a date today or past or malformed, a short title: 4xx and nothing made", async () => {
    const a = await h.user();
    const before = dbState(h);
    for (const body of [{ probability: 0 }, { probability: 1 }, { probability: 0.995 }, { resolution_date: date(0) }, { resolution_date: date(-1) }, { resolution_date: "2030-02-30" }, { resolution_date: "soon" }, { title: "Short" }, { title: "   too short    " }]) {
      const r = await h.req("POST", "/api/v1/forecasts", { token: a.token, body: { title: "Will it rain in Lisbon?", probability: 0.7, resolution_date: date(3), ...body } });
      expect([JSON.stringify(body), r.status >= 400 && r.status < 500]).toEqual([JSON.stringify(body), true]);
      if (r.status === 400) expect(r.body.detail.code).toBe("INVALID_INPUT");
    }
    expect(dbState(h)).toEqual(before);
    expect((await predict(a, { resolution_date: date(1), probability: 0.01 })).probability).toBe(0.01);
    expect((await h.req("POST", "/api/v1/forecasts", { body: { title: "Anonymous forecast", probability: 0.5, resolution_date: date(2) } })).status).toBe(401);
  });

  test("resolve: author or admin, once; others 403; voided reads back as voided", async () => {
    const [a, b, admin] = [await h.user(), await h.user(), await h.user({ admin: true })];
    const f = await predict(a);
    const before = dbState(h);
    const r403 = await resolve(b, f.id, "yes");
    expect([r403.status, r403.body.detail.code]).toEqual([403, "FORBIDDEN"]);
    expect(dbState(h)).toEqual(before);
    const ok = await resolve(a, f.id, "yes");
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: "resolved_yes", resolved_by_id: a.id, resolved_at: expect.any(String) });
    const again = await resolve(a, f.id, "no");
    expect([again.status, again.body.detail.code]).toEqual([400, "INVALID_INPUT"]);
    const g = await predict(a);
    expect((await resolve(admin, g.id, "voided")).body).toMatchObject({ status: "voided", resolved_by_id: admin.id });
    expect((await resolve(a, (await predict(a)).id, "maybe")).status).toBe(422);
    expect((await resolve(a, crypto.randomUUID(), "yes")).status).toBe(404);
  });

  test("list: every status filter, author by id or username, the three sorts", async () => {
    const a = await h.user();
    const low = await predict(a, { probability: 0.2, resolution_date: date(9) });
    h.clock.advance(1000);
    const high = await predict(a, { probability: 0.9, resolution_date: date(2) });
    h.clock.advance(1000);
    const mid = await predict(a, { probability: 0.5, resolution_date: date(5) });
    h.clock.advance(1000);
    const yes = await predict(a, { probability: 0.6 });
    const no = await predict(a, { probability: 0.6 });
    const voided = await predict(a, { probability: 0.6 });
    await resolve(a, yes.id, "yes");
    await resolve(a, no.id, "no");
    await resolve(a, voided.id, "void");
    const ids = async (query: Record<string, string>) => (await h.req("GET", "/api/v1/forecasts", { query: { author_id: a.id, limit: "100", ...query } })).body.items.map((f: any) => f.id);
    expect(await ids({ status: "open" })).toEqual([mid.id, high.id, low.id]);
    expect(await ids({ status: "resolved_yes" })).toEqual([yes.id]);
    expect(await ids({ status: "resolved_no" })).toEqual([no.id]);
    expect(await ids({ status: "voided" })).toEqual([voided.id]);
    expect((await ids({ status: "resolved" })).sort()).toEqual([yes.id, no.id].sort());
    expect(await ids({ status: "open", sort: "resolution_date" })).toEqual([high.id, mid.id, low.id]);
    expect(await ids({ status: "open", sort: "probability" })).toEqual([high.id, mid.id, low.id]);
    expect(await ids({ status: "open", author_id: a.username })).toEqual([mid.id, high.id, low.id]);
    const unknown = await h.req("GET", "/api/v1/forecasts", { query: { author_id: "nobody-at-all" } });
    expect(unknown.status).toBe(404);
    expect((await h.req("GET", "/api/v1/forecasts", { query: { status: "closed" } })).status).toBe(422);
  });

  test("calibration: Brier score, correct count (0.5 calls nothing), buckets in tenths; voided left out", async () => {
    const a = await h.user();
    const cases: [number, string][] = [
      [0.9, "yes"], // (0.1)² = 0.01, correct
      [0.3, "no"], // 0.09, correct; 0.3 sits in [0.3, 0.4)
      [0.35, "yes"], // 0.4225, wrong
      [0.5, "yes"], // 0.25, calls nothing
      [0.8, "void"], // left out
    ];
    for (const [p, outcome] of cases) await resolve(a, (await predict(a, { probability: p })).id, outcome);
    await predict(a); // open: left out
    const r = await h.req("GET", `/api/v1/forecasts/calibration/${a.username}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      user: { id: a.id, username: a.username, display_name: expect.any(String) },
      total_resolved: 4,
      brier_score: Math.round(((0.01 + 0.09 + 0.4225 + 0.25) / 4) * 10_000) / 10_000,
      correct_count: 2,
      buckets: [
        { range_low: 0.3, range_high: 0.4, predicted_avg: 0.325, actual_rate: 0.5, count: 2 },
        { range_low: 0.5, range_high: 0.6, predicted_avg: 0.5, actual_rate: 1, count: 1 },
        { range_low: 0.9, range_high: 1, predicted_avg: 0.9, actual_rate: 1, count: 1 },
      ],
    });
    const none = await h.req("GET", `/api/v1/forecasts/calibration/${(await h.user()).id}`);
    expect(none.body).toMatchObject({ total_resolved: 0, brier_score: null, correct_count: 0, buckets: [] });
    expect((await h.req("GET", "/api/v1/forecasts/calibration/nobody-at-all")).status).toBe(404);
  });

  test("leaderboard: five yes/no resolutions to qualify, lowest Brier first", async () => {
    const [good, bad, few] = [await h.user(), await h.user(), await h.user()];
    for (let i = 0; i < 5; i++) await resolve(good, (await predict(good, { probability: 0.9 })).id, "yes");
    for (let i = 0; i < 5; i++) await resolve(bad, (await predict(bad, { probability: 0.6 })).id, "no");
    for (let i = 0; i < 4; i++) await resolve(few, (await predict(few, { probability: 0.99 })).id, "yes");
    await resolve(few, (await predict(few)).id, "void");
    const r = await h.req("GET", "/api/v1/forecasts/leaderboard/top");
    expect(r.status).toBe(200);
    expect(r.body.min_resolved).toBe(5);
    const mine = r.body.entries.filter((e: any) => [good.id, bad.id, few.id].includes(e.user.id));
    expect(mine).toEqual([
      { user: { id: good.id, username: good.username, display_name: expect.any(String) }, brier_score: 0.01, total_resolved: 5, correct_count: 5 },
      { user: { id: bad.id, username: bad.username, display_name: expect.any(String) }, brier_score: 0.36, total_resolved: 5, correct_count: 0 },
    ]);
    expect((await h.req("GET", "/api/v1/forecasts/leaderboard/top", { query: { limit: 51 } })).status).toBe(422);
  });

  test("the author is reminded once when the resolution date passes unresolved, not before, not if resolved", async () => {
    const a = await h.user();
    const open = await predict(a, { resolution_date: date(2) });
    const done = await predict(a, { resolution_date: date(2) });
    await resolve(a, done.id, "no");
    const reminders = async () =>
      (await h.req("GET", "/api/v1/notifications", { token: (await fresh(a)).token })).body.filter((n: any) => n.notification_type === "forecast_resolution_due");
    h.clock.advance(2 * DAY);
    await h.ctx.jobs.runDue();
    await h.ctx.events.drain();
    expect(await reminders()).toEqual([]);
    h.clock.advance(DAY);
    await h.ctx.jobs.runDue();
    await h.ctx.events.drain();
    const told = await reminders();
    expect(told).toHaveLength(1);
    expect(told[0].message).toBe('The resolution date of your forecast "Will it rain in Lisbon?" has passed: resolve it yes, no or void');
    const { remindAuthor } = await import("./service");
    remindAuthor(h.ctx, open.id);
    await h.ctx.events.drain();
    expect(await reminders()).toHaveLength(1);
  });

  test("create is rate limited (forecast_create, 10 an hour)", async () => {
    const a = await h.user();
    for (let i = 0; i < 10; i++) await predict(a);
    expect((await h.req("POST", "/api/v1/forecasts", { token: a.token, body: { title: "One forecast too many", probability: 0.5, resolution_date: date(2) } })).status).toBe(429);
  });
});
