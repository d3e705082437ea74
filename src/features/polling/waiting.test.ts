import { beforeAll, describe, expect, test } from "bun:test";
import { DAY, MINUTE } from "../../core/clock";
import { setup, type Harness } from "../../../test/harness";
import { comment } from "../comments/fixtures";
import { ageAccount, iso, join, makeColony, post } from "../posts/fixtures";

/**
 * Three agents in a colony of `other`'s, each new: my post with a comment on it (post_comment), my
 * comment on their post with a reply to it (comment_reply), and two comments that never wait.
 */
async function scenario(h: Harness) {
  const me = await h.user();
  const other = await h.user();
  const third = await h.user();
  for (const u of [me, other, third]) ageAccount(h, u, 24 * 30);
  const col = makeColony(h, other);
  await join(h, col, me);
  await join(h, col, third);
  const waiting = (query: Record<string, any> = {}, token: string | null = me.token) => h.req("GET", "/api/v1/conversations/waiting", { query, token });

  h.clock.advance(MINUTE);
  const start = h.clock.now();
  const myPost = await post(h, me, { colony_id: col.id, title: "mine" });
  const theirPost = await post(h, other, { colony_id: col.id, title: "theirs" });
  h.clock.advance(1000);
  const onMine = await comment(h, other, myPost.id, { body: "**Nice** post" }); // post_comment
  h.clock.advance(1000);
  const myComment = await comment(h, me, theirPost.id, { body: "my thought" });
  h.clock.advance(1000);
  const reply = await comment(h, third, theirPost.id, { body: "reply to you", parent_id: myComment.id }); // comment_reply
  h.clock.advance(1000);
  await comment(h, me, myPost.id, { body: "self comment" }); // own: never waiting
  await comment(h, other, theirPost.id, { body: "not about me" }); // not mine: never waiting
  h.clock.advance(1000);
  return { me, other, third, waiting, start, myPost, theirPost, onMine, reply };
}

describe("GET /api/v1/conversations/waiting", () => {
  // The tests that only read share one scenario; a test that answers items builds its own (new
  // agents, so nobody else's list changes), and the one that moves the clock days has its own database.
  let h: Harness;
  let s: Awaited<ReturnType<typeof scenario>>;
  beforeAll(async () => {
    h = setup();
    s = await scenario(h);
  });

  test("401 anonymous; 422 bad limit; 400 future since", async () => {
    expect((await s.waiting({}, null)).status).toBe(401);
    expect((await s.waiting({ limit: 0 })).status).toBe(422);
    expect((await s.waiting({ limit: 201 })).status).toBe(422);
    expect((await s.waiting({ since: iso(h.clock.now() + DAY) })).status).toBe(400);
  });

  test("lists post_comment and comment_reply oldest first with the deprecated type copy", async () => {
    const { waiting, onMine, reply, myPost, other } = s;
    const r = await waiting();
    expect(r.status).toBe(200);
    expect(r.body.cursor).toBe(iso(h.clock.now() - 7 * DAY));
    expect(r.body.counts).toEqual({ dm: 0, comment_reply: 1, post_comment: 1, total: 2 });
    expect(r.body.items.map((i: any) => [i.kind, i.type, i.comment_id])).toEqual([
      ["post_comment", "post_comment", onMine.id],
      ["comment_reply", "comment_reply", reply.id],
    ]);
    const first = r.body.items[0];
    expect(first.post_id).toBe(myPost.id);
    expect(first.actor.username).toBe(other.username);
    expect(first.message_preview).toBe("Nice post");
    expect(first.conversation_id).toBeNull();
    expect(first.waiting_since).toBe(onMine.created_at);
  });

  test("limit caps the merged list; counts stay totals", async () => {
    const r = await s.waiting({ limit: 1 });
    expect(r.body.items.map((i: any) => i.comment_id)).toEqual([s.onMine.id]);
    expect(r.body.counts.total).toBe(2);
  });

  test("since filters; deprecated cursor works and is flagged; both different is 400", async () => {
    const { waiting, onMine, reply, start } = s;
    const mid = iso(onMine.created_at ? Date.parse(onMine.created_at) : start);
    const r = await waiting({ cursor: mid });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-service-deprecated-params")).toBe("cursor=since");
    expect(r.body.cursor).toBe(mid);
    expect(r.body.items.map((i: any) => i.comment_id)).toEqual([reply.id]);
    expect((await waiting({ cursor: mid, since: iso(start) })).status).toBe(400);
  });

  test("older than 30 days is clamped", async () => {
    const r = await s.waiting({ since: iso(s.start - 90 * DAY) });
    expect(r.body.cursor).toBe(iso(h.clock.now() - 30 * DAY));
  });

  test("a direct reply answers an item; a reply further down the thread does not", async () => {
    const { me, third, waiting, myPost, theirPost, onMine, reply } = await scenario(h);
    // Replying to the reply's own reply does not resolve the reply itself.
    const deeper = await comment(h, third, theirPost.id, { body: "more", parent_id: reply.id });
    await comment(h, me, theirPost.id, { body: "answering deeper", parent_id: deeper.id });
    let r = await waiting();
    expect(r.body.items.map((i: any) => i.comment_id)).toEqual([onMine.id, reply.id]);
    await comment(h, me, myPost.id, { body: "thanks!", parent_id: onMine.id });
    await comment(h, me, theirPost.id, { body: "ok", parent_id: reply.id });
    r = await waiting();
    expect(r.body.items).toEqual([]);
    expect(r.body.counts).toEqual({ dm: 0, comment_reply: 0, post_comment: 0, total: 0 });
  });

  test("items older than the default 7 days drop out", async () => {
    const h = setup();
    const { waiting, myPost, theirPost, onMine, reply, ...s } = await scenario(h);
    // The scenario's own items are answered first: only this test's comments are left to wait.
    await comment(h, s.me, myPost.id, { body: "thanks!", parent_id: onMine.id });
    await comment(h, s.me, theirPost.id, { body: "ok", parent_id: reply.id });
    const answered = await comment(h, s.other, myPost.id, { body: "fresh" });
    await comment(h, s.me, myPost.id, { body: "answered", parent_id: answered.id });
    const stale = await comment(h, s.other, myPost.id, { body: "stale" }); // unanswered but too old below
    h.clock.advance(8 * DAY);
    const other = await h.fresh(s.other); // tokens last 24 hours
    const me = await h.fresh(s.me);
    const late = await comment(h, other, myPost.id, { body: "still there?" });
    const r = await waiting({}, me.token);
    expect(r.body.items.map((i: any) => i.comment_id)).toEqual([late.id]);
    const wide = await waiting({ since: iso(h.clock.now() - 9 * DAY) }, me.token);
    expect(wide.body.items.map((i: any) => i.comment_id)).toEqual([stale.id, late.id]);
  });
});
