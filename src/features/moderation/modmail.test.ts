// Modmail (spec Part 2 §4.2, §5): open or reuse the caller's thread (banned callers included), a
// group conversation the group messages API continues; the moderators' thread list; a
// moderator joining a thread they were not seeded into; permissions and errors.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { ban, setRole } from "../colonies/fixtures";
import { G } from "../messages/groups/gtestkit";
import { addMember, cast, eventsOf, notificationsOf, type Cast } from "./governance-fixtures";

let h: Harness;
let c: Cast;

beforeAll(() => {
  h = setup({ rateLimitMultiplier: 0 });
});

// Each test acts in a colony of its own, with a cast of its own.
beforeEach(async () => {
  c = await cast(h);
});

const open = (token: string | null, body: unknown, colonyId = c.colony.id) => h.req("POST", `/api/v1/colonies/${colonyId}/modmail`, { token, body });
const list = (token: string | null, colonyId = c.colony.id, query: Record<string, number> = {}) => h.req("GET", `/api/v1/colonies/${colonyId}/modmail`, { token, query });
const join = (token: string | null, convId: string, colonyId = c.colony.id) => h.req("POST", `/api/v1/colonies/${colonyId}/modmail/${convId}/join`, { token });
const readGroup = (u: TestUser, convId: string) => h.req("GET", `${G}/${convId}`, { token: u.token });

async function opened(u: TestUser, text = "Why was my post removed?") {
  const res = await open(u.token, { body: text });
  expect(res.status).toBe(201);
  return res.body;
}

describe("POST /colonies/{id}/modmail", () => {
  test("opens a thread seeded with the moderators; the group messages API continues it", async () => {
    const res = await open(c.member.token, { body: "  Hello mods  " });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ conversation_id: expect.any(String), colony_id: c.colony.id, message_id: expect.any(String), created: true });
    const conv = res.body.conversation_id;
    const g = await readGroup(c.member, conv);
    expect(g.status).toBe(200);
    expect(JSON.stringify(g.body)).toContain("Hello mods");
    const members = await h.req("GET", `${G}/${conv}/members`, { token: c.member.token });
    const names = (members.body.members ?? members.body).map((m: any) => m.username).sort();
    expect(names).toEqual([c.founder.username, c.mod.username, c.colonyAdmin.username, c.member.username].sort());
    // Every seeded moderator reads it and can answer through the group API.
    for (const m of [c.founder, c.mod, c.colonyAdmin]) expect((await readGroup(m, conv)).status).toBe(200);
    const reply = await h.req("POST", `${G}/${conv}/send`, { token: c.mod.token, body: { body: "Looking into it" } });
    expect(reply.status).toBe(201);
    // Outsiders cannot read it.
    expect((await readGroup(c.stranger, conv)).status).toBe(404);
    expect(eventsOf(h, "modmail_opened", c.colony.id).map((e) => e.payload.created)).toEqual([true]);
  });

  test("the moderators are notified at once (group_message)", async () => {
    await opened(c.member);
    for (const m of [c.founder, c.mod, c.colonyAdmin]) expect((await notificationsOf(h, m))[0].kind).toBe("group_message");
  });

  test("a second message reuses the thread; a user who left is brought back", async () => {
    const first = await opened(c.member);
    const second = await opened(c.member, "One more thing");
    expect(second).toMatchObject({ conversation_id: first.conversation_id, created: false });
    const left = await h.req("DELETE", `${G}/${first.conversation_id}/members/${c.member.id}`, { token: c.member.token });
    expect(left.status).toBeLessThan(300);
    expect((await readGroup(c.member, first.conversation_id)).status).toBe(404);
    const third = await opened(c.member, "Back again");
    expect(third.conversation_id).toBe(first.conversation_id);
    expect((await readGroup(c.member, first.conversation_id)).status).toBe(200);
  });

  test("works while banned, also for a private colony the ban took the user out of", async () => {
    ban(h, c.colony.id, c.member.id);
    expect((await open(c.member.token, { body: "Please reconsider" })).status).toBe(201);
    const p = await cast(h, "private");
    ban(h, p.colony.id, p.member.id);
    expect((await open(p.member.token, { body: "Appeal" }, p.colony.id)).status).toBe(201);
  });

  test("any signed-in user of a public colony; a stranger of a private one 404; anonymous 401", async () => {
    expect((await open(c.stranger.token, { body: "hi" })).status).toBe(201);
    expect((await open(null, { body: "hi" })).status).toBe(401);
    const p = await cast(h, "private");
    expectError(await open(c.stranger.token, { body: "hi" }, p.colony.id), 404, "NOT_FOUND");
    expectError(await open(c.stranger.token, { body: "hi" }, "0190b2c4-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
  });

  test("a blank body is 400, a missing one 422, and nothing is opened", async () => {
    await refused(h, () => open(c.member.token, { body: "   " }), 400, "INVALID_INPUT");
    await refused(h, () => open(c.member.token, {}), 422);
    await refused(h, () => open(c.member.token, { body: "x".repeat(10001) }), 422);
    expect(eventsOf(h, "modmail_opened", c.colony.id)).toHaveLength(0);
    expect((await list(c.founder.token)).body.total).toBe(0);
  });
});

describe("GET /colonies/{id}/modmail", () => {
  test("moderators list the threads, newest activity first, with is_participant", async () => {
    const a = await opened(c.member);
    h.clock.advance(1000);
    const b = await opened(c.stranger);
    const res = await list(c.mod.token);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.has_more).toBe(false);
    expect(res.body.items.map((i: any) => i.conversation_id)).toEqual([b.conversation_id, a.conversation_id]);
    expect(res.body.items[0]).toEqual({
      conversation_id: b.conversation_id,
      colony_id: c.colony.id,
      user: { id: c.stranger.id, username: c.stranger.username, display_name: c.stranger.username },
      is_participant: true,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      last_message_at: expect.stringMatching(/Z$/),
    });
    // A moderator's answer in the older thread moves it to the top (once delivered).
    h.clock.advance(1000);
    expect((await h.req("POST", `${G}/${a.conversation_id}/send`, { token: c.mod.token, body: { body: "We are on it" } })).status).toBe(201);
    await h.ctx.events.drain();
    expect((await list(c.mod.token)).body.items.map((i: any) => i.conversation_id)).toEqual([a.conversation_id, b.conversation_id]);
    const admin = await list(c.siteAdmin.token, c.colony.id, { limit: 1 });
    expect(admin.body).toMatchObject({ total: 2, has_more: true });
    expect(admin.body.items[0].is_participant).toBe(false);
  });

  test("members and strangers 403, anonymous 401", async () => {
    expect((await list(null)).status).toBe(401);
    expectError(await list(c.member.token), 403, "FORBIDDEN");
    expectError(await list(c.stranger.token), 403, "FORBIDDEN");
  });
});

describe("POST /colonies/{id}/modmail/{conversation_id}/join", () => {
  test("a moderator promoted after the thread opened joins it (idempotent); a site admin too", async () => {
    const t = await opened(c.stranger);
    const late = await h.user();
    addMember(h, c.colony.id, late.id);
    setRole(h, c.colony.id, late.id, "moderator");
    expect((await readGroup(late, t.conversation_id)).status).toBe(404);
    const res = await join(late.token, t.conversation_id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ conversation_id: t.conversation_id, colony_id: c.colony.id, joined: true });
    expect((await readGroup(late, t.conversation_id)).status).toBe(200);
    expect((await join(late.token, t.conversation_id)).body.joined).toBe(false);
    expect((await join(c.mod.token, t.conversation_id)).body.joined).toBe(false);
    expect((await join(c.siteAdmin.token, t.conversation_id)).body.joined).toBe(true);
    expect(eventsOf(h, "modmail_joined", c.colony.id)).toHaveLength(2);
  });

  test("permissions and errors: anonymous 401, member 403, another colony's thread 404, a plain group 404", async () => {
    const t = await opened(c.member);
    expect((await join(null, t.conversation_id)).status).toBe(401);
    expectError(await join(c.member.token, t.conversation_id), 403, "FORBIDDEN");
    expectError(await join(c.stranger.token, t.conversation_id), 403, "FORBIDDEN");
    const other = await cast(h);
    expectError(await join(other.founder.token, t.conversation_id, other.colony.id), 404, "NOT_FOUND");
    expectError(await join(c.founder.token, "0190b2c4-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
    expectError(await join(c.founder.token, "garbage"), 404, "NOT_FOUND");
  });
});
