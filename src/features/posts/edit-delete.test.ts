import { beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { GENERAL, eventsOf, join, makeColony, post, postCount, setColonySettings } from "./fixtures";
import { markNotarised } from "./service";

const h = setup();
beforeEach(() => h.ctx.limits.reset());
const MIN = 60_000;

const put = (id: string, token: string | null, body: unknown) => h.req("PUT", `/api/v1/posts/${id}`, { token, body });
const del = (id: string, token: string | null) => h.req("DELETE", `/api/v1/posts/${id}`, { token });

describe("PUT /api/v1/posts/{post_id}", () => {
  test("the author edits title, body, tags (comma string) and language within 15 minutes", async () => {
    const u = await h.user();
    const p = await post(h, u, { tags: ["old"] });
    h.clock.advance(15 * MIN);
    const r = await put(p.id, u.token, { title: "New title", body: "New **body**", tags: "A, b", language: "de" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: p.id, title: "New title", body: "New **body**", tags: ["a", "b"], language: "de" });
    expect(r.body.body_html).toContain("<strong>body</strong>");
    expect(r.body.updated_at).not.toBe(p.updated_at);
    expect(eventsOf(h, "post_updated").find((e) => e.payload.post_id === p.id)?.payload.fields).toEqual(["title", "body", "tags", "language"]);
    // The tag index follows.
    const byTag = await h.req("GET", "/api/v1/posts", { query: { tag: "b" } });
    expect(byTag.body.items.map((x: any) => x.id)).toContain(p.id);
    expect((await h.req("GET", "/api/v1/posts", { query: { tag: "old" } })).body.total).toBe(0);
  });

  test("omitted and null fields stay unchanged", async () => {
    const u = await h.user();
    const p = await post(h, u, { title: "Keep me", body: "Keep body", tags: ["k"] });
    const r = await put(p.id, u.token, { title: null, body: "Changed" });
    expect(r.body).toMatchObject({ title: "Keep me", body: "Changed", tags: ["k"] });
  });

  test("after 15 minutes: 403 POST_EDIT_FORBIDDEN", async () => {
    const u = await h.user();
    const p = await post(h, u);
    h.clock.advance(15 * MIN + 1);
    const r = await put(p.id, u.token, { title: "Too late" });
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("POST_EDIT_FORBIDDEN");
  });

  test("someone else: 403 POST_EDIT_FORBIDDEN; anonymous 401; unknown 404", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const r = await put(p.id, (await h.user()).token, { title: "Mine now" });
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("POST_EDIT_FORBIDDEN");
    expect((await put(p.id, null, { title: "Anon" })).status).toBe(401);
    const unknown = await put("00000000-0000-7000-8000-000000000000", u.token, { title: "Ghost" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail.code).toBe("NOT_FOUND");
  });

  test("a post in a private colony is 404 to a non-member, not 403", async () => {
    const founder = await h.user();
    const c = makeColony(h, founder, "private");
    const p = await post(h, founder, { colony_id: c.id });
    const r = await put(p.id, (await h.user()).token, { title: "Hidden" });
    expect(r.status).toBe(404);
  });

  test("adding the first tags to an untagged post is allowed for 24 hours if nothing else changes", async () => {
    const u = await h.user();
    const p = await post(h, u);
    h.clock.advance(20 * 60 * MIN);
    const mixed = await put(p.id, u.token, { tags: ["x"], title: "And a title" });
    expect(mixed.status).toBe(403);
    expect(mixed.body.detail.code).toBe("POST_EDIT_FORBIDDEN");
    const r = await put(p.id, u.token, { tags: ["First", "second"], title: p.title });
    expect(r.status).toBe(200);
    expect(r.body.tags).toEqual(["first", "second"]);
    // Only the first tags: changing them again is an ordinary edit.
    const again = await put(p.id, u.token, { tags: ["third"] });
    expect(again.status).toBe(403);
  });

  test("the first-tags window closes after 24 hours", async () => {
    const u = await h.user();
    const p = await post(h, u);
    h.clock.advance(24 * 60 * MIN + 1);
    // The access token lasts 24 hours: mint a fresh one.
    const token = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: u.apiKey } })).body.access_token;
    const r = await put(p.id, token, { tags: ["late"] });
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("POST_EDIT_FORBIDDEN");
  });

  test("a scheduled draft has no edit window", async () => {
    const u = await h.user();
    const p = await post(h, u, { scheduled_for: new Date(h.clock.now() + 20 * 60 * MIN).toISOString() });
    h.clock.advance(16 * 60 * MIN);
    const r = await put(p.id, u.token, { title: "Still editable" });
    expect(r.status).toBe(200);
    expect(r.body.title).toBe("Still editable");
  });

  test("a notarised post is never editable", async () => {
    const u = await h.user();
    const p = await post(h, u);
    h.ctx.db.transaction((tx) => markNotarised(tx, p.id, h.clock.now()));
    const r = await put(p.id, u.token, { title: "Changed" });
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("POST_EDIT_FORBIDDEN");
    expect(r.body.detail.message).toMatch(/notarised/);
    expect((await h.req("GET", `/api/v1/posts/${p.id}`)).body.notarised_at).toBe(new Date(h.clock.now()).toISOString());
  });

  test("validation: a short title is 422, one that trims short 400, more than 10 tags 400", async () => {
    const u = await h.user();
    const p = await post(h, u);
    expect((await put(p.id, u.token, { title: "ab" })).status).toBe(422);
    const trimmed = await put(p.id, u.token, { title: " ab " });
    expect(trimmed.status).toBe(400);
    expect(trimmed.body.detail.code).toBe("INVALID_INPUT");
    expect((await put(p.id, u.token, { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) })).status).toBe(400);
  });

  test("the colony's banned words are applied again: reject is 400, quarantine holds the post", async () => {
    const founder = await h.user();
    const c = makeColony(h, founder);
    const u = await h.user();
    const p = await post(h, u, { colony_id: c.id });
    setColonySettings(h, c.id, { banned_words: ["forbidden"], banned_words_action: "reject" });
    const r = await put(p.id, u.token, { body: "a forbidden word" });
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("CONTENT_BLOCKED_PHRASE");
    setColonySettings(h, c.id, { banned_words: ["forbidden"] });
    expect(postCount(h, c.id)).toBe(1);
    const held = await put(p.id, u.token, { body: "a forbidden word" });
    expect(held.status).toBe(200);
    expect(held.body.held).toBe(true);
    expect(postCount(h, c.id)).toBe(0);
  });

  test("an unchanged edit is a no-op 200", async () => {
    const u = await h.user();
    const p = await post(h, u, { title: "Same" });
    const r = await put(p.id, u.token, { title: "Same" });
    expect(r.status).toBe(200);
    expect(r.body.updated_at).toBe(p.updated_at);
  });

  test("post_edit is rate limited: 10 per hour (429 RATE_LIMIT_POST_EDIT)", async () => {
    const u = await h.user();
    const p = await post(h, u);
    for (let i = 0; i < 10; i++) expect((await put(p.id, u.token, { title: `Edit ${i}` })).status).toBe(200);
    const r = await put(p.id, u.token, { title: "Edit 11" });
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_POST_EDIT");
  });
});

describe("DELETE /api/v1/posts/{post_id}", () => {
  test("the author within 15 minutes: 204, soft delete, post_count and post_deleted", async () => {
    const u = await h.user();
    const c = makeColony(h, u);
    const p = await post(h, u, { colony_id: c.id });
    expect(postCount(h, c.id)).toBe(1);
    h.clock.advance(15 * MIN);
    const r = await del(p.id, u.token);
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(postCount(h, c.id)).toBe(0);
    const ev = eventsOf(h, "post_deleted").find((e) => e.payload.post_id === p.id);
    expect(ev?.payload).toMatchObject({ post_id: p.id, colony_id: c.id, author_id: u.id, by_moderator: false });
    // Soft: the row stays.
    expect(h.ctx.db.$client.query("select deleted_at from posts where id = ?").get(p.id)).toEqual({ deleted_at: h.clock.now() });
    expect((await del(p.id, u.token)).status).toBe(404);
  });

  test("the author after 15 minutes: 403 POST_DELETE_WINDOW_EXPIRED", async () => {
    const u = await h.user();
    const p = await post(h, u);
    h.clock.advance(15 * MIN + 1);
    const r = await del(p.id, u.token);
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("POST_DELETE_WINDOW_EXPIRED");
  });

  test("someone else: 403 POST_DELETE_FORBIDDEN; anonymous 401", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const r = await del(p.id, (await h.user()).token);
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("POST_DELETE_FORBIDDEN");
    expect((await del(p.id, null)).status).toBe(401);
  });

  test("a colony moderator and a site admin may delete at any time", async () => {
    const founder = await h.user();
    const c = makeColony(h, founder);
    const u = await h.user();
    await join(h, c, u);
    const p1 = await post(h, u, { colony_id: c.id });
    const p2 = await post(h, u, { colony_id: c.id });
    h.clock.advance(3 * 24 * 60 * MIN);
    const mod = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: founder.apiKey } })).body.access_token;
    expect((await del(p1.id, mod)).status).toBe(204);
    expect(eventsOf(h, "post_deleted").find((e) => e.payload.post_id === p1.id)?.payload.by_moderator).toBe(true);
    const admin = await h.user({ admin: true });
    expect((await del(p2.id, admin.token)).status).toBe(204);
    expect(postCount(h, c.id)).toBe(0);
  });

  test("a moderator of another colony may not", async () => {
    const other = await h.user();
    makeColony(h, other);
    const p = await post(h, await h.user(), { colony_id: GENERAL.id });
    const r = await del(p.id, other.token);
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("POST_DELETE_FORBIDDEN");
  });

  test("an unpublished draft: its author at any time, its job cancelled", async () => {
    const u = await h.user();
    const p = await post(h, u, { scheduled_for: new Date(h.clock.now() + 60 * MIN).toISOString() });
    h.clock.advance(30 * MIN);
    expect((await del(p.id, u.token)).status).toBe(204);
    h.clock.advance(60 * MIN);
    await h.ctx.jobs.runDue();
    expect(eventsOf(h, "post_created").some((e) => e.payload.post_id === p.id)).toBe(false);
  });

  test("a deleted post leaves every list", async () => {
    const u = await h.user();
    const p = await post(h, u, { title: "Short lived" });
    await del(p.id, u.token);
    const r = await h.req("GET", "/api/v1/posts", { query: { author_id: u.id } });
    expect(r.body.total).toBe(0);
  });

  test("post_delete is rate limited: 10 per hour (429 RATE_LIMIT_POST_DELETE)", async () => {
    const u = await h.user({ karma: 0 });
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) {
      ids.push((await post(h, u)).id);
      if (i === 9) h.ctx.limits.reset();
    }
    h.ctx.limits.reset();
    for (let i = 0; i < 10; i++) expect((await del(ids[i], u.token)).status).toBe(204);
    const r = await del(ids[10], u.token);
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_POST_DELETE");
  });
});
