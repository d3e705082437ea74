import { beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { comment } from "../comments/fixtures";
import { join, makeColony, post } from "./fixtures";

const h = setup();
beforeEach(() => h.ctx.limits.reset());

describe("GET /api/v1/posts/{post_id}/conversation", () => {
  test("a tree with nested replies, oldest first; a tombstone keeps its replies", async () => {
    const u = await h.user();
    const v = await h.user();
    const p = await post(h, u);
    const a = await comment(h, u, p.id, { body: "a" });
    const b = await comment(h, v, p.id, { body: "b" });
    const a1 = await comment(h, v, p.id, { body: "a1", parent_id: a.id });
    const a1x = await comment(h, u, p.id, { body: "a1x", parent_id: a1.id });
    await h.req("DELETE", `/api/v1/comments/${a.id}`, { token: u.token });
    const r = await h.req("GET", `/api/v1/posts/${p.id}/conversation`);
    expect(r.status).toBe(200);
    expect(r.body.post_id).toBe(p.id);
    expect(r.body.total_comments).toBe(4);
    expect(r.body.thread_count).toBe(2);
    const [ta, tb] = r.body.threads;
    expect([ta.id, tb.id]).toEqual([a.id, b.id]);
    expect(ta).toMatchObject({ is_deleted: true, body: "[deleted]" });
    expect(ta.author_username).toBe(ta.author.username);
    expect(ta.author_username).not.toBe(u.username);
    expect(ta.replies[0].id).toBe(a1.id);
    expect(ta.replies[0].replies[0].id).toBe(a1x.id);
    expect(tb.replies).toEqual([]);
  });

  test("the SDKs' shape: {post_id, thread_count, total_comments, threads:[{id, body, author, author_username, score, created_at, replies}]}", async () => {
    const u = await h.user();
    const v = await h.user();
    const p = await post(h, u);
    const a = await comment(h, u, p.id, { body: "first" });
    const a1 = await comment(h, v, p.id, { body: "reply", parent_id: a.id });
    const b = await comment(h, v, p.id, { body: "second" });
    await h.req("POST", `/api/v1/comments/${b.id}/vote`, { token: u.token, body: { value: 1 } });
    const r = await h.req("GET", `/api/v1/posts/${p.id}/conversation`);
    expect(r.status).toBe(200);
    expect(r.body.post_id).toBe(p.id);
    expect(r.body.thread_count).toBe(2);
    expect(r.body.thread_count).toBe(r.body.threads.length);
    expect(r.body.total_comments).toBe(3);
    expect(r.body.truncated).toBe(false);
    const [ta, tb] = r.body.threads;
    for (const node of [ta, tb, ta.replies[0]]) {
      for (const k of ["id", "body", "author", "author_username", "score", "created_at", "replies"]) expect(node).toHaveProperty(k);
    }
    expect(ta).toMatchObject({ id: a.id, body: "first", author: { id: u.id, username: u.username }, author_username: u.username, score: 0, replies: [expect.objectContaining({ id: a1.id, author_username: v.username, replies: [] })] });
    expect(tb).toMatchObject({ id: b.id, author_username: v.username, score: 1, replies: [] });
    expect(new Date(ta.created_at).toISOString()).toBe(ta.created_at);
    // The same comment records as the comments feed, with author_username added.
    const list = await h.req("GET", `/api/v1/posts/${p.id}/comments`);
    const { replies: _r, author_username: _u, ...flat } = ta;
    expect(flat).toEqual(list.body.items.find((c: any) => c.id === a.id));
  });

  test("404 for unknown posts and private colony posts (no auth: the conversation is public only)", async () => {
    const founder = await h.user();
    const priv = makeColony(h, founder, "private");
    const p = await post(h, founder, { colony_id: priv.id });
    expect((await h.req("GET", `/api/v1/posts/${p.id}/conversation`)).status).toBe(404);
    expect((await h.req("GET", `/api/v1/posts/${p.id}/conversation`, { token: founder.token })).status).toBe(404);
    const r = await h.req("GET", "/api/v1/posts/00000000-0000-7000-8000-000000000000/conversation");
    expect(r.status).toBe(404);
    expect(r.body.detail.code).toBe("NOT_FOUND");
  });
});

describe("GET /api/v1/posts/{post_id}/context", () => {
  test("post, author, colony, threaded comments, related posts by tag overlap; your_* only when authenticated", async () => {
    const author = await h.user();
    const reader = await h.user();
    const p = await post(h, author, { tags: ["rust", "sqlite", "wal"] });
    const best = await post(h, author, { tags: ["sqlite", "wal"] });
    const weaker = await post(h, author, { tags: ["rust"] });
    await post(h, author, { tags: ["unrelated"] });
    const c = await comment(h, reader, p.id, { body: "q" });
    await comment(h, author, p.id, { body: "answer", parent_id: c.id });

    const anon = await h.req("GET", `/api/v1/posts/${p.id}/context`);
    expect(anon.status).toBe(200);
    expect(anon.body.post.id).toBe(p.id);
    expect(anon.body.author).toMatchObject({ id: author.id, username: author.username, karma: 0, bio: null });
    expect(anon.body.colony).toMatchObject({ id: p.colony_id, name: "general" });
    expect(anon.body.colony).toHaveProperty("description");
    expect(anon.body.comments.length).toBe(1);
    expect(anon.body.comments[0].replies[0].body).toBe("answer");
    expect(anon.body.comment_count).toBe(2);
    expect(anon.body.related_posts.map((x: any) => x.id)).toEqual([best.id, weaker.id]);
    expect(anon.body.related_posts[0].shared_tags.sort()).toEqual(["sqlite", "wal"]);
    expect(anon.body).not.toHaveProperty("your_vote");
    expect(anon.body).not.toHaveProperty("your_comment_count");

    const mine = await h.req("GET", `/api/v1/posts/${p.id}/context`, { token: reader.token });
    expect(mine.body.your_comment_count).toBe(1);
    expect(mine.body.your_vote).toBeNull();

    const down = await h.req("POST", `/api/v1/posts/${p.id}/vote`, { token: reader.token, body: { value: -1 } });
    expect(down.status).toBe(200);
    const voted = await h.req("GET", `/api/v1/posts/${p.id}/context`, { token: reader.token });
    expect(voted.body.your_vote).toBe(-1);
  });

  test("visibility: private colony posts 404 to anonymous, strangers and pending members; members see them", async () => {
    const founder = await h.user();
    const priv = makeColony(h, founder, "private");
    const p = await post(h, founder, { colony_id: priv.id, tags: ["x"] });
    const pending = await h.user();
    await join(h, priv, pending);
    const member = await h.user();
    await join(h, priv, member, founder);
    const path = `/api/v1/posts/${p.id}/context`;
    expect((await h.req("GET", path)).status).toBe(404);
    expect((await h.req("GET", path, { token: (await h.user()).token })).status).toBe(404);
    const pend = await h.req("GET", path, { token: pending.token });
    expect(pend.status).toBe(404);
    expect(pend.body.detail.code).toBe("NOT_FOUND");
    expect((await h.req("GET", path, { token: member.token })).status).toBe(200);
    // A private post is never suggested as related to public readers.
    const pub = await post(h, founder, { tags: ["x"] });
    const rel = await h.req("GET", `/api/v1/posts/${pub.id}/context`);
    expect(rel.body.related_posts).toEqual([]);
    expect((await h.req("GET", `/api/v1/posts/${pub.id}/context`, { token: member.token })).body.related_posts.map((x: any) => x.id)).toEqual([p.id]);
  });
});

describe("related posts past unreadable candidates", () => {
  test("the newest candidates being private, the related posts are the newest readable ones, most shared tags first", async () => {
    const author = await h.user({ karma: 100 });
    const priv = makeColony(h, author, "private");
    const tag = `batch${Math.random().toString(36).slice(2, 7)}`;
    const older: string[] = [];
    for (let i = 0; i < 8; i++) {
      h.clock.advance(1000);
      older.push((await post(h, author, { tags: [tag] })).id);
    }
    h.clock.advance(1000);
    const twoTags = (await post(h, author, { tags: [tag, `${tag}b`] })).id;
    // More private posts than the first batch of candidates holds, all newer than the public ones.
    for (let i = 0; i < 30; i++) {
      h.clock.advance(1000);
      h.ctx.limits.reset();
      await post(h, author, { colony_id: priv.id, tags: [tag, `${tag}b`] });
    }
    h.clock.advance(1000);
    h.ctx.limits.reset();
    const subject = await post(h, author, { tags: [tag, `${tag}b`] });
    const ctx = await h.req("GET", `/api/v1/posts/${subject.id}/context`);
    expect(ctx.body.related_posts.map((x: any) => x.id)).toEqual([twoTags, ...older.slice(-4).reverse()]);
  });
});
