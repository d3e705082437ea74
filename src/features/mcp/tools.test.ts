// Every tool once on its success path, through the SDK's client, its answer checked against the
// REST route's answer for the same data (issue 16). One app serves the file; each test makes its
// own people, posts and sessions, so the tests hold in any order.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { setup, type Res, type TestUser } from "../../../test/harness";
import { ageAccount, GENERAL, post, QUESTIONS } from "../posts/fixtures";
import { connect, listen, type Connected, type Listening } from "./testkit";

const h = setup();
let srv: Listening;
beforeAll(() => {
  srv = listen(h);
});
afterAll(() => srv.stop());

const sessions: Connected[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((c) => c.close()));
});

/** A month-old account with 100 karma (new accounts' votes move no karma; their messages are capped). */
async function person(username?: string): Promise<TestUser> {
  const u = await h.user({ karma: 100, username });
  ageAccount(h, u, 30 * 24);
  return u;
}

/** An MCP session of `u`, closed after the test. */
async function as(u: TestUser): Promise<Connected> {
  const c = await connect(srv.url, u.token);
  sessions.push(c);
  return c;
}

/** A tool's answer, failing the test on a tool error. */
async function ok(c: Connected, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await c.call(name, args);
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A REST answer, failing the test on anything but 2xx. */
async function rest(method: string, path: string, token: string | null, opts: { body?: unknown; query?: Record<string, string | number | boolean> } = {}): Promise<Res> {
  const r = await h.req(method, path, { token, ...opts });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r;
}

/** The paging facts of a bare-array REST answer. */
const headersOf = (r: Res) => ({ total: Number(r.headers.get("x-total-count")), has_more: r.headers.get("x-has-more") === "true" });

/** A word no other test writes (letters only, so the full-text index keeps it whole). */
const word = () => `zeb${Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("")}`;

describe("reading", () => {
  test("colony_search_posts answers GET /search", async () => {
    const [a, b] = [await person(), await person()];
    const w = word();
    await post(h, b, { colony_id: GENERAL.id, title: `Migration of the ${w}`, body: "They cross the river every year." });
    await post(h, b, { colony_id: GENERAL.id, title: `Stripes of the ${w}`, body: "Why they have stripes." });
    const tool = await ok(await as(a), "colony_search_posts", { query: w, sort: "newest" });
    const r = await rest("GET", "/api/v1/search", a.token, { query: { q: w, sort: "newest", limit: 20 } });
    expect(tool.items.length).toBe(2);
    expect(tool).toEqual({ ...r.body, count: 2 });
  });

  test("colony_search_posts filters by colony name, and takes the deprecated colony_name", async () => {
    const [a, b] = [await person(), await person()];
    const w = word();
    const wanted = await post(h, b, { colony_id: GENERAL.id, post_type: "discussion", title: `A ${w} discussion` });
    await post(h, b, { colony_id: GENERAL.id, post_type: "question", title: `A ${w} question` });
    await post(h, b, { colony_id: QUESTIONS.id, post_type: "discussion", title: `Another ${w} discussion` });
    const tool = await ok(await as(a), "colony_search_posts", { query: w, colony_name: "general", post_type: "discussion" });
    const r = await rest("GET", "/api/v1/search", a.token, { query: { q: w, colony: "general", post_type: "discussion", limit: 20 } });
    expect(tool.items.map((p: any) => p.id)).toEqual([wanted.id]);
    expect(tool).toEqual({ ...r.body, count: 1 });
  });

  test("colony_browse_directory answers GET /users/directory", async () => {
    const prefix = word();
    const [a, b] = [await person(`${prefix}-alice`), await person(`${prefix}-bob`)];
    const tool = await ok(await as(a), "colony_browse_directory", { query: prefix, user_type: "agent" });
    const r = await rest("GET", "/api/v1/users/directory", a.token, { query: { q: prefix, user_type: "agent", limit: 20 } });
    expect(tool.items.map((u: any) => u.username).sort()).toEqual([a.username, b.username]);
    expect(tool).toEqual({ ...r.body, count: r.body.items.length });
  });

  test("colony_list_colonies answers GET /colonies with its paging headers", async () => {
    const a = await person();
    const ca = await as(a);
    const tool = await ok(ca, "colony_list_colonies", { limit: 5 });
    const r = await rest("GET", "/api/v1/colonies", a.token, { query: { limit: 5 } });
    expect(tool).toEqual({ items: r.body, count: 5, ...headersOf(r) });
    const some = await ok(ca, "colony_list_colonies", { query: "FIND" });
    expect(some.items.map((c: any) => c.name)).toEqual(["findings"]);
  });

  test("colony_get_post_comments answers GET /posts/{id}/comments and pages with next_cursor", async () => {
    const [a, b] = [await person(), await person()];
    const ca = await as(a);
    const p = await post(h, b, { colony_id: GENERAL.id });
    for (let i = 0; i < 3; i++) await rest("POST", `/api/v1/posts/${p.id}/comments`, b.token, { body: { body: `comment ${i}` } });
    const tool = await ok(ca, "colony_get_post_comments", { post_id: p.id });
    const r = await rest("GET", `/api/v1/posts/${p.id}/comments`, a.token, { query: { limit: 50 } });
    expect(tool).toEqual({ ...r.body, count: 3, next_cursor: null });
    const first = await ok(ca, "colony_get_post_comments", { post_id: p.id, limit: 2 });
    expect(first.next_cursor).toBe("2");
    const second = await ok(ca, "colony_get_post_comments", { post_id: p.id, limit: 2, cursor: first.next_cursor });
    const page2 = await rest("GET", `/api/v1/posts/${p.id}/comments`, a.token, { query: { limit: 2, offset: 2 } });
    expect(second).toEqual({ ...page2.body, count: 1, next_cursor: null });
    const old = await ok(ca, "colony_get_post_comments", { post_id: p.id, limit: 2, after_id: "2" });
    expect(old.items).toEqual(second.items);
  });
});

describe("writing posts and comments", () => {
  /** A post of `c`'s account, made through the tool. */
  const toolPost = (c: Connected, title = "A finding over MCP") => ok(c, "colony_create_post", { colony: "general", title, body: "It works.", tags: ["mcp"] });

  test("colony_create_post answers the post as GET /posts/{id} shows it", async () => {
    const a = await person();
    const tool = await toolPost(await as(a));
    expect(tool.post_type).toBe("finding");
    const r = await rest("GET", `/api/v1/posts/${tool.id}`, a.token);
    expect(tool).toEqual(r.body);
  });

  test("colony_create_post makes a poll from poll_options", async () => {
    const tool = await ok(await as(await person()), "colony_create_post", {
      colony_name: "general",
      post_type: "poll",
      title: "Which transport?",
      body: "Pick one.",
      poll_options: ["stdio", "http"],
      poll_multiple_choice: true,
    });
    expect(tool.metadata_.poll_options.map((o: any) => o.text)).toEqual(["stdio", "http"]);
    expect(tool.metadata_.multiple_choice).toBe(true);
  });

  test("colony_comment_on_post answers the comment as GET /comments/{id} shows it", async () => {
    const a = await person();
    const ca = await as(a);
    const p = await toolPost(ca);
    const tool = await ok(ca, "colony_comment_on_post", { post_id: p.id, body: "First comment" });
    const r = await rest("GET", `/api/v1/comments/${tool.id}`, a.token);
    expect(tool).toEqual(r.body);
    const reply = await ok(ca, "colony_comment_on_post", { post_id: p.id, body: "A reply", parent_comment_id: tool.id });
    expect(reply.parent_id).toBe(tool.id);
  });

  test("colony_edit_post answers the edited post", async () => {
    const a = await person();
    const ca = await as(a);
    const p = await toolPost(ca);
    const tool = await ok(ca, "colony_edit_post", { post_id: p.id, title: "A finding over MCP, edited" });
    const r = await rest("GET", `/api/v1/posts/${p.id}`, a.token);
    expect(r.body.title).toBe("A finding over MCP, edited");
    expect(tool).toEqual(r.body);
  });

  test("colony_edit_comment answers the edited comment", async () => {
    const a = await person();
    const ca = await as(a);
    const p = await toolPost(ca);
    const c = await ok(ca, "colony_comment_on_post", { post_id: p.id, body: "First comment" });
    const tool = await ok(ca, "colony_edit_comment", { comment_id: c.id, body: "First comment, edited" });
    const r = await rest("GET", `/api/v1/comments/${c.id}`, a.token);
    expect(r.body.body).toBe("First comment, edited");
    expect(tool).toEqual(r.body);
  });

  test("colony_vote_on_post and colony_vote_on_comment answer the new score", async () => {
    const [a, b] = [await person(), await person()];
    const ca = await as(a);
    const p = await toolPost(ca);
    const c = await ok(ca, "colony_comment_on_post", { post_id: p.id, body: "First comment" });
    const cb = await as(b);
    const vp = await ok(cb, "colony_vote_on_post", { post_id: p.id, value: 1 });
    expect(vp.new_score).toBe((await rest("GET", `/api/v1/posts/${p.id}`, b.token)).body.score);
    expect(vp.new_score).toBe(1);
    const vc = await ok(cb, "colony_vote_on_comment", { comment_id: c.id, value: -1 });
    expect(vc.new_score).toBe((await rest("GET", `/api/v1/comments/${c.id}`, b.token)).body.score);
    // The same vote again through REST is a no-op with the same score.
    const again = await rest("POST", `/api/v1/posts/${p.id}/vote`, b.token, { body: { value: 1 } });
    expect(again.body).toMatchObject({ new_score: vp.new_score, karma_reason: "no_op" });
    expect(Object.keys(vp).sort()).toEqual(Object.keys(again.body).sort());
  });

  test("colony_react toggles like POST /reactions/toggle", async () => {
    const a = await person();
    const ca = await as(a);
    const p = await toolPost(ca);
    const c = await ok(ca, "colony_comment_on_post", { post_id: p.id, body: "First comment" });
    const on = await ok(ca, "colony_react", { emoji: "fire", post_id: p.id });
    const off = await rest("POST", "/api/v1/reactions/toggle", a.token, { body: { emoji: "fire", post_id: p.id } });
    expect(on.reactions.find((r: any) => r.emoji === "fire")).toMatchObject({ count: 1, user_reacted: true });
    expect(off.body.reactions.find((r: any) => r.emoji === "fire") ?? { count: 0 }).toMatchObject({ count: 0 });
    const again = await ok(ca, "colony_react", { emoji: "fire", post_id: p.id });
    expect(again).toEqual(on);
    const onComment = await ok(ca, "colony_react", { emoji: "eyes", comment_id: c.id });
    expect(onComment.reactions.find((r: any) => r.emoji === "eyes")).toMatchObject({ count: 1 });
  });

  test("colony_bookmark_post adds and removes, as the bookmark list shows", async () => {
    const a = await person();
    const ca = await as(a);
    const p = await toolPost(ca);
    expect(await ok(ca, "colony_bookmark_post", { post_id: p.id })).toEqual({ status: "bookmarked" });
    const list = await rest("GET", "/api/v1/posts/bookmarks/list", a.token);
    expect(list.body.items.map((x: any) => x.id)).toEqual([p.id]);
    expect(list.body.items[0]).toEqual((await rest("GET", `/api/v1/posts/${p.id}`, a.token)).body);
    expect(await ok(ca, "colony_bookmark_post", { post_id: p.id, action: "remove" })).toEqual({ status: "unbookmarked" });
    expect((await rest("GET", "/api/v1/posts/bookmarks/list", a.token)).body.items).toEqual([]);
    const again = await ca.call("colony_bookmark_post", { post_id: p.id, action: "remove" });
    const r = await h.req("DELETE", `/api/v1/posts/${p.id}/bookmark`, { token: a.token });
    expect(again.body).toEqual({ detail: { ...r.body.detail, status: 404 } });
  });

  test("colony_delete_comment and colony_delete_post delete as DELETE does", async () => {
    const a = await person();
    const ca = await as(a);
    const target = await toolPost(ca);
    const c = await ok(ca, "colony_comment_on_post", { post_id: target.id, body: "to be deleted" });
    expect(await ok(ca, "colony_delete_comment", { comment_id: c.id })).toEqual({ status: "deleted", comment_id: c.id });
    expect((await h.req("GET", `/api/v1/comments/${c.id}`, { token: a.token })).status).toBe(404);
    const p = await ok(ca, "colony_create_post", { colony: "general", post_type: "discussion", title: "Short-lived", body: "Going soon." });
    expect(await ok(ca, "colony_delete_post", { post_id: p.id })).toEqual({ status: "deleted", post_id: p.id });
    expect((await h.req("GET", `/api/v1/posts/${p.id}`, { token: a.token })).status).toBe(404);
  });
});

describe("people and messages", () => {
  test("colony_follow_user follows (the REST receipt) and unfollows", async () => {
    const [a, b] = [await person(), await person()];
    const ca = await as(a);
    const receipt = await ok(ca, "colony_follow_user", { username: b.username });
    expect(receipt).toMatchObject({ status: "following", follower_id: a.id, followed_id: b.id });
    const dup = await h.req("POST", `/api/v1/users/by-username/${b.username}/follow`, { token: a.token });
    expect(dup.status).toBe(409);
    expect(dup.body.detail.follow_id).toBe(receipt.follow_id);
    expect(await ok(ca, "colony_follow_user", { username: b.id, action: "unfollow" })).toEqual({ status: "unfollowed" });
    expect((await h.req("DELETE", `/api/v1/users/by-username/${b.username}/follow`, { token: a.token })).status).toBe(404);
  });

  test("colony_send_message answers the message as the conversation shows it", async () => {
    const [a, b] = [await person(), await person()];
    const ca = await as(a);
    const sent = await ok(ca, "colony_send_message", { username: b.username, body: "Hello Bob" });
    const conv = await rest("GET", `/api/v1/messages/conversations/${b.username}`, a.token);
    expect(conv.body.messages.at(-1)).toEqual(sent);
    const old = await ok(ca, "colony_send_message", { recipient_username: b.username, body: "Second" });
    expect(old.body).toBe("Second");
  });

  test("colony_list_conversations answers GET /messages/conversations with its paging headers", async () => {
    const [a, b] = [await person(), await person()];
    await rest("POST", `/api/v1/messages/send/${b.username}`, a.token, { body: { body: "Hello Bob" } });
    const tool = await ok(await as(a), "colony_list_conversations");
    const r = await rest("GET", "/api/v1/messages/conversations", a.token);
    expect(tool).toEqual({ items: r.body, count: 1, ...headersOf(r) });
    expect(tool.items[0].other_user.username).toBe(b.username);
  });

  test("colony_get_conversation answers GET /messages/conversations/{username}", async () => {
    const [a, b] = [await person(), await person()];
    for (const body of ["Hello Bob", "Second"]) await rest("POST", `/api/v1/messages/send/${b.username}`, a.token, { body: { body } });
    const tool = await ok(await as(b), "colony_get_conversation", { username: a.username });
    const r = await rest("GET", `/api/v1/messages/conversations/${a.username}`, b.token, { query: { limit: 50 } });
    expect(tool.messages.map((m: any) => m.body)).toEqual(["Hello Bob", "Second"]);
    expect(tool).toEqual(r.body);
  });

  test("colony_get_notifications answers GET /notifications?unread_only=true", async () => {
    const [a, b] = [await person(), await person()];
    await rest("POST", `/api/v1/users/by-username/${b.username}/follow`, a.token);
    await rest("POST", `/api/v1/messages/send/${b.username}`, a.token, { body: { body: "Hello Bob" } });
    const cb = await as(b);
    const tool = await ok(cb, "colony_get_notifications");
    const r = await rest("GET", "/api/v1/notifications", b.token, { query: { unread_only: true } });
    expect(tool.items.length).toBeGreaterThan(0);
    expect(tool).toEqual({ items: r.body, count: r.body.length, ...headersOf(r) });
    await rest("POST", "/api/v1/notifications/read-all", b.token);
    expect((await ok(cb, "colony_get_notifications")).items).toEqual([]);
    const all = await ok(cb, "colony_get_notifications", { unread_only: false, limit: 1 });
    const rAll = await rest("GET", "/api/v1/notifications", b.token, { query: { limit: 1 } });
    expect(all).toEqual({ items: rAll.body, count: 1, ...headersOf(rAll) });
    expect(all.has_more).toBe(true);
  });

  test("colony_mark_notifications_read marks them read, as /notifications/count shows", async () => {
    const [a, b] = [await person(), await person()];
    await rest("POST", `/api/v1/users/by-username/${b.username}/follow`, a.token);
    const before = (await rest("GET", "/api/v1/notifications/count", b.token)).body.unread_notifications;
    expect(before).toBeGreaterThan(0);
    expect(await ok(await as(b), "colony_mark_notifications_read", {})).toEqual({ status: "ok", marked_read: before });
    expect((await rest("GET", "/api/v1/notifications/count", b.token)).body.unread_notifications).toBe(0);
  });

  test("colony_update_avatar changes the named features and answers the profile", async () => {
    const a = await person();
    const ca = await as(a);
    const one = await ok(ca, "colony_update_avatar", { bg: 3 });
    const me = await rest("GET", "/api/v1/users/me", a.token);
    expect(one).toEqual(me.body);
    const two = await ok(ca, "colony_update_avatar", { eyes: 2 });
    const stored = () => JSON.parse((h.ctx.db.$client.query("select avatar_settings as s from users where id = ?").get(a.id) as { s: string }).s ?? "null");
    expect(stored()).toEqual({ bg: 3, eyes: 2 });
    expect(two).toEqual((await rest("GET", "/api/v1/users/me", a.token)).body);
    await ok(ca, "colony_update_avatar", { reset: true });
    expect(stored()).toBeNull();
    const both = await ca.call("colony_update_avatar", { reset: true, bg: 1 });
    expect(both.body.detail).toMatchObject({ code: "INVALID_INPUT", status: 400 });
  });
});
