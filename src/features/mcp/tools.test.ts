// Every tool once on its success path, through the SDK's client, its answer checked against the
// REST route's answer for the same data (issue 16).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setup, type Res, type TestUser } from "../../../test/harness";
import { GENERAL, post } from "../posts/fixtures";
import { connect, listen, type Connected, type Listening } from "./testkit";

const h = setup();
let srv: Listening;
let a: TestUser;
let b: TestUser;
let ca: Connected;

beforeAll(async () => {
  srv = listen(h);
  a = await h.user({ karma: 100, username: "mcp-alice" });
  b = await h.user({ karma: 100, username: "mcp-bob" });
  h.ctx.db.$client.query("update users set created_at = ?").run(h.clock.now() - 30 * 86_400_000);
  ca = await connect(srv.url, a.token);
});
afterAll(async () => {
  await ca.close();
  await srv.stop();
});

/** A tool's answer, failing the test on a tool error. */
async function ok(name: string, args: Record<string, unknown> = {}, c: Connected = ca): Promise<any> {
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

describe("reading", () => {
  test("colony_search_posts answers GET /search", async () => {
    await post(h, b, { colony_id: GENERAL.id, title: "Zebra migration patterns", body: "Zebras cross the river every year." });
    await post(h, b, { colony_id: GENERAL.id, title: "Zebra stripes", body: "Why zebras have stripes." });
    const tool = await ok("colony_search_posts", { query: "zebra", sort: "newest" });
    const r = await rest("GET", "/api/v1/search", a.token, { query: { q: "zebra", sort: "newest", limit: 20 } });
    expect(tool.items.length).toBe(2);
    expect(tool).toEqual({ ...r.body, count: 2 });
  });

  test("colony_search_posts filters by colony name, and takes the deprecated colony_name", async () => {
    const tool = await ok("colony_search_posts", { query: "zebra", colony_name: "general", post_type: "discussion" });
    const r = await rest("GET", "/api/v1/search", a.token, { query: { q: "zebra", colony: "general", post_type: "discussion", limit: 20 } });
    expect(tool).toEqual({ ...r.body, count: r.body.items.length });
  });

  test("colony_browse_directory answers GET /users/directory", async () => {
    const tool = await ok("colony_browse_directory", { query: "mcp-", user_type: "agent" });
    const r = await rest("GET", "/api/v1/users/directory", a.token, { query: { q: "mcp-", user_type: "agent", limit: 20 } });
    expect(tool.items.map((u: any) => u.username).sort()).toEqual(["mcp-alice", "mcp-bob"]);
    expect(tool).toEqual({ ...r.body, count: r.body.items.length });
  });

  test("colony_list_colonies answers GET /colonies with its paging headers", async () => {
    const tool = await ok("colony_list_colonies", { limit: 5 });
    const r = await rest("GET", "/api/v1/colonies", a.token, { query: { limit: 5 } });
    expect(tool).toEqual({ items: r.body, count: 5, ...headersOf(r) });
    const some = await ok("colony_list_colonies", { query: "FIND" });
    expect(some.items.map((c: any) => c.name)).toEqual(["findings"]);
  });

  test("colony_get_post_comments answers GET /posts/{id}/comments and pages with next_cursor", async () => {
    const p = await post(h, b, { colony_id: GENERAL.id });
    for (let i = 0; i < 3; i++) await rest("POST", `/api/v1/posts/${p.id}/comments`, b.token, { body: { body: `comment ${i}` } });
    const tool = await ok("colony_get_post_comments", { post_id: p.id });
    const r = await rest("GET", `/api/v1/posts/${p.id}/comments`, a.token, { query: { limit: 50 } });
    expect(tool).toEqual({ ...r.body, count: 3, next_cursor: null });
    const first = await ok("colony_get_post_comments", { post_id: p.id, limit: 2 });
    expect(first.next_cursor).toBe("2");
    const second = await ok("colony_get_post_comments", { post_id: p.id, limit: 2, cursor: first.next_cursor });
    const page2 = await rest("GET", `/api/v1/posts/${p.id}/comments`, a.token, { query: { limit: 2, offset: 2 } });
    expect(second).toEqual({ ...page2.body, count: 1, next_cursor: null });
    const old = await ok("colony_get_post_comments", { post_id: p.id, limit: 2, after_id: "2" });
    expect(old.items).toEqual(second.items);
  });
});

describe("writing posts and comments", () => {
  let postId: string;
  let commentId: string;

  test("colony_create_post answers the post as GET /posts/{id} shows it", async () => {
    const tool = await ok("colony_create_post", { colony: "general", title: "A finding over MCP", body: "It works.", tags: ["mcp"] });
    postId = tool.id;
    expect(tool.post_type).toBe("finding");
    const r = await rest("GET", `/api/v1/posts/${postId}`, a.token);
    expect(tool).toEqual(r.body);
  });

  test("colony_create_post makes a poll from poll_options", async () => {
    const tool = await ok("colony_create_post", { colony_name: "general", post_type: "poll", title: "Which transport?", body: "Pick one.", poll_options: ["stdio", "http"], poll_multiple_choice: true });
    expect(tool.metadata_.poll_options.map((o: any) => o.text)).toEqual(["stdio", "http"]);
    expect(tool.metadata_.multiple_choice).toBe(true);
  });

  test("colony_comment_on_post answers the comment as GET /comments/{id} shows it", async () => {
    const tool = await ok("colony_comment_on_post", { post_id: postId, body: "First comment" });
    commentId = tool.id;
    const r = await rest("GET", `/api/v1/comments/${commentId}`, a.token);
    expect(tool).toEqual(r.body);
    const reply = await ok("colony_comment_on_post", { post_id: postId, body: "A reply", parent_comment_id: commentId });
    expect(reply.parent_id).toBe(commentId);
  });

  test("colony_edit_post answers the edited post", async () => {
    const tool = await ok("colony_edit_post", { post_id: postId, title: "A finding over MCP, edited" });
    const r = await rest("GET", `/api/v1/posts/${postId}`, a.token);
    expect(r.body.title).toBe("A finding over MCP, edited");
    expect(tool).toEqual(r.body);
  });

  test("colony_edit_comment answers the edited comment", async () => {
    const tool = await ok("colony_edit_comment", { comment_id: commentId, body: "First comment, edited" });
    const r = await rest("GET", `/api/v1/comments/${commentId}`, a.token);
    expect(tool).toEqual(r.body);
  });

  test("colony_vote_on_post and colony_vote_on_comment answer the new score", async () => {
    const cb = await connect(srv.url, b.token);
    const vp = await ok("colony_vote_on_post", { post_id: postId, value: 1 }, cb);
    expect(vp.new_score).toBe((await rest("GET", `/api/v1/posts/${postId}`, b.token)).body.score);
    expect(vp.new_score).toBe(1);
    const vc = await ok("colony_vote_on_comment", { comment_id: commentId, value: -1 }, cb);
    expect(vc.new_score).toBe((await rest("GET", `/api/v1/comments/${commentId}`, b.token)).body.score);
    // The same vote again through REST is a no-op with the same score.
    const again = await rest("POST", `/api/v1/posts/${postId}/vote`, b.token, { body: { value: 1 } });
    expect(again.body).toMatchObject({ new_score: vp.new_score, karma_reason: "no_op" });
    expect(Object.keys(vp).sort()).toEqual(Object.keys(again.body).sort());
    await cb.close();
  });

  test("colony_react toggles like POST /reactions/toggle", async () => {
    const on = await ok("colony_react", { emoji: "fire", post_id: postId });
    const off = await rest("POST", "/api/v1/reactions/toggle", a.token, { body: { emoji: "fire", post_id: postId } });
    expect(on.reactions.find((r: any) => r.emoji === "fire")).toMatchObject({ count: 1, user_reacted: true });
    expect(off.body.reactions.find((r: any) => r.emoji === "fire") ?? { count: 0 }).toMatchObject({ count: 0 });
    const again = await ok("colony_react", { emoji: "fire", post_id: postId });
    expect(again).toEqual(on);
    const onComment = await ok("colony_react", { emoji: "eyes", comment_id: commentId });
    expect(onComment.reactions.find((r: any) => r.emoji === "eyes")).toMatchObject({ count: 1 });
  });

  test("colony_bookmark_post adds and removes, as the bookmark list shows", async () => {
    expect(await ok("colony_bookmark_post", { post_id: postId })).toEqual({ status: "bookmarked" });
    const list = await rest("GET", "/api/v1/posts/bookmarks/list", a.token);
    expect(list.body.items.map((p: any) => p.id)).toEqual([postId]);
    expect(list.body.items[0]).toEqual((await rest("GET", `/api/v1/posts/${postId}`, a.token)).body);
    expect(await ok("colony_bookmark_post", { post_id: postId, action: "remove" })).toEqual({ status: "unbookmarked" });
    expect((await rest("GET", "/api/v1/posts/bookmarks/list", a.token)).body.items).toEqual([]);
    const again = await ca.call("colony_bookmark_post", { post_id: postId, action: "remove" });
    const r = await h.req("DELETE", `/api/v1/posts/${postId}/bookmark`, { token: a.token });
    expect(again.body).toEqual({ detail: { ...r.body.detail, status: 404 } });
  });

  test("colony_delete_comment and colony_delete_post delete as DELETE does", async () => {
    const c = await ok("colony_comment_on_post", { post_id: postId, body: "to be deleted" });
    expect(await ok("colony_delete_comment", { comment_id: c.id })).toEqual({ status: "deleted", comment_id: c.id });
    expect((await h.req("GET", `/api/v1/comments/${c.id}`, { token: a.token })).status).toBe(404);
    const p = await ok("colony_create_post", { colony: "general", post_type: "discussion", title: "Short-lived", body: "Going soon." });
    expect(await ok("colony_delete_post", { post_id: p.id })).toEqual({ status: "deleted", post_id: p.id });
    expect((await h.req("GET", `/api/v1/posts/${p.id}`, { token: a.token })).status).toBe(404);
  });
});

describe("people and messages", () => {
  test("colony_follow_user follows (the REST receipt) and unfollows", async () => {
    const receipt = await ok("colony_follow_user", { username: b.username });
    expect(receipt).toMatchObject({ status: "following", follower_id: a.id, followed_id: b.id });
    const dup = await h.req("POST", `/api/v1/users/by-username/${b.username}/follow`, { token: a.token });
    expect(dup.status).toBe(409);
    expect(dup.body.detail.follow_id).toBe(receipt.follow_id);
    expect(await ok("colony_follow_user", { username: b.id, action: "unfollow" })).toEqual({ status: "unfollowed" });
    expect((await h.req("DELETE", `/api/v1/users/by-username/${b.username}/follow`, { token: a.token })).status).toBe(404);
  });

  test("colony_send_message answers the message as the conversation shows it", async () => {
    const sent = await ok("colony_send_message", { username: b.username, body: "Hello Bob" });
    const conv = await rest("GET", `/api/v1/messages/conversations/${b.username}`, a.token);
    expect(conv.body.messages.at(-1)).toEqual(sent);
    const old = await ok("colony_send_message", { recipient_username: b.username, body: "Second" });
    expect(old.body).toBe("Second");
  });

  test("colony_list_conversations answers GET /messages/conversations with its paging headers", async () => {
    const tool = await ok("colony_list_conversations");
    const r = await rest("GET", "/api/v1/messages/conversations", a.token, { query: { limit: 20 } });
    expect(tool).toEqual({ items: r.body, count: 1, ...headersOf(r) });
  });

  test("colony_get_conversation answers GET /messages/conversations/{username}", async () => {
    const cb = await connect(srv.url, b.token);
    const tool = await ok("colony_get_conversation", { username: a.username }, cb);
    const r = await rest("GET", `/api/v1/messages/conversations/${a.username}`, b.token, { query: { limit: 50 } });
    expect(tool.messages.map((m: any) => m.body)).toEqual(["Hello Bob", "Second"]);
    expect(tool).toEqual(r.body);
    await cb.close();
  });

  test("colony_get_notifications answers GET /notifications?unread_only=true", async () => {
    const cb = await connect(srv.url, b.token);
    const tool = await ok("colony_get_notifications", {}, cb);
    const r = await rest("GET", "/api/v1/notifications", b.token, { query: { unread_only: true, limit: 20 } });
    expect(tool.items.length).toBeGreaterThan(0);
    expect(tool).toEqual({ items: r.body, count: r.body.length, ...headersOf(r) });
    const all = await ok("colony_get_notifications", { unread_only: false, limit: 5 }, cb);
    const rAll = await rest("GET", "/api/v1/notifications", b.token, { query: { limit: 5 } });
    expect(all).toEqual({ items: rAll.body, count: rAll.body.length, ...headersOf(rAll) });
    await cb.close();
  });

  test("colony_mark_notifications_read marks them read, as /notifications/count shows", async () => {
    const cb = await connect(srv.url, b.token);
    const before = (await rest("GET", "/api/v1/notifications/count", b.token)).body.unread_notifications;
    expect(before).toBeGreaterThan(0);
    expect(await ok("colony_mark_notifications_read", {}, cb)).toEqual({ status: "ok", marked_read: before });
    expect((await rest("GET", "/api/v1/notifications/count", b.token)).body.unread_notifications).toBe(0);
    await cb.close();
  });

  test("colony_update_avatar changes the named features and answers the profile", async () => {
    const one = await ok("colony_update_avatar", { bg: 3 });
    const me = await rest("GET", "/api/v1/users/me", a.token);
    expect(one).toEqual(me.body);
    const two = await ok("colony_update_avatar", { eyes: 2 });
    const stored = () => JSON.parse((h.ctx.db.$client.query("select avatar_settings as s from users where id = ?").get(a.id) as { s: string }).s ?? "null");
    expect(stored()).toEqual({ bg: 3, eyes: 2 });
    expect(two).toEqual((await rest("GET", "/api/v1/users/me", a.token)).body);
    await ok("colony_update_avatar", { reset: true });
    expect(stored()).toBeNull();
    const both = await ca.call("colony_update_avatar", { reset: true, bg: 1 });
    expect(both.body.detail).toMatchObject({ code: "INVALID_INPUT", status: 400 });
  });
});
