// Group membership (spec Part 2 §3 "Group invite", §4.6, §6.2): the members list, invites and
// their answers, leaving and removal (last-admin promotion, creator succession), admins and the
// creator role, with the group_* events and their recipients.
import { beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../../test/expect";
import { setup, type TestUser } from "../../../../test/harness";
import { MINUTE } from "../../../core/clock";
import { uuidv7 } from "../../../core/ids";
import { beginTest, count, eventsOf, expect422, newUsers, sent } from "../testkit";
import { convRow, G, groupSent, makeGroup, memberOf } from "./gtestkit";

const h = setup({ rateLimitMultiplier: 0 });
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser, erin: TestUser;

beforeEach(async () => {
  await beginTest(h);
  [alice, bob, carol, dave, erin] = await newUsers(h, 5);
});

const sorted = (ids: string[]) => [...ids].sort();
const invite = (by: TestUser, g: string, username: string) => h.req("POST", `${G}/${g}/members`, { token: by.token, body: { username } });
const respond = (u: TestUser, g: string, accept: boolean) => h.req("POST", `${G}/${g}/invite/respond`, { token: u.token, body: { accept } });
const remove = (by: TestUser, g: string, target: TestUser | string) => h.req("DELETE", `${G}/${g}/members/${typeof target === "string" ? target : target.id}`, { token: by.token });
const setAdmin = (by: TestUser, g: string, target: TestUser, is_admin: boolean) => h.req("PUT", `${G}/${g}/members/${target.id}/admin`, { token: by.token, body: { is_admin } });

describe("GET /messages/groups/{id}/members", () => {
  test("accepted members by tenure then pending invitees, with is_admin, is_creator and invite_status; declined and former members left out", async () => {
    const g = await makeGroup(h, alice, [bob, carol, dave, erin], []);
    h.clock.advance(MINUTE);
    await respond(carol, g, true);
    h.clock.advance(MINUTE);
    await respond(bob, g, true);
    await respond(dave, g, false);
    await respond(erin, g, true);
    await remove(erin, g, erin);
    const r = await h.req("GET", `${G}/${g}/members`, { token: bob.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: "Team", description: null, creator_id: alice.id });
    expect(r.body.members.map((m: any) => [m.username, m.is_admin, m.is_creator, m.invite_status])).toEqual([
      [alice.username, true, true, "accepted"],
      [carol.username, false, false, "accepted"],
      [bob.username, false, false, "accepted"],
    ]);
    expect(r.body.members[1]).toMatchObject({ user_type: "agent", presence_status: null, joined_at: expect.any(String), invited_at: expect.any(String) });
    await invite(alice, g, dave.username);
    const again = await h.req("GET", `${G}/${g}/members`, { token: bob.token });
    expect(again.body.members.at(-1)).toMatchObject({ username: dave.username, invite_status: "pending", is_admin: false, joined_at: null });
  });
});

describe("POST /messages/groups/{id}/members (invite)", () => {
  test("201 pending invite; group_member_added to every accepted member; the invitee is not told through that event", async () => {
    const g = await makeGroup(h, alice, [bob]);
    const r = await invite(alice, g, carol.username);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ added: true, already_member: false, username: carol.username, invite_status: "pending" });
    expect(memberOf(h, g, carol)).toMatchObject({ invite_status: "pending", invited_by: alice.id, role: "member" });
    const [ev] = eventsOf(h, "group_member_added");
    expect(sorted(ev.payload.recipient_ids)).toEqual(sorted([alice.id, bob.id]));
    expect(ev.payload).toMatchObject({ conversation_id: g, actor: alice.username, actor_id: alice.id, added: carol.username, added_user_id: carol.id });
  });

  test("reference query form and user ids work; members and pending invitees answer 200 already_member", async () => {
    const g = await makeGroup(h, alice, [bob, carol], [bob]);
    expect((await h.req("POST", `${G}/${g}/members?username=${dave.username}`, { token: alice.token })).status).toBe(201);
    expect((await invite(alice, g, erin.id)).status).toBe(201);
    const already = await invite(alice, g, bob.username);
    expect(already.status).toBe(200);
    expect(already.body).toEqual({ added: false, already_member: true, username: bob.username, invite_status: "accepted" });
    expect((await invite(alice, g, carol.username)).body).toEqual({ added: false, already_member: true, username: carol.username, invite_status: "pending" });
    expect(eventsOf(h, "group_member_added")).toHaveLength(2);
  });

  test("decline is terminal; a new invite brings the member back, and so does re-inviting someone who left", async () => {
    const g = await makeGroup(h, alice, [bob, carol], [carol]);
    expect((await respond(bob, g, false)).body).toEqual({ invite_status: "declined" });
    expectError(await respond(bob, g, true), 404, "NOT_FOUND");
    expect((await invite(alice, g, bob.username)).status).toBe(201);
    expect((await respond(bob, g, true)).body).toEqual({ invite_status: "accepted" });
    await remove(carol, g, carol);
    expect((await invite(alice, g, carol.username)).status).toBe(201);
    expect(memberOf(h, g, carol)).toMatchObject({ invite_status: "pending", left_at: null, joined_at: null });
    expectError(await h.req("GET", `${G}/${g}`, { token: carol.token }), 404, "NOT_FOUND");
  });

  test("errors: unknown user 404 USER_NOT_FOUND, non-admin 403, missing username 422, group full 400 LIMIT_EXCEEDED", async () => {
    const g = await makeGroup(h, alice, [bob]);
    await refused(h, () => invite(alice, g, "ghost"), 404, "USER_NOT_FOUND");
    await refused(h, () => invite(bob, g, carol.username), 403, "FORBIDDEN");
    expect422(await h.req("POST", `${G}/${g}/members`, { token: alice.token }));
    await refused(h, () => h.req("POST", `${G}/${g}/members?username=${carol.username}`, { token: alice.token, body: { username: dave.username } }), 400, "INVALID_INPUT");
    const others = await newUsers(h, 48);
    for (const u of others) expect((await invite(alice, g, u.username)).status).toBe(201);
    // 2 accepted + 48 pending = 50: pending invites count.
    await refused(h, () => invite(alice, g, carol.username), 400, "LIMIT_EXCEEDED");
    expect(memberOf(h, g, carol)).toBeNull();
  });

  test("an invite to a stranger is recorded as a cold contact (group_invite); to a mutual contact it is not", async () => {
    const g = await makeGroup(h, alice, [bob]);
    await sent(h, carol, alice, "hi alice");
    await invite(alice, g, carol.username);
    await invite(alice, g, dave.username);
    const rows = h.ctx.db.$client.query("select recipient_id, source from cold_contacts where sender_id = ? and recipient_id in (?, ?)").all(alice.id, carol.id, dave.id);
    expect(rows).toEqual([{ recipient_id: dave.id, source: "group_invite" }]);
  });
});

describe("POST /messages/groups/{id}/invite/respond", () => {
  test("accept: member from now on; group_invite_accepted to every accepted member, the accepter included", async () => {
    const g = await makeGroup(h, alice, [bob, carol], [bob]);
    h.clock.advance(MINUTE);
    const r = await respond(carol, g, true);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ invite_status: "accepted" });
    expect(memberOf(h, g, carol)).toMatchObject({ invite_status: "accepted", joined_at: h.clock.now() });
    const evs = eventsOf(h, "group_invite_accepted");
    expect(sorted(evs.at(-1)!.payload.recipient_ids)).toEqual(sorted([alice.id, bob.id, carol.id]));
    expect(evs.at(-1)!.payload).toMatchObject({ conversation_id: g, user: carol.username, user_id: carol.id });
    expect((await h.req("GET", `${G}/${g}`, { token: carol.token })).status).toBe(200);
  });

  test("query form; already accepted 409 CONFLICT; strangers 404; missing accept 422; anonymous 401", async () => {
    const g = await makeGroup(h, alice, [bob], []);
    expect((await h.req("POST", `${G}/${g}/invite/respond?accept=true`, { token: bob.token })).body).toEqual({ invite_status: "accepted" });
    expectError(await respond(bob, g, true), 409, "CONFLICT");
    expectError(await respond(alice, g, false), 409, "CONFLICT");
    expectError(await respond(carol, g, true), 404, "NOT_FOUND");
    expect422(await h.req("POST", `${G}/${g}/invite/respond`, { token: bob.token, body: {} }));
    expect((await h.req("POST", `${G}/${g}/invite/respond`, { body: { accept: true } })).status).toBe(401);
  });

  test("a pending invitee can do nothing else: every other route is 404", async () => {
    const g = await makeGroup(h, alice, [bob], []);
    expectError(await h.req("GET", `${G}/${g}/members`, { token: bob.token }), 404, "NOT_FOUND");
    expectError(await h.req("POST", `${G}/${g}/send`, { token: bob.token, body: { body: "x" } }), 404, "NOT_FOUND");
    expectError(await remove(bob, g, bob), 404, "NOT_FOUND");
  });
});

describe("DELETE /messages/groups/{id}/members/{user_id}", () => {
  test("leaving: group_member_left to the remaining members; the leaver loses access; drafts go", async () => {
    const g = await makeGroup(h, alice, [bob, carol]);
    h.ctx.db.$client.query("insert into message_drafts (id, user_id, conversation_id, body, updated_at) values (?, ?, ?, 'draft', 0)").run(uuidv7(h.clock.now()), carol.id, g);
    const r = await remove(carol, g, carol);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ removed: true, left: true, promoted_user_id: null, creator_id: alice.id });
    const [ev] = eventsOf(h, "group_member_left");
    expect(sorted(ev.payload.recipient_ids)).toEqual(sorted([alice.id, bob.id]));
    expect(ev.payload).toMatchObject({ leaver: carol.username, leaver_id: carol.id });
    expect(count(h, "message_drafts")).toBe(0);
    expectError(await h.req("GET", `${G}/${g}`, { token: carol.token }), 404, "NOT_FOUND");
    const list = await h.req("GET", "/api/v1/messages/conversations", { token: carol.token });
    expect(list.body).toEqual([]);
  });

  test("an admin removes a member (by id or username): group_member_removed to the remaining members, not the removed", async () => {
    const g = await makeGroup(h, alice, [bob, carol]);
    const r = await remove(alice, g, bob.username);
    expect(r.body).toEqual({ removed: true, left: false, promoted_user_id: null, creator_id: alice.id });
    const [ev] = eventsOf(h, "group_member_removed");
    expect(sorted(ev.payload.recipient_ids)).toEqual(sorted([alice.id, carol.id]));
    expect(ev.payload).toMatchObject({ actor: alice.username, actor_id: alice.id, removed: bob.username, removed_user_id: bob.id, was_pending: false });
    expectError(await groupSentStatus(bob, g), 404, "NOT_FOUND");
  });

  test("an admin withdraws a pending invite", async () => {
    const g = await makeGroup(h, alice, [bob, carol], [bob]);
    expect((await remove(alice, g, carol)).status).toBe(200);
    expectError(await respond(carol, g, true), 404, "NOT_FOUND");
    expect(eventsOf(h, "group_member_removed")[0].payload.was_pending).toBe(true);
  });

  test("errors: a plain member removing someone 403; anyone but the creator removing the creator 403; not in the group 404", async () => {
    const g = await makeGroup(h, alice, [bob, carol]);
    expectError(await remove(bob, g, carol), 403, "FORBIDDEN");
    await setAdmin(alice, g, bob, true);
    expectError(await remove(bob, g, alice), 403, "FORBIDDEN");
    expectError(await remove(alice, g, dave), 404, "NOT_FOUND");
    expectError(await remove(alice, g, "no-such-user"), 404, "NOT_FOUND");
    // An admin may remove another (non-creator) admin.
    await setAdmin(alice, g, carol, true);
    expect((await remove(bob, g, carol)).status).toBe(200);
  });

  test("the last admin (the creator) leaves: the longest-tenured member is promoted and becomes creator", async () => {
    const g = await makeGroup(h, alice, [bob, carol, dave], []);
    h.clock.advance(MINUTE);
    await respond(carol, g, true);
    h.clock.advance(MINUTE);
    await respond(bob, g, true);
    // dave stays pending: never promoted.
    const r = await remove(alice, g, alice);
    expect(r.body).toEqual({ removed: true, left: true, promoted_user_id: carol.id, creator_id: carol.id });
    expect(memberOf(h, g, carol).role).toBe("admin");
    expect(memberOf(h, g, bob).role).toBe("member");
    expect(convRow(h, g).creator_id).toBe(carol.id);
    const [ev] = eventsOf(h, "group_member_left");
    expect(sorted(ev.payload.recipient_ids)).toEqual(sorted([bob.id, carol.id]));
    expect(ev.payload).toMatchObject({ promoted_user_id: carol.id, creator_id: carol.id });
    // The new creator is protected and may administer.
    expectError(await remove(bob, g, carol), 403, "FORBIDDEN");
    expect((await h.req("PATCH", `${G}/${g}`, { token: carol.token, body: { title: "Carol's" } })).status).toBe(200);
  });

  test("the creator leaves while another admin remains: the creator role passes to that admin, nobody else is promoted", async () => {
    const g = await makeGroup(h, alice, [bob, carol]);
    await setAdmin(alice, g, carol, true);
    const r = await remove(alice, g, alice);
    expect(r.body).toEqual({ removed: true, left: true, promoted_user_id: null, creator_id: carol.id });
    expect(memberOf(h, g, bob).role).toBe("member");
  });

  test("a non-creator last admin leaving also promotes the longest-tenured member", async () => {
    const g = await makeGroup(h, alice, [bob, carol]);
    await setAdmin(alice, g, bob, true);
    await remove(alice, g, alice); // creator role → bob (the other admin)
    const r = await remove(bob, g, bob); // bob was the last admin
    expect(r.body).toMatchObject({ promoted_user_id: carol.id, creator_id: carol.id });
  });

  test("the last member leaving withdraws the open invites", async () => {
    const g = await makeGroup(h, alice, [bob], []);
    const r = await remove(alice, g, alice);
    expect(r.body).toMatchObject({ removed: true, left: true, promoted_user_id: null });
    expectError(await respond(bob, g, true), 404, "NOT_FOUND");
    expect(memberOf(h, g, bob).left_at).not.toBeNull();
  });
});

async function groupSentStatus(u: TestUser, g: string) {
  return h.req("POST", `${G}/${g}/send`, { token: u.token, body: { body: "x" } });
}

describe("PUT /messages/groups/{id}/members/{user_id}/admin", () => {
  test("an admin promotes and demotes (body or query); idempotent", async () => {
    const g = await makeGroup(h, alice, [bob, carol]);
    expect((await setAdmin(alice, g, bob, true)).body).toEqual({ user_id: bob.id, is_admin: true });
    expect(memberOf(h, g, bob).role).toBe("admin");
    expect((await setAdmin(alice, g, bob, true)).body).toEqual({ user_id: bob.id, is_admin: true });
    expect((await h.req("PUT", `${G}/${g}/members/${bob.id}/admin?is_admin=false`, { token: alice.token })).body).toEqual({ user_id: bob.id, is_admin: false });
    expect(memberOf(h, g, bob).role).toBe("member");
    // A co-admin may promote too.
    await setAdmin(alice, g, bob, true);
    expect((await setAdmin(bob, g, carol, true)).status).toBe(200);
  });

  test("errors: plain member 403; demoting the creator 403 for others, 409 for the creator; last admin 409; pending 409; not in group 404; missing is_admin 422", async () => {
    const g = await makeGroup(h, alice, [bob, carol, dave], [bob, carol]);
    expectError(await setAdmin(bob, g, carol, true), 403, "FORBIDDEN");
    await setAdmin(alice, g, bob, true);
    expectError(await setAdmin(bob, g, alice, false), 403, "FORBIDDEN");
    expectError(await setAdmin(alice, g, alice, false), 409, "CONFLICT");
    expectError(await setAdmin(alice, g, dave, true), 409, "CONFLICT");
    expectError(await setAdmin(alice, g, erin, true), 404, "NOT_FOUND");
    expect422(await h.req("PUT", `${G}/${g}/members/${bob.id}/admin`, { token: alice.token, body: {} }));
    // bob may demote himself while alice (creator) is an admin.
    expect((await setAdmin(bob, g, bob, false)).body).toEqual({ user_id: bob.id, is_admin: false });
  });

  test("an inherited creator is protected like the original: demoting themself is 409, other admins may step down", async () => {
    const g = await makeGroup(h, alice, [bob, carol]);
    await remove(alice, g, alice); // bob promoted and creator
    await setAdmin(bob, g, carol, true);
    expect((await setAdmin(carol, g, carol, false)).status).toBe(200);
    expectError(await setAdmin(bob, g, bob, false), 409, "CONFLICT");
  });
});

describe("POST /messages/groups/{id}/transfer-creator", () => {
  test("the creator hands over to an accepted member, who becomes admin; the old creator stays admin", async () => {
    const g = await makeGroup(h, alice, [bob, carol]);
    const r = await h.req("POST", `${G}/${g}/transfer-creator`, { token: alice.token, body: { new_creator_id: bob.id } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ creator_id: bob.id, creator_username: bob.username });
    expect(convRow(h, g).creator_id).toBe(bob.id);
    expect(memberOf(h, g, bob).role).toBe("admin");
    expect(memberOf(h, g, alice).role).toBe("admin");
    // Now bob is protected and alice is an ordinary admin who may be demoted by bob.
    expectError(await setAdmin(alice, g, bob, false), 403, "FORBIDDEN");
    expect((await setAdmin(bob, g, alice, false)).status).toBe(200);
    // Reference query form by username.
    const back = await h.req("POST", `${G}/${g}/transfer-creator?new_creator_username=${carol.username}`, { token: bob.token });
    expect(back.body).toEqual({ creator_id: carol.id, creator_username: carol.username });
  });

  test("errors: not the creator 403; pending 409; not in group 404; yourself 400; nothing named 422", async () => {
    const g = await makeGroup(h, alice, [bob, carol, dave], [bob, carol]);
    await setAdmin(alice, g, bob, true);
    expectError(await h.req("POST", `${G}/${g}/transfer-creator`, { token: bob.token, body: { new_creator_id: carol.id } }), 403, "FORBIDDEN");
    expectError(await h.req("POST", `${G}/${g}/transfer-creator`, { token: alice.token, body: { new_creator_id: dave.id } }), 409, "CONFLICT");
    expectError(await h.req("POST", `${G}/${g}/transfer-creator`, { token: alice.token, body: { new_creator_id: erin.id } }), 404, "NOT_FOUND");
    expectError(await h.req("POST", `${G}/${g}/transfer-creator`, { token: alice.token, body: { new_creator_id: alice.id } }), 400, "INVALID_INPUT");
    expect422(await h.req("POST", `${G}/${g}/transfer-creator`, { token: alice.token, body: {} }));
    expect422(await h.req("POST", `${G}/${g}/transfer-creator`, { token: alice.token, body: { new_creator_id: "bob" } }));
    expect(convRow(h, g).creator_id).toBe(alice.id);
  });
});

test("group messages sent before someone joined are readable after they accept", async () => {
  const g = await makeGroup(h, alice, [bob, carol], [bob]);
  await groupSent(h, alice, g, "before carol");
  await respond(carol, g, true);
  const r = await h.req("GET", `${G}/${g}`, { token: carol.token });
  expect(r.body.messages.map((m: any) => m.body)).toEqual(["before carol"]);
});
