// Time capsules (spec Part 3 §4.10): the sealed body (hidden from all but the author until
// reveal_at), the 24 h to 365 d window, the karma gate, filters and sorts, the reveal job telling
// the author once, delete (someone else's is 404), the weekly rate limit. Time moves on the test clock.
import { describe, expect, test } from "bun:test";
import { dbState } from "../../../test/db-state";
import { setup, type Harness } from "../../../test/harness";
import { DAY, HOUR } from "../../core/clock";

const h = setup();
type U = Awaited<ReturnType<Harness["user"]>>;

const ahead = (ms: number) => new Date(h.clock.now() + ms).toISOString();
const seal = async (u: U, body: Record<string, unknown> = {}) => {
  const r = await h.req("POST", "/api/v1/time-capsules", { token: u.token, body: { title: "To my future self", body: "The answer is 42.", reveal_at: ahead(2 * DAY), ...body } });
  expect(r.status).toBe(201);
  return r.body;
};
const fresh = h.fresh;
const notifications = async (u: U) => (await h.req("GET", "/api/v1/notifications", { token: (await fresh(u)).token })).body.filter((n: any) => n.notification_type === "time_capsule_revealed");

describe("time capsules", () => {
  test("create: the author sees the body, everyone else sees null until reveal_at, then everyone", async () => {
    const [a, b] = [await h.user(), await h.user()];
    const c = await seal(a, { tags: ["#Future", "hope"] });
    expect(c).toEqual({
      id: expect.any(String),
      author: { id: a.id, username: a.username, display_name: expect.any(String) },
      title: "To my future self",
      body: "The answer is 42.",
      tags: ["future", "hope"],
      reveal_at: expect.any(String),
      created_at: expect.any(String),
      is_revealed: false,
    });
    for (const token of [undefined, b.token]) {
      const r = await h.req("GET", `/api/v1/time-capsules/${c.id}`, { token });
      expect(r.body).toEqual({ ...c, body: null });
    }
    expect((await h.req("GET", `/api/v1/time-capsules/${c.id}`, { token: a.token })).body).toEqual(c);
    const listed = (await h.req("GET", "/api/v1/time-capsules", { token: b.token })).body.items.find((x: any) => x.id === c.id);
    expect(listed.body).toBeNull();
    expect((await h.req("GET", "/api/v1/time-capsules/mine", { token: a.token })).body.items[0]).toEqual(c);
    h.clock.advance(2 * DAY);
    expect((await h.req("GET", `/api/v1/time-capsules/${c.id}`)).body).toMatchObject({ body: "The answer is 42.", is_revealed: true });
  });

  test("the reveal job tells the author once, at reveal_at and not before", async () => {
    const a = await h.user();
    const c = await seal(a, { reveal_at: ahead(DAY + HOUR) });
    h.clock.advance(DAY);
    await h.ctx.jobs.runDue();
    await h.ctx.events.drain();
    expect(await notifications(a)).toEqual([]);
    h.clock.advance(2 * HOUR);
    await h.ctx.jobs.runDue();
    await h.ctx.events.drain();
    const told = await notifications(a);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ notification_type: "time_capsule_revealed", message: 'Your time capsule "To my future self" has opened: everyone can read it now' });
    // Running the reveal again (a retried job) tells nobody twice.
    const { revealCapsule } = await import("./service");
    revealCapsule(h.ctx, c.id);
    await h.ctx.events.drain();
    expect(await notifications(a)).toHaveLength(1);
  });

  test("reveal_at outside 24 hours to 365 days is 400 INVALID_INPUT and seals nothing", async () => {
    const a = await h.user();
    const before = dbState(h);
    for (const reveal_at of [ahead(23 * HOUR), ahead(-HOUR), ahead(366 * DAY), "not a date"]) {
      const r = await h.req("POST", "/api/v1/time-capsules", { token: a.token, body: { title: "Too soon", body: "x", reveal_at } });
      expect([reveal_at, r.status]).toEqual([reveal_at, r.status >= 400 && r.status < 500 ? r.status : -1]);
      if (r.status === 400) expect(r.body.detail.code).toBe("INVALID_INPUT");
    }
    expect(dbState(h)).toEqual(before);
    expect((await h.req("POST", "/api/v1/time-capsules", { token: a.token, body: { title: "Edge", body: "x", reveal_at: ahead(24 * HOUR) } })).status).toBe(201);
    expect((await h.req("POST", "/api/v1/time-capsules", { token: a.token, body: { title: "Edge", body: "x", reveal_at: ahead(365 * DAY) } })).status).toBe(201);
  });

  test("bounds: title 3-200, body 1-10000, at most 5 tags", async () => {
    const a = await h.user();
    for (const body of [
      { title: "ab", body: "x" },
      { title: "x".repeat(201), body: "x" },
      { title: "Fine title", body: "" },
      { title: "Fine title", body: "x".repeat(10_001) },
      { title: "Fine title", body: "x", tags: ["a", "b", "c", "d", "e", "f"] },
      { title: "   ", body: "x" },
    ]) {
      const r = await h.req("POST", "/api/v1/time-capsules", { token: a.token, body: { reveal_at: ahead(2 * DAY), ...body } });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
  });

  test("negative karma is 403 KARMA_TOO_LOW; anonymous is 401", async () => {
    const low = await h.user({ karma: -1 });
    const r = await h.req("POST", "/api/v1/time-capsules", { token: low.token, body: { title: "Nope", body: "x", reveal_at: ahead(2 * DAY) } });
    expect([r.status, r.body.detail.code]).toEqual([403, "KARMA_TOO_LOW"]);
    expect((await seal(await h.user({ karma: 0 }))).id).toBeString();
    expect((await h.req("POST", "/api/v1/time-capsules", { body: { title: "Nope", body: "x", reveal_at: ahead(2 * DAY) } })).status).toBe(401);
    expect((await h.req("GET", "/api/v1/time-capsules/mine")).status).toBe(401);
  });

  test("filters and sorts: status, tag, revealing-soon, recently-revealed", async () => {
    const a = await h.user();
    const tag = `t${Date.now().toString(36)}`;
    const soon = await seal(a, { reveal_at: ahead(DAY + HOUR), tags: [tag] });
    const later = await seal(a, { reveal_at: ahead(3 * DAY), tags: [tag] });
    const first = await seal(a, { reveal_at: ahead(DAY + 2 * HOUR), tags: [tag] });
    h.clock.advance(DAY + 3 * HOUR); // soon and first are open, later is sealed
    const ids = async (query: Record<string, string>) => (await h.req("GET", "/api/v1/time-capsules", { query: { tag, ...query } })).body.items.map((c: any) => c.id);
    expect(await ids({})).toEqual([first.id, later.id, soon.id]);
    expect(await ids({ status: "sealed" })).toEqual([later.id]);
    expect(await ids({ status: "revealed" })).toEqual([first.id, soon.id]);
    expect(await ids({ sort: "revealing-soon" })).toEqual([later.id]);
    expect(await ids({ sort: "recently-revealed" })).toEqual([first.id, soon.id]);
    expect(await ids({ sort: "recently-revealed", status: "sealed" })).toEqual([]);
    expect(await ids({ tag: "no-such-tag" })).toEqual([]);
    const r = await h.req("GET", "/api/v1/time-capsules", { query: { status: "open" } });
    expect(r.status).toBe(422);
    const page = await h.req("GET", "/api/v1/time-capsules", { query: { tag, limit: 2 } });
    expect(page.body).toMatchObject({ total: 3, has_more: true });
  });

  test("delete: yours is 204 (sealed or not) and its reveal never fires; someone else's is 404 and stays", async () => {
    const [a, b] = [await h.user(), await h.user()];
    const c = await seal(a);
    const before = dbState(h);
    const r = await h.req("DELETE", `/api/v1/time-capsules/${c.id}`, { token: b.token });
    expect([r.status, r.body.detail.code]).toEqual([404, "NOT_FOUND"]);
    expect(dbState(h)).toEqual(before);
    expect((await h.req("DELETE", `/api/v1/time-capsules/${c.id}`, { token: a.token })).status).toBe(204);
    expect((await h.req("GET", `/api/v1/time-capsules/${c.id}`)).status).toBe(404);
    h.clock.advance(3 * DAY);
    await h.ctx.jobs.runDue();
    await h.ctx.events.drain();
    expect(await notifications(a)).toEqual([]);
  });

  test("three a week: the fourth is 429 until the week has passed", async () => {
    const a = await h.user();
    for (let i = 0; i < 3; i++) await seal(a);
    const r = await h.req("POST", "/api/v1/time-capsules", { token: a.token, body: { title: "Fourth", body: "x", reveal_at: ahead(2 * DAY) } });
    expect(r.status).toBe(429);
    h.clock.advance(7 * DAY);
    await seal(await fresh(a));
  });
});
