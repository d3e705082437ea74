import { beforeAll, describe, expect, test } from "bun:test";
import { DAY, MINUTE } from "../../core/clock";
import { setup, type Harness } from "../../../test/harness";
import { notify } from "../notifications/service";
import { ageAccount, join, makeColony, post } from "../posts/fixtures";

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * `me`, a member of a colony of `other`'s, and a stranger with a colony of their own, each new;
 * after `start`: a post in each colony, one of mine, and a notification each for me and other.
 */
async function scenario(h: Harness) {
  const me = await h.user();
  const other = await h.user();
  const stranger = await h.user();
  for (const u of [me, other, stranger]) ageAccount(h, u, 24 * 30);
  const mine = makeColony(h, other);
  await join(h, mine, me);
  const notMine = makeColony(h, stranger);
  const start = h.clock.now();
  h.clock.advance(MINUTE);
  const since = (query: Record<string, any>, token: string | null = me.token) => h.req("GET", "/api/v1/since", { query, token });

  const p1 = await post(h, other, { colony_id: mine.id, title: "in my colony" });
  await post(h, stranger, { colony_id: notMine.id, title: "elsewhere" });
  await post(h, me, { colony_id: mine.id, title: "my own" });
  notify(h.ctx, { userId: me.id, kind: "new_follower", actorId: other.id });
  notify(h.ctx, { userId: other.id, kind: "new_follower", actorId: me.id });
  h.clock.advance(1000);
  return { me, other, mine, start, since, p1 };
}

describe("GET /api/v1/since", () => {
  // One scenario for the tests that only read; the one that adds rows builds its own (new agents
  // and colonies, so the others' answers do not change).
  let h: Harness;
  let s: Awaited<ReturnType<typeof scenario>>;
  beforeAll(async () => {
    h = setup();
    s = await scenario(h);
  });

  test("401 anonymous; 422 without since; 400 for a future since; 422 for garbage", async () => {
    const { since, start } = s;
    expect((await since({ since: iso(start) }, null)).status).toBe(401);
    expect((await since({})).status).toBe(422);
    const fut = await since({ since: iso(h.clock.now() + DAY) });
    expect(fut.status).toBe(400);
    expect((await since({ since: "yesterday" })).status).toBe(422);
    expect((await since({ since: iso(start), limit: 201 })).status).toBe(422);
  });

  test("returns own notifications and others' posts in member colonies; messages empty", async () => {
    const { since, start, p1, other } = s;
    const r = await since({ since: iso(start) });
    expect(r.status).toBe(200);
    expect(r.body.cursor).toBe(iso(start));
    expect(r.body.posts.map((p: any) => p.id)).toEqual([p1.id]);
    expect(r.body.notifications.length).toBe(1);
    expect(r.body.notifications[0].actor_id).toBe(other.id);
    expect(r.body.messages).toEqual([]);
    expect(r.body.counts).toEqual({ notifications: 1, messages: 0, posts: 1 });
    expect(r.body.next_cursor).toBe(iso(h.clock.now() - 1));
    const again = await since({ since: r.body.next_cursor });
    expect(again.body.counts).toEqual({ notifications: 0, messages: 0, posts: 0 });
  });

  test("deprecated cursor works like since", async () => {
    const r = await s.since({ cursor: iso(s.start) });
    expect(r.status).toBe(200);
    expect(r.body.counts.posts).toBe(1);
  });

  test("older than 30 days is clamped", async () => {
    const r = await s.since({ since: iso(s.start - 90 * DAY) });
    expect(r.body.cursor).toBe(iso(h.clock.now() - 30 * DAY));
  });

  test("truncation is gap-free and duplicate-free, ties in one millisecond are never split", async () => {
    const { since, me, other, mine, p1 } = await scenario(h);
    const t0 = h.clock.now();
    h.clock.advance(1000);
    for (let i = 0; i < 3; i++) notify(h.ctx, { userId: me.id, kind: "mention", actorId: other.id, postId: p1.id, meta: { i } }); // same ms
    h.clock.advance(1000);
    for (let i = 0; i < 4; i++) {
      notify(h.ctx, { userId: me.id, kind: "mention", actorId: other.id, postId: p1.id, meta: { j: i } });
      h.clock.advance(10);
    }
    await post(h, other, { colony_id: mine.id, title: "late post" });
    h.clock.advance(1000);
    const seen: string[] = [];
    let cursor = iso(t0);
    const pages: number[] = [];
    for (let n = 0; n < 10; n++) {
      const r = await since({ since: cursor, limit: 2 });
      expect(r.status).toBe(200);
      pages.push(r.body.notifications.length);
      seen.push(...r.body.notifications.map((x: any) => x.id), ...r.body.posts.map((x: any) => x.id));
      if (r.body.counts.notifications + r.body.counts.posts === 0) break;
      // newest first within a category
      const times = r.body.notifications.map((x: any) => x.created_at);
      expect([...times].sort().reverse()).toEqual(times);
      cursor = r.body.next_cursor;
    }
    expect(pages[0]).toBe(3); // the tie of three was returned whole
    expect(seen.length).toBe(8);
    expect(new Set(seen).size).toBe(8);
  });
});
