// After-commit delivery of messaging events: the direct_message notification, the realtime pushes
// on user:{id}:dm (dm.new, dm.read, dm.reaction, dm.edit, dm.delete, dm.group_read), and the DM
// parts of GET /me/unread and GET /conversations/waiting.
import { beforeEach, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { DAY, HOUR } from "../../core/clock";
import { uuidv7 } from "../../core/ids";
import { insertMessage } from "./service";
import { conversationMembers, conversations } from "./tables";
import { beginTest, listen, newUsers, notificationsOf, sent } from "./testkit";

const h = setup({ rateLimitMultiplier: 0 });
let alice: TestUser, bob: TestUser, carol: TestUser;

beforeEach(async () => {
  await beginTest(h);
  [alice, bob, carol] = await newUsers(h, 3);
});


describe("direct_message notification", () => {
  test("the recipient is notified as the message is sent, with message and conversation ids", async () => {
    const m = await sent(h, alice, bob, "hello there");
    const [n] = notificationsOf(h, bob);
    expect(n).toMatchObject({ kind: "direct_message", actor_id: alice.id, message_id: m.id, conversation_id: m.conversation_id, is_read: 0 });
    expect(notificationsOf(h, alice)).toHaveLength(0);
    const api = await h.req("GET", "/api/v1/notifications", { token: bob.token });
    expect(api.body[0]).toMatchObject({ kind: "direct_message", message_id: m.id, conversation_id: m.conversation_id });
    // Redelivery does not notify twice.
    await h.ctx.events.drain();
    expect(notificationsOf(h, bob)).toHaveLength(1);
  });

  test("a recipient who muted the conversation is not notified", async () => {
    const m = await sent(h, alice, bob);
    await h.ctx.events.drain();
    h.ctx.db.$client.query("update conversation_members set muted_until = ? where conversation_id = ? and user_id = ?").run(h.clock.now() + HOUR, m.conversation_id, bob.id);
    await sent(h, alice, bob);
    await h.ctx.events.drain();
    expect(notificationsOf(h, bob)).toHaveLength(1);
    h.clock.advance(2 * HOUR);
    await sent(h, alice, bob);
    await h.ctx.events.drain();
    expect(notificationsOf(h, bob)).toHaveLength(2);
  });
});

describe("realtime on user:{id}:dm", () => {
  test("dm.new to both participants (not to strangers), only after commit", async () => {
    const l = listen(h, alice, bob, carol);
    const m = await sent(h, alice, bob, "live");
    expect(l.of("dm.new")).toHaveLength(0);
    await h.ctx.events.drain();
    const news = l.of("dm.new");
    expect(news.map((e) => e.to).sort()).toEqual([alice.id, bob.id].sort());
    for (const e of news) {
      expect(e.channel).toBe(`user:${e.to}:dm`);
      expect(e.data).toMatchObject({ conversation_id: m.conversation_id, message_id: m.id, sender_id: alice.id, is_group: false, message: { id: m.id, body: "live" } });
    }
  });

  test("dm.read with the count when the recipient opens the conversation", async () => {
    await sent(h, alice, bob, "1");
    await sent(h, alice, bob, "2");
    await h.ctx.events.drain();
    const l = listen(h, alice, bob);
    await h.req("GET", `/api/v1/messages/conversations/${alice.username}`, { token: bob.token });
    await h.ctx.events.drain();
    const reads = l.of("dm.read");
    expect(reads.map((e) => e.to)).toEqual([alice.id]);
    expect(reads[0].data).toMatchObject({ reader_id: bob.id, count: 2 });
  });

  test("dm.read for a single message read", async () => {
    const m = await sent(h, alice, bob);
    await h.ctx.events.drain();
    const l = listen(h, alice, bob);
    await h.req("POST", `/api/v1/messages/${m.id}/read`, { token: bob.token });
    await h.ctx.events.drain();
    expect(l.of("dm.read").map((e) => [e.to, e.data.count, e.data.message_id])).toEqual([[alice.id, 1, m.id]]);
  });

  test("dm.reaction with emoji, action and total to both participants", async () => {
    const m = await sent(h, alice, bob);
    await h.ctx.events.drain();
    const l = listen(h, alice, bob, carol);
    await h.req("POST", `/api/v1/messages/${m.id}/reactions`, { token: bob.token, body: { emoji: "🔥" } });
    await h.req("POST", `/api/v1/messages/${m.id}/reactions`, { token: alice.token, body: { emoji: "🔥" } });
    await h.req("DELETE", `/api/v1/messages/${m.id}/reactions/${encodeURIComponent("🔥")}`, { token: bob.token });
    await h.ctx.events.drain();
    const toAlice = l.of("dm.reaction").filter((e) => e.to === alice.id).map((e) => [e.data.emoji, e.data.action, e.data.total]);
    expect(toAlice).toEqual([
      ["🔥", "add", 1],
      ["🔥", "add", 2],
      ["🔥", "remove", 1],
    ]);
    expect(l.of("dm.reaction").filter((e) => e.to === bob.id)).toHaveLength(3);
    expect(l.events.filter((e) => e.to === carol.id)).toHaveLength(0);
  });

  test("dm.edit and dm.delete", async () => {
    const m = await sent(h, alice, bob, "draft");
    await h.ctx.events.drain();
    const l = listen(h, alice, bob);
    await h.req("PATCH", `/api/v1/messages/${m.id}`, { token: alice.token, body: { body: "final" } });
    await h.req("DELETE", `/api/v1/messages/${m.id}`, { token: alice.token });
    await h.ctx.events.drain();
    expect(l.of("dm.edit").map((e) => [e.to, e.data.message_id, e.data.body]).sort()).toEqual(
      [
        [alice.id, m.id, "final"],
        [bob.id, m.id, "final"],
      ].sort(),
    );
    expect(l.of("dm.delete").map((e) => e.to).sort()).toEqual([alice.id, bob.id].sort());
    expect(l.of("dm.delete")[0].data).toMatchObject({ message_id: m.id, conversation_id: m.conversation_id });
  });

  test("group: group_message events give dm.new to members; a single read gives dm.group_read", async () => {
    const now = h.clock.now();
    const g = uuidv7(now);
    h.ctx.db.insert(conversations).values({ id: g, kind: "group", title: "G", creatorId: alice.id, createdAt: now }).run();
    for (const u of [alice, bob, carol]) h.ctx.db.insert(conversationMembers).values({ conversationId: g, userId: u.id, inviteStatus: "accepted", createdAt: now }).run();
    const l = listen(h, alice, bob, carol);
    const m = h.ctx.db.transaction((tx) => {
      const row = insertMessage(tx, h.ctx, { conversationId: g, senderId: alice.id, body: "hey all" }, "group");
      h.ctx.events.emit(tx, {
        type: "group_message",
        actorId: alice.id,
        payload: {
          recipient_ids: [bob.id, carol.id],
          message_id: row.id,
          conversation_id: g,
          conversation_title: "G",
          sender_id: alice.id,
          sender_username: alice.username,
          sender: alice.username,
          sender_display_name: alice.username,
          body_excerpt: "hey all",
          preview: "hey all",
          mentioned_user_ids: [],
          everyone: false,
        },
      });
      return row;
    });
    await h.ctx.events.drain();
    expect(l.of("dm.new").map((e) => e.to).sort()).toEqual([alice.id, bob.id, carol.id].sort());
    expect(l.of("dm.new")[0].data.is_group).toBe(true);
    await h.req("POST", `/api/v1/messages/${m.id}/read`, { token: bob.token });
    await h.ctx.events.drain();
    const gr = l.of("dm.group_read");
    expect(gr.map((e) => e.to).sort()).toEqual([alice.id, carol.id].sort());
    expect(gr[0].data).toMatchObject({ reader_id: bob.id, message_id: m.id, read_count: 1 });
    // Typing by conversation id reaches every other member; a stranger cannot type there.
    const dave = await h.user();
    const before = l.of("dm.typing").length;
    expect((await h.req("POST", `/api/v1/messages/conversations/by-id/${g}/typing`, { token: carol.token })).status).toBe(204);
    await h.ctx.events.drain();
    expect(l.of("dm.typing").slice(before).map((e) => e.to).sort()).toEqual([alice.id, bob.id].sort());
    expect(l.of("dm.typing").at(-1)!.data).toMatchObject({ conversation_id: g, is_group: true, user_id: carol.id });
    expect((await h.req("POST", `/api/v1/messages/conversations/by-id/${g}/typing`, { token: dave.token })).status).toBe(404);
  });
});

describe("GET /me/unread (DM part)", () => {
  test("counts unread 1:1 messages next to notifications", async () => {
    await sent(h, alice, bob);
    await sent(h, carol, bob);
    await h.ctx.events.drain();
    const r = await h.req("GET", "/api/v1/me/unread", { token: bob.token });
    expect(r.body).toEqual({ unread_notifications: 2, unread_direct_messages: 2, unread_total: 4 });
    await h.req("GET", `/api/v1/messages/conversations/${alice.username}`, { token: bob.token });
    expect((await h.req("GET", "/api/v1/me/unread", { token: bob.token })).body.unread_direct_messages).toBe(1);
    expect((await h.req("GET", "/api/v1/me/unread", { token: alice.token })).body.unread_direct_messages).toBe(0);
    expect((await h.req("GET", "/api/v1/me/bootstrap", { token: bob.token })).body.unread_direct_messages).toBe(1);
  });
});

describe("GET /conversations/waiting (dm part)", () => {
  test("1:1 conversations whose last message is from the other user, oldest first; a reply answers it", async () => {
    const fromAlice = await sent(h, alice, bob, "question from alice");
    h.clock.advance(1000);
    await sent(h, carol, bob, "question from carol");
    const r = await h.req("GET", "/api/v1/conversations/waiting", { token: bob.token });
    expect(r.status).toBe(200);
    expect(r.body.counts).toEqual({ dm: 2, comment_reply: 0, post_comment: 0, total: 2 });
    expect(r.body.items.map((i: any) => i.actor.username)).toEqual([alice.username, carol.username]);
    expect(r.body.items[0]).toMatchObject({
      kind: "dm",
      type: "dm",
      waiting_since: fromAlice.created_at,
      message_preview: "question from alice",
      post_id: null,
      comment_id: null,
      conversation_id: fromAlice.conversation_id,
    });
    await sent(h, bob, alice, "answer");
    const after = await h.req("GET", "/api/v1/conversations/waiting", { token: bob.token });
    expect(after.body.counts.dm).toBe(1);
    expect(after.body.items.map((i: any) => i.actor.username)).toEqual([carol.username]);
    // The senders are not waiting on themselves.
    expect((await h.req("GET", "/api/v1/conversations/waiting", { token: carol.token })).body.counts.dm).toBe(0);
    // limit caps items, not counts.
    const capped = await h.req("GET", "/api/v1/conversations/waiting", { token: bob.token, query: { limit: 1 } });
    expect(capped.body.items).toHaveLength(1);
  });

  test("since filters by the last message; deleted last messages do not wait", async () => {
    await sent(h, alice, bob, "old");
    h.clock.advance(8 * DAY);
    bob = await h.fresh(bob);
    carol = await h.fresh(carol);
    const fresh = await sent(h, carol, bob, "new");
    expect((await h.req("GET", "/api/v1/conversations/waiting", { token: bob.token })).body.counts.dm).toBe(1);
    await h.req("DELETE", `/api/v1/messages/${fresh.id}`, { token: carol.token });
    expect((await h.req("GET", "/api/v1/conversations/waiting", { token: bob.token })).body.counts.dm).toBe(0);
  });
});

describe("cold budget endpoints need a caller", () => {
  test("anonymous 401", async () => {
    expect((await h.req("GET", "/api/v1/me/cold-budget")).status).toBe(401);
    expect((await h.req("GET", "/api/v1/me/cold-budget/peers")).status).toBe(401);
  });
});

describe("GET /since (messages part)", () => {
  test("new messages from others in the caller's conversations, newest first, and a gap-free cursor", async () => {
    const start = new Date(h.clock.now()).toISOString();
    h.clock.advance(10);
    const m1 = await sent(h, alice, bob, "first");
    h.clock.advance(10);
    await sent(h, bob, alice, "own message is not news");
    const m2 = await sent(h, carol, bob, "second");
    await sent(h, alice, carol, "not bob's conversation");
    h.clock.advance(10);
    const r = await h.req("GET", "/api/v1/since", { token: bob.token, query: { since: start } });
    expect(r.status).toBe(200);
    expect(r.body.counts.messages).toBe(2);
    expect(r.body.messages.map((m: any) => m.id)).toEqual([m2.id, m1.id]);
    expect(r.body.messages[0]).toMatchObject({ body: "second", sender: { username: carol.username } });
    // limit 1: the oldest first, and next_cursor continues without a gap.
    const p1 = await h.req("GET", "/api/v1/since", { token: bob.token, query: { since: start, limit: 1 } });
    expect(p1.body.messages.map((m: any) => m.id)).toEqual([m1.id]);
    const p2 = await h.req("GET", "/api/v1/since", { token: bob.token, query: { since: p1.body.next_cursor, limit: 1 } });
    expect(p2.body.messages.map((m: any) => m.id)).toEqual([m2.id]);
    // Deleted messages drop out.
    await h.req("DELETE", `/api/v1/messages/${m2.id}`, { token: carol.token });
    const after = await h.req("GET", "/api/v1/since", { token: bob.token, query: { since: start } });
    expect(after.body.messages.map((m: any) => m.id)).toEqual([m1.id]);
  });
});
