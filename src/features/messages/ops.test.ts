// Per-message operations (spec Part 2 §4.7, §8): read, reads, reactions, edit and edits, delete,
// star, forward, saved — each as anonymous, stranger and participant, for 1:1 and group messages.
import { beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type TestUser } from "../../../test/harness";
import { MINUTE } from "../../core/clock";
import { uuidv7 } from "../../core/ids";
import { getOrCreateDirect, insertMessage } from "./service";
import { conversationMembers, conversations } from "./tables";
import { beginTest, count, eventsOf, expect422, newUsers, send, sent } from "./testkit";

const h = setup({ rateLimitMultiplier: 0 });
let alice: TestUser, bob: TestUser, carol: TestUser;
let msg: any;

beforeEach(async () => {
  await beginTest(h);
  [alice, bob, carol] = await newUsers(h, 3);
  msg = await sent(h, alice, bob, "original");
});

/** A group conversation written straight through the model (the groups routes are another module's). */
function makeGroup(members: TestUser[], opts: { pending?: TestUser[]; left?: TestUser[]; title?: string } = {}) {
  const now = h.clock.now();
  const id = uuidv7(now);
  h.ctx.db.insert(conversations).values({ id, kind: "group", title: opts.title ?? "Team", creatorId: members[0].id, createdAt: now }).run();
  const row = (u: TestUser, inviteStatus: "accepted" | "pending") => ({ conversationId: id, userId: u.id, role: "member" as const, inviteStatus, createdAt: now, joinedAt: now, lastMessageAt: now });
  for (const u of members) h.ctx.db.insert(conversationMembers).values(row(u, "accepted")).run();
  for (const u of opts.pending ?? []) h.ctx.db.insert(conversationMembers).values(row(u, "pending")).run();
  for (const u of opts.left ?? []) h.ctx.db.insert(conversationMembers).values({ ...row(u, "accepted"), leftAt: now }).run();
  return id;
}

function groupMessage(conversationId: string, from: TestUser, body: string) {
  return h.ctx.db.transaction((tx) => insertMessage(tx, h.ctx, { conversationId, senderId: from.id, body }, "group"));
}

const path = (id: string, rest = "") => `/api/v1/messages/${id}${rest}`;

describe("POST /messages/{id}/read", () => {
  test("recipient: first call reads, repeats are already:true; sender: self_authored", async () => {
    const r = await h.req("POST", path(msg.id, "/read"), { token: bob.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ already: false, self_authored: false });
    expect((await h.req("POST", path(msg.id, "/read"), { token: bob.token })).body).toEqual({ already: true, self_authored: false });
    expect((await h.req("POST", path(msg.id, "/read"), { token: alice.token })).body).toEqual({ already: true, self_authored: true });
    expect(count(h, "message_reads")).toBe(1);
    expect(eventsOf(h, "messages_read")).toHaveLength(1);
  });

  test("stranger and unknown id 404; anonymous 401; bad id 422", async () => {
    expectError(await h.req("POST", path(msg.id, "/read"), { token: carol.token }), 404, "NOT_FOUND");
    expectError(await h.req("POST", path(uuidv7(1), "/read"), { token: bob.token }), 404, "NOT_FOUND");
    expect((await h.req("POST", path(msg.id, "/read"))).status).toBe(401);
    expect422(await h.req("POST", path("nope", "/read"), { token: bob.token }));
    expect(count(h, "message_reads")).toBe(0);
  });

  test("group: members read; pending invitees and members who left are strangers", async () => {
    const dave = await h.user();
    const erin = await h.user();
    const g = makeGroup([alice, bob, carol], { pending: [dave], left: [erin] });
    const m = groupMessage(g, alice, "hello team");
    expect((await h.req("POST", path(m.id, "/read"), { token: bob.token })).body).toEqual({ already: false, self_authored: false });
    expectError(await h.req("POST", path(m.id, "/read"), { token: dave.token }), 404, "NOT_FOUND");
    expectError(await h.req("POST", path(m.id, "/read"), { token: erin.token }), 404, "NOT_FOUND");
    const [ev] = eventsOf(h, "messages_read");
    expect(ev.payload).toMatchObject({ is_group: true, message_id: m.id, read_count: 1 });
    expect(ev.payload.recipient_ids.sort()).toEqual([alice.id, carol.id].sort());
  });
});

describe("GET /messages/{id}/reads", () => {
  test("1:1: one other party, seen after reading", async () => {
    const before = await h.req("GET", path(msg.id, "/reads"), { token: alice.token });
    expect(before.body).toMatchObject({ is_group: false, total_others: 1, seen_count: 0, seen: [], unseen: [{ user_id: bob.id, username: bob.username, read_at: null }] });
    await h.req("POST", path(msg.id, "/read"), { token: bob.token });
    const after = await h.req("GET", path(msg.id, "/reads"), { token: bob.token });
    expect(after.body).toMatchObject({ seen_count: 1, unseen: [], seen: [{ user_id: bob.id, read_at: new Date(h.clock.now()).toISOString() }] });
  });

  test("group: seen by n of the other members", async () => {
    const g = makeGroup([alice, bob, carol]);
    const m = groupMessage(g, alice, "x");
    await h.req("POST", path(m.id, "/read"), { token: carol.token });
    const r = await h.req("GET", path(m.id, "/reads"), { token: alice.token });
    expect(r.body).toMatchObject({ is_group: true, total_others: 2, seen_count: 1 });
    expect(r.body.seen.map((s: any) => s.username)).toEqual([carol.username]);
    expect(r.body.unseen.map((s: any) => s.username)).toEqual([bob.username]);
  });

  test("stranger 404, anonymous 401", async () => {
    expectError(await h.req("GET", path(msg.id, "/reads"), { token: carol.token }), 404, "NOT_FOUND");
    expect((await h.req("GET", path(msg.id, "/reads"))).status).toBe(401);
  });
});

describe("reactions", () => {
  const react = (u: TestUser, emoji: string, id = msg.id) => h.req("POST", path(id, "/reactions"), { token: u.token, body: { emoji } });

  test("201 with the reaction; the same emoji again is a 200 no-op; both participants may react", async () => {
    const r = await react(bob, "👍");
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ emoji: "👍", user_id: bob.id, username: bob.username, created_at: new Date(h.clock.now()).toISOString() });
    const again = await react(bob, "👍");
    expect(again.status).toBe(200);
    expect(again.body.emoji).toBe("👍");
    expect((await react(alice, "👍")).status).toBe(201);
    expect(count(h, "message_reactions")).toBe(2);
    const view = await h.req("GET", `/api/v1/messages/conversations/${bob.username}`, { token: alice.token });
    expect(view.body.messages[0].reactions.map((x: any) => x.username)).toEqual([bob.username, alice.username]);
    const evs = eventsOf(h, "message_reaction");
    expect(evs.map((e) => [e.payload.action, e.payload.total])).toEqual([
      ["add", 1],
      ["add", 2],
    ]);
  });

  test("aliases of the curated set are stored as the emoji; others are 422 INVALID_INPUT", async () => {
    expect((await react(bob, "heart")).body.emoji).toBe("❤️");
    expectError(await react(bob, "🦄"), 422, "INVALID_INPUT");
    expectError(await react(bob, "thumbsup-please"), 422, "INVALID_INPUT");
    expect422(await h.req("POST", path(msg.id, "/reactions"), { token: bob.token, body: {} }));
    expect422(await h.req("POST", path(msg.id, "/reactions"), { token: bob.token, body: { emoji: "x".repeat(31) } }));
    expect(count(h, "message_reactions")).toBe(1);
  });

  test("at most 6 distinct emojis per user per message: the 7th is 400 LIMIT_EXCEEDED", async () => {
    for (const e of ["👍", "👎", "❤️", "😂", "😮", "😢"]) expect((await react(bob, e)).status).toBe(201);
    await refused(h, () => react(bob, "🎉"), 400, "LIMIT_EXCEEDED");
    // Another user still has their own six.
    expect((await react(alice, "🎉")).status).toBe(201);
    // Removing one frees a slot.
    await h.req("DELETE", path(msg.id, `/reactions/${encodeURIComponent("👍")}`), { token: bob.token });
    expect((await react(bob, "🎉")).status).toBe(201);
  });

  test("DELETE removes the caller's own reaction; idempotent", async () => {
    await react(bob, "🔥");
    await react(alice, "🔥");
    const r = await h.req("DELETE", path(msg.id, `/reactions/${encodeURIComponent("🔥")}`), { token: bob.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ removed: true });
    expect((await h.req("DELETE", path(msg.id, `/reactions/${encodeURIComponent("🔥")}`), { token: bob.token })).body).toEqual({ removed: false });
    expect((await h.req("DELETE", path(msg.id, "/reactions/fire"), { token: alice.token })).body).toEqual({ removed: true });
    expect((await h.req("DELETE", path(msg.id, "/reactions/unicorn"), { token: alice.token })).body).toEqual({ removed: false });
    const remove = eventsOf(h, "message_reaction").filter((e) => e.payload.action === "remove");
    expect(remove.map((e) => e.payload.total)).toEqual([1, 0]);
  });

  test("stranger 404, deleted message 404, anonymous 401", async () => {
    expectError(await react(carol, "👍"), 404, "NOT_FOUND");
    expectError(await h.req("DELETE", path(msg.id, "/reactions/fire"), { token: carol.token }), 404, "NOT_FOUND");
    expect((await h.req("POST", path(msg.id, "/reactions"), { body: { emoji: "👍" } })).status).toBe(401);
    expect((await h.req("DELETE", path(msg.id, "/reactions/fire"))).status).toBe(401);
    await h.req("DELETE", path(msg.id), { token: alice.token });
    expectError(await react(bob, "👍"), 404, "NOT_FOUND");
    expect(count(h, "message_reactions")).toBe(0);
  });

  test("120 reactions an hour per user (429 RATE_LIMIT_MESSAGE_REACTION)", async () => {
    // Rate limits on: a harness of its own.
    const hh = setup();
    const b = await hh.user();
    const senders = [await hh.user(), await hh.user(), await hh.user()];
    const msgs = [];
    for (const a of senders) for (let i = 0; i < 7; i++) msgs.push(await sent(hh, a, b, `m${i}`));
    const emojis = ["👍", "👎", "❤️", "😂", "😮", "😢"];
    for (const m of msgs.slice(0, 20)) {
      for (const e of emojis) expect((await hh.req("POST", path(m.id, "/reactions"), { token: b.token, body: { emoji: e } })).status).toBe(201);
    }
    expectError(await hh.req("POST", path(msgs[20].id, "/reactions"), { token: b.token, body: { emoji: "👍" } }), 429, "RATE_LIMIT_MESSAGE_REACTION");
  });

  test("group members react", async () => {
    const g = makeGroup([alice, bob, carol]);
    const m = groupMessage(g, alice, "x");
    expect((await react(carol, "👀", m.id)).status).toBe(201);
  });
});

describe("PATCH /messages/{id} (edit) and GET .../edits", () => {
  const edit = (u: TestUser, body: unknown, id = msg.id) => h.req("PATCH", path(id), { token: u.token, body });

  test("the sender edits within 5 minutes; history keeps every earlier body", async () => {
    h.clock.advance(MINUTE);
    const r = await edit(alice, { body: "second" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: msg.id, body: "second", edited_at: new Date(h.clock.now()).toISOString() });
    const firstEditAt = h.clock.now();
    h.clock.advance(3 * MINUTE);
    expect((await edit(alice, { body: "third" })).body.body).toBe("third");
    const hist = await h.req("GET", path(msg.id, "/edits"), { token: bob.token });
    expect(hist.status).toBe(200);
    expect(hist.body.message_id).toBe(msg.id);
    expect(hist.body.versions).toEqual([
      { body: "third", created_at: new Date(h.clock.now()).toISOString(), at: new Date(h.clock.now()).toISOString(), is_current: true },
      { body: "second", created_at: new Date(firstEditAt).toISOString(), at: new Date(firstEditAt).toISOString(), is_current: false },
      { body: "original", created_at: msg.created_at, at: msg.created_at, is_current: false },
    ]);
    const evs = eventsOf(h, "direct_message_edited");
    expect(evs).toHaveLength(2);
    expect(evs[0].payload).toMatchObject({ message_id: msg.id, recipient_ids: [bob.id], body: "second" });
  });

  test("after 5 minutes: 403 EDIT_WINDOW_EXPIRED and nothing changes", async () => {
    h.clock.advance(5 * MINUTE);
    expect((await edit(alice, { body: "at the limit" })).status).toBe(200);
    h.clock.advance(1);
    await refused(h, () => edit(alice, { body: "too late" }), 403, "EDIT_WINDOW_EXPIRED");
    expect((await h.req("GET", path(msg.id, "/edits"), { token: alice.token })).body.versions[0].body).toBe("at the limit");
  });

  test("an unchanged body records no history", async () => {
    await edit(alice, { body: "original" });
    expect(count(h, "message_edits")).toBe(0);
    expect((await h.req("GET", path(msg.id, "/edits"), { token: alice.token })).body.versions).toHaveLength(1);
  });

  test("the recipient is 403 FORBIDDEN; a stranger 404; anonymous 401; bad bodies 422", async () => {
    expectError(await edit(bob, { body: "mine now" }), 403, "FORBIDDEN");
    expectError(await edit(carol, { body: "x" }), 404, "NOT_FOUND");
    expectError(await h.req("GET", path(msg.id, "/edits"), { token: carol.token }), 404, "NOT_FOUND");
    expect((await h.req("PATCH", path(msg.id), { body: { body: "x" } })).status).toBe(401);
    expect((await h.req("GET", path(msg.id, "/edits"))).status).toBe(401);
    expect422(await edit(alice, { body: "" }));
    expect422(await edit(alice, { body: "   " }));
    expect422(await edit(alice, { body: "x".repeat(10001) }));
    expect422(await edit(alice, {}));
    expect(count(h, "message_edits")).toBe(0);
  });

  test("group message edits go to every accepted member", async () => {
    const g = makeGroup([alice, bob, carol]);
    const m = groupMessage(g, bob, "typo");
    expect((await edit(bob, { body: "fixed" }, m.id)).status).toBe(200);
    const [ev] = eventsOf(h, "group_message_edited");
    expect(ev.payload.recipient_ids.sort()).toEqual([alice.id, bob.id, carol.id].sort());
  });
});

describe("DELETE /messages/{id}", () => {
  test("the sender soft-deletes: a tombstone stays, its history, reactions and stars go", async () => {
    await h.req("PATCH", path(msg.id), { token: alice.token, body: { body: "edited" } });
    await h.req("POST", path(msg.id, "/reactions"), { token: bob.token, body: { emoji: "👍" } });
    await h.req("POST", path(msg.id, "/star"), { token: bob.token });
    const r = await h.req("DELETE", path(msg.id), { token: alice.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ deleted: true });
    const view = await h.req("GET", `/api/v1/messages/conversations/${alice.username}`, { token: bob.token });
    expect(view.body.messages[0]).toMatchObject({ id: msg.id, body: "", deleted: true, reactions: [], attachments: [], edited_at: null });
    expect(count(h, "message_edits")).toBe(0);
    expect(count(h, "message_reactions")).toBe(0);
    expect(count(h, "message_stars")).toBe(0);
    expect((h.ctx.db.$client.query("select body from messages where id = ?").get(msg.id) as any).body).toBe("");
    expectError(await h.req("GET", path(msg.id, "/edits"), { token: bob.token }), 404, "NOT_FOUND");
    expect(eventsOf(h, "direct_message_deleted")[0].payload).toMatchObject({ message_id: msg.id, recipient_ids: [bob.id] });
    // Again: idempotent, no second event.
    expect((await h.req("DELETE", path(msg.id), { token: alice.token })).body).toEqual({ deleted: true });
    expect(eventsOf(h, "direct_message_deleted")).toHaveLength(1);
  });

  test("the recipient 403, a stranger 404, anonymous 401", async () => {
    expectError(await h.req("DELETE", path(msg.id), { token: bob.token }), 403, "FORBIDDEN");
    expectError(await h.req("DELETE", path(msg.id), { token: carol.token }), 404, "NOT_FOUND");
    expect((await h.req("DELETE", path(msg.id))).status).toBe(401);
    expect((h.ctx.db.$client.query("select deleted_at from messages where id = ?").get(msg.id) as any).deleted_at).toBeNull();
  });
});

describe("star and saved", () => {
  test("star toggles; saved lists newest saved first with other_username; group entries carry is_group and title", async () => {
    const r = await h.req("POST", path(msg.id, "/star"), { token: bob.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ saved: true });
    const g = makeGroup([alice, bob, carol], { title: "Ops" });
    const gm = groupMessage(g, carol, "group note");
    h.clock.advance(1000);
    await h.req("POST", path(gm.id, "/star"), { token: bob.token });
    const list = await h.req("GET", "/api/v1/messages/saved", { token: bob.token });
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ total: 2, has_more: false });
    expect(list.body.messages.map((e: any) => [e.message.id, e.is_group, e.conversation_title, e.other_username])).toEqual([
      [gm.id, true, "Ops", null],
      [msg.id, false, null, alice.username],
    ]);
    expect(list.body.messages[0]).toMatchObject({ saved_at: new Date(h.clock.now()).toISOString(), note: null });
    // Stars are per user.
    expect((await h.req("GET", "/api/v1/messages/saved", { token: alice.token })).body.messages).toEqual([]);
    // Toggling off.
    expect((await h.req("POST", path(msg.id, "/star"), { token: bob.token })).body).toEqual({ saved: false });
    const after = await h.req("GET", "/api/v1/messages/saved", { token: bob.token, query: { limit: 1 } });
    expect(after.body.messages.map((e: any) => e.message.id)).toEqual([gm.id]);
  });

  test("a group the caller left drops out of the saved list", async () => {
    const g = makeGroup([alice, bob]);
    const gm = groupMessage(g, alice, "x");
    await h.req("POST", path(gm.id, "/star"), { token: bob.token });
    h.ctx.db.$client.query("update conversation_members set left_at = 1 where conversation_id = ? and user_id = ?").run(g, bob.id);
    expect((await h.req("GET", "/api/v1/messages/saved", { token: bob.token })).body).toEqual({ messages: [], pagination: { total: 0, has_more: false } });
  });

  test("stranger 404, anonymous 401, bad paging 422", async () => {
    expectError(await h.req("POST", path(msg.id, "/star"), { token: carol.token }), 404, "NOT_FOUND");
    expect((await h.req("POST", path(msg.id, "/star"))).status).toBe(401);
    expect((await h.req("GET", "/api/v1/messages/saved")).status).toBe(401);
    expect422(await h.req("GET", "/api/v1/messages/saved", { token: bob.token, query: { limit: 101 } }));
    expect(count(h, "message_stars")).toBe(0);
  });
});

describe("POST /messages/{id}/forward", () => {
  test("to a 1:1 conversation as a blockquote after the comment (query or body)", async () => {
    const r = await h.req("POST", path(msg.id, "/forward"), { token: bob.token, query: { recipient_username: carol.username, comment: "FYI" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ sender: { id: bob.id }, body: `FYI\n\n> Forwarded from @${alice.username}:\n>\n> original`, forwarded_from_id: msg.id });
    const viaBody = await h.req("POST", path(msg.id, "/forward"), { token: bob.token, body: { recipient_username: carol.username } });
    expect(viaBody.status).toBe(201);
    expect(viaBody.body.body).toBe(`> Forwarded from @${alice.username}:\n>\n> original`);
    const carolView = await h.req("GET", `/api/v1/messages/conversations/${bob.username}`, { token: carol.token });
    expect(carolView.body.messages).toHaveLength(2);
    expect(eventsOf(h, "direct_message").at(-1).payload.recipient_ids).toEqual([carol.id]);
  });

  test("the source is cut to 2000 characters; multi-line bodies are quoted line by line", async () => {
    const long = await sent(h, alice, bob, "a".repeat(2500));
    const r = await h.req("POST", path(long.id, "/forward"), { token: bob.token, query: { recipient_username: carol.username } });
    expect(r.body.body).toBe(`> Forwarded from @${alice.username}:\n>\n> ${"a".repeat(2000)}…`);
    const multi = await sent(h, alice, bob, "line 1\n\nline 3");
    const r2 = await h.req("POST", path(multi.id, "/forward"), { token: bob.token, query: { recipient_username: carol.username } });
    expect(r2.body.body).toBe(`> Forwarded from @${alice.username}:\n>\n> line 1\n>\n> line 3`);
  });

  test("errors: missing recipient 422, unknown recipient 404, stranger 404, deleted source 404, karma floor 403, anonymous 401", async () => {
    expect422(await h.req("POST", path(msg.id, "/forward"), { token: bob.token }));
    expectError(await h.req("POST", path(msg.id, "/forward"), { token: bob.token, query: { recipient_username: "ghost" } }), 404, "USER_NOT_FOUND");
    expectError(await h.req("POST", path(msg.id, "/forward"), { token: bob.token, query: { recipient_username: carol.id } }), 404, "USER_NOT_FOUND");
    expectError(await h.req("POST", path(msg.id, "/forward"), { token: carol.token, query: { recipient_username: bob.username } }), 404, "NOT_FOUND");
    expect422(await h.req("POST", path(msg.id, "/forward"), { token: bob.token, query: { recipient_username: carol.username, comment: "x".repeat(9990) } }));
    h.ctx.db.$client.query("update users set karma = -6 where id = ?").run(bob.id);
    expectError(await h.req("POST", path(msg.id, "/forward"), { token: bob.token, query: { recipient_username: carol.username } }), 403, "KARMA_TOO_LOW");
    h.ctx.db.$client.query("update users set karma = 0 where id = ?").run(bob.id);
    await h.req("DELETE", path(msg.id), { token: alice.token });
    expectError(await h.req("POST", path(msg.id, "/forward"), { token: bob.token, query: { recipient_username: carol.username } }), 404, "NOT_FOUND");
    expect((await h.req("POST", path(msg.id, "/forward"), { query: { recipient_username: carol.username } })).status).toBe(401);
    expect(count(h, "messages")).toBe(1);
  });

  test("forwarding from a group to a 1:1 conversation", async () => {
    const g = makeGroup([alice, bob]);
    const gm = groupMessage(g, alice, "group text");
    const r = await h.req("POST", path(gm.id, "/forward"), { token: bob.token, query: { recipient_username: carol.username } });
    expect(r.status).toBe(201);
    expect(r.body.body).toContain("> group text");
  });

  test("counts against send_message", async () => {
    // Rate limits on: a harness of its own.
    const hh = setup();
    const a = await hh.user();
    const b = await hh.user();
    const c = await hh.user();
    const m = await sent(hh, a, b, "x");
    for (let i = 0; i < 10; i++) expect((await hh.req("POST", path(m.id, "/forward"), { token: b.token, query: { recipient_username: c.username } })).status).toBe(201);
    expectError(await hh.req("POST", path(m.id, "/forward"), { token: b.token, query: { recipient_username: c.username } }), 429, "RATE_LIMIT_SEND_MESSAGE");
    expectError(await send(hh, b, c), 429, "RATE_LIMIT_SEND_MESSAGE");
  });
});

describe("the model helpers a group module uses", () => {
  test("getOrCreateDirect is idempotent per pair", () => {
    const a = h.ctx.db.transaction((tx) => getOrCreateDirect(tx, h.ctx, carol.id, bob.id));
    const b = h.ctx.db.transaction((tx) => getOrCreateDirect(tx, h.ctx, bob.id, carol.id));
    expect(a.created).toBe(true);
    expect(b.created).toBe(false);
    expect(b.conversation.id).toBe(a.conversation.id);
  });
});
