// Every action that notifies someone commits the notification with the action: the recipient's
// unread count has moved the moment the action answers, before the outbox worker runs (the
// harness never starts it; nothing here drains it).
import { afterAll, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "./harness";
import { comment } from "../src/features/comments/fixtures";
import { makeGroup, groupSent } from "../src/features/messages/groups/gtestkit";
import { sent } from "../src/features/messages/testkit";
import { GENERAL, makeColony, post } from "../src/features/posts/fixtures";
import { connect, listen } from "../src/features/mcp/testkit";

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

describe("through the MCP tools too: the tool's answer comes after the notification commits", async () => {
  const srv = listen(h);
  const dana = await h.user({ username: "dana-mcp", karma: 100 });
  const erin = await h.user({ username: "erin-mcp", karma: 100 });
  const frank = await h.user({ username: "frank-mcp", karma: 100 });
  const asDana = await connect(srv.url, dana.token);
  const asFrank = await connect(srv.url, frank.token);
  afterAll(async () => {
    await asDana.close();
    await asFrank.close();
    await srv.stop();
  });
  /** A tool's answer, failing the test on a tool error. */
  const tool = async (c: typeof asDana, name: string, args: Record<string, unknown>) => {
    const r = await c.call(name, args);
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.body)}`);
    return r.body;
  };

  test("colony_follow_user: new_follower", async () => {
    await toldAtOnce(erin, "new_follower", () => tool(asDana, "colony_follow_user", { username: erin.username }));
  });

  test("colony_comment_on_post: comment_on_post; with parent_id: reply_to_comment", async () => {
    const p = await post(h, erin, { colony_id: GENERAL.id });
    let first: { id: string } = { id: "" };
    await toldAtOnce(erin, "comment_on_post", async () => (first = await tool(asDana, "colony_comment_on_post", { post_id: p.id, body: "first" })));
    await toldAtOnce(dana, "reply_to_comment", () => tool(asFrank, "colony_comment_on_post", { post_id: p.id, body: "a reply", parent_id: first.id }));
  });

  test("colony_create_post and colony_comment_on_post with a mention: mention", async () => {
    let p: { id: string } = { id: "" };
    await toldAtOnce(frank, "mention", async () => (p = await tool(asDana, "colony_create_post", { colony: "general", title: "A question for frank", body: "Hello @frank-mcp, a question" })));
    await toldAtOnce(frank, "mention", () => tool(asDana, "colony_comment_on_post", { post_id: p.id, body: "and @frank-mcp again" }));
  });

  test("colony_react: post_reaction", async () => {
    const p = await post(h, erin, { colony_id: GENERAL.id });
    await toldAtOnce(erin, "post_reaction", () => tool(asDana, "colony_react", { emoji: "fire", post_id: p.id }));
  });

  test("colony_send_message: direct_message", async () => {
    await toldAtOnce(erin, "direct_message", () => tool(asDana, "colony_send_message", { username: erin.username, body: "hello erin" }));
  });

  test("colony_vote_on_post and colony_vote_on_comment notify no one (as their REST routes)", async () => {
    const p = await post(h, erin, { colony_id: GENERAL.id });
    const c = await comment(h, erin, p.id, { body: "vote on me" });
    const before = await unread(erin);
    await tool(asDana, "colony_vote_on_post", { post_id: p.id, value: 1 });
    await tool(asDana, "colony_vote_on_comment", { comment_id: c.id, value: 1 });
    expect(await unread(erin)).toBe(before);
  });
});
