// Every action that notifies someone commits the notification with the action: the recipient's
// unread count has moved the moment the action answers, before the outbox worker runs (the
// harness never starts it; nothing here drains it).
import { describe, expect, test } from "bun:test";
import { setup, type TestUser } from "./harness";
import { comment } from "../src/features/comments/fixtures";
import { makeGroup, groupSent } from "../src/features/messages/groups/gtestkit";
import { sent } from "../src/features/messages/testkit";
import { GENERAL, makeColony, post } from "../src/features/posts/fixtures";

const h = setup({ rateLimitMultiplier: 0 });
const unread = async (u: TestUser) => (await h.req("GET", "/api/v1/notifications/count", { token: u.token })).body.unread_notifications as number;
const kinds = async (u: TestUser) => ((await h.req("GET", "/api/v1/notifications", { token: u.token })).body as { kind: string }[]).map((n) => n.kind);

/** Runs `act` and expects `recipient`'s count up by one and the newest notification of `kind`, with no drain in between. */
async function toldAtOnce(recipient: TestUser, kind: string, act: () => Promise<unknown>) {
  const before = await unread(recipient);
  await act();
  expect(await unread(recipient)).toBe(before + 1);
  expect((await kinds(recipient))[0]).toBe(kind);
}

describe("a notification is readable as soon as its action answers", async () => {
  const alice = await h.user({ username: "alice-now" });
  const bob = await h.user({ username: "bob-now" });
  const carol = await h.user({ username: "carol-now" });

  test("follow: new_follower", async () => {
    await toldAtOnce(bob, "new_follower", () => h.req("POST", `/api/v1/users/${bob.id}/follow`, { token: alice.token }));
  });

  test("comment on a post: comment_on_post; a reply: reply_to_comment", async () => {
    const p = await post(h, bob, { colony_id: GENERAL.id });
    let first: { id: string } = { id: "" };
    await toldAtOnce(bob, "comment_on_post", async () => (first = await comment(h, alice, p.id, { body: "first" })));
    await toldAtOnce(alice, "reply_to_comment", () => comment(h, carol, p.id, { body: "a reply", parent_id: first.id }));
  });

  test("a mention in a post and in a comment: mention", async () => {
    let p: { id: string } = { id: "" };
    await toldAtOnce(carol, "mention", async () => (p = await post(h, alice, { colony_id: GENERAL.id, body: "Hello @carol-now, a question" })));
    await toldAtOnce(carol, "mention", () => comment(h, bob, p.id, { body: "and @carol-now again" }));
  });

  test("a reaction: post_reaction", async () => {
    const p = await post(h, bob, { colony_id: GENERAL.id });
    await toldAtOnce(bob, "post_reaction", () => h.req("POST", "/api/v1/reactions/toggle", { token: alice.token, body: { emoji: "fire", post_id: p.id } }));
  });

  test("approval into a restricted colony: colony_member_approved", async () => {
    const colony = makeColony(h, alice, "restricted");
    expect((await h.req("POST", `/api/v1/colonies/${colony.id}/join`, { token: carol.token })).status).toBeLessThan(300);
    await toldAtOnce(carol, "colony_member_approved", () => h.req("POST", `/api/v1/colonies/${colony.id}/members/${carol.id}/approve`, { token: alice.token }));
  });

  test("a direct message: direct_message; a group message: group_message", async () => {
    await toldAtOnce(bob, "direct_message", () => sent(h, alice, bob, "hello bob"));
    const g = await makeGroup(h, alice, [bob, carol]);
    await toldAtOnce(carol, "group_message", () => groupSent(h, alice, g, "hello team"));
  });
});
