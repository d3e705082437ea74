// Per-member group settings (spec Part 2 §4.6, §9): read receipts, snooze (until_morning = the
// next 08:00 UTC), mute durations (and the deprecated `until`), all moved through the TestClock.
import { beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../../test/expect";
import { setup, type TestUser } from "../../../../test/harness";
import { DAY, HOUR, MINUTE } from "../../../core/clock";
import { beginTest, expect422, newUsers } from "../testkit";
import { G, makeGroup, memberOf } from "./gtestkit";
import { MUTED_FOREVER, snoozeEnd } from "./settings";

const h = setup({ rateLimitMultiplier: 0 });
let alice: TestUser, bob: TestUser;
let g: string;

beforeEach(async () => {
  await beginTest(h);
  [alice, bob] = await newUsers(h, 2);
  g = await makeGroup(h, alice, [bob]);
});

const at = (iso: string) => new Date(iso).getTime();
/** The group as `u` sees it, with a token minted now (the tests move the clock past a token's life). */
const detail = async (u: TestUser) => (await h.req("GET", `${G}/${g}`, { token: (await h.fresh(u)).token })).body;

describe("PATCH /messages/groups/{id}/receipts", () => {
  test("on, off and clear (body), true/false (reference query); only the caller's row changes", async () => {
    const on = await h.req("PATCH", `${G}/${g}/receipts`, { token: bob.token, body: { show: "on" } });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ show: "on", override: true, effective: true });
    expect((await h.req("PATCH", `${G}/${g}/receipts`, { token: bob.token, body: { show: "off" } })).body).toEqual({ show: "off", override: false, effective: false });
    expect(memberOf(h, g, bob).receipts).toBe("off");
    expect(memberOf(h, g, alice).receipts).toBeNull();
    expect((await detail(bob)).receipts).toBe("off");
    expect((await h.req("PATCH", `${G}/${g}/receipts`, { token: bob.token, body: { show: "clear" } })).body).toEqual({ show: null, override: null, effective: true });
    expect((await h.req("PATCH", `${G}/${g}/receipts?show=false`, { token: bob.token })).body).toMatchObject({ show: "off" });
    expect((await h.req("PATCH", `${G}/${g}/receipts?show=true`, { token: bob.token })).body).toMatchObject({ show: "on" });
    expect((await h.req("PATCH", `${G}/${g}/receipts`, { token: bob.token })).body).toEqual({ show: null, override: null, effective: true });
  });

  test("with receipts off, a member's reads are shown to nobody else (reads list, read_at), but count for them", async () => {
    const sent = await h.req("POST", `${G}/${g}/send`, { token: alice.token, body: { body: "hello" } });
    expect(sent.status).toBe(201);
    const id = sent.body.id;
    await h.req("PATCH", `${G}/${g}/receipts`, { token: bob.token, body: { show: "off" } });
    expect((await h.req("POST", `/api/v1/messages/${id}/read`, { token: bob.token })).status).toBe(200);
    const seenBy = async (u: TestUser) => (await h.req("GET", `/api/v1/messages/${id}/reads`, { token: u.token })).body;
    expect(await seenBy(alice)).toMatchObject({ seen_count: 0, unseen: [{ username: bob.username }] });
    const mine = (await h.req("GET", `${G}/${g}`, { token: alice.token })).body;
    expect(JSON.stringify(mine)).not.toContain('"is_read":true');
    // Bob's own view still knows he read it; turning receipts back on shows it to others.
    expect((await seenBy(bob)).seen_count).toBe(1);
    await h.req("PATCH", `${G}/${g}/receipts`, { token: bob.token, body: { show: "clear" } });
    expect(await seenBy(alice)).toMatchObject({ seen_count: 1, seen: [{ username: bob.username }] });
  });

  test("an unknown value is 422 and changes nothing", async () => {
    await h.req("PATCH", `${G}/${g}/receipts`, { token: bob.token, body: { show: "off" } });
    expect422(await refused(h, () => h.req("PATCH", `${G}/${g}/receipts`, { token: bob.token, body: { show: "maybe" } }), 422, null));
    expect422(await refused(h, () => h.req("PATCH", `${G}/${g}/receipts?show=maybe`, { token: bob.token }), 422, null));
    expect(memberOf(h, g, bob).receipts).toBe("off");
  });
});

describe("snooze", () => {
  test.each([
    ["1h", HOUR],
    ["3h", 3 * HOUR],
    ["1d", DAY],
    ["1w", 7 * DAY],
  ])("duration %s", async (duration, ms) => {
    const now = h.clock.now();
    const r = await h.req("POST", `${G}/${g}/snooze`, { token: bob.token, query: { duration } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ snoozed_until: new Date(now + ms).toISOString(), cleared: false });
    expect(memberOf(h, g, bob).snoozed_until).toBe(now + ms);
    h.clock.advance(ms - 1);
    expect((await detail(bob)).snoozed_until).toBe(new Date(now + ms).toISOString());
    h.clock.advance(1);
    expect((await detail(bob)).snoozed_until).toBeNull();
  });

  test("until_morning is the next 08:00 UTC", async () => {
    // Sets the clock to given instants: a harness of its own.
    const hh = setup({ rateLimitMultiplier: 0 });
    const [a, b] = await newUsers(hh, 2);
    const group = await makeGroup(hh, a, [b]);
    const snoozeUntilMorning = async () => (await hh.req("POST", `${G}/${group}/snooze?duration=until_morning`, { token: (await hh.fresh(b)).token })).body.snoozed_until;
    hh.clock.set(at("2026-03-10T07:30:00Z"));
    expect(await snoozeUntilMorning()).toBe("2026-03-10T08:00:00.000Z");
    hh.clock.set(at("2026-03-10T08:00:00Z"));
    expect(await snoozeUntilMorning()).toBe("2026-03-11T08:00:00.000Z");
    hh.clock.set(at("2026-12-31T23:59:00Z"));
    expect(await snoozeUntilMorning()).toBe("2027-01-01T08:00:00.000Z");
    expect(snoozeEnd(at("2026-03-10T00:00:00Z"), "until_morning")).toBe(at("2026-03-10T08:00:00Z"));
  });

  test("unsnooze clears (cleared true), then is idempotent; an expired snooze reports cleared false", async () => {
    await h.req("POST", `${G}/${g}/snooze?duration=1h`, { token: bob.token });
    expect((await h.req("POST", `${G}/${g}/unsnooze`, { token: bob.token })).body).toEqual({ snoozed_until: null, cleared: true });
    expect(memberOf(h, g, bob).snoozed_until).toBeNull();
    expect((await h.req("POST", `${G}/${g}/unsnooze`, { token: bob.token })).body).toEqual({ snoozed_until: null, cleared: false });
    await h.req("POST", `${G}/${g}/snooze?duration=1h`, { token: bob.token });
    h.clock.advance(2 * HOUR);
    expect((await h.req("POST", `${G}/${g}/unsnooze`, { token: bob.token })).body).toEqual({ snoozed_until: null, cleared: false });
  });

  test("duration is required and must be one of the tokens (422)", async () => {
    expect422(await refused(h, () => h.req("POST", `${G}/${g}/snooze`, { token: bob.token }), 422, null));
    expect422(await refused(h, () => h.req("POST", `${G}/${g}/snooze?duration=2h`, { token: bob.token }), 422, null));
    expect(memberOf(h, g, bob).snoozed_until).toBeNull();
  });
});

describe("mute", () => {
  test("default is forever: muted, muted_until null, forever true; GET shows it", async () => {
    const r = await h.req("POST", `${G}/${g}/mute`, { token: bob.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ muted: true, muted_until: null, forever: true });
    expect(memberOf(h, g, bob).muted_until).toBe(MUTED_FOREVER);
    h.clock.advance(365 * DAY);
    expect(await detail(bob)).toMatchObject({ is_muted: true, muted_until: null });
    const { token } = await h.fresh(bob);
    const list = await h.req("GET", "/api/v1/messages/conversations/inbox/history", { token, query: { before: new Date(h.clock.now() + DAY).toISOString() } });
    expect(list.body.rows[0].is_muted).toBe(true);
  });

  test.each([
    ["1h", HOUR],
    ["8h", 8 * HOUR],
    ["1d", DAY],
    ["1w", 7 * DAY],
  ])("duration %s runs out", async (duration, ms) => {
    const now = h.clock.now();
    expect((await h.req("POST", `${G}/${g}/mute`, { token: bob.token, query: { duration } })).body).toEqual({ muted: true, muted_until: new Date(now + ms).toISOString(), forever: false });
    h.clock.advance(ms - MINUTE);
    expect(await detail(bob)).toMatchObject({ is_muted: true, muted_until: new Date(now + ms).toISOString() });
    h.clock.advance(MINUTE);
    expect((await detail(bob))).toMatchObject({ is_muted: false, muted_until: null });
  });

  test("`until` is the deprecated spelling of duration: same effect, flagged in the response headers", async () => {
    const now = h.clock.now();
    const r = await h.req("POST", `${G}/${g}/mute?until=8h`, { token: bob.token });
    expect(r.body).toEqual({ muted: true, muted_until: new Date(now + 8 * HOUR).toISOString(), forever: false });
    expect(r.headers.get("x-service-deprecated-params")).toBe("until=duration");
    expect(r.headers.get("x-colony-deprecated-params")).toBe("until=duration");
    expectError(await h.req("POST", `${G}/${g}/mute?until=8h&duration=1h`, { token: bob.token }), 400, "INVALID_INPUT");
    const dep = await h.req("GET", "/api/v1/deprecations");
    expect(dep.body.items).toContainEqual(expect.objectContaining({ where: "POST /api/v1/messages/groups/{conv_id}/mute", old: "until", new: "duration" }));
  });

  test("an unknown duration is 422 and changes nothing; unmute clears and is idempotent", async () => {
    expect422(await refused(h, () => h.req("POST", `${G}/${g}/mute?duration=2d`, { token: bob.token }), 422, null));
    expect(memberOf(h, g, bob).muted_until).toBeNull();
    await h.req("POST", `${G}/${g}/mute?duration=1d`, { token: bob.token });
    expect((await h.req("POST", `${G}/${g}/unmute`, { token: bob.token })).body).toEqual({ muted: false, muted_until: null, forever: false });
    expect(memberOf(h, g, bob).muted_until).toBeNull();
    expect((await h.req("POST", `${G}/${g}/unmute`, { token: bob.token })).body).toEqual({ muted: false, muted_until: null, forever: false });
  });
});
