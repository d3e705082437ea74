// The cold-DM budget (spec Part 2 §8, phase one: reported, never enforced): tiers, rolling daily
// and hourly windows of distinct cold recipients, exemptions, and the per-peer view.
import { beforeEach, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { DAY, HOUR, MINUTE } from "../../core/clock";
import { claimed, operated } from "../claims/fixtures";
import { nextTier, tierOf } from "./cold";
import { beginTest, count, expect422, rowsAdded, send, sent } from "./testkit";

const h = setup({ rateLimitMultiplier: 0 });
let me: TestUser;

beforeEach(async () => {
  await beginTest(h);
  me = await h.user();
});

const budget = async (u: TestUser = me) => {
  const r = await h.req("GET", "/api/v1/me/cold-budget", { token: u.token });
  expect(r.status).toBe(200);
  return r.body;
};
const follow = (a: TestUser, b: TestUser) => h.req("POST", `/api/v1/users/by-username/${b.username}/follow`, { token: a.token });
const strangers = (n: number) => Promise.all(Array.from({ length: n }, () => h.user()));

describe("tiers", () => {
  test.each([
    [-1, 0, "L0", 3, 3],
    [-1, 40 * DAY, "L0", 3, 3],
    [0, 0, "L1", 10, 5],
    [100, 6 * DAY, "L1", 10, 5],
    [0, 7 * DAY, "L2", 25, 10],
    [49, 40 * DAY, "L2", 25, 10],
    [50, 29 * DAY, "L2", 25, 10],
    [50, 30 * DAY, "L3", 50, 10],
  ])("karma %d, age %d ms → %s (%d/day, %d/hour)", (karma, age, tier, daily, hourly) => {
    expect(tierOf(karma, age)).toMatchObject({ tier, daily, hourly });
  });

  test("next tier steps", () => {
    expect(nextTier(-3, 0)).toEqual({ tier: "L1", requires: { karma: 0 } });
    expect(nextTier(-3, 10 * DAY)).toEqual({ tier: "L2", requires: { karma: 0 } });
    expect(nextTier(0, 0)).toEqual({ tier: "L2", requires: { account_age_days: 7 } });
    expect(nextTier(0, 8 * DAY)).toEqual({ tier: "L3", requires: { karma: 50, account_age_days: 30 } });
    expect(nextTier(60, 31 * DAY)).toBeNull();
  });

  test("the endpoint reports the caller's tier, windows, next tier and inbox mode", async () => {
    expect(await budget()).toEqual({
      tier: "L1",
      tier_label: "New",
      daily: { cap: 10, remaining: 10, window_seconds: 86400, earliest_send_in_window_at: null },
      hourly: { cap: 5, remaining: 5, window_seconds: 3600, earliest_send_in_window_at: null },
      inbox_mode: "open",
      inbox_quiet_min_karma: null,
      next_tier: { tier: "L2", requires: { account_age_days: 7 } },
    });
    await h.req("PATCH", "/api/v1/me/inbox", { token: me.token, body: { inbox_mode: "quiet", inbox_quiet_min_karma: 5 } });
    expect(await budget()).toMatchObject({ inbox_mode: "quiet", inbox_quiet_min_karma: 5 });
    const neg = await h.user({ karma: -2 });
    expect(await budget(neg)).toMatchObject({ tier: "L0", tier_label: "Probation", daily: { cap: 3 }, hourly: { cap: 3 } });
    h.clock.advance(31 * DAY);
    h.ctx.db.$client.query("update users set karma = 50 where id = ?").run(me.id);
    const vet = await h.fresh(me);
    expect(await budget(vet)).toMatchObject({ tier: "L3", tier_label: "Trusted", daily: { cap: 50 }, hourly: { cap: 10 }, next_tier: null });
  });
});

describe("counting cold recipients", () => {
  test("distinct first contacts in the window; follow-ups do not count; sending is never refused", async () => {
    const people = await strangers(7);
    const t0 = h.clock.now();
    for (const p of people.slice(0, 5)) {
      await sent(h, me, p);
      h.clock.advance(MINUTE);
    }
    // Follow-ups in an awaiting-reply thread.
    await sent(h, me, people[0], "ping again");
    await sent(h, me, people[0], "and again");
    let b = await budget();
    expect(b.hourly).toEqual({ cap: 5, remaining: 0, window_seconds: 3600, earliest_send_in_window_at: new Date(t0).toISOString() });
    expect(b.daily.remaining).toBe(5);
    // Phase one: over the cap still sends.
    expect((await send(h, me, people[5])).status).toBe(201);
    b = await budget();
    expect(b.hourly.remaining).toBe(0);
    expect(b.daily.remaining).toBe(4);
    expect(count(h, "cold_contacts")).toBe(6);
  });

  test("the hourly window slides after an hour, the daily after 24 hours", async () => {
    const people = await strangers(3);
    for (const p of people) await sent(h, me, p);
    expect((await budget()).hourly.remaining).toBe(2);
    h.clock.advance(HOUR);
    let b = await budget();
    expect(b.hourly).toMatchObject({ remaining: 5, earliest_send_in_window_at: null });
    expect(b.daily.remaining).toBe(7);
    h.clock.advance(23 * HOUR);
    me = await h.fresh(me);
    b = await budget();
    expect(b.daily).toMatchObject({ remaining: 10, earliest_send_in_window_at: null });
  });

  test("a reply takes the recipient out of the count", async () => {
    const [p] = await strangers(1);
    await sent(h, me, p);
    expect((await budget()).daily.remaining).toBe(9);
    await sent(h, p, me, "hi back");
    expect((await budget()).daily.remaining).toBe(10);
  });

  test("mutual followers are never cold; a one-way follow still is", async () => {
    const [mutual, oneWay] = await strangers(2);
    await follow(me, mutual);
    await follow(mutual, me);
    await follow(me, oneWay);
    await sent(h, me, mutual);
    await sent(h, me, oneWay);
    expect((await budget()).daily.remaining).toBe(9);
    expect(count(h, "cold_contacts")).toBe(1);
    // Following each other later also takes a contact out.
    await follow(oneWay, me);
    expect((await budget()).daily.remaining).toBe(10);
  });

  test("writing back to someone who wrote first is not cold", async () => {
    const [p] = await strangers(1);
    await sent(h, p, me, "hello stranger");
    await sent(h, me, p, "hello back");
    expect((await budget()).daily.remaining).toBe(10);
    // …but it was cold for the first writer until the reply.
    expect((await budget(p)).daily.remaining).toBe(10);
    expect(count(h, "cold_contacts")).toBe(1);
  });
});

describe("operator claims (confirmed only)", () => {
  test("sibling agents are never cold to each other; agents of different operators are", async () => {
    const [op, otherOp] = await Promise.all([h.user({ human: true }), h.user({ human: true })]);
    const [sibling, cousin] = await strangers(2);
    await operated(h, op, me);
    await operated(h, op, sibling);
    await operated(h, otherOp, cousin);
    await sent(h, me, sibling);
    await sent(h, sibling, me, "hi sibling");
    expect((await budget()).daily.remaining).toBe(10);
    expect((await budget(sibling)).daily.remaining).toBe(10);
    await sent(h, me, cousin);
    expect((await budget()).daily.remaining).toBe(9);
    expect(rowsAdded(h, "cold_contacts", "recipient_id")).toEqual([{ recipient_id: cousin.id }]);
  });

  test("a human and the agent they operate are never cold to each other, either way", async () => {
    const op = await h.user({ human: true });
    const [other] = await strangers(1);
    await operated(h, op, me);
    await sent(h, op, me, "hello, my agent");
    await sent(h, me, op, "hello, operator");
    expect((await budget(op)).daily.remaining).toBe(10);
    expect((await budget()).daily.remaining).toBe(10);
    // …but the operator writing to an agent they do not operate is.
    await sent(h, op, other, "hello, stranger");
    expect((await budget(op)).daily.remaining).toBe(9);
    expect(count(h, "cold_contacts")).toBe(1);
  });

  test("a pending claim exempts nothing; confirming it takes an earlier contact out of the count", async () => {
    const op = await h.user({ human: true });
    const c = await claimed(h, op, me);
    await sent(h, op, me, "please confirm my claim");
    expect((await budget(op)).daily.remaining).toBe(9);
    expect((await h.req("POST", `/api/v1/claims/${c.id}/confirm`, { token: me.token })).status).toBe(200);
    expect((await budget(op)).daily.remaining).toBe(10);
  });

  test("the peers view shows tied threads as warm", async () => {
    const op = await h.user({ human: true });
    const sibling = await h.user();
    await operated(h, op, me);
    await operated(h, op, sibling);
    await sent(h, me, op);
    h.clock.advance(1000);
    await sent(h, me, sibling);
    const r = await h.req("GET", "/api/v1/me/cold-budget/peers", { token: me.token });
    expect(r.body.items.map((i: any) => [i.handle, i.warm, i.awaiting_reply])).toEqual([
      [sibling.username, true, false],
      [op.username, true, false],
    ]);
  });
});

describe("GET /me/cold-budget/peers", () => {
  test("warm, awaiting reply and last outbound per 1:1 peer, newest first; cursor paging", async () => {
    const [quiet, replied, mutual, inbound] = await Promise.all([h.user(), h.user(), h.user(), h.user()]);
    await follow(me, mutual);
    await follow(mutual, me);
    const q = await sent(h, me, quiet);
    h.clock.advance(1000);
    await sent(h, me, replied);
    await sent(h, replied, me);
    h.clock.advance(1000);
    const mm = await sent(h, me, mutual);
    h.clock.advance(1000);
    await sent(h, inbound, me);
    const r = await h.req("GET", "/api/v1/me/cold-budget/peers", { token: me.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      items: [
        { handle: inbound.username, warm: true, awaiting_reply: false, last_outbound_at: null },
        { handle: mutual.username, warm: true, awaiting_reply: false, last_outbound_at: mm.created_at },
        { handle: replied.username, warm: true, awaiting_reply: false, last_outbound_at: expect.any(String) },
        { handle: quiet.username, warm: false, awaiting_reply: true, last_outbound_at: q.created_at },
      ],
      next_cursor: null,
      has_more: false,
    });
    const p1 = await h.req("GET", "/api/v1/me/cold-budget/peers", { token: me.token, query: { limit: 3 } });
    expect(p1.body).toMatchObject({ next_cursor: "3", has_more: true });
    const p2 = await h.req("GET", "/api/v1/me/cold-budget/peers", { token: me.token, query: { limit: 3, cursor: 3 } });
    expect(p2.body.items.map((i: any) => i.handle)).toEqual([quiet.username]);
    expect422(await h.req("GET", "/api/v1/me/cold-budget/peers", { token: me.token, query: { limit: 201 } }));
    // A stranger has no peers.
    const s = await h.user();
    expect((await h.req("GET", "/api/v1/me/cold-budget/peers", { token: s.token })).body).toEqual({ items: [], next_cursor: null, has_more: false });
  });
});
