import { beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { join, makeColony, post } from "../posts/fixtures";
import { UNKNOWN, comment } from "./fixtures";
import { applyCommentScoreDelta, markCommentSentinelScanned, wilsonLowerBound } from "./service";

const h = setup();
beforeEach(() => h.ctx.limits.reset());
const MIN = 60_000;

const list = (postId: string, query: Record<string, string | number | boolean> = {}, token: string | null = null) =>
  h.req("GET", `/api/v1/posts/${postId}/comments`, { query, token });
const ids = (r: { body: { items: { id: string }[] } }) => r.body.items.map((x) => x.id);

/** Sets a comment's vote counts through the votes feature's entry point. */
function votes(id: string, up: number, down: number) {
  h.ctx.db.transaction((tx) => applyCommentScoreDelta(tx, id, { score: up - down, up, down }));
}

describe("Wilson lower bound", () => {
  test("4 up / 0 down outranks 13 up / 8 down; no votes is 0", () => {
    expect(wilsonLowerBound(4, 0)).toBeGreaterThan(wilsonLowerBound(13, 8));
    expect(wilsonLowerBound(0, 0)).toBe(0);
    expect(wilsonLowerBound(4, 0)).toBeCloseTo(0.5101, 3);
  });
});

describe("GET /api/v1/posts/{post_id}/comments", () => {
  test("sorts: oldest (default), newest, top by net score, best by Wilson with chronological fallback", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const a = await comment(h, u, p.id, { body: "a" });
    h.clock.advance(MIN);
    const b = await comment(h, u, p.id, { body: "b" });
    h.clock.advance(MIN);
    const c = await comment(h, u, p.id, { body: "c" });
    h.clock.advance(MIN);
    const d = await comment(h, u, p.id, { body: "d" });
    votes(b.id, 13, 8); // score 5, wilson ~0.41
    votes(c.id, 4, 0); // score 4, wilson ~0.51
    // a and d have no votes: they follow, oldest first.
    const def = await list(p.id);
    expect(def.status).toBe(200);
    expect(ids(def)).toEqual([a.id, b.id, c.id, d.id]);
    expect(def.body).toMatchObject({ total: 4, page: 1, has_more: false });
    expect(ids(await list(p.id, { sort: "oldest" }))).toEqual([a.id, b.id, c.id, d.id]);
    expect(ids(await list(p.id, { sort: "newest" }))).toEqual([d.id, c.id, b.id, a.id]);
    expect(ids(await list(p.id, { sort: "top" }))).toEqual([b.id, c.id, a.id, d.id]);
    expect(ids(await list(p.id, { sort: "best" }))).toEqual([c.id, b.id, a.id, d.id]);
    expect((await list(p.id, { sort: "hot" })).status).toBe(422);
    const scored = (await list(p.id, { sort: "top" })).body.items[0];
    expect(scored.score).toBe(5);
  });

  test("paging: page default 1, limit 1-100 default 20, offset wins over page, has_more", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const made: string[] = [];
    for (let i = 0; i < 25; i++) {
      made.push((await comment(h, u, p.id, { body: `n${i}` })).id);
      h.clock.advance(1000);
    }
    const first = await list(p.id);
    expect(first.body.items.length).toBe(20);
    expect(first.body).toMatchObject({ total: 25, page: 1, has_more: true });
    const second = await list(p.id, { page: 2 });
    expect(ids(second)).toEqual(made.slice(20));
    expect(second.body).toMatchObject({ page: 2, has_more: false });
    const byOffset = await list(p.id, { page: 1, offset: 20, limit: 5 });
    expect(byOffset.status).toBe(200);
    expect(ids(byOffset)).toEqual(made.slice(20, 25));
    expect(byOffset.body.page).toBe(5);
    expect((await list(p.id, { limit: 0 })).status).toBe(422);
    expect((await list(p.id, { limit: 101 })).status).toBe(422);
    expect((await list(p.id, { limit: 100 })).body.items.length).toBe(25);
  });

  test("since is strictly after; sentinel_scanned filters both ways; a bad since is 422", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const a = await comment(h, u, p.id);
    h.clock.advance(MIN);
    const b = await comment(h, u, p.id);
    expect(ids(await list(p.id, { since: a.created_at }))).toEqual([b.id]);
    expect(ids(await list(p.id, { since: new Date(Date.parse(a.created_at) - 1).toISOString() }))).toEqual([a.id, b.id]);
    expect((await list(p.id, { since: a.created_at })).body.total).toBe(1);
    expect((await list(p.id, { since: "yesterday" })).status).toBe(422);
    h.ctx.db.transaction((tx) => markCommentSentinelScanned(tx, a.id, h.clock.now()));
    expect(ids(await list(p.id, { sentinel_scanned: true }))).toEqual([a.id]);
    expect(ids(await list(p.id, { sentinel_scanned: false }))).toEqual([b.id]);
  });

  test("visibility: unknown post 404, private colony post 404 to anonymous, strangers and pending members", async () => {
    const founder = await h.user();
    const priv = makeColony(h, founder, "private");
    const p = await post(h, founder, { colony_id: priv.id });
    await comment(h, founder, p.id);
    const pending = await h.user();
    await join(h, priv, pending);
    const member = await h.user();
    await join(h, priv, member, founder);
    const unknown = await list(UNKNOWN);
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail.code).toBe("NOT_FOUND");
    expect((await list(p.id)).status).toBe(404);
    expect((await list(p.id, {}, (await h.user()).token)).status).toBe(404);
    expect((await list(p.id, {}, pending.token)).status).toBe(404);
    expect((await list(p.id, {}, member.token)).body.total).toBe(1);
    // A deleted post's comments are no longer listed.
    const pub = await post(h, founder);
    await comment(h, founder, pub.id);
    await h.req("DELETE", `/api/v1/posts/${pub.id}`, { token: founder.token });
    expect((await list(pub.id)).status).toBe(404);
  });

  test("every sort is served by an index (EXPLAIN QUERY PLAN)", () => {
    const plan = (sql: string) => (h.ctx.db.$client.query(`explain query plan ${sql}`).all("p") as { detail: string }[]).map((r) => r.detail).join(" | ");
    expect(plan("select * from comments where post_id = ? order by created_at, id")).toContain("comments_post_created_idx");
    expect(plan("select * from comments where post_id = ? order by created_at desc, id desc")).toContain("comments_post_created_idx");
    expect(plan("select * from comments where post_id = ? order by score desc, created_at")).toContain("comments_post_top_idx");
    expect(plan("select * from comments where post_id = ? order by wilson desc, created_at")).toContain("comments_post_best_idx");
    expect(plan("select * from comments where author_id = ? and deleted_at is null order by created_at desc, id desc")).toContain("comments_author_created_idx");
    expect(plan("select 1 from comments where parent_id = ? limit 1")).toContain("comments_parent_idx");
  });
});
