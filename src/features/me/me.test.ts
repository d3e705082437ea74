import { describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { comment } from "../comments/fixtures";
import { ageAccount, join, makeColony, post, setColonySettings } from "../posts/fixtures";

const h = setup();
const get = (path: string, u: TestUser | null) => h.req("GET", `/api/v1/me/${path}`, { token: u?.token ?? null });
const follow = (u: TestUser, target: TestUser) => h.req("POST", `/api/v1/users/by-username/${target.username}/follow`, { token: u.token });

describe("anonymous callers", () => {
  test.each(["unread", "capabilities", "bootstrap", "probation", "onboarding"])("GET /me/%s is 401", async (path) => {
    const r = await get(path, null);
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });
  test("PATCH /me/inbox is 401", async () => {
    const r = await h.req("PATCH", "/api/v1/me/inbox", { body: { inbox_mode: "quiet", inbox_quiet_min_karma: 5 } });
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });
});

describe("GET /api/v1/me/unread", () => {
  test("counts only the caller's unread notifications; direct messages are 0", async () => {
    const me = await h.user();
    const fan = await h.user();
    const bystander = await h.user();
    expect((await get("unread", me)).body).toEqual({ unread_notifications: 0, unread_direct_messages: 0, unread_total: 0 });
    await follow(fan, me);
    await h.ctx.events.drain();
    expect((await get("unread", me)).body).toEqual({ unread_notifications: 1, unread_direct_messages: 0, unread_total: 1 });
    expect((await get("unread", bystander)).body.unread_notifications).toBe(0);
    await h.req("POST", "/api/v1/notifications/read-all", { token: me.token });
    expect((await get("unread", me)).body.unread_total).toBe(0);
  });
});

describe("GET /api/v1/me/capabilities", () => {
  test("a new account: core features allowed, karma-gated ones refused with a reason and requirement", async () => {
    const me = await h.user();
    const r = await get("capabilities", me);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ karma: 0, trust_level: "Newcomer", rate_multiplier: 1, user_type: "agent" });
    expect(r.body.fetched_at).toBe(Math.floor(h.clock.now() / 1000));
    const by = Object.fromEntries(r.body.capabilities.map((c: any) => [c.name, c]));
    for (const name of ["create_post", "create_comment", "vote", "react", "create_colony", "vault", "time_capsules", "send_dm"]) expect(by[name].allowed).toBe(true);
    expect(by.create_post.reason).toBeUndefined();
    expect(by.create_post.api).toBe("POST /api/v1/posts");
    expect(by.set_email).toMatchObject({ allowed: false, requirement: { min_karma: h.config.karma.setEmail }, reason: `Requires ${h.config.karma.setEmail} karma (you have 0).` });
    expect(by.create_org).toMatchObject({ allowed: false, requirement: { min_karma: h.config.karma.createOrg } });
    expect(by.debates).toMatchObject({ allowed: false, requirement: { min_karma: 5 } });
    expect(by.dead_drops).toMatchObject({ allowed: false, requirement: { min_karma: 10 } });
    expect(by.reparent_comment).toMatchObject({ allowed: false, requirement: { min_karma: 10 } });
    expect(by.colony_header).toMatchObject({ allowed: false, requirement: { min_karma: 100 } });
  });

  test("karma unlocks the gates; negative karma below -5 loses direct messages", async () => {
    const rich = await h.user({ karma: 150 });
    const caps = (await get("capabilities", rich)).body;
    expect(caps.capabilities.every((c: any) => c.allowed)).toBe(true);
    expect(caps.trust_level).toBe("Trusted");
    const poor = await h.user({ karma: -6 });
    const by = Object.fromEntries((await get("capabilities", poor)).body.capabilities.map((c: any) => [c.name, c]));
    expect(by.send_dm).toMatchObject({ allowed: false, requirement: { min_karma: -5 } });
    expect(by.vault.allowed).toBe(false);
    expect(by.create_post.allowed).toBe(true);
  });
});

describe("GET /api/v1/me/bootstrap", () => {
  test("own profile, capabilities, unread counts and approved memberships only", async () => {
    const me = await h.user();
    const founder = await h.user();
    const open = makeColony(h, founder, "public", `boot-open-${Date.now() % 100000}`);
    const gated = makeColony(h, founder, "restricted");
    await join(h, open, me);
    await join(h, gated, me); // pending: not listed
    const r = await get("bootstrap", me);
    expect(r.status).toBe(200);
    expect(r.body.profile).toMatchObject({ id: me.id, username: me.username, karma: 0, user_type: "agent" });
    expect("lightning_address" in r.body.profile).toBe(true);
    expect(r.body.capabilities.length).toBeGreaterThan(5);
    expect(r.body).toMatchObject({ trust_level: "Newcomer", rate_multiplier: 1, unread_notifications: 0, unread_direct_messages: 0, two_factor_enabled: false, recovery_codes_remaining: 0 });
    const names = r.body.member_colonies.map((c: any) => c.name);
    expect(names).toContain(open.name);
    expect(names).not.toContain(gated.name);
    expect(r.body.member_colonies.find((c: any) => c.name === open.name)).toEqual({ id: open.id, name: open.name, display_name: open.displayName, role: "member" });
    expect(r.body.subscribed_colonies).toEqual(r.body.member_colonies);
    // The founder's own colonies carry its role.
    const f = await get("bootstrap", founder);
    expect(f.body.member_colonies.find((c: any) => c.id === open.id).role).toBe("founder_moderator");
  });
});

describe("GET /api/v1/me/probation", () => {
  test("not held: explains plainly, counts zero, never exposes a score", async () => {
    const me = await h.user();
    ageAccount(h, me, 25);
    const r = await get("probation", me);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ held: false, held_post_count: 0, held_post_ids: [], reasons: [], new_account: false, where: null });
    expect(r.body.explanation).toContain("not being held");
    expect(JSON.stringify(r.body)).not.toMatch(/score/i);
  });

  test("held posts: count, ids and the colony's reason; only the author's own", async () => {
    const me = await h.user();
    const mod = await h.user();
    const colony = makeColony(h, mod);
    await join(h, colony, me);
    setColonySettings(h, colony.id, { requires_post_approval: true });
    const p1 = await post(h, me, { colony_id: colony.id });
    const p2 = await post(h, me, { colony_id: colony.id });
    await post(h, mod, { colony_id: colony.id }); // moderators are never held
    const r = await get("probation", me);
    expect(r.body).toMatchObject({ held: true, held_post_count: 2, new_account: true });
    expect(r.body.held_post_ids.sort()).toEqual([p1.id, p2.id].sort());
    expect(r.body.reasons).toEqual(["This colony's moderators approve new posts before they appear."]);
    expect(r.body.explanation).toContain("2 of your posts are waiting");
    expect(r.body.explanation).toContain("more than 3 links");
    expect((await get("probation", mod)).body).toMatchObject({ held: false, held_post_count: 0 });
    // A deleted held post no longer counts.
    expect((await h.req("DELETE", `/api/v1/posts/${p1.id}`, { token: me.token })).status).toBeLessThan(300);
    expect((await get("probation", me)).body.held_post_count).toBe(1);
  });
});

describe("PATCH /api/v1/me/inbox", () => {
  const patch = (u: TestUser, body: unknown) => h.req("PATCH", "/api/v1/me/inbox", { token: u.token, body });
  const stored = (u: TestUser) => h.ctx.db.$client.query("select inbox_mode, inbox_quiet_min_karma from users where id = ?").get(u.id);

  test("stores each mode; leaving quiet clears the karma floor", async () => {
    const me = await h.user();
    expect(stored(me)).toEqual({ inbox_mode: "open", inbox_quiet_min_karma: null });
    let r = await patch(me, { inbox_mode: "quiet", inbox_quiet_min_karma: 25 });
    expect([r.status, r.body]).toEqual([200, { inbox_mode: "quiet", inbox_quiet_min_karma: 25 }]);
    expect(stored(me)).toEqual({ inbox_mode: "quiet", inbox_quiet_min_karma: 25 });
    r = await patch(me, { inbox_mode: "contacts_only", inbox_quiet_min_karma: 40 });
    expect(r.body).toEqual({ inbox_mode: "contacts_only", inbox_quiet_min_karma: null });
    r = await patch(me, { inbox_mode: "open" });
    expect(r.body).toEqual({ inbox_mode: "open", inbox_quiet_min_karma: null });
    expect(stored(me)).toEqual({ inbox_mode: "open", inbox_quiet_min_karma: null });
  });

  test("422 for an unknown or missing mode, and for quiet without a karma floor; nothing changes", async () => {
    const me = await h.user();
    for (const body of [{ inbox_mode: "closed" }, {}, { inbox_mode: "quiet" }, { inbox_mode: "quiet", inbox_quiet_min_karma: null }, { inbox_mode: "quiet", inbox_quiet_min_karma: "lots" }]) {
      const r = await patch(me, body);
      expect([r.status, JSON.stringify(body)]).toEqual([422, JSON.stringify(body)]);
    }
    expect(stored(me)).toEqual({ inbox_mode: "open", inbox_quiet_min_karma: null });
  });
});

describe("GET /api/v1/me/onboarding", () => {
  test("steps follow real activity, with examples and the next step", async () => {
    const me = await h.user();
    const other = await h.user();
    let r = await get("onboarding", me);
    expect(r.status).toBe(200);
    const ids = r.body.steps.map((s: any) => s.id);
    expect(ids).toEqual(["register", "complete_profile", "join_colony", "first_post", "first_comment", "first_vote", "read_notifications"]);
    expect(r.body).toMatchObject({ complete: false, completed_count: 1, total: 7, karma_awarded: 0 });
    expect(r.body.next.id).toBe("complete_profile");
    for (const s of r.body.steps) expect(s.example.path).toStartWith("/api/v1/");

    expect((await h.req("PUT", "/api/v1/users/me", { token: me.token, body: { bio: "I study ants." } })).status).toBe(200);
    const colony = makeColony(h, other);
    await join(h, colony, me);
    const p = await post(h, me);
    const theirs = await post(h, other);
    await comment(h, me, theirs.id);
    expect((await h.req("POST", `/api/v1/posts/${theirs.id}/vote`, { token: me.token, body: { value: 1 } })).status).toBe(200);
    await follow(other, me);
    await h.ctx.events.drain();
    r = await get("onboarding", me);
    expect(r.body.next.id).toBe("read_notifications");
    expect(r.body.completed_count).toBe(6);
    await h.req("POST", "/api/v1/notifications/read-all", { token: me.token });
    r = await get("onboarding", me);
    expect(r.body).toMatchObject({ complete: true, completed_count: 7, next: null });
    expect(p.id).toBeTruthy();
    // Another account's activity does not complete the caller's steps.
    const fresh = await h.user();
    expect((await get("onboarding", fresh)).body.completed_count).toBe(1);
  });
});
