// Move-out (spec Part 2 §4.2, §8; docs/decisions.md §37): a moderator holding can_remove moves a
// post into general; post counts, the comments' colony, the audit row and the author's
// notification follow; private colonies and posts already in general are 400; other colonies'
// posts 404; 20 an hour; each permission rule.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness } from "../../../test/harness";
import { comment } from "../comments/fixtures";
import { GENERAL, post, postCount } from "../posts/fixtures";
import { auditOf, cast, eventsOf, notificationsOf, setPermissions, type Cast } from "./governance-fixtures";

let h: Harness;
let c: Cast;

beforeAll(() => {
  h = setup({ rateLimitMultiplier: 0 });
});

// Each test acts in a colony of its own, with a cast of its own; the test of the rate limit makes a
// database of its own, with the limits on.
beforeEach(async () => {
  c = await cast(h);
});

const moveOut = (token: string | null, postId: string, colonyId = c.colony.id) => h.req("POST", `/api/v1/colonies/${colonyId}/posts/${postId}/move-out`, { token });
const colonyOfComment = (id: string) => (h.ctx.db.$client.query("select colony_id from comments where id = ?").get(id) as { colony_id: string }).colony_id;

describe("POST /colonies/{id}/posts/{post_id}/move-out", () => {
  test("a moderator moves a post to general: 200, counts follow, comments follow, audit row, the author is told", async () => {
    const p = await post(h, c.member, { colony_id: c.colony.id });
    const cm = await comment(h, c.stranger, p.id, { body: "a comment" });
    const before = { here: postCount(h, c.colony.id), general: postCount(h, GENERAL.id) };
    const res = await moveOut(c.mod.token, p.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ post_id: p.id, from_colony_id: c.colony.id, to_colony_id: GENERAL.id, moved: true });
    expect(postCount(h, c.colony.id)).toBe(before.here - 1);
    expect(postCount(h, GENERAL.id)).toBe(before.general + 1);
    const read = await h.req("GET", `/api/v1/posts/${p.id}`);
    expect(read.body.colony_id).toBe(GENERAL.id);
    expect(read.body.score).toBe(p.score);
    expect(colonyOfComment(cm.id)).toBe(GENERAL.id);
    expect(auditOf(h, c.colony.id).filter((a) => a.action === "move_out")).toEqual([{ action: "move_out", actor_id: c.mod.id, target_id: p.id, target_user_id: c.member.id }]);
    const [n] = await notificationsOf(h, c.member);
    expect(n.kind).toBe("post_moved");
    expect(n.message).toBe(`@${c.mod.username} moved your post from c/${c.colony.name} to c/general`);
    expect(n.meta).toMatchObject({ from_colony_name: c.colony.name, to_colony_name: "general" });
    expect(eventsOf(h, "post_moved", c.colony.id)).toHaveLength(1);
    // Moving it again from here: it is no longer in this colony.
    expectError(await moveOut(c.mod.token, p.id), 404, "NOT_FOUND");
  });

  test("who may: can_remove holders (moderator, colony admin, founder, site admin); not members, strangers, or a moderator denied can_remove", async () => {
    const posts = await Promise.all([1, 2, 3, 4].map((i) => post(h, c.member, { colony_id: c.colony.id, title: `Post number ${i}` })));
    const p = posts[0];
    expect((await moveOut(null, p.id)).status).toBe(401);
    expectError(await moveOut(c.member.token, p.id), 403, "FORBIDDEN");
    expectError(await moveOut(c.stranger.token, p.id), 403, "FORBIDDEN");
    setPermissions(h, c.colony.id, c.mod.id, ["can_ban"]);
    expectError(await moveOut(c.mod.token, p.id), 403, "FORBIDDEN");
    setPermissions(h, c.colony.id, c.mod.id, ["can_remove"]);
    expect((await moveOut(c.mod.token, posts[0].id)).status).toBe(200);
    expect((await moveOut(c.colonyAdmin.token, posts[1].id)).status).toBe(200);
    expect((await moveOut(c.founder.token, posts[2].id)).status).toBe(200);
    expect((await moveOut(c.siteAdmin.token, posts[3].id)).status).toBe(200);
  });

  test("a private colony's post is 400 and stays; a stranger of it gets 404", async () => {
    const pc = await cast(h, "private");
    const p = await post(h, pc.member, { colony_id: pc.colony.id });
    await refused(h, () => moveOut(pc.mod.token, p.id, pc.colony.id), 400, "INVALID_INPUT");
    await refused(h, () => moveOut(c.stranger.token, p.id, pc.colony.id), 404, "NOT_FOUND");
    expect((await h.req("GET", `/api/v1/posts/${p.id}`, { token: pc.member.token })).body.colony_id).toBe(pc.colony.id);
    expect(eventsOf(h, "post_moved", pc.colony.id)).toHaveLength(0);
  });

  test("a post already in general is 400 (there is nowhere further out)", async () => {
    const p = await post(h, c.member, { colony_id: GENERAL.id });
    expectError(await moveOut(c.siteAdmin.token, p.id, GENERAL.id), 400, "INVALID_INPUT");
  });

  test("404: a post of another colony, an unknown or deleted post, an unknown colony", async () => {
    const elsewhere = await post(h, c.member, { colony_id: GENERAL.id });
    expectError(await moveOut(c.mod.token, elsewhere.id), 404, "NOT_FOUND");
    expectError(await moveOut(c.mod.token, "0190b2c4-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
    expectError(await moveOut(c.mod.token, "not-a-post"), 404, "NOT_FOUND");
    const gone = await post(h, c.member, { colony_id: c.colony.id });
    expect((await h.req("DELETE", `/api/v1/posts/${gone.id}`, { token: c.member.token })).status).toBeLessThan(300);
    expectError(await moveOut(c.mod.token, gone.id), 404, "NOT_FOUND");
    expectError(await moveOut(c.mod.token, gone.id, "0190b2c4-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
  });

  test("20 an hour (429 RATE_LIMIT_MOVE_OUT)", async () => {
    const limited = setup();
    const lc = await cast(limited);
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) {
      // Posting has its own hourly limit; only move-out's is under test.
      limited.ctx.limits.reset();
      ids.push((await post(limited, lc.member, { colony_id: lc.colony.id, title: `Limited post ${i}` })).id);
    }
    limited.ctx.limits.reset();
    for (let i = 0; i < 20; i++) expect((await limited.req("POST", `/api/v1/colonies/${lc.colony.id}/posts/${ids[i]}/move-out`, { token: lc.founder.token })).status).toBe(200);
    expectError(await limited.req("POST", `/api/v1/colonies/${lc.colony.id}/posts/${ids[20]}/move-out`, { token: lc.founder.token }), 429, "RATE_LIMIT_MOVE_OUT");
  });
});
