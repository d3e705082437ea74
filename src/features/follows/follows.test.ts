// POST/DELETE /api/v1/users/{user_id}/follow and /users/by-username/{username}/follow
// (spec Part 1 §4.3, §6; receipt and status codes per the reference service).
import { beforeEach, describe, expect, test } from "bun:test";
import { expectError } from "../../../test/expect";
import { setup, type TestUser } from "../../../test/harness";
import { MINUTE } from "../../core/clock";
import { uuidv7 } from "../../core/ids";
import { followeeIds, followerCount, followerIds, followingCount, isFollowing, purgeUser } from "./service";

// One database for the file: each test follows between three accounts of its own.
const h = setup();
let me: TestUser;
let alice: TestUser;
let bob: TestUser;

beforeEach(async () => {
  me = await h.user();
  alice = await h.user();
  bob = await h.user();
});

/** The events of `type` about the test's own accounts (the actor is one of them). */
const events = (type: string) =>
  (h.ctx.db.$client.query("select * from events where type = ? order by id").all(type) as any[]).filter((e) => [me.id, alice.id, bob.id].includes(e.actor_id));
const notificationsOf = (u: TestUser) => h.ctx.db.$client.query("select * from notifications where user_id = ?").all(u.id) as any[];

// Both addressings behave the same; the user_id form also accepts a username.
const FORMS = [
  ["by username", (u: TestUser) => `/api/v1/users/by-username/${u.username}/follow`],
  ["by user id", (u: TestUser) => `/api/v1/users/${u.id}/follow`],
  ["by username in the user_id slot", (u: TestUser) => `/api/v1/users/${u.username}/follow`],
] as const;

describe.each(FORMS)("follow %s", (_name, path) => {
  const follow = (target: TestUser, token: string | null = me.token) => h.req("POST", path(target), { token });
  const unfollow = (target: TestUser, token: string | null = me.token) => h.req("DELETE", path(target), { token });

  test("201 with the receipt; the follow is stored", async () => {
    const res = await follow(alice);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      status: "following",
      follow_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      follower_id: me.id,
      followed_id: alice.id,
      created_at: new Date(h.clock.now()).toISOString(),
    });
    expect(isFollowing(h.ctx, me.id, alice.id)).toBe(true);
    expect(isFollowing(h.ctx, alice.id, me.id)).toBe(false);
  });

  test("emits user_followed (activity) in the write; new_follower is there as soon as the follow answers", async () => {
    await follow(alice);
    const [ev] = events("user_followed");
    expect(ev).toMatchObject({ actor_id: me.id, subject_type: "user", subject_id: alice.id, activity: 1, processed_at: null });
    expect(JSON.parse(ev.payload)).toEqual({ follower_id: me.id, followee_id: alice.id, follower_username: me.username, followee_username: alice.username });
    expect(notificationsOf(alice)).toHaveLength(1);
    const list = await h.req("GET", "/api/v1/notifications", { token: alice.token });
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ kind: "new_follower", actor: { id: me.id, username: me.username }, message: `@${me.username} started following you` });
    expect(notificationsOf(me)).toHaveLength(0);
  });

  test("following twice is 409 CONFLICT carrying the existing follow; nothing changes, nobody is told twice", async () => {
    const first = await follow(alice);
    h.clock.advance(MINUTE);
    const again = await follow(alice);
    expectError(again, 409, "CONFLICT");
    expect(again.body.detail).toMatchObject({ follow_id: first.body.follow_id, created_at: first.body.created_at });
    expect(events("user_followed")).toHaveLength(1);
    await h.ctx.events.drain();
    expect(notificationsOf(alice)).toHaveLength(1);
    expect(followerCount(h.ctx, alice.id)).toBe(1);
  });

  test("following yourself is 400 INVALID_INPUT", async () => {
    expectError(await follow(me), 400, "INVALID_INPUT");
    expect(isFollowing(h.ctx, me.id, me.id)).toBe(false);
    expect(events("user_followed")).toHaveLength(0);
  });

  test("an unknown user is 404 USER_NOT_FOUND for follow and unfollow", async () => {
    const ghost = { ...alice, id: uuidv7(h.clock.now()), username: "nobody-here" };
    expectError(await follow(ghost), 404, "USER_NOT_FOUND");
    expectError(await unfollow(ghost), 404, "USER_NOT_FOUND");
  });

  test("anonymous follow and unfollow are 401 AUTH_INVALID_TOKEN", async () => {
    expectError(await follow(alice, null), 401, "AUTH_INVALID_TOKEN");
    expectError(await unfollow(alice, null), 401, "AUTH_INVALID_TOKEN");
    expect(isFollowing(h.ctx, me.id, alice.id)).toBe(false);
  });

  test("unfollow: 204 removes the follow; again it is 404 NOT_FOUND (already unfollowed)", async () => {
    await follow(alice);
    const res = await unfollow(alice);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(isFollowing(h.ctx, me.id, alice.id)).toBe(false);
    expectError(await unfollow(alice), 404, "NOT_FOUND");
  });

  test("unfollowing someone never followed is 404 NOT_FOUND; another user's follow is untouched", async () => {
    await follow(alice, bob.token);
    expectError(await unfollow(alice), 404, "NOT_FOUND");
    expect(isFollowing(h.ctx, bob.id, alice.id)).toBe(true);
  });

  test("unfollowing sends no notification", async () => {
    await follow(alice);
    await h.ctx.events.drain();
    await unfollow(alice);
    await h.ctx.events.drain();
    expect(notificationsOf(alice)).toHaveLength(1);
  });
});

describe("relationship reads", () => {
  test("counts, isFollowing, followeeIds and followerIds (newest first)", async () => {
    await h.req("POST", `/api/v1/users/${alice.id}/follow`, { token: me.token });
    h.clock.advance(MINUTE);
    await h.req("POST", `/api/v1/users/${bob.id}/follow`, { token: me.token });
    await h.req("POST", `/api/v1/users/${bob.id}/follow`, { token: alice.token });
    expect(followingCount(h.ctx, me.id)).toBe(2);
    expect(followerCount(h.ctx, me.id)).toBe(0);
    expect(followerCount(h.ctx, bob.id)).toBe(2);
    expect(followeeIds(h.ctx, me.id)).toEqual([bob.id, alice.id]);
    expect(followeeIds(h.ctx, bob.id)).toEqual([]);
    expect(followerIds(h.ctx, bob.id).sort()).toEqual([me.id, alice.id].sort());
    expect(isFollowing(h.ctx, alice.id, bob.id)).toBe(true);
  });

  test("purgeUser removes the account's follows in both directions and nobody else's", async () => {
    await h.req("POST", `/api/v1/users/${alice.id}/follow`, { token: me.token });
    await h.req("POST", `/api/v1/users/${me.id}/follow`, { token: bob.token });
    await h.req("POST", `/api/v1/users/${alice.id}/follow`, { token: bob.token });
    purgeUser(h.ctx, me.id);
    expect(followingCount(h.ctx, me.id)).toBe(0);
    expect(followerCount(h.ctx, me.id)).toBe(0);
    expect(followeeIds(h.ctx, bob.id)).toEqual([alice.id]);
  });

  test("the follower and followee queries use the follows indexes", () => {
    const plan = (sql: string) => (h.ctx.db.$client.query(`explain query plan ${sql}`).all(me.id) as { detail: string }[]).map((r) => r.detail).join("\n");
    expect(plan("select count(*) from follows where followee_id = ?")).toContain("follows_followee_idx");
    expect(plan("select followee_id from follows where follower_id = ? order by created_at desc")).toContain("follows_follower_created_idx");
    expect(plan("select follower_id from follows where followee_id = ? order by created_at desc")).toContain("follows_followee_idx");
  });
});

describe("new_follower notifications", () => {
  const follow = (target: TestUser, token = me.token) => h.req("POST", `/api/v1/users/by-username/${target.username}/follow`, { token });
  const unfollow = (target: TestUser, token = me.token) => h.req("DELETE", `/api/v1/users/by-username/${target.username}/follow`, { token });

  test("each new follower is one notification to the followed user", async () => {
    await follow(alice);
    await follow(alice, bob.token);
    await h.ctx.events.drain();
    const list = await h.req("GET", "/api/v1/notifications", { token: alice.token });
    expect(list.body.map((n: any) => n.actor.username)).toEqual([bob.username, me.username]);
  });

  test("unfollowing and following again does not stack an unread new_follower", async () => {
    await follow(alice);
    await h.ctx.events.drain();
    await unfollow(alice);
    await follow(alice);
    await h.ctx.events.drain();
    expect(notificationsOf(alice)).toHaveLength(1);
  });

  test("once the first is read, a later re-follow notifies again", async () => {
    await follow(alice);
    await h.ctx.events.drain();
    await h.req("POST", "/api/v1/notifications/read-all", { token: alice.token });
    await unfollow(alice);
    await follow(alice);
    await h.ctx.events.drain();
    expect(notificationsOf(alice)).toHaveLength(2);
  });
});

test("the existing profile routes still resolve next to the follow routes", async () => {
  expect((await h.req("GET", `/api/v1/users/${alice.id}`)).body.username).toBe(alice.username);
  expect((await h.req("GET", `/api/v1/users/by-username/${alice.username}`)).body.id).toBe(alice.id);
  expect((await h.req("GET", "/api/v1/users/me", { token: me.token })).body.id).toBe(me.id);
});
