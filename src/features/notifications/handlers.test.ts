// Domain events to notifications (spec Part 1 §6, Part 2 §6.2; ARCHITECTURE rule 6): each event's
// fan-out rule writes them in the transaction of the action, so they are readable the moment the
// action answers; nobody is told about their own act; muted threads silence comment and reply
// notifications but not mentions.
import { beforeEach, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import type { EmitInput } from "../../core/events";
import { uuidv7 } from "../../core/ids";
import type { Readers } from "../../core/domain-events";
import { register } from "./handlers";
import { isThreadMuted, muteThread, notify, purgeUser, unmuteThread, unreadCount } from "./service";

// One harness for the file; each test has four accounts of its own, and reads only their rows.
const h = setup();
let author: TestUser; // wrote the post
let replied: TestUser; // wrote the parent comment
let commenter: TestUser; // acts
let bystander: TestUser;

const POST = "0190a0b0-0000-7000-8000-00000000a001";
const OTHER_POST = "0190a0b0-0000-7000-8000-00000000a002";
const PARENT = "0190a0b0-0000-7000-8000-00000000c001";
const COMMENT = "0190a0b0-0000-7000-8000-00000000c002";
const COLONY = "0190a0b0-0000-7000-8000-00000000f001";
const READERS: Readers = { colony_id: COLONY, members_only: false, restricted: false };

beforeEach(async () => {
  author = await h.user();
  replied = await h.user();
  commenter = await h.user();
  bystander = await h.user();
});

const emit = (input: EmitInput) => h.ctx.db.transaction((tx) => h.ctx.events.emit(tx, input));
/** The notifications of this test's four accounts, oldest first. */
const rows = () =>
  h.ctx.db.$client
    .query("select user_id, kind, actor_id, target_type, target_id, post_id, comment_id, meta, event_id from notifications where user_id in (?, ?, ?, ?) order by id")
    .all(author.id, replied.id, commenter.id, bystander.id) as {
    user_id: string;
    kind: string;
    actor_id: string | null;
    target_type: string | null;
    target_id: string | null;
    post_id: string | null;
    comment_id: string | null;
    meta: string | null;
    event_id: string | null;
  }[];
const kindsFor = (u: TestUser) => rows().filter((r) => r.user_id === u.id).map((r) => r.kind);
const inbox = (u: TestUser) => h.req("GET", "/api/v1/notifications", { token: u.token });

function commentCreated(actor: TestUser, over: Record<string, unknown> = {}) {
  return emit({
    type: "comment_created",
    actorId: actor.id,
    subject: { type: "comment", id: COMMENT },
    payload: {
      post_id: POST,
      post_title: "A post",
      comment_id: COMMENT,
      parent_id: null,
      post_author_id: author.id,
      parent_author_id: null,
      colony_id: COLONY,
      author_username: actor.username,
      readers: READERS,
      ...over,
    },
    activity: true,
  });
}
const reply = (actor: TestUser, parentAuthor: TestUser, over: Record<string, unknown> = {}) =>
  commentCreated(actor, { parent_id: PARENT, parent_author_id: parentAuthor.id, ...over });

describe("told in the transaction of the action", () => {
  test("the notification exists as soon as the event is written, before any drain", async () => {
    commentCreated(commenter);
    expect(kindsFor(author)).toEqual(["comment_on_post"]);
    expect((await inbox(author)).body.map((n: { kind: string }) => n.kind)).toEqual(["comment_on_post"]);
  });

  test("an event rolled back with its write notifies nobody", async () => {
    expect(() =>
      h.ctx.db.transaction((tx) => {
        h.ctx.events.emit(tx, {
          type: "user_followed",
          actorId: commenter.id,
          payload: { follower_id: commenter.id, followee_id: author.id, follower_username: commenter.username, followee_username: author.username },
        });
        throw new Error("the write failed");
      }),
    ).toThrow("the write failed");
    await h.ctx.events.drain();
    expect(rows()).toHaveLength(0);
  });

  test("draining never adds a notification; an event has one fan-out rule", async () => {
    commentCreated(commenter);
    await h.ctx.events.drain();
    await h.ctx.events.drain();
    expect(kindsFor(author)).toEqual(["comment_on_post"]);
    expect(() => register(h.ctx)).toThrow("already has a fan-out rule");
  });

  test("whom the event told is stored with it (its audience)", async () => {
    const id = reply(commenter, replied);
    const audience = JSON.parse((h.ctx.db.$client.query("select audience from events where id = ?").get(id) as { audience: string }).audience);
    expect(audience).toEqual([
      { user_id: replied.id, kind: "reply_to_comment" },
      { user_id: author.id, kind: "comment_on_post" },
    ]);
  });

  test("a redelivered event (same event id) is written once per recipient", () => {
    const eventId = uuidv7(h.clock.now());
    expect(notify(h.ctx, { userId: author.id, kind: "mention", actorId: commenter.id, eventId })).not.toBeNull();
    expect(notify(h.ctx, { userId: author.id, kind: "mention", actorId: commenter.id, eventId })).toBeNull();
    expect(notify(h.ctx, { userId: replied.id, kind: "mention", actorId: commenter.id, eventId })).not.toBeNull();
    expect(rows()).toHaveLength(2);
  });

  test("notify skips the actor themself and unknown recipients", () => {
    expect(notify(h.ctx, { userId: author.id, kind: "mention", actorId: author.id })).toBeNull();
    expect(notify(h.ctx, { userId: uuidv7(h.clock.now()), kind: "mention", actorId: author.id })).toBeNull();
    expect(notify(h.ctx, { userId: author.id, kind: "security_2fa_disabled", actorId: author.id, allowSelf: true })).not.toBeNull();
    expect(rows()).toHaveLength(1);
  });
});

describe("comment_created", () => {
  test("a top-level comment: comment_on_post to the post author, with post and comment ids", async () => {
    const eventId = commentCreated(commenter);
    await h.ctx.events.drain();
    expect(rows()).toEqual([
      {
        user_id: author.id,
        kind: "comment_on_post",
        actor_id: commenter.id,
        target_type: "comment",
        target_id: COMMENT,
        post_id: POST,
        comment_id: COMMENT,
        meta: JSON.stringify({ colony_id: COLONY }),
        event_id: eventId,
      },
    ]);
    const [n] = (await inbox(author)).body;
    expect(n).toMatchObject({ kind: "comment_on_post", post_id: POST, comment_id: COMMENT, actor: { id: commenter.id, username: commenter.username } });
    expect(n.message).toBe(`@${commenter.username} commented on your post`);
  });

  test("a reply: reply_to_comment to the parent's author (comment_id is the new reply) and comment_on_post to the post author", async () => {
    reply(commenter, replied);
    await h.ctx.events.drain();
    expect(kindsFor(author)).toEqual(["comment_on_post"]);
    expect(kindsFor(replied)).toEqual(["reply_to_comment"]);
    const r = rows().find((x) => x.kind === "reply_to_comment")!;
    expect(r).toMatchObject({ comment_id: COMMENT, post_id: POST, target_type: "comment", target_id: COMMENT });
    expect(JSON.parse(r.meta!)).toEqual({ parent_comment_id: PARENT, colony_id: COLONY });
  });

  test("a post author whose own comment is answered gets one notification, the reply", async () => {
    reply(commenter, author);
    await h.ctx.events.drain();
    expect(kindsFor(author)).toEqual(["reply_to_comment"]);
  });

  test("the post author commenting on their own post notifies nobody", async () => {
    commentCreated(author);
    await h.ctx.events.drain();
    expect(rows()).toHaveLength(0);
  });

  test("the post author answering a comment notifies only the parent's author", async () => {
    reply(author, replied);
    await h.ctx.events.drain();
    expect(kindsFor(author)).toEqual([]);
    expect(kindsFor(replied)).toEqual(["reply_to_comment"]);
  });

  test("answering one's own comment notifies only the post author", async () => {
    reply(commenter, commenter);
    await h.ctx.events.drain();
    expect(kindsFor(commenter)).toEqual([]);
    expect(kindsFor(author)).toEqual(["comment_on_post"]);
  });

  test("a parent_author_id without parent_id is not a reply", async () => {
    commentCreated(commenter, { parent_author_id: replied.id });
    await h.ctx.events.drain();
    expect(kindsFor(replied)).toEqual([]);
  });
});

describe("muted threads", () => {
  test("muteThread is idempotent and answers already_muted; unmuteThread says whether there was a mute", () => {
    expect(isThreadMuted(h.ctx, author.id, POST)).toBe(false);
    expect(muteThread(h.ctx, author.id, POST)).toEqual({ already_muted: false });
    expect(muteThread(h.ctx, author.id, POST)).toEqual({ already_muted: true });
    expect(isThreadMuted(h.ctx, author.id, POST)).toBe(true);
    expect(isThreadMuted(h.ctx, replied.id, POST)).toBe(false);
    expect(isThreadMuted(h.ctx, author.id, OTHER_POST)).toBe(false);
    expect(unmuteThread(h.ctx, author.id, POST)).toEqual({ was_muted: true });
    expect(unmuteThread(h.ctx, author.id, POST)).toEqual({ was_muted: false });
    expect(isThreadMuted(h.ctx, author.id, POST)).toBe(false);
  });

  test("a muted thread silences comment_on_post and reply_to_comment for the user who muted it", async () => {
    muteThread(h.ctx, author.id, POST);
    muteThread(h.ctx, replied.id, POST);
    commentCreated(commenter);
    reply(bystander, replied);
    await h.ctx.events.drain();
    expect(rows()).toHaveLength(0);
  });

  test("a mute is per user and per post", async () => {
    muteThread(h.ctx, author.id, OTHER_POST);
    muteThread(h.ctx, bystander.id, POST);
    reply(commenter, replied);
    await h.ctx.events.drain();
    expect(kindsFor(author)).toEqual(["comment_on_post"]);
    expect(kindsFor(replied)).toEqual(["reply_to_comment"]);
  });

  test("purgeUser removes a deleted account's notifications and mutes, nobody else's", async () => {
    muteThread(h.ctx, author.id, POST);
    muteThread(h.ctx, replied.id, POST);
    notify(h.ctx, { userId: author.id, kind: "mention", actorId: commenter.id });
    notify(h.ctx, { userId: replied.id, kind: "mention", actorId: commenter.id });
    purgeUser(h.ctx, author.id);
    expect(isThreadMuted(h.ctx, author.id, POST)).toBe(false);
    expect(isThreadMuted(h.ctx, replied.id, POST)).toBe(true);
    expect(kindsFor(author)).toEqual([]);
    expect(kindsFor(replied)).toEqual(["mention"]);
  });

  test("mentions still arrive in a muted thread", async () => {
    muteThread(h.ctx, author.id, POST);
    commentCreated(commenter);
    emit({ type: "mention", actorId: commenter.id, payload: { user_ids: [author.id], post_id: POST, post_title: "A post", comment_id: COMMENT, author_username: commenter.username, readers: READERS } });
    await h.ctx.events.drain();
    expect(kindsFor(author)).toEqual(["mention"]);
  });

  test("after unmuting, notifications arrive again", async () => {
    muteThread(h.ctx, author.id, POST);
    unmuteThread(h.ctx, author.id, POST);
    commentCreated(commenter);
    await h.ctx.events.drain();
    expect(kindsFor(author)).toEqual(["comment_on_post"]);
  });
});

describe("mention", () => {
  test("each mentioned user once, never the actor; unknown ids are skipped", async () => {
    emit({
      type: "mention",
      actorId: commenter.id,
      payload: {
        user_ids: [author.id, replied.id, author.id, commenter.id, uuidv7(h.clock.now())],
        post_id: POST,
        post_title: "A post",
        comment_id: COMMENT,
        author_username: commenter.username,
        readers: READERS,
      },
    });
    await h.ctx.events.drain();
    expect(kindsFor(author)).toEqual(["mention"]);
    expect(kindsFor(replied)).toEqual(["mention"]);
    expect(kindsFor(commenter)).toEqual([]);
    expect(rows()).toHaveLength(2);
    const [n] = (await inbox(author)).body;
    expect(n).toMatchObject({ kind: "mention", target_type: "comment", target_id: COMMENT, post_id: POST, comment_id: COMMENT, message: `@${commenter.username} mentioned you in a comment` });
  });

  test("a mention in a post targets the post", async () => {
    emit({ type: "mention", actorId: commenter.id, payload: { user_ids: [author.id], post_id: POST, post_title: "A post", author_username: commenter.username, readers: READERS } });
    await h.ctx.events.drain();
    const [n] = (await inbox(author)).body;
    expect(n).toMatchObject({ target_type: "post", target_id: POST, post_id: POST, comment_id: null, message: `@${commenter.username} mentioned you in a post` });
  });
});

describe("reaction_added", () => {
  test("post_reaction to the content's author, carrying the emoji", async () => {
    emit({ type: "reaction_added", actorId: commenter.id, payload: { emoji: "🔥", post_id: POST, author_id: author.id, reactor_username: commenter.username, readers: READERS } });
    emit({ type: "reaction_added", actorId: bystander.id, payload: { emoji: "👍", post_id: POST, comment_id: COMMENT, author_id: replied.id, reactor_username: bystander.username, readers: READERS } });
    await h.ctx.events.drain();
    const [onPost] = (await inbox(author)).body;
    expect(onPost).toMatchObject({ kind: "post_reaction", target_type: "post", target_id: POST, post_id: POST, comment_id: null, meta: { emoji: "🔥", is_comment: false } });
    expect(onPost.message).toBe(`@${commenter.username} reacted 🔥 to your post`);
    const [onComment] = (await inbox(replied)).body;
    expect(onComment).toMatchObject({ kind: "post_reaction", target_type: "comment", target_id: COMMENT, post_id: POST, comment_id: COMMENT, meta: { emoji: "👍", is_comment: true } });
  });

  test("reacting to one's own content notifies nobody", async () => {
    emit({ type: "reaction_added", actorId: author.id, payload: { emoji: "🔥", post_id: POST, author_id: author.id, reactor_username: author.username, readers: READERS } });
    await h.ctx.events.drain();
    expect(rows()).toHaveLength(0);
  });

  test("reactions still arrive in a muted thread", async () => {
    muteThread(h.ctx, author.id, POST);
    emit({ type: "reaction_added", actorId: commenter.id, payload: { emoji: "🔥", post_id: POST, author_id: author.id, reactor_username: commenter.username, readers: READERS } });
    await h.ctx.events.drain();
    expect(kindsFor(author)).toEqual(["post_reaction"]);
  });
});

describe("colony_member_approved", () => {
  test("the approved member is told, with the approving moderator as actor", async () => {
    emit({
      type: "colony_member_approved",
      actorId: author.id,
      payload: { colony_id: COLONY, colony_name: "general", members_only: false, user_id: replied.id, username: replied.username, user_type: "agent" },
    });
    await h.ctx.events.drain();
    const [n] = (await inbox(replied)).body;
    expect(n).toMatchObject({ kind: "colony_member_approved", target_type: "colony", target_id: COLONY, actor: { id: author.id }, meta: { colony_id: COLONY } });
    expect(unreadCount(h.ctx, replied.id)).toBe(1);
  });
});

describe("user_followed", () => {
  test("new_follower to the followed user", async () => {
    emit({
      type: "user_followed",
      actorId: commenter.id,
      payload: { follower_id: commenter.id, followee_id: author.id, follower_username: commenter.username, followee_username: author.username },
      activity: true,
    });
    await h.ctx.events.drain();
    const [n] = (await inbox(author)).body;
    expect(n).toMatchObject({ kind: "new_follower", target_type: "user", target_id: commenter.id, actor: { id: commenter.id } });
  });
});

test("events of other types notify nobody", async () => {
  emit({
    type: "post_created",
    actorId: commenter.id,
    payload: { post_id: POST, colony_id: COLONY, colony_name: "general", author_id: commenter.id, author_username: commenter.username, post_type: "discussion", title: "A post", readers: READERS },
  });
  await h.ctx.events.drain();
  expect(rows()).toHaveLength(0);
});

describe("account self-delete", () => {
  test("removes the account's notifications, thread mutes and follows once the event is delivered", async () => {
    const fresh = await h.user();
    // Someone follows the fresh account: it receives a new_follower notification.
    const f = await h.req("POST", `/api/v1/users/by-username/${fresh.username}/follow`, { token: bystander.token });
    expect(f.status).toBe(201);
    await h.ctx.events.drain();
    muteThread(h.ctx, fresh.id, POST);
    expect(unreadCount(h.ctx, fresh.id)).toBe(1);

    const del = await h.req("DELETE", "/api/v1/auth/account", { token: fresh.token });
    expect(del.status).toBe(204);
    await h.ctx.events.drain();
    const count = (sql: string) => (h.ctx.db.$client.query(sql).get(fresh.id) as { n: number }).n;
    expect(count("select count(*) as n from notifications where user_id = ?")).toBe(0);
    expect(count("select count(*) as n from thread_mutes where user_id = ?")).toBe(0);
    expect(count("select count(*) as n from follows where followee_id = ?")).toBe(0);
  });
});
