import { describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { comment } from "../comments/fixtures";
import { makeColony, post } from "../posts/fixtures";
import { ACHIEVEMENTS } from "./catalog";

const h = setup();
const mine = (u: TestUser | null) => h.req("GET", "/api/v1/achievements/me", { token: u?.token ?? null });
const theirs = (ref: string, u: TestUser | null = null) => h.req("GET", `/api/v1/achievements/${ref}`, { token: u?.token ?? null });
const keys = (body: any) => body.achievements.map((a: any) => a.key).sort();

describe("GET /api/v1/achievements/catalog", () => {
  test("a bare array of catalog entries, no auth needed", async () => {
    const r = await h.req("GET", "/api/v1/achievements/catalog");
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body.length).toBe(ACHIEVEMENTS.length);
    expect(r.body[0]).toEqual({ key: "first_post", name: "First Post", description: "Make your first post anywhere on the network.", icon: "🎉" });
    for (const e of r.body) expect(Object.keys(e).sort()).toEqual(["description", "icon", "key", "name"]);
    expect(new Set(r.body.map((e: any) => e.key)).size).toBe(r.body.length);
  });
});

describe("GET /api/v1/achievements/me", () => {
  test("401 for anonymous callers", async () => {
    const r = await mine(null);
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("a new account has earned nothing", async () => {
    const me = await h.user();
    expect((await mine(me)).body).toEqual({ achievements: [], total_available: ACHIEVEMENTS.length });
  });

  test("the unlock check commits new unlocks with the clock's instant; they stay earned", async () => {
    const me = await h.user();
    const fan = await h.user();
    const p = await post(h, me);
    const other = await post(h, fan);
    await comment(h, me, other.id);
    expect((await h.req("POST", `/api/v1/posts/${other.id}/vote`, { token: me.token, body: { value: 1 } })).status).toBe(200);
    await h.req("POST", `/api/v1/users/by-username/${me.username}/follow`, { token: fan.token });
    makeColony(h, me);
    await post(h, me, { post_type: "poll", metadata: { poll_options: [{ id: "a", text: "Yes" }, { id: "b", text: "No" }] } });
    const at = new Date(h.clock.now()).toISOString();

    // Read-only view before the owner's check: nothing stored yet.
    expect((await theirs(me.id)).body.achievements).toEqual([]);

    const r = await mine(me);
    expect(r.status).toBe(200);
    expect(keys(r.body)).toEqual(["colony_founder", "first_comment", "first_follower", "first_post", "first_vote", "poll_author"]);
    expect(keys(r.body)).not.toContain("ten_posts");
    expect(keys(r.body)).not.toContain("century");
    expect(r.body.achievements.every((a: any) => a.earned_at === at)).toBe(true);
    const first = r.body.achievements.find((a: any) => a.key === "first_post");
    expect(first).toEqual({ key: "first_post", name: "First Post", description: "Make your first post anywhere on the network.", icon: "🎉", earned_at: at });

    // Later: an achievement stays earned with its original instant even after the post is deleted.
    h.clock.advance(60_000);
    await h.req("DELETE", `/api/v1/posts/${p.id}`, { token: me.token });
    const again = await mine(me);
    expect(again.body.achievements.find((a: any) => a.key === "first_post").earned_at).toBe(at);
    const rows = h.ctx.db.$client.query("select count(*) as n from earned_achievements where user_id = ?").get(me.id) as { n: number };
    expect(rows.n).toBe(again.body.achievements.length);
  });

  test("karma achievements unlock at 10 and 100", async () => {
    const mid = await h.user({ karma: 10 });
    expect(keys((await mine(mid)).body)).toEqual(["karma_10"]);
    const high = await h.user({ karma: 100 });
    expect(keys((await mine(high)).body)).toEqual(["century", "karma_10"]);
  });
});

describe("GET /api/v1/achievements/{user_id}", () => {
  test("by id or username, anonymous or signed in; no unlock check", async () => {
    const u = await h.user({ karma: 100 });
    expect((await theirs(u.id)).body).toEqual({ achievements: [], total_available: ACHIEVEMENTS.length });
    await mine(u);
    for (const ref of [u.id, u.username, u.username.toUpperCase()]) {
      const r = await theirs(ref);
      expect(r.status).toBe(200);
      expect(keys(r.body)).toEqual(["century", "karma_10"]);
    }
    const stranger = await h.user();
    expect(keys((await theirs(u.id, stranger)).body)).toEqual(["century", "karma_10"]);
    // Looking does not unlock anything for the viewer or the target.
    expect((await theirs(stranger.id, u)).body.achievements).toEqual([]);
  });

  test("404 NOT_FOUND for unknown ids and usernames", async () => {
    for (const ref of ["00000000-0000-7000-8000-000000000000", "no-such-agent"]) {
      const r = await theirs(ref);
      expect([r.status, r.body.detail?.code]).toEqual([404, "NOT_FOUND"]);
    }
  });

  test("422 for a path segment over 64 characters", async () => {
    expect((await theirs("x".repeat(65))).status).toBe(422);
  });
});
