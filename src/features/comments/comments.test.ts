import { beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { eventsOf, join, makeColony, post, setColonySettings } from "../posts/fixtures";
import { UNKNOWN, comment, commentCount, createComment } from "./fixtures";

const h = setup();
beforeEach(() => h.ctx.limits.reset());
const MIN = 60_000;

const get = (id: string, token: string | null = null) => h.req("GET", `/api/v1/comments/${id}`, { token });
const put = (id: string, token: string | null, body: unknown) => h.req("PUT", `/api/v1/comments/${id}`, { token, body });
const del = (id: string, token: string | null) => h.req("DELETE", `/api/v1/comments/${id}`, { token });

describe("POST /api/v1/posts/{post_id}/comments", () => {
  test("201 with rendered, sanitised markdown; counts and last_comment_at move; events and notifications follow", async () => {
    const author = await h.user();
    const commenter = await h.user();
    const mentioned = await h.user();
    const p = await post(h, author);
    h.clock.advance(MIN);
    const r = await createComment(h, commenter, p.id, { body: `Hi **there** @${mentioned.username} <marquee>alert(1)</marquee>`, client: "cli" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ post_id: p.id, parent_id: null, score: 0, held: false, is_deleted: false, client: "cli", source: "api" });
    expect(r.body.author.id).toBe(commenter.id);
    expect(r.body.body_html).toContain("<strong>there</strong>");
    expect(r.body.body_html).not.toContain("<marquee");
    expect(r.body.body_html).toContain(`/u/${mentioned.username}`);
    expect(commentCount(h, p.id)).toBe(1);
    const postNow = (await h.req("GET", `/api/v1/posts/${p.id}`)).body;
    expect(postNow.last_comment_at).toBe(r.body.created_at);

    const created = eventsOf(h, "comment_created").find((e) => e.payload.comment_id === r.body.id)!;
    expect(created.payload).toEqual({
      post_id: p.id,
      post_title: p.title,
      comment_id: r.body.id,
      parent_id: null,
      post_author_id: author.id,
      parent_author_id: null,
      colony_id: p.colony_id,
      author_username: commenter.username,
      readers: { colony_id: p.colony_id, members_only: false, restricted: false },
    });
    expect(created.activity).toBe(1);
    const mention = eventsOf(h, "mention").find((e) => e.payload.comment_id === r.body.id)!;
    expect(mention.payload).toEqual({
      user_ids: [mentioned.id],
      post_id: p.id,
      post_title: p.title,
      comment_id: r.body.id,
      author_username: commenter.username,
      readers: { colony_id: p.colony_id, members_only: false, restricted: false },
    });

    // A reply notifies the parent's author (reply_to_comment) and the post author (comment_on_post).
    const reply = await comment(h, mentioned, p.id, { parent_id: r.body.id, body: "Reply" });
    expect(eventsOf(h, "comment_created").find((e) => e.payload.comment_id === reply.id)!.payload).toMatchObject({ parent_id: r.body.id, parent_author_id: commenter.id });
    await h.ctx.events.drain();
    const kinds = (userId: string) => (h.ctx.db.$client.query("select kind from notifications where user_id = ? order by id").all(userId) as { kind: string }[]).map((n) => n.kind);
    expect(kinds(author.id)).toEqual(["comment_on_post", "comment_on_post"]);
    expect(kinds(commenter.id)).toEqual(["reply_to_comment"]);
    expect(kinds(mentioned.id)).toEqual(["mention"]);
  });

  test("errors: 401 anonymous, 422 missing or oversized body, 400 blank body, 404 unknown post", async () => {
    const u = await h.user();
    const p = await post(h, u);
    expect((await createComment(h, null, p.id)).status).toBe(401);
    expect((await h.req("POST", `/api/v1/posts/${p.id}/comments`, { token: u.token, body: {} })).status).toBe(422);
    expect((await createComment(h, u, p.id, { body: "x".repeat(10001) })).status).toBe(422);
    const blank = await createComment(h, u, p.id, { body: "   " });
    expect(blank.status).toBe(400);
    expect(blank.body.detail.code).toBe("INVALID_INPUT");
    const unknown = await createComment(h, u, UNKNOWN);
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail.code).toBe("NOT_FOUND");
    expect((await createComment(h, u, "not-a-uuid")).status).toBe(422);
  });

  test("parent_id: unknown or deleted 404, on another post 400 INVALID_INPUT", async () => {
    const u = await h.user();
    const p1 = await post(h, u);
    const p2 = await post(h, u);
    const other = await comment(h, u, p2.id);
    const cross = await createComment(h, u, p1.id, { parent_id: other.id });
    expect(cross.status).toBe(400);
    expect(cross.body.detail.code).toBe("INVALID_INPUT");
    const missing = await createComment(h, u, p1.id, { parent_id: UNKNOWN });
    expect(missing.status).toBe(404);
    expect(missing.body.detail.code).toBe("NOT_FOUND");
    const gone = await comment(h, u, p1.id);
    expect((await del(gone.id, u.token)).status).toBe(204);
    expect((await createComment(h, u, p1.id, { parent_id: gone.id })).status).toBe(404);
  });

  test("gated colonies: a pending member is 403 FORBIDDEN, a non-member of a private colony 404, an approved member 201", async () => {
    const founder = await h.user();
    const restricted = makeColony(h, founder, "restricted");
    const priv = makeColony(h, founder, "private");
    const pr = await post(h, founder, { colony_id: restricted.id });
    const pp = await post(h, founder, { colony_id: priv.id });
    const pending = await h.user();
    await join(h, restricted, pending);
    const r = await createComment(h, pending, pr.id);
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("FORBIDDEN");
    const stranger = await h.user();
    expect((await createComment(h, stranger, pp.id)).status).toBe(404);
    const member = await h.user();
    await join(h, priv, member, founder);
    expect((await createComment(h, member, pp.id)).status).toBe(201);
  });

  test("banned words: reject is 400 CONTENT_BLOCKED_PHRASE; quarantine holds the comment for the author and moderators only", async () => {
    const founder = await h.user();
    const c = makeColony(h, founder);
    const p = await post(h, founder, { colony_id: c.id });
    const u = await h.user();
    setColonySettings(h, c.id, { banned_words: ["spamword"], banned_words_action: "reject" });
    const rejected = await createComment(h, u, p.id, { body: "buy spamword now" });
    expect(rejected.status).toBe(400);
    expect(rejected.body.detail.code).toBe("CONTENT_BLOCKED_PHRASE");
    setColonySettings(h, c.id, { banned_words: ["spamword"], banned_words_action: "quarantine" });
    const held = await createComment(h, u, p.id, { body: "buy spamword now" });
    expect(held.status).toBe(201);
    expect(held.body.held).toBe(true);
    expect(held.body.held_explanation).toContain("spamword");
    expect(commentCount(h, p.id)).toBe(0);
    expect(eventsOf(h, "comment_created").some((e) => e.payload.comment_id === held.body.id)).toBe(false);
    expect((await get(held.body.id)).status).toBe(404);
    expect((await get(held.body.id, (await h.user()).token)).status).toBe(404);
    expect((await get(held.body.id, u.token)).status).toBe(200);
    expect((await get(held.body.id, founder.token)).status).toBe(200);
    const list = await h.req("GET", `/api/v1/posts/${p.id}/comments`);
    expect(list.body.total).toBe(0);
    // Moderators are never held.
    expect((await createComment(h, founder, p.id, { body: "quoting spamword" })).body.held).toBe(false);
  });

  test("a comment on the author's unpublished draft is 409 CONFLICT", async () => {
    const u = await h.user();
    const p = await post(h, u, { scheduled_for: new Date(h.clock.now() + 60 * MIN).toISOString() });
    const r = await createComment(h, u, p.id);
    expect(r.status).toBe(409);
    expect(r.body.detail.code).toBe("CONFLICT");
  });

  test("rate limit create_comment: 429 RATE_LIMIT_CREATE_COMMENT", async () => {
    const u = await h.user();
    const p = await post(h, u);
    for (let i = 0; i < 30; i++) expect((await createComment(h, u, p.id, { body: `c${i}` })).status).toBe(201);
    const r = await createComment(h, u, p.id);
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toMatch(/^RATE_LIMIT_/);
  });
});

describe("GET /api/v1/comments/{comment_id}", () => {
  test("anonymous read of a public comment; unknown, deleted and deleted-post all 404 NOT_FOUND", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const c = await comment(h, u, p.id, { body: "Readable" });
    const r = await get(c.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: c.id, post_id: p.id, body: "Readable" });
    for (const id of [UNKNOWN]) {
      const x = await get(id);
      expect(x.status).toBe(404);
      expect(x.body.detail.code).toBe("NOT_FOUND");
    }
    const d = await comment(h, u, p.id);
    await del(d.id, u.token);
    expect((await get(d.id)).body.detail.code).toBe("NOT_FOUND");
    expect((await h.req("DELETE", `/api/v1/posts/${p.id}`, { token: u.token })).status).toBe(204);
    const afterPost = await get(c.id);
    expect(afterPost.status).toBe(404);
    expect(afterPost.body.detail.code).toBe("NOT_FOUND");
    expect((await get("nope")).status).toBe(422);
  });

  test("post soft delete cascades: the post's comments are marked deleted by the post_deleted handler", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const a = await comment(h, u, p.id);
    await comment(h, u, p.id, { parent_id: a.id });
    await h.req("DELETE", `/api/v1/posts/${p.id}`, { token: u.token });
    await h.ctx.events.drain();
    const rows = h.ctx.db.$client.query("select deleted_at, deleted_with_post from comments where post_id = ?").all(p.id) as { deleted_at: number | null; deleted_with_post: number }[];
    expect(rows.length).toBe(2);
    expect(rows.every((r) => r.deleted_at !== null && r.deleted_with_post === 1)).toBe(true);
  });

  test("private colony: 404 to anonymous, strangers and pending members; 200 to members and moderators", async () => {
    const founder = await h.user();
    const priv = makeColony(h, founder, "private");
    const p = await post(h, founder, { colony_id: priv.id });
    const c = await comment(h, founder, p.id);
    const member = await h.user();
    await join(h, priv, member, founder);
    const pending = await h.user();
    await join(h, priv, pending);
    expect((await get(c.id)).status).toBe(404);
    expect((await get(c.id, (await h.user()).token)).status).toBe(404);
    expect((await get(c.id, pending.token)).status).toBe(404);
    expect((await get(c.id, member.token)).status).toBe(200);
    expect((await get(c.id, founder.token)).status).toBe(200);
  });
});

describe("PUT /api/v1/comments/{comment_id}", () => {
  test("the author replaces the body within 15 minutes; an identical body is a no-op", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const c = await comment(h, u, p.id, { body: "First" });
    h.clock.advance(15 * MIN);
    const r = await put(c.id, u.token, { body: "Second *edit*" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: c.id, body: "Second *edit*" });
    expect(r.body.body_html).toContain("<em>edit</em>");
    expect(r.body.updated_at).not.toBe(c.updated_at);
    const before = eventsOf(h, "comment_updated").length;
    const same = await put(c.id, u.token, { body: "Second *edit*" });
    expect(same.status).toBe(200);
    expect(same.body.updated_at).toBe(r.body.updated_at);
    expect(eventsOf(h, "comment_updated").length).toBe(before);
  });

  test("errors: after the window 403 FORBIDDEN, someone else 403 FORBIDDEN, anonymous 401, unknown 404, no body 422", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const c = await comment(h, u, p.id);
    const other = await put(c.id, (await h.user()).token, { body: "Mine" });
    expect(other.status).toBe(403);
    expect(other.body.detail.code).toBe("FORBIDDEN");
    expect((await put(c.id, null, { body: "x" })).status).toBe(401);
    expect((await put(UNKNOWN, u.token, { body: "x" })).body.detail.code).toBe("NOT_FOUND");
    expect((await put(c.id, u.token, {})).status).toBe(422);
    h.clock.advance(15 * MIN + 1);
    const late = await put(c.id, u.token, { body: "Too late" });
    expect(late.status).toBe(403);
    expect(late.body.detail.code).toBe("FORBIDDEN");
  });

  test("banned words are applied again: reject 400, quarantine holds the edited comment", async () => {
    const founder = await h.user();
    const c = makeColony(h, founder);
    const p = await post(h, founder, { colony_id: c.id });
    const u = await h.user();
    const cm = await comment(h, u, p.id);
    expect(commentCount(h, p.id)).toBe(1);
    setColonySettings(h, c.id, { banned_words: ["badword"], banned_words_action: "reject" });
    expect((await put(cm.id, u.token, { body: "now badword" })).body.detail.code).toBe("CONTENT_BLOCKED_PHRASE");
    setColonySettings(h, c.id, { banned_words: ["badword"], banned_words_action: "quarantine" });
    const r = await put(cm.id, u.token, { body: "now badword" });
    expect(r.status).toBe(200);
    expect(r.body.held).toBe(true);
    expect(commentCount(h, p.id)).toBe(0);
  });

  test("rate limit comment_edit (30 per hour)", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const c = await comment(h, u, p.id);
    for (let i = 0; i < 30; i++) expect((await put(c.id, u.token, { body: `v${i}` })).status).toBe(200);
    expect((await put(c.id, u.token, { body: "v31" })).status).toBe(429);
  });
});

describe("DELETE /api/v1/comments/{comment_id}", () => {
  test("the author tombstones within 15 minutes; replies survive; comment_count drops", async () => {
    const u = await h.user();
    const replier = await h.user();
    const p = await post(h, u);
    const c = await comment(h, u, p.id, { body: "Secret words" });
    const reply = await comment(h, replier, p.id, { parent_id: c.id });
    expect(commentCount(h, p.id)).toBe(2);
    h.clock.advance(15 * MIN);
    expect((await del(c.id, u.token)).status).toBe(204);
    expect(commentCount(h, p.id)).toBe(1);
    expect(eventsOf(h, "comment_deleted").find((e) => e.payload.comment_id === c.id)!.payload).toMatchObject({ by_moderator: false, author_id: u.id });
    const list = (await h.req("GET", `/api/v1/posts/${p.id}/comments`)).body;
    expect(list.items.map((x: any) => x.id)).toEqual([c.id, reply.id]);
    const tomb = list.items[0];
    expect(tomb).toMatchObject({ is_deleted: true, body: "[deleted]" });
    expect(tomb.author.username).toBe("[deleted]");
    expect(tomb.author.id).not.toBe(u.id);
    expect(JSON.stringify(tomb)).not.toContain("Secret words");
    expect(list.items[1].parent_id).toBe(c.id);
    // Deleting again: it is gone.
    expect((await del(c.id, u.token)).status).toBe(404);
  });

  test("a deleted comment without replies leaves the stream", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const c = await comment(h, u, p.id);
    await del(c.id, u.token);
    const list = (await h.req("GET", `/api/v1/posts/${p.id}/comments`)).body;
    expect(list).toMatchObject({ items: [], total: 0 });
  });

  test("after the window the author gets 403 FORBIDDEN; a colony moderator may delete at any time; others 403; anonymous 401", async () => {
    const founder = await h.user();
    const col = makeColony(h, founder);
    const p = await post(h, founder, { colony_id: col.id });
    const u = await h.user();
    const c = await comment(h, u, p.id);
    const stranger = await del(c.id, (await h.user()).token);
    expect(stranger.status).toBe(403);
    expect(stranger.body.detail.code).toBe("FORBIDDEN");
    expect((await del(c.id, null)).status).toBe(401);
    h.clock.advance(15 * MIN + 1);
    const late = await del(c.id, u.token);
    expect(late.status).toBe(403);
    expect(late.body.detail.code).toBe("FORBIDDEN");
    h.clock.advance(6 * 60 * MIN); // tokens last 24 hours
    expect((await del(c.id, founder.token)).status).toBe(204);
    expect(eventsOf(h, "comment_deleted").find((e) => e.payload.comment_id === c.id)!.payload.by_moderator).toBe(true);
  });
});
