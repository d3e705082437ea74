// Colony bans: POST and DELETE .../bans/{user}, GET .../bans (spec Part 2 §2.3, §3, §4.1, §7, §8,
// §9), timed bans lifting themselves when the clock passes their expiry, and the notifications.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness } from "../../../test/harness";
import { DAY, HOUR } from "../../core/clock";
import { limitRule } from "../../core/limits";
import { LIFT_EXPIRED_BANS_TASK } from "./bans";
import { eventsOf, makeColony, memberCount, setRole } from "./fixtures";
import { advance, auditRows, banRow, crew, kindsOf, modApi, notificationsOf, rolesOf, type Crew } from "./mod-fixtures";

let h: Harness;
let api: ReturnType<typeof modApi>;
let c: Crew;

beforeAll(() => {
  h = setup({ rateLimitMultiplier: 0 });
  api = modApi(h);
});

// Each test acts in a colony of its own, with a crew of its own; the test of the rate limit makes a
// database of its own, with the limits on.
beforeEach(async () => {
  c = await crew(h);
});

/** Lifts every lapsed timed ban of the database (the other tests' too). */
const sweep = () => h.ctx.jobs.runRecurring(LIFT_EXPIRED_BANS_TASK);
const iso = (ms: number) => new Date(ms).toISOString();

describe("POST .../bans/{user_id}", () => {
  test("an empty body bans for good without a reason: 201 ColonyBanOut, membership removed, audit row, notification at once", async () => {
    const before = memberCount(h, c.colony.id);
    const r = await api.ban(c.colony, c.member.id, c.mod.token);
    expect(r.status).toBe(201);
    const now = iso(h.clock.now());
    expect(r.body).toEqual({
      user_id: c.member.id,
      username: c.member.username,
      display_name: c.member.username,
      reason: null,
      created_at: now,
      banned_at: now,
      expires_at: null,
      is_active: true,
    });
    expect(rolesOf(h, c.colony.id)[c.member.id]).toBeUndefined();
    expect(memberCount(h, c.colony.id)).toBe(before - 1);
    expect(auditRows(h, c.colony.id, "ban")).toEqual([
      { actor_id: c.mod.id, action: "ban", target_type: "user", target_id: c.member.id, target_user_id: c.member.id, reason: null, meta: { expires_at: null }, opened_at: null },
    ]);
    const [n] = await notificationsOf(h, c.member);
    expect(n.kind).toBe("colony_banned");
    expect(n.message).toBe(`You were banned from c/${c.colony.name}`);
    expect(n.meta).toMatchObject({ colony_id: c.colony.id, colony_name: c.colony.name, reason: null, expires_at: null });
    // Kept out: joining is 403, and so is posting.
    expectError(await api.join(c.colony, c.member.token), 403, "FORBIDDEN");
    const post = await h.req("POST", "/api/v1/posts", { token: c.member.token, body: { colony_id: c.colony.id, post_type: "discussion", title: "Still here?", body: "b" } });
    expectError(post, 403, "FORBIDDEN");
  });

  test("duration_days and reason: a timed ban whose expiry the notification carries", async () => {
    const r = await api.ban(c.colony, c.member.username, c.founder.token, { duration_days: 7, reason: "  Repeated spam.  " });
    expect(r.status).toBe(201);
    const expires = iso(h.clock.now() + 7 * DAY);
    expect(r.body).toMatchObject({ reason: "Repeated spam.", expires_at: expires, is_active: true });
    const [n] = await notificationsOf(h, c.member);
    expect(n.meta).toMatchObject({ reason: "Repeated spam.", expires_at: expires });
    expect(n.message).toBe(`You were banned from c/${c.colony.name} until ${expires}`);
    expect(eventsOf(h, "colony_banned", c.colony.id).map((e) => e.payload)).toEqual([
      { colony_id: c.colony.id, colony_name: c.colony.name, user_id: c.member.id, username: c.member.username, reason: "Repeated spam.", expires_at: expires, was_member: true },
    ]);
  });

  test("null body and duration_days null are permanent; 1 and 30 days are accepted", async () => {
    expect((await h.req("POST", `/api/v1/colonies/${c.colony.id}/bans/${c.member.id}`, { token: c.mod.token, raw: "null", headers: { "content-type": "application/json" } })).body.expires_at).toBeNull();
    expect((await api.ban(c.colony, c.member.id, c.mod.token, { duration_days: null })).body.expires_at).toBeNull();
    expect((await api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 1 })).body.expires_at).toBe(iso(h.clock.now() + DAY));
    expect((await api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 30 })).body.expires_at).toBe(iso(h.clock.now() + 30 * DAY));
  });

  test("ban_duration_days is the deprecated name of duration_days: accepted and flagged; disagreeing with it is 400", async () => {
    const r = await api.ban(c.colony, c.member.id, c.mod.token, { ban_duration_days: 30 });
    expect(r.status).toBe(201);
    expect(r.body.expires_at).toBe(iso(h.clock.now() + 30 * DAY));
    expect(r.headers.get("x-service-deprecated-body-fields")).toBe("ban_duration_days=duration_days");
    expectError(await api.ban(c.colony, c.member.id, c.mod.token, { ban_duration_days: 30, duration_days: 7 }), 400, "INVALID_INPUT");
  });

  test("another duration is 400 INVALID_INPUT, out of range 422; banning yourself 400; nothing is written", async () => {
    await refused(h, () => api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 2 }), 400, "INVALID_INPUT");
    await refused(h, () => api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 0 }), 422);
    await refused(h, () => api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 31 }), 422);
    await refused(h, () => api.ban(c.colony, c.member.id, c.mod.token, { reason: "x".repeat(2001) }), 422);
    await refused(h, () => api.ban(c.colony, c.mod.id, c.mod.token), 400, "INVALID_INPUT");
    expect(banRow(h, c.colony.id, c.member.id)).toBeNull();
    expect(rolesOf(h, c.colony.id)[c.member.id]).toBe("member");
  });

  test("anonymous 401; stranger and member 403; founder and a site admin may ban", async () => {
    expect((await api.ban(c.colony, c.member.id, null)).status).toBe(401);
    expectError(await api.ban(c.colony, c.member.id, c.stranger.token), 403, "FORBIDDEN");
    const other = await h.user();
    await api.join(c.colony, other.token);
    expectError(await api.ban(c.colony, c.member.id, other.token), 403, "FORBIDDEN");
    expect(banRow(h, c.colony.id, c.member.id)).toBeNull();
    expect((await api.ban(c.colony, c.member.id, c.founder.token)).status).toBe(201);
    expect((await api.ban(c.colony, other.id, c.admin.token)).status).toBe(201);
  });

  test("the founder is never banned by a moderator; a moderator only by the founder or a site admin; the last moderator 409", async () => {
    expectError(await api.ban(c.colony, c.founder.id, c.mod.token), 403, "FORBIDDEN");
    const second = await h.user();
    await api.join(c.colony, second.token);
    setRole(h, c.colony.id, second.id, "moderator");
    expectError(await api.ban(c.colony, second.id, c.mod.token), 403, "FORBIDDEN");
    expect((await api.ban(c.colony, second.id, c.founder.token)).status).toBe(201);
    const solo = makeColony(h, c.founder);
    expectError(await api.ban(solo, c.founder.id, c.admin.token), 409, "CONFLICT");
  });

  test("a user who is not a member can be banned ahead of joining; an unknown user is 404 USER_NOT_FOUND", async () => {
    expect((await api.ban(c.colony, c.stranger.id, c.mod.token)).status).toBe(201);
    expectError(await api.join(c.colony, c.stranger.token), 403, "FORBIDDEN");
    expect(eventsOf(h, "colony_banned", c.colony.id)[0].payload.was_member).toBe(false);
    expectError(await api.ban(c.colony, "no-such-user", c.mod.token), 404, "USER_NOT_FOUND");
  });

  test("a private colony is 404 to a stranger; a missing colony 404", async () => {
    const p = await crew(h, "private");
    expectError(await api.ban(p.colony, p.member.id, p.stranger.token), 404, "NOT_FOUND");
    expectError(await api.ban("00000000-0000-7000-8000-000000000000", p.member.id, p.mod.token), 404, "NOT_FOUND");
  });
});

describe("DELETE .../bans/{user_id}", () => {
  test("lifts the ban: 204, unban audit row, the user told at once; they may join again but are not re-added", async () => {
    await api.ban(c.colony, c.member.id, c.mod.token, { reason: "spam" });
    const r = await api.unban(c.colony, c.member.username, c.mod.token);
    expect(r.status).toBe(204);
    expect(banRow(h, c.colony.id, c.member.id)).toBeNull();
    expect(rolesOf(h, c.colony.id)[c.member.id]).toBeUndefined();
    expect(auditRows(h, c.colony.id, "unban").map((a) => [a.actor_id, a.target_user_id, a.meta])).toEqual([[c.mod.id, c.member.id, { how: "moderator" }]]);
    const [n] = await notificationsOf(h, c.member);
    expect(n.kind).toBe("colony_unbanned");
    expect(n.meta).toMatchObject({ colony_id: c.colony.id, how: "moderator" });
    expect((await api.join(c.colony, c.member.token)).status).toBe(204);
  });

  test("404 NOT_FOUND without a ban (a lapsed one included); 404 USER_NOT_FOUND for an unknown user", async () => {
    expectError(await api.unban(c.colony, c.member.id, c.mod.token), 404, "NOT_FOUND");
    await api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 1 });
    await advance(h, DAY, c);
    expectError(await api.unban(c.colony, c.member.id, c.mod.token), 404, "NOT_FOUND");
    expectError(await api.unban(c.colony, "no-such-user", c.mod.token), 404, "USER_NOT_FOUND");
  });

  test("anonymous 401; stranger and member 403, and the ban stays; founder and site admin may unban", async () => {
    await api.ban(c.colony, c.member.id, c.mod.token);
    const other = await h.user();
    await api.join(c.colony, other.token);
    expect((await api.unban(c.colony, c.member.id, null)).status).toBe(401);
    expectError(await api.unban(c.colony, c.member.id, c.stranger.token), 403, "FORBIDDEN");
    expectError(await api.unban(c.colony, c.member.id, other.token), 403, "FORBIDDEN");
    expect(banRow(h, c.colony.id, c.member.id)).not.toBeNull();
    expect((await api.unban(c.colony, c.member.id, c.founder.token)).status).toBe(204);
    await api.ban(c.colony, c.member.id, c.mod.token);
    expect((await api.unban(c.colony, c.member.id, c.admin.token)).status).toBe(204);
  });
});

describe("GET .../bans", () => {
  test("moderators see a bare array newest first with X-Total-Count; limit 1-500 default 100, offset, page", async () => {
    const others = [await h.user(), await h.user()];
    await api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 7, reason: "first" });
    for (const u of others) {
      h.clock.advance(1000);
      await api.ban(c.colony, u.id, c.mod.token);
    }
    const r = await api.bans(c.colony, c.mod.token);
    expect(r.status).toBe(200);
    expect(r.headers.get("x-total-count")).toBe("3");
    expect(r.headers.get("x-has-more")).toBe("false");
    expect(r.body.map((b: any) => b.user_id)).toEqual([others[1].id, others[0].id, c.member.id]);
    expect(r.body[2]).toEqual({
      user_id: c.member.id,
      username: c.member.username,
      display_name: c.member.username,
      reason: "first",
      created_at: expect.any(String),
      banned_at: r.body[2].created_at,
      expires_at: expect.any(String),
      is_active: true,
    });
    const page2 = await api.bans(c.colony, c.mod.token, { limit: 2, page: 2 });
    expect(page2.body.map((b: any) => b.user_id)).toEqual([c.member.id]);
    expect((await api.bans(c.colony, c.mod.token, { limit: 2 })).headers.get("x-has-more")).toBe("true");
    expect((await api.bans(c.colony, c.mod.token, { offset: 1 })).body).toHaveLength(2);
    expect((await api.bans(c.colony, c.mod.token, { limit: 0 })).status).toBe(422);
    expect((await api.bans(c.colony, c.mod.token, { limit: 501 })).status).toBe(422);
    expect((await api.bans(c.colony, c.mod.token, { limit: 500 })).status).toBe(200);
    expectError(await api.bans(c.colony, c.mod.token, { page: 2, offset: 1 }), 400, "INVALID_INPUT");
  });

  test("a timed ban past its expiry shows is_active false until the sweep lifts it", async () => {
    await api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 1 });
    await advance(h, DAY, c);
    expect((await api.bans(c.colony, c.mod.token)).body.map((b: any) => b.is_active)).toEqual([false]);
    await sweep();
    expect((await api.bans(c.colony, c.mod.token)).body).toEqual([]);
  });

  test("anonymous 401; stranger and member 403; founder and site admin 200; a private colony 404 to a stranger", async () => {
    expect((await api.bans(c.colony, null)).status).toBe(401);
    expectError(await api.bans(c.colony, c.stranger.token), 403, "FORBIDDEN");
    expectError(await api.bans(c.colony, c.member.token), 403, "FORBIDDEN");
    expect((await api.bans(c.colony, c.founder.token)).status).toBe(200);
    expect((await api.bans(c.colony, c.admin.token)).status).toBe(200);
    const p = await crew(h, "private");
    expectError(await api.bans(p.colony, p.stranger.token), 404, "NOT_FOUND");
  });
});

describe("timed bans lift themselves", () => {
  test("once the clock passes expires_at: the row goes, colony_unbanned (expired) is emitted, the user told, an unban audit row by nobody", async () => {
    await api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 7 });
    await advance(h, 7 * DAY - HOUR, c);
    await sweep();
    expect(banRow(h, c.colony.id, c.member.id)).not.toBeNull();
    expectError(await api.join(c.colony, c.member.token), 403, "FORBIDDEN");
    await advance(h, HOUR, c);
    // The ban stops applying at expires_at, before the sweep has run.
    expect((await api.myAppeal(c.colony, c.member.token)).body.banned).toBe(false);
    await sweep();
    expect(banRow(h, c.colony.id, c.member.id)).toBeNull();
    expect(eventsOf(h, "colony_unbanned", c.colony.id).map((e) => [e.actor_id, e.payload])).toEqual([
      [null, { colony_id: c.colony.id, colony_name: c.colony.name, user_id: c.member.id, username: c.member.username, how: "expired" }],
    ]);
    expect(auditRows(h, c.colony.id, "unban").map((a) => [a.actor_id, a.meta])).toEqual([[null, { how: "expired" }]]);
    const [n] = await notificationsOf(h, c.member);
    expect(n).toMatchObject({ kind: "colony_unbanned", actor: null, meta: { how: "expired" } });
    expect((await api.join(c.colony, c.member.token)).status).toBe(204);
    // A second sweep finds nothing.
    await sweep();
    expect(eventsOf(h, "colony_unbanned", c.colony.id)).toHaveLength(1);
  });

  test("a permanent ban, or a timed ban replaced by a permanent one, is never lifted", async () => {
    await api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 1 });
    await api.ban(c.colony, c.member.id, c.mod.token);
    await api.ban(c.colony, c.stranger.id, c.mod.token);
    await advance(h, 365 * DAY, c);
    await sweep();
    expect(banRow(h, c.colony.id, c.member.id)).not.toBeNull();
    expect(banRow(h, c.colony.id, c.stranger.id)).not.toBeNull();
    expect(await kindsOf(h, c.member)).not.toContain("colony_unbanned");
  });

  test("the sweep is registered as a recurring task and uses the expiry index", async () => {
    await h.ctx.jobs.runRecurring(LIFT_EXPIRED_BANS_TASK);
    const plan = h.ctx.db.$client
      .query("explain query plan select * from colony_bans where expires_at is not null and expires_at <= ? order by expires_at limit 200")
      .all(h.clock.now()) as { detail: string }[];
    expect(plan.map((p) => p.detail).join(" ")).toContain("colony_bans_expiry_idx");
    const list = h.ctx.db.$client.query("explain query plan select * from colony_bans where colony_id = ? order by created_at desc, user_id limit 100").all(c.colony.id) as { detail: string }[];
    expect(list.map((p) => p.detail).join(" ")).toContain("colony_bans_colony_idx");
  });
});

describe("rate limit", () => {
  test("bans and unbans share the colony admin budget of 30 per hour per moderator", async () => {
    const lh = setup();
    const lapi = modApi(lh);
    const lc = await crew(lh);
    const max = limitRule("colony_admin").max;
    for (let i = 0; i < max / 2; i++) {
      expect((await lapi.ban(lc.colony, lc.stranger.id, lc.founder.token)).status).toBe(201);
      expect((await lapi.unban(lc.colony, lc.stranger.id, lc.founder.token)).status).toBe(204);
    }
    const r = await lapi.ban(lc.colony, lc.stranger.id, lc.founder.token);
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).not.toBeNull();
    expect(banRow(lh, lc.colony.id, lc.stranger.id)).toBeNull();
    await advance(lh, HOUR, lc);
    expect((await lapi.ban(lc.colony, lc.stranger.id, lc.founder.token)).status).toBe(201);
  });
});
