// One-to-one conversations (spec Part 2 §4.5, §8): list, open, tail, history, drafts, inbox
// history, send rules and limits, unread counts, typing.
import { beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type TestUser } from "../../../test/harness";
import { DAY, HOUR, MINUTE } from "../../core/clock";
import { uuidv7 } from "../../core/ids";
import { beginTest, count, eventsOf, expect422, listen, newUsers, send, sent } from "./testkit";

const h = setup({ rateLimitMultiplier: 0 });
let alice: TestUser, bob: TestUser, carol: TestUser;

beforeEach(async () => {
  await beginTest(h);
  [alice, bob, carol] = await newUsers(h, 3);
});

const conv = (viewer: TestUser, other: TestUser | string, query?: Record<string, string | number>) =>
  h.req("GET", `/api/v1/messages/conversations/${typeof other === "string" ? other : other.username}`, { token: viewer.token, query });

describe("POST /messages/send/{username}", () => {
  test("201 MessageOut; the conversation is created with both members", async () => {
    const r = await send(h, alice, bob, { body: "hello bob" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      body: "hello bob",
      sender: { id: alice.id, username: alice.username },
      is_read: false,
      read_at: null,
      edited_at: null,
      reactions: [],
      reply_to: null,
      attachments: [],
      deleted: false,
      created_at: new Date(h.clock.now()).toISOString(),
    });
    expect(count(h, "conversations")).toBe(1);
    expect(count(h, "conversation_members")).toBe(2);
    // The second message reuses the same conversation, either direction.
    const r2 = await send(h, bob, alice, { body: "hi alice" });
    expect(r2.body.conversation_id).toBe(r.body.conversation_id);
    expect(count(h, "conversations")).toBe(1);
  });

  test("anonymous is 401 and nothing is written", async () => {
    const r = await h.req("POST", `/api/v1/messages/send/${bob.username}`, { body: { body: "x" } });
    expect(r.status).toBe(401);
    expect(count(h, "messages")).toBe(0);
  });

  test("unknown user, a user id in the username slot, and yourself", async () => {
    await refused(h, () => send(h, alice, "nobody-here"), 404, "USER_NOT_FOUND");
    await refused(h, () => send(h, alice, bob.id), 404, "USER_NOT_FOUND");
    await refused(h, () => send(h, alice, alice), 400, "INVALID_INPUT");
    expect(count(h, "messages")).toBe(0);
  });

  test("body: max 10000 characters; empty without attachments is 422", async () => {
    expect((await send(h, alice, bob, { body: "x".repeat(10000) })).status).toBe(201);
    expect422(await send(h, alice, bob, { body: "x".repeat(10001) }));
    expect422(await send(h, alice, bob, { body: "   " }));
    expect422(await send(h, alice, bob, {}));
    expect422(await send(h, alice, bob, { body: 5 }));
    expect(count(h, "messages")).toBe(1);
  });

  test("the DM karma floor: -5 may send, -6 is 403 KARMA_TOO_LOW", async () => {
    const low = await h.user({ karma: -6 });
    const floor = await h.user({ karma: -5 });
    await refused(h, () => send(h, low, bob), 403, "KARMA_TOO_LOW");
    expect((await send(h, floor, bob)).status).toBe(201);
    expect(count(h, "messages")).toBe(1);
  });

  test("reply_to_message_id must be a live message of this conversation", async () => {
    const first = await sent(h, alice, bob, "question");
    const r = await send(h, bob, alice, { body: "answer", reply_to_message_id: first.id });
    expect(r.status).toBe(201);
    expect(r.body.reply_to).toEqual({ id: first.id, sender_id: alice.id, sender_username: alice.username, body_preview: "question", deleted: false });
    const other = await sent(h, alice, carol, "elsewhere");
    expectError(await send(h, bob, alice, { body: "x", reply_to_message_id: other.id }), 404, "NOT_FOUND");
    expectError(await send(h, bob, alice, { body: "x", reply_to_message_id: uuidv7(h.clock.now()) }), 404, "NOT_FOUND");
    // Before the conversation exists no message can be replied to.
    const dave = await h.user();
    expectError(await send(h, dave, alice, { body: "x", reply_to_message_id: first.id }), 404, "NOT_FOUND");
    expect422(await send(h, bob, alice, { body: "x", reply_to_message_id: "not-a-uuid" }));
  });

  test("emits direct_message (activity) with the recipient in the payload", async () => {
    const m = await sent(h, alice, bob, "ping");
    const [ev] = eventsOf(h, "direct_message");
    expect(ev.actor_id).toBe(alice.id);
    expect(ev.activity).toBe(1);
    expect(ev.payload).toMatchObject({
      recipient_ids: [bob.id],
      message_id: m.id,
      conversation_id: m.conversation_id,
      sender_username: alice.username,
      sender_display_name: alice.username,
      preview: "ping",
    });
  });

  test("sending clears the sender's draft for that conversation", async () => {
    await h.req("PUT", `/api/v1/messages/conversations/${bob.username}/draft`, { token: alice.token, body: { body: "wip" } });
    await sent(h, alice, bob);
    expect((await h.req("GET", `/api/v1/messages/conversations/${bob.username}/draft`, { token: alice.token })).body).toBeNull();
  });
});

describe("send_message limits (spec §8)", () => {
  test("10 an hour in an account's first 7 days, then 60; reported by /limits/me", async () => {
    // Rate limits on, and the clock a week on: a harness of its own.
    const hh = setup();
    const a = await hh.user();
    const b = await hh.user();
    for (let i = 0; i < 10; i++) expect((await send(hh, a, b)).status).toBe(201);
    const r = await send(hh, a, b);
    expectError(r, 429, "RATE_LIMIT_SEND_MESSAGE");
    expect(r.body.detail.retry_after).toBeGreaterThan(0);
    const lim = await hh.req("GET", "/api/v1/limits/me", { token: a.token });
    const row = (name: string) => lim.body.limits.find((l: any) => l.action === name);
    expect(row("send_message")).toMatchObject({ max: 10, current: 10, remaining: 0 });
    expect(row("send_message_daily")).toMatchObject({ max: 100, current: 10 });
    expect(count(hh, "messages")).toBe(10);
    // A week later the hourly ceiling is 60.
    hh.clock.advance(7 * DAY);
    const lim2 = await hh.req("GET", "/api/v1/limits/me", { token: (await hh.fresh(a)).token });
    expect(lim2.body.limits.find((l: any) => l.action === "send_message")).toMatchObject({ max: 60 });
  });

  test("a refused send (validation, karma) is not charged", async () => {
    // Rate limits on: a harness of its own.
    const hh = setup();
    const a = await hh.user();
    const b = await hh.user();
    for (let i = 0; i < 12; i++) expect422(await send(hh, a, b, { body: "" }));
    expect((await send(hh, a, b)).status).toBe(201);
  });

  test("100 per rolling 24 hours, scaled by trust level", async () => {
    // Rate limits on, and the clock days on: a harness of its own.
    const hh = setup();
    let a = await hh.user();
    const b = await hh.user();
    hh.clock.advance(8 * DAY);
    a = await hh.fresh(a);
    let sentCount = 0;
    for (let hour = 0; hour < 2; hour++) {
      for (let i = 0; i < 50; i++) {
        expect((await send(hh, a, b)).status).toBe(201);
        sentCount++;
      }
      hh.clock.advance(HOUR);
    }
    expect(sentCount).toBe(100);
    expectError(await send(hh, a, b), 429, "RATE_LIMIT_SEND_MESSAGE_DAILY");
    // A Member (karma >= 10) has 1.5x: 150 a day.
    const m = await hh.user({ karma: 10 });
    const lim = await hh.req("GET", "/api/v1/limits/me", { token: m.token });
    expect(lim.body.limits.find((l: any) => l.action === "send_message_daily")).toMatchObject({ max: 150 });
  });
});

describe("GET /messages/conversations/{username}", () => {
  test("before any message: id null, no messages; nothing is created", async () => {
    const r = await conv(alice, bob);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: null, other_user: { id: bob.id, username: bob.username }, messages: [] });
    expect(count(h, "conversations")).toBe(0);
  });

  test("messages oldest first; opening marks them read (is_read for the sender too)", async () => {
    const m1 = await sent(h, alice, bob, "one");
    h.clock.advance(1000);
    const m2 = await sent(h, alice, bob, "two");
    const unread = await h.req("GET", "/api/v1/messages/unread-count", { token: bob.token });
    expect(unread.body).toEqual({ unread_direct_messages: 2, unread_count: 2 });
    h.clock.advance(1000);
    const r = await conv(bob, alice);
    expect(r.body.id).toBe(m1.conversation_id);
    expect(r.body.messages.map((m: any) => m.id)).toEqual([m1.id, m2.id]);
    expect(r.body.messages[0]).toMatchObject({ is_read: true, read_at: new Date(h.clock.now()).toISOString() });
    expect((await h.req("GET", "/api/v1/messages/unread-count", { token: bob.token })).body.unread_direct_messages).toBe(0);
    // The sender sees them read.
    const mine = await conv(alice, bob);
    expect(mine.body.messages.every((m: any) => m.is_read)).toBe(true);
    // Opening again changes nothing and emits no second read event.
    await conv(bob, alice);
    expect(eventsOf(h, "messages_read")).toHaveLength(1);
    expect(eventsOf(h, "messages_read")[0].payload).toMatchObject({ reader_id: bob.id, count: 2, recipient_ids: [alice.id] });
  });

  test("limit/offset page back from the newest", async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await sent(h, alice, bob, `m${i}`)).id);
      h.clock.advance(10);
    }
    const r = await conv(bob, alice, { limit: 2 });
    expect(r.body.messages.map((m: any) => m.body)).toEqual(["m3", "m4"]);
    const r2 = await conv(bob, alice, { limit: 2, offset: 2 });
    expect(r2.body.messages.map((m: any) => m.body)).toEqual(["m1", "m2"]);
    expect422(await conv(bob, alice, { limit: 201 }));
  });

  test("a conversation id in the username slot is 404 USER_NOT_FOUND; anonymous 401; yourself 400", async () => {
    const m = await sent(h, alice, bob);
    expectError(await conv(alice, m.conversation_id), 404, "USER_NOT_FOUND");
    expectError(await conv(alice, "ghost"), 404, "USER_NOT_FOUND");
    expectError(await conv(alice, alice), 400, "INVALID_INPUT");
    expect((await h.req("GET", `/api/v1/messages/conversations/${bob.username}`)).status).toBe(401);
  });

  test("a stranger opening their own conversation with a participant never sees others' messages", async () => {
    await sent(h, alice, bob, "private");
    const r = await conv(carol, bob);
    expect(r.body).toMatchObject({ id: null, messages: [] });
  });

  test("`inbox` is a reserved handle, never a user", async () => {
    expectError(await conv(alice, "inbox"), 404, "USER_NOT_FOUND");
  });
});

describe("GET .../tail", () => {
  const tail = (viewer: TestUser, other: TestUser, query?: Record<string, string | number>) =>
    h.req("GET", `/api/v1/messages/conversations/${other.username}/tail`, { token: viewer.token, query });

  test("strictly after since_id, newest first; without since_id the newest `limit`", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await sent(h, alice, bob, `m${i}`)).id);
      h.clock.advance(10);
    }
    const r = await tail(bob, alice, { since_id: ids[1] });
    expect(r.status).toBe(200);
    expect(r.body.messages.map((m: any) => m.id)).toEqual([ids[4], ids[3], ids[2]]);
    expect(r.body.pagination).toEqual({ total: 3, has_more: false });
    // Over the limit: the oldest ones after since_id, so polling never skips.
    const capped = await tail(bob, alice, { since_id: ids[0], limit: 2 });
    expect(capped.body.messages.map((m: any) => m.id)).toEqual([ids[2], ids[1]]);
    expect(capped.body.pagination).toEqual({ total: 4, has_more: true });
    const latest = await tail(bob, alice, { limit: 2 });
    expect(latest.body.messages.map((m: any) => m.id)).toEqual([ids[4], ids[3]]);
    expect((await tail(bob, alice, { since_id: ids[4] })).body.messages).toEqual([]);
    // Tail does not mark read.
    expect((await h.req("GET", "/api/v1/messages/unread-count", { token: bob.token })).body.unread_direct_messages).toBe(5);
  });

  test("limit default 50, max 500; a bad since_id is 422; no conversation is an empty page", async () => {
    for (let i = 0; i < 55; i++) await sent(h, alice, bob, `m${i}`);
    expect((await tail(bob, alice)).body.messages).toHaveLength(50);
    expect((await tail(bob, alice, { limit: 500 })).body.messages).toHaveLength(55);
    expect422(await tail(bob, alice, { limit: 501 }));
    expect422(await tail(bob, alice, { since_id: "nope" }));
    expect((await tail(carol, alice)).body).toEqual({ messages: [], pagination: { total: 0, has_more: false } });
    expect((await h.req("GET", `/api/v1/messages/conversations/${alice.username}/tail`)).status).toBe(401);
  });
});

describe("GET .../history", () => {
  const history = (viewer: TestUser, other: TestUser, query?: Record<string, string | number>) =>
    h.req("GET", `/api/v1/messages/conversations/${other.username}/history`, { token: viewer.token, query });

  test("older than the anchor, oldest first, has_more", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await sent(h, i % 2 ? bob : alice, i % 2 ? alice : bob, `m${i}`)).id);
      h.clock.advance(10);
    }
    const r = await history(alice, bob, { before: ids[4], limit: 2 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ has_more: true, cursor_found: true });
    expect(r.body.messages.map((m: any) => m.id)).toEqual([ids[2], ids[3]]);
    const r2 = await history(alice, bob, { before: ids[2] });
    expect(r2.body.messages.map((m: any) => m.id)).toEqual([ids[0], ids[1]]);
    expect(r2.body.has_more).toBe(false);
  });

  test("before is required; an unknown, foreign or deleted anchor is an empty page with cursor_found false", async () => {
    const m = await sent(h, alice, bob, "a");
    const later = await sent(h, alice, bob, "b");
    const foreign = await sent(h, carol, alice, "c");
    expect422(await history(alice, bob));
    expect422(await history(alice, bob, { before: "x" }));
    expect422(await history(alice, bob, { before: m.id, limit: 501 }));
    const empty = { messages: [], has_more: false, cursor_found: false };
    expect((await history(alice, bob, { before: uuidv7(h.clock.now()) })).body).toEqual(empty);
    expect((await history(alice, bob, { before: foreign.id })).body).toEqual(empty);
    await h.req("DELETE", `/api/v1/messages/${later.id}`, { token: alice.token });
    expect((await history(alice, bob, { before: later.id })).body).toEqual(empty);
    // A stranger with the other user: their own (absent) conversation.
    expect((await history(carol, bob, { before: m.id })).body).toEqual(empty);
    expect((await h.req("GET", `/api/v1/messages/conversations/${bob.username}/history`, { query: { before: m.id } })).status).toBe(401);
  });
});

describe("drafts", () => {
  const path = (u: TestUser | string) => `/api/v1/messages/conversations/${typeof u === "string" ? u : u.username}/draft`;

  test("PUT saves (before any message), GET reads, DELETE clears (idempotent)", async () => {
    expect((await h.req("GET", path(bob), { token: alice.token })).body).toBeNull();
    const put = await h.req("PUT", path(bob), { token: alice.token, body: { body: "thinking…" } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ body: "thinking…", reply_to_message_id: null, updated_at: new Date(h.clock.now()).toISOString() });
    h.clock.advance(MINUTE);
    const put2 = await h.req("PUT", path(bob), { token: alice.token, body: { body: "v2" } });
    expect(put2.body.body).toBe("v2");
    expect(count(h, "message_drafts")).toBe(1);
    expect((await h.req("GET", path(bob), { token: alice.token })).body.body).toBe("v2");
    // Drafts are per user: bob sees none.
    expect((await h.req("GET", path(alice), { token: bob.token })).body).toBeNull();
    expect((await h.req("DELETE", path(bob), { token: alice.token })).status).toBe(204);
    expect((await h.req("DELETE", path(bob), { token: alice.token })).status).toBe(204);
    expect((await h.req("GET", path(bob), { token: alice.token })).body).toBeNull();
  });

  test("an empty or whitespace body deletes the draft and answers null", async () => {
    await h.req("PUT", path(bob), { token: alice.token, body: { body: "x" } });
    const r = await h.req("PUT", path(bob), { token: alice.token, body: { body: "  \n" } });
    expect(r.status).toBe(200);
    expect(r.body).toBeNull();
    expect(count(h, "message_drafts")).toBe(0);
  });

  test("reply target must be in the conversation; max 10000; unknown user or yourself 404; anonymous 401", async () => {
    const m = await sent(h, bob, alice, "q");
    const ok = await h.req("PUT", path(bob), { token: alice.token, body: { body: "a", reply_to_message_id: m.id } });
    expect(ok.body.reply_to_message_id).toBe(m.id);
    const other = await sent(h, carol, alice, "c");
    expectError(await h.req("PUT", path(bob), { token: alice.token, body: { body: "a", reply_to_message_id: other.id } }), 404, "NOT_FOUND");
    expect422(await h.req("PUT", path(bob), { token: alice.token, body: { body: "x".repeat(10001) } }));
    for (const method of ["GET", "PUT", "DELETE"]) {
      expectError(await h.req(method, path("ghost"), { token: alice.token, body: method === "PUT" ? { body: "x" } : undefined }), 404, "USER_NOT_FOUND");
      expectError(await h.req(method, path(alice), { token: alice.token, body: method === "PUT" ? { body: "x" } : undefined }), 404, "USER_NOT_FOUND");
      expect((await h.req(method, path(bob), { body: method === "PUT" ? { body: "x" } : undefined })).status).toBe(401);
    }
  });

  test("drafting is allowed even when sending is not (karma floor)", async () => {
    const low = await h.user({ karma: -50 });
    expect((await h.req("PUT", path(bob), { token: low.token, body: { body: "later" } })).status).toBe(200);
  });
});

describe("GET /messages/conversations (list)", () => {
  test("newest activity first, unread counts, previews, anonymous 401", async () => {
    await sent(h, bob, alice, "from bob");
    h.clock.advance(1000);
    await sent(h, carol, alice, "from carol 1");
    await sent(h, carol, alice, "from carol 2");
    const r = await h.req("GET", "/api/v1/messages/conversations", { token: alice.token });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-total-count")).toBe("2");
    expect(r.body.map((c: any) => c.other_user.username)).toEqual([carol.username, bob.username]);
    expect(r.body[0]).toMatchObject({ is_group: false, title: null, invite_status: "accepted", unread_count: 2, last_message_preview: "from carol 2", is_archived: false });
    expect(r.body[1].unread_count).toBe(1);
    // Replying to bob moves that conversation to the top.
    h.clock.advance(1000);
    await sent(h, alice, bob, "reply");
    const r2 = await h.req("GET", "/api/v1/messages/conversations", { token: alice.token });
    expect(r2.body.map((c: any) => c.other_user.username)).toEqual([bob.username, carol.username]);
    expect(r2.body[0].unread_count).toBe(1);
    expect((await h.req("GET", "/api/v1/messages/conversations")).status).toBe(401);
    // A stranger has no conversations.
    const dave = await h.user();
    expect((await h.req("GET", "/api/v1/messages/conversations", { token: dave.token })).body).toEqual([]);
  });

  test("archived (hidden) conversations only with include_archived; a new message brings one back", async () => {
    const m = await sent(h, bob, alice, "x");
    await sent(h, carol, alice, "y");
    h.ctx.db.$client.query("update conversation_members set hidden_at = 1 where conversation_id = ? and user_id = ?").run(m.conversation_id, alice.id);
    const list = async (q?: Record<string, string>) => (await h.req("GET", "/api/v1/messages/conversations", { token: alice.token, query: q })).body;
    expect((await list()).map((c: any) => c.other_user.username)).toEqual([carol.username]);
    const all = await list({ include_archived: "true" });
    expect(all.map((c: any) => [c.other_user.username, c.is_archived])).toEqual([
      [carol.username, false],
      [bob.username, true],
    ]);
    const archived = await h.req("GET", "/api/v1/messages/conversations/inbox/history", { token: alice.token, query: { before: "2100-01-01T00:00:00Z", show: "archived" } });
    expect(archived.body.rows.map((r: any) => [r.other_user.username, r.is_archived])).toEqual([[bob.username, true]]);
    h.clock.advance(10);
    await sent(h, bob, alice, "again");
    expect((await list()).map((c: any) => c.other_user.username)).toEqual([bob.username, carol.username]);
  });

  test("paging and a 422 for a bad limit", async () => {
    await sent(h, bob, alice);
    h.clock.advance(10);
    await sent(h, carol, alice);
    const r = await h.req("GET", "/api/v1/messages/conversations", { token: alice.token, query: { limit: 1, page: 2 } });
    expect(r.body.map((c: any) => c.other_user.username)).toEqual([bob.username]);
    expect(r.headers.get("x-has-more")).toBe("false");
    expect422(await h.req("GET", "/api/v1/messages/conversations", { token: alice.token, query: { limit: 101 } }));
  });
});

describe("GET /messages/conversations/inbox/history", () => {
  test("conversations whose last message precedes `before`, newest first, with drafts and unread", async () => {
    await sent(h, bob, alice, "b1");
    h.clock.advance(1000);
    const cm = await sent(h, carol, alice, "c1");
    h.clock.advance(1000);
    await h.req("PUT", `/api/v1/messages/conversations/${bob.username}/draft`, { token: alice.token, body: { body: "draft to bob" } });
    const all = await h.req("GET", "/api/v1/messages/conversations/inbox/history", { token: alice.token, query: { before: new Date(h.clock.now()).toISOString() } });
    expect(all.status).toBe(200);
    expect(all.body.has_more).toBe(false);
    expect(all.body.rows.map((r: any) => r.other_user.username)).toEqual([carol.username, bob.username]);
    expect(all.body.rows[0]).toMatchObject({
      conversation: { id: cm.conversation_id, is_group: false, title: null },
      unread_count: 1,
      last_message: { id: cm.id, body: "c1", sender_id: carol.id },
      is_archived: false,
      is_muted: false,
      draft: null,
    });
    expect(all.body.rows[1].draft).toEqual({ body: "draft to bob" });
    const older = await h.req("GET", "/api/v1/messages/conversations/inbox/history", { token: alice.token, query: { before: cm.created_at, limit: 1 } });
    expect(older.body.rows.map((r: any) => r.other_user.username)).toEqual([bob.username]);
    const capped = await h.req("GET", "/api/v1/messages/conversations/inbox/history", { token: alice.token, query: { before: new Date(h.clock.now()).toISOString(), limit: 1 } });
    expect(capped.body.has_more).toBe(true);
  });

  test("before is required and must be a timestamp; show must be known; anonymous 401", async () => {
    expect422(await h.req("GET", "/api/v1/messages/conversations/inbox/history", { token: alice.token }));
    expect422(await h.req("GET", "/api/v1/messages/conversations/inbox/history", { token: alice.token, query: { before: "yesterday" } }));
    expect422(await h.req("GET", "/api/v1/messages/conversations/inbox/history", { token: alice.token, query: { before: "2026-01-01T00:00:00Z", show: "bogus" } }));
    expect((await h.req("GET", "/api/v1/messages/conversations/inbox/history", { query: { before: "2026-01-01T00:00:00Z" } })).status).toBe(401);
    const empty = await h.req("GET", "/api/v1/messages/conversations/inbox/history", { token: alice.token, query: { before: "2030-01-01T00:00:00Z", show: "archived" } });
    expect(empty.body).toEqual({ rows: [], has_more: false });
  });
});

describe("GET /messages/unread-count", () => {
  test("1:1 unread only, with the deprecated duplicate; reading one message lowers it", async () => {
    expect((await h.req("GET", "/api/v1/messages/unread-count", { token: alice.token })).body).toEqual({ unread_direct_messages: 0, unread_count: 0 });
    const m = await sent(h, bob, alice);
    await sent(h, carol, alice);
    await sent(h, alice, bob);
    expect((await h.req("GET", "/api/v1/messages/unread-count", { token: alice.token })).body.unread_direct_messages).toBe(2);
    await h.req("POST", `/api/v1/messages/${m.id}/read`, { token: alice.token });
    expect((await h.req("GET", "/api/v1/messages/unread-count", { token: alice.token })).body.unread_direct_messages).toBe(1);
    expect((await h.req("GET", "/api/v1/messages/unread-count")).status).toBe(401);
  });

  test("deleted messages are not unread", async () => {
    const m = await sent(h, bob, alice);
    await h.req("DELETE", `/api/v1/messages/${m.id}`, { token: bob.token });
    expect((await h.req("GET", "/api/v1/messages/unread-count", { token: alice.token })).body.unread_direct_messages).toBe(0);
  });
});

describe("typing", () => {
  test("by username: 204, a dm_typing event, and dm.typing to the other user only once the outbox delivers it", async () => {
    const l = listen(h, alice, bob, carol);
    const r = await h.req("POST", `/api/v1/messages/conversations/${bob.username}/typing`, { token: alice.token });
    expect(r.status).toBe(204);
    // The push starts from the event row (every serving process reads the outbox), not from the route.
    expect(l.events).toEqual([]);
    const [ev] = eventsOf(h, "dm_typing");
    expect(ev).toMatchObject({ actor_id: alice.id, activity: 0, audience: null });
    expect(ev.payload).toEqual({ conversation_id: null, user_id: alice.id, username: alice.username, is_group: false, recipient_ids: [bob.id] });
    expect(count(h, "events")).toBe(1);
    await h.ctx.events.drain();
    expect(l.events.map((e) => [e.to, e.type, e.channel])).toEqual([[bob.id, "dm.typing", `user:${bob.id}:dm`]]);
    expect(l.events[0].data).toEqual({ conversation_id: null, user_id: alice.id, username: alice.username, is_group: false });
    // Nothing else: no notification, no message.
    expect([count(h, "notifications"), count(h, "messages")]).toEqual([0, 0]);
  });

  test("by username: eligibility as for sending", async () => {
    expectError(await h.req("POST", "/api/v1/messages/conversations/ghost/typing", { token: alice.token }), 404, "USER_NOT_FOUND");
    expectError(await h.req("POST", `/api/v1/messages/conversations/${bob.id}/typing`, { token: alice.token }), 404, "USER_NOT_FOUND");
    expectError(await h.req("POST", `/api/v1/messages/conversations/${alice.username}/typing`, { token: alice.token }), 400, "INVALID_INPUT");
    const low = await h.user({ karma: -6 });
    expectError(await h.req("POST", `/api/v1/messages/conversations/${bob.username}/typing`, { token: low.token }), 403, "KARMA_TOO_LOW");
    expect((await h.req("POST", `/api/v1/messages/conversations/${bob.username}/typing`)).status).toBe(401);
  });

  test("by conversation id: participants only; publishes to the others", async () => {
    const m = await sent(h, alice, bob);
    await h.ctx.events.drain();
    const l = listen(h, alice, bob, carol);
    const r = await h.req("POST", `/api/v1/messages/conversations/by-id/${m.conversation_id}/typing`, { token: bob.token });
    expect(r.status).toBe(204);
    expect(eventsOf(h, "dm_typing").map((e) => [e.subject_type, e.subject_id, e.payload.recipient_ids])).toEqual([["conversation", m.conversation_id, [alice.id]]]);
    await h.ctx.events.drain();
    expect(l.events.map((e) => [e.to, e.type])).toEqual([[alice.id, "dm.typing"]]);
    expect(l.events[0].data).toMatchObject({ conversation_id: m.conversation_id, user_id: bob.id, is_group: false });
    expectError(await h.req("POST", `/api/v1/messages/conversations/by-id/${m.conversation_id}/typing`, { token: carol.token }), 404, "NOT_FOUND");
    expectError(await h.req("POST", `/api/v1/messages/conversations/by-id/${uuidv7(1)}/typing`, { token: carol.token }), 404, "NOT_FOUND");
    expect422(await h.req("POST", "/api/v1/messages/conversations/by-id/nope/typing", { token: carol.token }));
    expect((await h.req("POST", `/api/v1/messages/conversations/by-id/${m.conversation_id}/typing`)).status).toBe(401);
  });

  test("rate limited (30 a minute)", async () => {
    // Rate limits on: a harness of its own.
    const hh = setup();
    const a = await hh.user();
    const b = await hh.user();
    for (let i = 0; i < 30; i++) expect((await hh.req("POST", `/api/v1/messages/conversations/${b.username}/typing`, { token: a.token })).status).toBe(204);
    expectError(await hh.req("POST", `/api/v1/messages/conversations/${b.username}/typing`, { token: a.token }), 429, "RATE_LIMIT_DM_TYPING");
  });
});

describe("Idempotency-Key on send", () => {
  test("a retried send with the same key replays the first response and sends once", async () => {
    const headers = { "idempotency-key": "send-once-1" };
    const first = await h.req("POST", `/api/v1/messages/send/${bob.username}`, { token: alice.token, body: { body: "once" }, headers });
    const again = await h.req("POST", `/api/v1/messages/send/${bob.username}`, { token: alice.token, body: { body: "once" }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get("idempotent-replay")).toBe("true");
    expect(count(h, "messages")).toBe(1);
  });
});
