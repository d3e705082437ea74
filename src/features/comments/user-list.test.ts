import { beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { join, makeColony, post, setColonySettings } from "../posts/fixtures";
import { comment } from "./fixtures";
import { userCommentsWhere } from "./service";
import { comments } from "./tables";

const h = setup();
beforeEach(() => h.ctx.limits.reset());
const MIN = 60_000;

describe("GET /api/v1/users/{user_id}/comments and /users/by-username/{username}/comments", () => {
  test("newest first with exclusions; private colonies only for approved members; by id, username and by-username", async () => {
    const founder = await h.user();
    const u = await h.user();
    const priv = makeColony(h, founder, "private");
    const held = makeColony(h, founder);
    await join(h, priv, u, founder);
    const pending = await h.user();
    await join(h, priv, pending);
    const pub = await post(h, founder);
    const pp = await post(h, founder, { colony_id: priv.id });
    const gone = await post(h, founder);

    const c1 = await comment(h, u, pub.id, { body: "one" });
    h.clock.advance(MIN);
    const c2 = await comment(h, u, pp.id, { body: "private" });
    h.clock.advance(MIN);
    const deleted = await comment(h, u, pub.id, { body: "deleted" });
    await h.req("DELETE", `/api/v1/comments/${deleted.id}`, { token: u.token });
    await comment(h, u, gone.id, { body: "on deleted post" });
    await h.req("DELETE", `/api/v1/posts/${gone.id}`, { token: founder.token });
    // A post made held after the comment (a moderator hold via banned words on edit).
    const hp = await post(h, founder, { colony_id: held.id });
    await comment(h, u, hp.id, { body: "on held post" });
    h.ctx.db.$client.query("update posts set held = 1, listed = 0 where id = ?").run(hp.id);
    h.clock.advance(MIN);
    const c3 = await comment(h, u, pub.id, { body: "three" });

    const anon = await h.req("GET", `/api/v1/users/${u.id}/comments`);
    expect(anon.status).toBe(200);
    expect(anon.body.items.map((x: any) => x.id)).toEqual([c3.id, c1.id]);
    expect(anon.body).toMatchObject({ total: 2, has_more: false });
    expect(anon.body.page).toBeUndefined();
    expect(anon.body.items[0].post_id).toBe(pub.id);
    for (const token of [pending.token, (await h.user()).token]) {
      expect((await h.req("GET", `/api/v1/users/${u.id}/comments`, { token })).body.total).toBe(2);
    }
    const member = await h.req("GET", `/api/v1/users/${u.username}/comments`, { token: founder.token });
    expect(member.body.items.map((x: any) => x.id)).toEqual([c3.id, c2.id, c1.id]);
    const byName = await h.req("GET", `/api/v1/users/by-username/${u.username}/comments`, { token: u.token, query: { limit: 1 } });
    expect(byName.body).toMatchObject({ total: 3, has_more: true });
    expect(byName.body.items.map((x: any) => x.id)).toEqual([c3.id]);
    const page2 = await h.req("GET", `/api/v1/users/${u.id}/comments`, { token: u.token, query: { limit: 1, page: 2 } });
    expect(page2.body.items.map((x: any) => x.id)).toEqual([c2.id]);
  });

  test("held comments appear to their author only", async () => {
    const founder = await h.user();
    const col = makeColony(h, founder);
    const p = await post(h, founder, { colony_id: col.id });
    setColonySettings(h, col.id, { banned_words: ["zap"], banned_words_action: "quarantine" });
    const u = await h.user();
    await comment(h, u, p.id, { body: "zap" });
    expect((await h.req("GET", `/api/v1/users/${u.id}/comments`)).body.total).toBe(0);
    expect((await h.req("GET", `/api/v1/users/${u.id}/comments`, { token: u.token })).body.total).toBe(1);
  });

  test("errors: unknown user 404 USER_NOT_FOUND (both routes); limit out of range 422; page and offset disagreeing 400", async () => {
    for (const path of ["/api/v1/users/nobody-at-all/comments", "/api/v1/users/by-username/nobody-at-all/comments", "/api/v1/users/00000000-0000-7000-8000-000000000000/comments"]) {
      const r = await h.req("GET", path);
      expect(r.status).toBe(404);
      expect(r.body.detail.code).toBe("USER_NOT_FOUND");
    }
    const u = await h.user();
    expect((await h.req("GET", `/api/v1/users/${u.id}/comments`, { query: { limit: 101 } })).status).toBe(422);
    const bad = await h.req("GET", `/api/v1/users/${u.id}/comments`, { query: { page: 2, offset: 3 } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail.code).toBe("INVALID_INPUT");
  });

  test("the list query walks the author index (EXPLAIN QUERY PLAN)", async () => {
    const u = await h.user();
    const q = h.ctx.db.select().from(comments).where(userCommentsWhere(h.ctx, null, u.id)).toSQL();
    const plan = (h.ctx.db.$client.query(`explain query plan ${q.sql} order by created_at desc, id desc`).all(...(q.params as any[])) as { detail: string }[]).map((r) => r.detail).join(" | ");
    expect(plan).toContain("comments_author_created_idx");
    expect(plan).not.toContain("TEMP B-TREE");
  });
});
