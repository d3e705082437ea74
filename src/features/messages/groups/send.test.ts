// Sending to a group (spec Part 2 §4.6, §6.2, §6.3, §8): payload rules, @mentions and @everyone,
// the group_message / group_mention events and their recipients (mute honoured), the
// group_message notification (mute and snooze honoured), realtime dm.new, read-all, and the
// send_message limits shared with 1:1 sends.
import { beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../../test/expect";
import { setup, type TestUser } from "../../../../test/harness";
import { HOUR } from "../../../core/clock";
import { uuidv7 } from "../../../core/ids";
import { beginTest, count, eventsOf, expect422, listen, newUsers, notificationsOf, send as send1to1 } from "../testkit";
import { G, groupSend, groupSent, makeGroup } from "./gtestkit";
import { parseMentions } from "./send";

const h = setup({ rateLimitMultiplier: 0 });
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser;
let g: string;

beforeEach(async () => {
  await beginTest(h);
  [alice, bob, carol, dave] = await newUsers(h, 4);
  // dave stays a pending invitee.
  g = await makeGroup(h, alice, [bob, carol, dave], [bob, carol]);
});

const sorted = (ids: string[]) => [...ids].sort();

describe("POST /messages/groups/{id}/send", () => {
  test("201 with the message; it is in the group, bumps the inbox and clears the sender's group draft", async () => {
    h.ctx.db.$client.query("insert into message_drafts (id, user_id, conversation_id, body, updated_at) values (?, ?, ?, 'draft', 0)").run(uuidv7(h.clock.now()), bob.id, g);
    const r = await groupSend(h, bob, g, "hello team");
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ conversation_id: g, body: "hello team", sender: { id: bob.id, username: bob.username }, is_read: false, reply_to: null, attachments: [] });
    expect(count(h, "message_drafts")).toBe(0);
    const list = await h.req("GET", "/api/v1/messages/conversations", { token: alice.token });
    expect(list.body[0]).toMatchObject({ id: g, last_message_preview: "hello team", unread_count: 1 });
  });

  test("replies to a message of the group; a reply target elsewhere is 404", async () => {
    const first = await groupSent(h, alice, g, "question?");
    const r = await groupSend(h, bob, g, { body: "answer", reply_to_message_id: first.id });
    expect(r.status).toBe(201);
    expect(r.body.reply_to).toMatchObject({ id: first.id, sender_username: alice.username, body_preview: "question?" });
    const other = await makeGroup(h, carol, [bob]);
    const elsewhere = await groupSent(h, carol, other, "other group");
    expectError(await groupSend(h, bob, g, { body: "x", reply_to_message_id: elsewhere.id }), 404, "NOT_FOUND");
  });

  test("payload errors: empty body 422, body over 10000 422, unknown attachment 404; nothing is sent", async () => {
    expect422(await groupSend(h, bob, g, { body: "   " }));
    expect422(await groupSend(h, bob, g, {}));
    expect422(await groupSend(h, bob, g, { body: "x".repeat(10001) }));
    expect((await groupSend(h, bob, g, { body: "x".repeat(10000) })).status).toBe(201);
    await refused(h, () => groupSend(h, bob, g, { body: "x", attachment_ids: ["019b0000-0000-7000-8000-000000000000"] }), 404, "NOT_FOUND");
    expect(count(h, "messages")).toBe(1);
  });

  test("karma below -5 is 403 KARMA_TOO_LOW", async () => {
    h.ctx.db.$client.query("update users set karma = -6 where id = ?").run(bob.id);
    await refused(h, () => groupSend(h, bob, g, "x"), 403, "KARMA_TOO_LOW");
  });

  test("at most 20 distinct @mentions (400 LIMIT_EXCEEDED); repeats and @everyone are not counted", async () => {
    const names = Array.from({ length: 21 }, (_, i) => `@user-${i}`);
    await refused(h, () => groupSend(h, bob, g, names.join(" ")), 400, "LIMIT_EXCEEDED");
    expect((await groupSend(h, bob, g, names.slice(0, 20).join(" ") + " @user-0 @user-1 @everyone")).status).toBe(201);
    expect(count(h, "messages")).toBe(1);
  });

  test("parseMentions: names lower-cased and distinct, emails and code-like text ignored", () => {
    expect(parseMentions("hi @Bob and @bob, mail me@example.com, @everyone! (@carol)")).toEqual({ names: ["bob", "carol"], everyone: true });
    expect(parseMentions("no mentions @ all")).toEqual({ names: [], everyone: false });
  });
});

describe("events", () => {
  test("group_message goes to every accepted member but the sender (not to pending invitees)", async () => {
    const m = await groupSent(h, alice, g, "plain");
    const [ev] = eventsOf(h, "group_message");
    expect(ev.actor_id).toBe(alice.id);
    expect(sorted(ev.payload.recipient_ids)).toEqual(sorted([bob.id, carol.id]));
    expect(ev.payload).toMatchObject({ message_id: m.id, conversation_id: g, sender_id: alice.id, sender_username: alice.username, body_excerpt: "plain", everyone: false, mentioned_user_ids: [] });
    expect(eventsOf(h, "group_mention")).toHaveLength(0);
  });

  test("a member who muted the group is left out unless @-named or addressed by @everyone; group_mention goes to those addressed", async () => {
    await h.req("POST", `${G}/${g}/mute`, { token: bob.token });
    await groupSent(h, alice, g, "plain");
    await groupSent(h, alice, g, `ping @${bob.username}`);
    await groupSent(h, alice, g, `ping @${carol.username} and @${dave.username} and @nobody`);
    await groupSent(h, alice, g, "all hands @everyone");
    const msgs = eventsOf(h, "group_message").map((e) => sorted(e.payload.recipient_ids));
    expect(msgs).toEqual([[carol.id], sorted([bob.id, carol.id]), [carol.id], sorted([bob.id, carol.id])]);
    const mentions = eventsOf(h, "group_mention").map((e) => [sorted(e.payload.recipient_ids), e.payload.everyone]);
    // dave is only invited and @nobody is not a member: neither is addressed.
    expect(mentions).toEqual([
      [[bob.id], false],
      [[carol.id], false],
      [sorted([bob.id, carol.id]), true],
    ]);
  });

  test("a mute that has run out no longer excludes (TestClock)", async () => {
    await h.req("POST", `${G}/${g}/mute`, { token: bob.token, query: { duration: "1h" } });
    await groupSent(h, alice, g, "muted now");
    h.clock.advance(HOUR + 1);
    await groupSent(h, alice, g, "mute over");
    expect(eventsOf(h, "group_message").map((e) => e.payload.recipient_ids.includes(bob.id))).toEqual([false, true]);
  });

  test("realtime dm.new after commit to the members, muted ones included; nothing to pending invitees or strangers", async () => {
    const stranger = await h.user();
    await h.req("POST", `${G}/${g}/mute`, { token: carol.token });
    const l = listen(h, alice, bob, carol, dave, stranger);
    const m = await groupSent(h, alice, g, "live");
    expect(l.of("dm.new")).toHaveLength(0);
    await h.ctx.events.drain();
    const news = l.of("dm.new");
    expect(sorted(news.map((e) => e.to))).toEqual(sorted([alice.id, bob.id, carol.id]));
    for (const e of news) expect(e.data).toMatchObject({ conversation_id: g, message_id: m.id, is_group: true, message: { id: m.id, body: "live" } });
  });
});

describe("group_message notifications", () => {
  test("each recipient is notified once as the message is sent; not the sender, not pending invitees", async () => {
    const m = await groupSent(h, alice, g, "hello all");
    for (const u of [bob, carol]) {
      const ns = notificationsOf(h, u);
      expect(ns).toHaveLength(1);
      expect(ns[0]).toMatchObject({ kind: "group_message", actor_id: alice.id, message_id: m.id, conversation_id: g });
      expect(JSON.parse(ns[0].meta)).toMatchObject({ preview: "hello all", sender_username: alice.username, conversation_title: "Team", mentioned: false });
    }
    expect(notificationsOf(h, alice)).toHaveLength(0);
    expect(notificationsOf(h, dave)).toHaveLength(0);
    await h.ctx.events.drain();
    expect(notificationsOf(h, bob)).toHaveLength(1);
  });

  test("mute: silent except for @-mentions and @everyone", async () => {
    await h.req("POST", `${G}/${g}/mute`, { token: bob.token });
    await groupSent(h, alice, g, "plain");
    await groupSent(h, alice, g, `hey @${bob.username}`);
    await groupSent(h, alice, g, "@everyone standup");
    await h.ctx.events.drain();
    expect(notificationsOf(h, bob).map((n) => JSON.parse(n.meta).preview)).toEqual([`hey @${bob.username}`, "@everyone standup"]);
    expect(notificationsOf(h, bob).map((n) => JSON.parse(n.meta).mentioned)).toEqual([true, true]);
    expect(notificationsOf(h, carol)).toHaveLength(3);
  });

  test("snooze: nothing notifies (mentions included) until it ends", async () => {
    await h.req("POST", `${G}/${g}/snooze`, { token: bob.token, query: { duration: "1h" } });
    await groupSent(h, alice, g, "plain");
    await groupSent(h, alice, g, `hey @${bob.username}`);
    await h.ctx.events.drain();
    expect(notificationsOf(h, bob)).toHaveLength(0);
    h.clock.advance(HOUR + 1);
    await groupSent(h, alice, g, "later");
    await h.ctx.events.drain();
    expect(notificationsOf(h, bob).map((n) => JSON.parse(n.meta).preview)).toEqual(["later"]);
  });

  test("a member who has left is not notified of later messages", async () => {
    await h.req("DELETE", `${G}/${g}/members/${bob.id}`, { token: bob.token });
    await groupSent(h, alice, g, "bye?");
    await h.ctx.events.drain();
    expect(notificationsOf(h, bob)).toHaveLength(0);
    expect(notificationsOf(h, carol)).toHaveLength(1);
  });
});

describe("POST /messages/groups/{id}/read-all", () => {
  test("marks everything from others read, returns the count, publishes dm.group_read; idempotent", async () => {
    await groupSent(h, alice, g, "1");
    await groupSent(h, carol, g, "2");
    const last = await groupSent(h, alice, g, "3");
    await groupSent(h, bob, g, "own");
    await h.ctx.events.drain();
    const l = listen(h, alice, bob, carol, dave);
    const r = await h.req("POST", `${G}/${g}/read-all`, { token: bob.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ marked: 3 });
    await h.ctx.events.drain();
    const reads = l.of("dm.group_read") as any[];
    expect(sorted(reads.map((e) => e.to))).toEqual(sorted([alice.id, carol.id]));
    expect(reads[0].data).toMatchObject({ conversation_id: g, reader_id: bob.id });
    expect(reads[0].data.message_id >= last.id).toBe(true);
    expect((await h.req("POST", `${G}/${g}/read-all`, { token: bob.token })).body).toEqual({ marked: 0 });
    expect(eventsOf(h, "messages_read")).toHaveLength(1);
    const list = await h.req("GET", "/api/v1/messages/conversations", { token: bob.token });
    expect(list.body[0].unread_count).toBe(0);
  });
});

describe("send_message limits shared with 1:1 sends", () => {
  test("a new account's 10 an hour counts direct and group sends together (429 RATE_LIMIT_SEND_MESSAGE)", async () => {
    const hh = setup();
    const a = await hh.user({ username: "alice" });
    const b = await hh.user({ username: "bob" });
    const gid = await makeGroup(hh, a, [b]);
    for (let i = 0; i < 5; i++) expect((await send1to1(hh, a, b, { body: `d${i}` })).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await groupSend(hh, a, gid, `g${i}`)).status).toBe(201);
    const r = await groupSend(hh, a, gid, "one too many");
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_SEND_MESSAGE");
    expect(r.headers.get("retry-after")).toBeTruthy();
    expect((await send1to1(hh, a, b, { body: "direct too" })).status).toBe(429);
    const limits = await hh.req("GET", "/api/v1/limits/me", { token: a.token });
    expect(JSON.stringify(limits.body)).toContain("send_message");
  });
});
