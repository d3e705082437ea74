// Group conversations (spec Part 2 §4.6): create, templates, from-template, GET and PATCH, and
// who may call each group route (anonymous 401; stranger, former member and pending invitee 404;
// plain members 403 on admin routes).
import { beforeEach, describe, expect, test } from "bun:test";
import { expectError, outcome, refused } from "../../../../test/expect";
import { setup, type TestUser } from "../../../../test/harness";
import { uuidv7 } from "../../../core/ids";
import { beginTest, count, eventsOf, expect422, listen, newUsers, sent } from "../testkit";
import { convRow, G, groupSent, makeGroup, memberOf } from "./gtestkit";
import { GROUP_TEMPLATES } from "./templates";

const h = setup({ rateLimitMultiplier: 0 });
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser;

beforeEach(async () => {
  await beginTest(h);
  [alice, bob, carol, dave] = await newUsers(h, 4);
});

const create = (u: TestUser | null, query: string) => h.req("POST", `${G}?${query}`, { token: u?.token });

describe("POST /messages/groups", () => {
  test("creator joins as accepted admin, invitees pending; 2-member minimum counts the creator", async () => {
    const r = await create(alice, `title=Team%20room&members=${bob.username}&members=${carol.username}`);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ title: "Team room", description: null, is_group: true, creator_id: alice.id, template: null, starter_message_id: null });
    expect(r.body.members).toEqual([
      { id: alice.id, username: alice.username, display_name: alice.username, is_admin: true, invite_status: "accepted" },
      { id: bob.id, username: bob.username, display_name: bob.username, is_admin: false, invite_status: "pending" },
      { id: carol.id, username: carol.username, display_name: carol.username, is_admin: false, invite_status: "pending" },
    ]);
    expect(memberOf(h, r.body.id, alice)).toMatchObject({ role: "admin", invite_status: "accepted" });
    expect(memberOf(h, r.body.id, bob)).toMatchObject({ role: "member", invite_status: "pending", invited_by: alice.id, joined_at: null });
    expect(convRow(h, r.body.id)).toMatchObject({ kind: "group", creator_id: alice.id, pair_key: null });
    // Invitees see the invitation in their conversation list.
    const list = await h.req("GET", "/api/v1/messages/conversations", { token: bob.token });
    expect(list.body).toEqual([expect.objectContaining({ id: r.body.id, is_group: true, title: "Team room", invite_status: "pending" })]);
  });

  test("members by user id, case-insensitive usernames, duplicates and the creator dropped", async () => {
    const r = await create(alice, `title=T&members=${bob.id}&members=${bob.username.toUpperCase()}&members=${alice.username}&members=${carol.username}`);
    expect(r.status).toBe(201);
    expect(r.body.members.map((m: any) => m.username)).toEqual([alice.username, bob.username, carol.username]);
  });

  test("unknown usernames are 404 USER_NOT_FOUND naming them, and nothing is created", async () => {
    const r = await refused(h, () => create(alice, `title=T&members=${bob.username}&members=nobody-here&members=ghost`), 404, "USER_NOT_FOUND");
    expect(r.body.detail.message).toContain("nobody-here");
    expect(r.body.detail.message).toContain("ghost");
    expect(count(h, "conversations")).toBe(0);
  });

  test("errors: blank title 400, only yourself 400, more than 49 invitees 400 LIMIT_EXCEEDED, missing/too long params 422", async () => {
    await refused(h, () => create(alice, `title=%20%20&members=${bob.username}`), 400, "INVALID_INPUT");
    await refused(h, () => create(alice, `title=T&members=${alice.username}`), 400, "INVALID_INPUT");
    const many = await newUsers(h, 50);
    await refused(h, () => create(alice, `title=T&${many.map((u) => `members=${u.username}`).join("&")}`), 400, "LIMIT_EXCEEDED");
    const ok = await create(alice, `title=T&${many.slice(0, 49).map((u) => `members=${u.username}`).join("&")}`);
    expect(ok.status).toBe(201);
    expect(ok.body.members).toHaveLength(50);
    expect422(await create(alice, `members=${bob.username}`));
    expect422(await create(alice, "title=T"));
    expect422(await create(alice, `title=${"x".repeat(101)}&members=${bob.username}`));
    expect(count(h, "conversations")).toBe(1);
  });

  test("anonymous 401; karma below -5 is 403 KARMA_TOO_LOW", async () => {
    expect((await create(null, `title=T&members=${bob.username}`)).status).toBe(401);
    const low = await h.user({ karma: -6 });
    await refused(h, () => create(low, `title=T&members=${bob.username}`), 403, "KARMA_TOO_LOW");
  });

  test("10 groups an hour (shared with from-template): 429 RATE_LIMIT_GROUP_CREATE; failed attempts cost nothing", async () => {
    const hh = setup();
    const a = await hh.user({ username: "alice" });
    await hh.user({ username: "bob" });
    for (let i = 0; i < 3; i++) expect((await hh.req("POST", `${G}?title=T&members=ghost`, { token: a.token })).status).toBe(404);
    for (let i = 0; i < 9; i++) expect((await hh.req("POST", `${G}?title=T${i}&members=bob`, { token: a.token })).status).toBe(201);
    expect((await hh.req("POST", `${G}/from-template`, { token: a.token, body: { template_id: "software-team", members: ["bob"] } })).status).toBe(201);
    const r = await hh.req("POST", `${G}?title=T&members=bob`, { token: a.token });
    expectError(r, 429, "RATE_LIMIT_GROUP_CREATE");
    expect(r.headers.get("retry-after")).toBeTruthy();
    hh.clock.advance(3600_000 + 1);
    const { token } = await hh.fresh(a);
    expect((await hh.req("POST", `${G}?title=T&members=bob`, { token })).status).toBe(201);
  });

  test("an invite to a stranger is a cold contact (source group_invite); someone who wrote to you is not", async () => {
    await sent(h, bob, alice, "hi alice");
    const r = await create(alice, `title=T&members=${bob.username}&members=${carol.username}`);
    const rows = h.ctx.db.$client.query("select recipient_id, source, conversation_id from cold_contacts where sender_id = ?").all(alice.id) as any[];
    expect(rows).toEqual([{ recipient_id: carol.id, source: "group_invite", conversation_id: r.body.id }]);
  });
});

describe("templates", () => {
  test("GET /templates lists every template with the reference's fields", async () => {
    const r = await h.req("GET", `${G}/templates`, { token: bob.token });
    expect(r.status).toBe(200);
    expect(r.body.templates.map((t: any) => t.slug)).toEqual(GROUP_TEMPLATES.map((t) => t.slug));
    for (const t of r.body.templates) expect(Object.keys(t).sort()).toEqual(["description", "slug", "starter_pinned_message", "suggested_roles", "title"]);
    expect(r.body.pagination).toEqual({ total: GROUP_TEMPLATES.length, has_more: false });
    expect((await h.req("GET", `${G}/templates`)).status).toBe(401);
  });

  test("from-template (body): template title and description, starter message sent and pinned", async () => {
    const r = await h.req("POST", `${G}/from-template`, { token: alice.token, body: { template_id: "software-team", members: [bob.username] } });
    expect(r.status).toBe(201);
    const tpl = GROUP_TEMPLATES.find((t) => t.slug === "software-team")!;
    expect(r.body).toMatchObject({ title: tpl.title, description: tpl.description, template: "software-team", creator_id: alice.id });
    expect(r.body.starter_message_id).toBeString();
    await h.req("POST", `${G}/${r.body.id}/invite/respond`, { token: bob.token, body: { accept: true } });
    const g = await h.req("GET", `${G}/${r.body.id}`, { token: bob.token });
    expect(g.body.pinned.map((m: any) => [m.id, m.body])).toEqual([[r.body.starter_message_id, tpl.starter_pinned_message]]);
  });

  test("from-template (reference query form) with title_override", async () => {
    const r = await h.req("POST", `${G}/from-template?template=research-pod&members=${bob.username}&members=${carol.username}&title_override=Pod%207`, { token: alice.token });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ title: "Pod 7", template: "research-pod" });
    expect(r.body.members).toHaveLength(3);
  });

  test("from-template errors: unknown template 404, missing template or members 422, unknown member 404, anonymous 401", async () => {
    await refused(h, () => h.req("POST", `${G}/from-template`, { token: alice.token, body: { template_id: "nope", members: [bob.username] } }), 404, "NOT_FOUND");
    expect422(await h.req("POST", `${G}/from-template`, { token: alice.token, body: { members: [bob.username] } }));
    expect422(await h.req("POST", `${G}/from-template`, { token: alice.token, body: { template_id: "software-team" } }));
    await refused(h, () => h.req("POST", `${G}/from-template`, { token: alice.token, body: { template_id: "software-team", members: ["ghost"] } }), 404, "USER_NOT_FOUND");
    expect((await h.req("POST", `${G}/from-template`, { body: { template_id: "software-team", members: [bob.username] } })).status).toBe(401);
    expect(count(h, "conversations")).toBe(0);
  });
});

describe("GET /messages/groups/{id}", () => {
  test("metadata, the caller's settings, messages oldest first, and paging", async () => {
    const g = await makeGroup(h, alice, [bob, carol], [bob]);
    for (let i = 1; i <= 5; i++) await groupSent(h, alice, g, `m${i}`);
    const r = await h.req("GET", `${G}/${g}`, { token: bob.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: g, title: "Team", creator_id: alice.id, member_count: 2, pending_count: 1, is_admin: false, is_muted: false, muted_until: null, snoozed_until: null, receipts: null });
    expect(r.body.avatar_url).toBe(`http://localhost${G}/${g}/avatar`);
    expect(r.body.messages.map((m: any) => m.body)).toEqual(["m1", "m2", "m3", "m4", "m5"]);
    expect(r.body.pagination).toEqual({ total: 5, has_more: false });
    const p = await h.req("GET", `${G}/${g}`, { token: bob.token, query: { limit: 2 } });
    expect(p.body.messages.map((m: any) => m.body)).toEqual(["m4", "m5"]);
    expect(p.body.pagination).toEqual({ total: 5, has_more: true });
    const p2 = await h.req("GET", `${G}/${g}`, { token: bob.token, query: { limit: 2, page: 2 } });
    expect(p2.body.messages.map((m: any) => m.body)).toEqual(["m2", "m3"]);
    expect422(await h.req("GET", `${G}/${g}`, { token: bob.token, query: { limit: 201 } }));
    expectError(await h.req("GET", `${G}/${g}`, { token: bob.token, query: { limit: 2, page: 2, offset: 0 } }), 400, "INVALID_INPUT");
  });

  test("records reads: read_count rises, unread drops, messages_read goes to the other members", async () => {
    const g = await makeGroup(h, alice, [bob, carol]);
    const m = await groupSent(h, alice, g, "hello");
    const before = await h.req("GET", "/api/v1/messages/conversations", { token: bob.token });
    expect(before.body[0].unread_count).toBe(1);
    await h.req("GET", `${G}/${g}`, { token: bob.token });
    const after = await h.req("GET", "/api/v1/messages/conversations", { token: bob.token });
    expect(after.body[0].unread_count).toBe(0);
    const [ev] = eventsOf(h, "messages_read");
    expect(ev.actor_id).toBe(bob.id);
    expect(ev.payload).toMatchObject({ is_group: true, message_id: m.id, read_count: 1, count: 1 });
    expect(ev.payload.recipient_ids.sort()).toEqual([alice.id, carol.id].sort());
    const seen = await h.req("GET", `${G}/${g}`, { token: alice.token });
    expect(seen.body.messages[0]).toMatchObject({ id: m.id, read_count: 1, is_read: true });
    // Nothing new to read: no second event.
    await h.req("GET", `${G}/${g}`, { token: bob.token });
    expect(eventsOf(h, "messages_read")).toHaveLength(1);
  });

  test("with receipts off the reads are recorded but not broadcast", async () => {
    const g = await makeGroup(h, alice, [bob]);
    await groupSent(h, alice, g, "hello");
    await h.req("PATCH", `${G}/${g}/receipts`, { token: bob.token, body: { show: "off" } });
    await h.ctx.events.drain();
    const l = listen(h, alice, bob);
    await h.req("GET", `${G}/${g}`, { token: bob.token });
    await h.ctx.events.drain();
    expect(l.of("dm.group_read")).toHaveLength(0);
    expect(eventsOf(h, "messages_read").map((e) => e.payload.recipient_ids)).toEqual([[]]);
    expect(count(h, "message_reads")).toBe(1);
    // Back on: the next read is broadcast again.
    await h.req("PATCH", `${G}/${g}/receipts`, { token: bob.token, body: { show: "clear" } });
    await groupSent(h, alice, g, "again");
    await h.req("POST", `${G}/${g}/read-all`, { token: bob.token });
    await h.ctx.events.drain();
    expect(l.of("dm.group_read").map((e) => e.to)).toEqual([alice.id]);
  });
});

describe("PATCH /messages/groups/{id}", () => {
  test("admin renames and describes (body or query); an empty description clears it", async () => {
    const g = await makeGroup(h, alice, [bob]);
    const r = await h.req("PATCH", `${G}/${g}`, { token: alice.token, body: { title: "  Renamed  ", description: "About us" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ title: "Renamed", description: "About us" });
    expect(convRow(h, g)).toMatchObject({ title: "Renamed", description: "About us" });
    expect((await h.req("PATCH", `${G}/${g}`, { token: alice.token, query: { title: "Q" } })).body).toEqual({ title: "Q", description: "About us" });
    expect((await h.req("PATCH", `${G}/${g}`, { token: alice.token, body: { description: "" } })).body).toEqual({ title: "Q", description: null });
    expect((await h.req("PATCH", `${G}/${g}`, { token: alice.token, body: {} })).body).toEqual({ title: "Q", description: null });
  });

  test("errors: blank title 400, long title or description 422, body and query disagreeing 400, non-admin 403", async () => {
    const g = await makeGroup(h, alice, [bob]);
    expectError(await h.req("PATCH", `${G}/${g}`, { token: alice.token, body: { title: "   " } }), 400, "INVALID_INPUT");
    expect422(await h.req("PATCH", `${G}/${g}`, { token: alice.token, body: { title: "x".repeat(101) } }));
    expect422(await h.req("PATCH", `${G}/${g}`, { token: alice.token, body: { description: "x".repeat(501) } }));
    expect422(await h.req("PATCH", `${G}/${g}`, { token: alice.token, body: { title: "" } }));
    expectError(await h.req("PATCH", `${G}/${g}?title=A`, { token: alice.token, body: { title: "B" } }), 400, "INVALID_INPUT");
    expectError(await h.req("PATCH", `${G}/${g}`, { token: bob.token, body: { title: "Mine" } }), 403, "FORBIDDEN");
    expect(convRow(h, g).title).toBe("Team");
    // A promoted admin may.
    await h.req("PUT", `${G}/${g}/members/${bob.id}/admin`, { token: alice.token, body: { is_admin: true } });
    expect((await h.req("PATCH", `${G}/${g}`, { token: bob.token, body: { title: "Ours" } })).status).toBe(200);
  });
});

describe("who may call each route", () => {
  // [method, path suffix, body, status for a plain (non-admin) member]
  type Row = [string, (g: string, msg: string) => string, unknown, number];
  const ROUTES: Row[] = [
    ["GET", (g) => `${G}/${g}`, undefined, 200],
    ["PATCH", (g) => `${G}/${g}`, { title: "X" }, 403],
    ["POST", (g) => `${G}/${g}/send`, { body: "x" }, 201],
    ["POST", (g) => `${G}/${g}/read-all`, undefined, 200],
    ["GET", (g) => `${G}/${g}/search?q=hello`, undefined, 200],
    ["GET", (g) => `${G}/${g}/members`, undefined, 200],
    ["POST", (g) => `${G}/${g}/members`, () => ({ username: dave.username }), 403],
    ["DELETE", (g) => `${G}/${g}/members/${alice.id}`, undefined, 403],
    ["PUT", (g) => `${G}/${g}/members/${alice.id}/admin`, { is_admin: true }, 403],
    ["POST", (g) => `${G}/${g}/transfer-creator`, () => ({ new_creator_id: alice.id }), 403],
    ["GET", (g) => `${G}/${g}/avatar`, undefined, 200],
    ["PATCH", (g) => `${G}/${g}/receipts`, { show: "on" }, 200],
    ["POST", (g) => `${G}/${g}/snooze?duration=1h`, undefined, 200],
    ["POST", (g) => `${G}/${g}/unsnooze`, undefined, 200],
    ["POST", (g) => `${G}/${g}/mute`, undefined, 200],
    ["POST", (g) => `${G}/${g}/unmute`, undefined, 200],
    ["POST", (g, m) => `${G}/${g}/messages/${m}/pin`, undefined, 403],
    ["DELETE", (g, m) => `${G}/${g}/messages/${m}/pin`, undefined, 403],
  ];

  test("anonymous 401, stranger / pending invitee / former member / declined invitee 404, member as listed", async () => {
    const g = await makeGroup(h, alice, [bob, carol, dave], [bob, dave]);
    const m = await groupSent(h, alice, g, "hello");
    // dave leaves: a former member.
    expect((await h.req("DELETE", `${G}/${g}/members/${dave.id}`, { token: dave.token })).status).toBe(200);
    const [stranger, decliner] = await newUsers(h, 2);
    await h.req("POST", `${G}/${g}/members`, { token: alice.token, body: { username: decliner.username } });
    await h.req("POST", `${G}/${g}/invite/respond`, { token: decliner.token, body: { accept: false } });
    for (const [method, path, rawBody, memberStatus] of ROUTES) {
      const url = path(g, m.id);
      const body = typeof rawBody === "function" ? rawBody() : rawBody;
      const label = `${method} ${url}`;
      expect([label, (await h.req(method, url, { body })).status]).toEqual([label, 401]);
      for (const u of [stranger, carol, dave, decliner]) {
        const r = await h.req(method, url, { token: u.token, body });
        expect([label, u.username, outcome(r)]).toEqual([label, u.username, { status: 404, code: "NOT_FOUND" }]);
      }
      const r = await h.req(method, url, { token: bob.token, body });
      expect([label, r.status]).toEqual([label, memberStatus]);
    }
  });

  test("a direct conversation id, an unknown id and a malformed id are 404 on group routes", async () => {
    const dm = await sent(h, alice, bob, "hi");
    for (const id of [dm.conversation_id, uuidv7(h.clock.now()), "not-a-uuid"]) {
      expectError(await h.req("GET", `${G}/${id}`, { token: alice.token }), 404, "NOT_FOUND");
      expectError(await h.req("POST", `${G}/${id}/send`, { token: alice.token, body: { body: "x" } }), 404, "NOT_FOUND");
      expectError(await h.req("GET", `${G}/${id}/members`, { token: alice.token }), 404, "NOT_FOUND");
      expectError(await h.req("POST", `${G}/${id}/invite/respond`, { token: alice.token, body: { accept: true } }), 404, "NOT_FOUND");
    }
  });
});
