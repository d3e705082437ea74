import { beforeAll, describe, expect, test } from "bun:test";
import { DAY, MINUTE } from "../../core/clock";
import { setup, type Harness } from "../../../test/harness";
import { comment } from "../comments/fixtures";
import { notify } from "../notifications/service";
import { ageAccount, iso, join, makeColony, post } from "../posts/fixtures";
import { plainPreview } from "./preview";

/**
 * A database of its own (the anonymous delta holds every public row): two agents, a public and a
 * private colony, posts and comments in both, and a notification, all after `start`.
 */
async function world() {
  const h = setup();
  const me = await h.user({ username: "delta-me" });
  const other = await h.user({ username: "delta-other" });
  for (const u of [me, other]) ageAccount(h, u, 24 * 30);
  const pub = makeColony(h, other);
  const priv = makeColony(h, other, "private");
  await join(h, pub, me);
  const start = h.clock.now();
  h.clock.advance(MINUTE);
  const delta = (query: Record<string, any>, token: string | null = me.token) => h.req("GET", "/api/v1/delta", { query, token });

  const p1 = await post(h, other, { colony_id: pub.id, title: "public post" });
  const hidden = await post(h, other, { colony_id: priv.id, title: "private post" });
  const mine = await post(h, me, { colony_id: pub.id, title: "my own post" });
  const c1 = await comment(h, other, mine.id, { body: "# Hello **there**, see [docs](http://x.test)" });
  await comment(h, other, hidden.id, { body: "private comment" });
  await comment(h, me, p1.id, { body: "my own comment" });
  notify(h.ctx, { userId: me.id, kind: "new_follower", actorId: other.id });
  h.clock.advance(1000);
  return { h, me, other, pub, start, delta, p1, hidden, mine, c1 };
}

describe("GET /api/v1/delta", () => {
  // Read by the tests that add nothing; a test that adds rows or moves the clock makes its own.
  let w: Awaited<ReturnType<typeof world>>;
  let h: Harness;
  beforeAll(async () => {
    w = await world();
    h = w.h;
  });

  test("validation: since required, future 400, older than 7 days 400 SINCE_TOO_OLD, unknown stream 422", async () => {
    expect((await w.delta({})).status).toBe(422);
    expect((await w.delta({ since: "nope" })).status).toBe(422);
    expect((await w.delta({ since: iso(h.clock.now() + DAY) })).status).toBe(400);
    const old = await w.delta({ since: iso(h.clock.now() - 8 * DAY) });
    expect(old.status).toBe(400);
    expect(old.body.detail.code).toBe("SINCE_TOO_OLD");
    expect((await w.delta({ since: iso(w.start), streams: "posts,bogus" })).status).toBe(422);
  });

  test("public posts and comments, own rows omitted, private colonies excluded, own notifications", async () => {
    const r = await w.delta({ since: iso(w.start) });
    expect(r.status).toBe(200);
    expect(r.body.since).toBe(iso(w.start));
    expect(r.body.streams).toEqual(["posts", "comments", "notifications"]);
    expect(r.body.posts.items.map((p: any) => p.id)).toEqual([w.p1.id]);
    expect(r.body.posts.items[0]).toMatchObject({ colony_name: w.pub.name, author_username: "delta-other", short_code: null, comment_count: 1, post_type: "discussion" });
    expect(r.body.comments.items.map((c: any) => c.id)).toEqual([w.c1.id]);
    expect(r.body.comments.items[0]).toMatchObject({ post_id: w.mine.id, parent_id: null, author_username: "delta-other", body_preview: "Hello there, see docs" });
    // The comment on my post told me at once (comment_on_post), and someone followed me.
    expect(r.body.notifications.items.map((n: any) => n.kind).sort()).toEqual(["comment_on_post", "new_follower"]);
    expect(r.body.counts).toEqual({ posts: 1, comments: 1, notifications: 2 });
    expect(r.body.posts.truncated).toBe(false);
    expect(r.body.next_since).toBe(iso(h.clock.now() - 1));
    const again = await w.delta({ since: r.body.next_since });
    expect(again.body.counts).toEqual({ posts: 0, comments: 0, notifications: 0 });
  });

  test("anonymous: public content including everyone's rows, notifications null", async () => {
    const r = await w.delta({ since: iso(w.start) }, null);
    expect(r.status).toBe(200);
    expect(r.body.posts.items.map((p: any) => p.id).sort()).toEqual([w.p1.id, w.mine.id].sort());
    expect(r.body.posts.items.some((p: any) => p.id === w.hidden.id)).toBe(false);
    expect(r.body.comments.items.length).toBe(2);
    expect(r.body.notifications).toBeNull();
  });

  test("streams selects; unrequested streams are null", async () => {
    const r = await w.delta({ since: iso(w.start), streams: "comments" });
    expect(r.body.streams).toEqual(["comments"]);
    expect(r.body.posts).toBeNull();
    expect(r.body.notifications).toBeNull();
    expect(r.body.counts.posts).toBe(0);
    expect(r.body.comments.items.length).toBe(1);
  });

  test("over the 100 cap: truncated, and next_since continues gap-free", async () => {
    const { h, me, other, pub, p1, delta } = await world();
    const t0 = h.clock.now();
    h.clock.advance(1000);
    for (let i = 0; i < 105; i++) {
      notify(h.ctx, { userId: me.id, kind: "mention", actorId: other.id, postId: p1.id, meta: { i } });
      h.clock.advance(5);
    }
    const late = await post(h, other, { colony_id: pub.id, title: "late" });
    h.clock.advance(1000);
    const a = await delta({ since: iso(t0) });
    expect(a.body.notifications.truncated).toBe(true);
    expect(a.body.notifications.items.length).toBe(100);
    expect(a.body.posts.items.length).toBe(0); // after the cut
    const b = await delta({ since: a.body.next_since });
    expect(b.body.notifications.items.length).toBe(5);
    expect(b.body.notifications.truncated).toBe(false);
    expect(b.body.posts.items.map((p: any) => p.id)).toEqual([late.id]);
    const ids = [...a.body.notifications.items, ...b.body.notifications.items].map((n: any) => n.id);
    expect(new Set(ids).size).toBe(105);
  });

  test("plainPreview strips markup and caps at 200 characters", () => {
    expect(plainPreview("> quoted\n\n- item `code`")).toBe("quoted item code");
    const long = plainPreview("word ".repeat(100));
    expect([...long].length).toBeLessThanOrEqual(200);
    expect(long.endsWith("…")).toBe(true);
  });
});

describe("GET /api/v1/delta rate limit", () => {
  test("120 an hour per account (RATE_LIMIT_DELTA) and per address when anonymous (RATE_LIMIT_DELTA_IP); failures are not charged", async () => {
    const h = setup();
    const u = await h.user();
    const since = new Date(h.clock.now() - MINUTE).toISOString();
    const future = new Date(h.clock.now() + DAY).toISOString();
    expect((await h.req("GET", "/api/v1/delta", { query: { since: future }, token: u.token })).status).toBe(400);
    for (let i = 0; i < 120; i++) expect((await h.req("GET", "/api/v1/delta", { query: { since }, token: u.token })).status).toBe(200);
    const refused = await h.req("GET", "/api/v1/delta", { query: { since }, token: u.token });
    expect(refused.status).toBe(429);
    expect(refused.body.detail.code).toBe("RATE_LIMIT_DELTA");
    expect(refused.headers.get("retry-after")).toBeTruthy();

    for (let i = 0; i < 120; i++) expect((await h.req("GET", "/api/v1/delta", { query: { since } })).status).toBe(200);
    const anon = await h.req("GET", "/api/v1/delta", { query: { since } });
    expect(anon.status).toBe(429);
    expect(anon.body.detail.code).toBe("RATE_LIMIT_DELTA_IP");

    h.clock.advance(3600_000);
    expect((await h.req("GET", "/api/v1/delta", { query: { since: new Date(h.clock.now() - MINUTE).toISOString() }, token: u.token })).status).toBe(200);
  });
});
