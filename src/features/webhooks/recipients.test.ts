// Who receives what (spec Part 2 §6.2, docs/decisions.md §5): broadcast events to every subscribed webhook
// whose owner can read the content (never private-colony content to non-members), personal events
// derived like the notifications, and the generic `recipient_ids` rule.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { comment } from "../comments/fixtures";
import { createPost, GENERAL, join, makeColony } from "../posts/fixtures";
import { plannedWebhooks, receiverHooks } from "./fixtures";
import { EVENT_NAMES } from "./mapping";
import { startReceiver } from "./test-receiver";

const h = setup({ allowPrivateWebhooks: true, webhookTimeoutMs: 2000, rateLimitMultiplier: 0 });
const rx = startReceiver();
afterAll(() => rx.stop());
beforeEach(() => rx.clear());

const { hook, flush, got } = receiverHooks(h, rx, "r");
const names = (w: { path: string }) => got(w).map((b) => b.event);

describe("broadcast events", () => {
  test("post_created reaches every subscribed webhook, the author's own too, in the catalogue shape", async () => {
    const author = await h.user();
    const other = await h.user();
    const wOther = await hook(other, ["post_created"]);
    const wAuthor = await hook(author, ["post_created"]);
    const wUnsubscribed = await hook(other, ["comment_created"]);
    const p = await createPost(h, author, { title: "Findings from the crawl", post_type: "finding" });
    expect(p.status).toBe(201);
    await flush();
    const expected = { event: "post_created", post_id: p.body.id, author: author.username, title: "Findings from the crawl", colony: GENERAL.name, post_type: "finding" };
    expect(got(wOther)).toEqual([expected]);
    expect(got(wAuthor)).toEqual([expected]);
    expect(got(wUnsubscribed)).toEqual([]);
  });

  test("content of a private colony reaches approved members only", async () => {
    const founder = await h.user();
    const member = await h.user();
    const pending = await h.user();
    const outsider = await h.user();
    const colony = makeColony(h, founder, "private");
    await join(h, colony, member, founder);
    await join(h, colony, pending);
    await flush();
    const events = ["post_created", "comment_created", "reaction_added", "member_joined"];
    const wMember = await hook(member, events);
    const wPending = await hook(pending, events);
    const wOutsider = await hook(outsider, events);
    const p = await createPost(h, founder, { colony_id: colony.id, title: "Members only" });
    expect(p.status).toBe(201);
    await comment(h, founder, p.body.id, { body: "secret comment" });
    expect((await h.req("POST", "/api/v1/reactions/toggle", { token: member.token, body: { emoji: "fire", post_id: p.body.id } })).status).toBeLessThan(300);
    await flush();
    expect(names(wMember).sort()).toEqual(["comment_created", "post_created", "reaction_added"]);
    expect(got(wPending)).toEqual([]);
    expect(got(wOutsider)).toEqual([]);
    for (const r of [...rx.to(wPending.path), ...rx.to(wOutsider.path)]) expect(r.body).not.toContain("Members only");
  });

  test("member_joined: a public join reaches everyone subscribed; a private colony's approval only its readers", async () => {
    const founder = await h.user();
    const joiner = await h.user();
    const outsider = await h.user();
    const wFounder = await hook(founder, ["member_joined"]);
    const wOutsider = await hook(outsider, ["member_joined"]);
    const pub = makeColony(h, founder, "public");
    await join(h, pub, joiner);
    await flush();
    const expected = { event: "member_joined", user_id: joiner.id, username: joiner.username, user_type: "agent", colony: pub.name, colony_id: pub.id };
    expect(got(wFounder)).toEqual([expected]);
    expect(got(wOutsider)).toEqual([expected]);
    rx.clear();
    const priv = makeColony(h, founder, "private");
    await join(h, priv, joiner); // pending: not a member yet
    await flush();
    expect(got(wFounder)).toEqual([]);
    await h.req("POST", `/api/v1/colonies/${priv.id}/members/${joiner.id}/approve`, { token: founder.token });
    await flush();
    expect(got(wFounder)).toEqual([{ ...expected, colony: priv.name, colony_id: priv.id }]);
    expect(got(wOutsider)).toEqual([]);
  });

  test("user_followed to every subscriber; new_follower only to the followed user", async () => {
    const a = await h.user();
    const b = await h.user();
    const c = await h.user();
    const wA = await hook(a, ["user_followed", "new_follower"]);
    const wC = await hook(c, ["user_followed", "new_follower"]);
    expect((await h.req("POST", `/api/v1/users/${a.id}/follow`, { token: b.token })).status).toBe(201);
    await flush();
    expect(got(wA)).toEqual(
      expect.arrayContaining([
        { event: "user_followed", follower: b.username, followed: a.username, followed_id: a.id },
        { event: "new_follower", follower: b.username, follower_id: b.id },
      ]),
    );
    expect(got(wC)).toEqual([{ event: "user_followed", follower: b.username, followed: a.username, followed_id: a.id }]);
    // Each webhook event has its own id, so a receiver subscribed to both does not drop one.
    const ids = rx.to(wA.path).map((r) => r.headers["x-service-event-id"]);
    expect(new Set(ids).size).toBe(2);
  });
});

describe("personal events", () => {
  test("comments: comment_on_post to the post author, reply_to_comment to the parent's author, never the actor", async () => {
    const author = await h.user();
    const first = await h.user();
    const replier = await h.user();
    const events = ["comment_on_post", "reply_to_comment", "comment_created"];
    const wAuthor = await hook(author, events);
    const wFirst = await hook(first, events);
    const wReplier = await hook(replier, events);
    const p = await createPost(h, author, { title: "Thread" });
    const parent = await comment(h, first, p.body.id, { body: "first!" });
    await flush();
    rx.clear();
    const reply = await comment(h, replier, p.body.id, { body: "a reply", parent_id: parent.id });
    await flush();
    expect(got(wAuthor)).toEqual(
      expect.arrayContaining([
        { event: "comment_on_post", post_id: p.body.id, post_title: "Thread", comment_id: reply.id, commenter: replier.username, commenter_id: replier.id },
      ]),
    );
    expect(got(wFirst)).toEqual(
      expect.arrayContaining([{ event: "reply_to_comment", post_id: p.body.id, post_title: "Thread", comment_id: reply.id, replier: replier.username, replier_id: replier.id }]),
    );
    expect(names(wFirst)).not.toContain("comment_on_post");
    expect(names(wReplier)).toEqual(["comment_created"]);
    expect(got(wReplier)[0]).toEqual({ event: "comment_created", comment_id: reply.id, post_id: p.body.id, author: replier.username, post_title: "Thread" });
  });

  test("mention to each named user who can read the post", async () => {
    const author = await h.user();
    const named = await h.user();
    const bystander = await h.user();
    const wNamed = await hook(named, ["mention"]);
    const wBystander = await hook(bystander, ["mention"]);
    const p = await createPost(h, author, { title: "Hello", body: `ping @${named.username}` });
    expect(p.status).toBe(201);
    await flush();
    expect(got(wNamed)).toEqual([{ event: "mention", actor: author.username, post_id: p.body.id, post_title: "Hello" }]);
    expect(got(wBystander)).toEqual([]);
  });

  test("a mention in a private colony does not reach a non-member", async () => {
    const founder = await h.user();
    const outsider = await h.user();
    const wOutsider = await hook(outsider, ["mention"]);
    const colony = makeColony(h, founder, "private");
    const p = await createPost(h, founder, { colony_id: colony.id, title: "Hidden", body: `hey @${outsider.username}` });
    expect(p.status).toBe(201);
    await flush();
    expect(got(wOutsider)).toEqual([]);
  });

  test("reactions: reaction_added to subscribers, post_reaction to the author only", async () => {
    const author = await h.user();
    const reactor = await h.user();
    const wAuthor = await hook(author, ["post_reaction", "reaction_added"]);
    const wReactor = await hook(reactor, ["post_reaction", "reaction_added"]);
    const p = await createPost(h, author);
    const r = await h.req("POST", "/api/v1/reactions/toggle", { token: reactor.token, body: { emoji: "fire", post_id: p.body.id } });
    expect(r.status).toBeLessThan(300);
    await flush();
    const authorGot = got(wAuthor);
    const reaction = authorGot.find((b) => b.event === "reaction_added");
    expect(reaction).toMatchObject({ reactor: reactor.username, post_id: p.body.id, comment_id: null });
    expect(authorGot.find((b) => b.event === "post_reaction")).toMatchObject({ post_id: p.body.id, comment_id: null, reactor: reactor.username, reactor_id: reactor.id, is_comment: false, emoji: reaction.emoji });
    expect(names(wReactor)).toEqual(["reaction_added"]);
  });
});

describe("the generic recipient_ids rule", () => {
  test("a §6.2 event with recipient_ids goes to those users' subscribed webhooks, internal fields stripped", async () => {
    const to = await h.user();
    const notTo = await h.user();
    const sender = await h.user();
    const wTo = await hook(to, ["direct_message", "group_message"]);
    const wNotTo = await hook(notTo, ["direct_message"]);
    const wUnsubscribed = await hook(to, ["mention"]);
    h.ctx.db.transaction((tx) => {
      const dm = { recipient_ids: [to.id], message_id: "m1", conversation_id: "c0", sender_id: sender.id, sender_username: sender.username, sender_display_name: "Alice Ayers", sender: "Alice Ayers", preview: "hello" };
      h.ctx.events.emit(tx, { type: "direct_message", actorId: sender.id, payload: dm });
      const group = {
        recipient_ids: [to.id, notTo.id],
        message_id: "m2",
        conversation_id: "c1",
        conversation_title: null,
        sender_id: sender.id,
        sender_username: sender.username,
        sender: sender.username,
        sender_display_name: sender.username,
        body_excerpt: "hi",
        preview: "hi",
        mentioned_user_ids: [],
        everyone: false,
      };
      h.ctx.events.emit(tx, { type: "group_message", actorId: sender.id, payload: group });
      // Not a §6.2 name: nobody hears about it, recipient_ids or not.
      h.ctx.events.emit(tx, { type: "group_settings_changed", actorId: sender.id, payload: { conversation_id: "c1", user_id: to.id, changed: ["muted_until"] } });
    });

    await flush();
    // Two deliveries to one webhook go out side by side and may arrive in either order (delivery
    // is at-least-once, unordered; receivers order by the payload, not by arrival).
    expect(got(wTo).sort((x, y) => x.event.localeCompare(y.event))).toEqual([
      { event: "direct_message", message_id: "m1", conversation_id: "c0", sender_id: sender.id, sender_username: sender.username, sender_display_name: "Alice Ayers", sender: "Alice Ayers", preview: "hello" },
      {
        event: "group_message",
        message_id: "m2",
        conversation_id: "c1",
        conversation_title: null,
        sender_id: sender.id,
        sender_username: sender.username,
        sender: sender.username,
        sender_display_name: sender.username,
        body_excerpt: "hi",
        preview: "hi",
        mentioned_user_ids: [],
        everyone: false,
      },
    ]);
    expect(got(wNotTo)).toEqual([]); // group_message went to notTo, but that webhook does not subscribe to it
    expect(got(wUnsubscribed)).toEqual([]);
  });

  test("an inactive webhook gets nothing queued", async () => {
    const a = await h.user();
    const w = await hook(a, ["security_2fa_disabled"]);
    await h.req("PUT", `/api/v1/webhooks/${w.id}`, { token: a.token, body: { is_active: false } });
    h.ctx.db.transaction((tx) => h.ctx.events.emit(tx, { type: "security_2fa_disabled", actorId: null, payload: { recipient_ids: [a.id], actor: a.username, actor_id: a.id, by: "you" } }));
    await flush();
    expect(got(w)).toEqual([]);
    expect(h.ctx.db.$client.query("select count(*) as n from webhook_deliveries where webhook_id = ?").get(w.id)).toEqual({ n: 0 });
  });
});

describe("events of the realtime pushes and the read caches", () => {
  test("dm_typing, notifications_changed and reaction_removed reach no webhook and notify nobody, whatever a webhook subscribes to", async () => {
    const author = await h.user();
    const reactor = await h.user();
    const wAuthor = await hook(author, [...EVENT_NAMES]);
    const wReactor = await hook(reactor, [...EVENT_NAMES]);
    const p = await createPost(h, author);
    const react = () => h.req("POST", "/api/v1/reactions/toggle", { token: reactor.token, body: { emoji: "fire", post_id: p.body.id } });
    expect((await react()).status).toBe(200);
    await flush();
    const deliveries = () => h.ctx.db.$client.query("select event from webhook_deliveries where webhook_id in (?, ?) order by event").all(wAuthor.id, wReactor.id);
    const notifications = () => h.ctx.db.$client.query("select count(*) as n from notifications where user_id in (?, ?)").get(author.id, reactor.id);
    const [sentBefore, toldBefore] = [deliveries(), notifications()];
    expect(sentBefore.length).toBeGreaterThan(0);

    expect((await react()).status).toBe(200); // taken back: reaction_removed
    expect((await h.req("POST", `/api/v1/messages/conversations/${author.username}/typing`, { token: reactor.token })).status).toBe(204); // dm_typing
    expect((await h.req("POST", "/api/v1/notifications/read-all", { token: author.token })).status).toBe(204); // notifications_changed
    for (const type of ["reaction_removed", "dm_typing", "notifications_changed"]) {
      expect(EVENT_NAMES).not.toContain(type);
      expect(plannedWebhooks(h, type)).toEqual([]);
    }
    await flush();
    expect(deliveries()).toEqual(sentBefore);
    expect(notifications()).toEqual(toldBefore);
    // Nobody was told, so no event carries an audience.
    const audiences = h.ctx.db.$client.query("select audience from events where type in ('reaction_removed', 'dm_typing', 'notifications_changed') and actor_id in (?, ?)").all(author.id, reactor.id);
    expect(audiences).toEqual([{ audience: null }, { audience: null }, { audience: null }]);
  });
});

describe("blocks", () => {
  test("an owner who blocks the actor gets none of the actor's social events; others still arrive", async () => {
    const owner = await h.user();
    const blockedUser = await h.user();
    const other = await h.user();
    const w = await hook(owner, ["comment_on_post"]);
    const p = (await createPost(h, owner, {})).body;
    expect((await h.req("POST", `/api/v1/users/${blockedUser.id}/block`, { token: owner.token })).status).toBe(201);
    await comment(h, blockedUser, p.id, { body: "from the blocked user" });
    await comment(h, other, p.id, { body: "from someone else" });
    await flush();
    expect(got(w).map((b) => b.event)).toEqual(["comment_on_post"]);
    expect(JSON.stringify(got(w))).not.toContain(blockedUser.username);
  });
});
