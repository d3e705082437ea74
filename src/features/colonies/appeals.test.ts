// Ban appeals: GET and POST .../appeal, GET .../appeals, POST .../appeals/{id}/resolve (spec Part 2
// §2.5, §3, §4.2, §6.2; docs/decisions.md §34): one pending appeal per colony per user, every
// moderator told, accepting lifts the ban.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness } from "../../../test/harness";
import { DAY } from "../../core/clock";
import { eventsOf, setRole } from "./fixtures";
import { advance, auditRows, banRow, crew, joinAs, kindsOf, modApi, notificationsOf, type Crew } from "./mod-fixtures";

let h: Harness;
let api: ReturnType<typeof modApi>;
let c: Crew;

beforeAll(() => {
  h = setup({ rateLimitMultiplier: 0 });
  api = modApi(h);
});

// Each test acts in a colony of its own, with a crew of its own.
beforeEach(async () => {
  c = await crew(h);
});

const iso = (ms: number) => new Date(ms).toISOString();

/** Bans the member (as the moderator) and files their appeal; returns the appeal id. */
async function banAndAppeal(body: Record<string, unknown> = { reason: "spam" }): Promise<string> {
  expect((await api.ban(c.colony, c.member.id, c.mod.token, body)).status).toBe(201);
  const r = await api.appeal(c.colony, c.member.token);
  expect(r.status).toBe(201);
  return r.body.appeal_id;
}

describe("GET .../appeal", () => {
  test("not banned: banned false, no ban, no appeal", async () => {
    expect((await api.myAppeal(c.colony, c.member.token)).body).toEqual({ banned: false, ban: null, appeal: null });
    expect((await api.myAppeal(c.colony, c.stranger.token)).body).toEqual({ banned: false, ban: null, appeal: null });
  });

  test("banned: the ban in force (banned_at its deprecated copy of created_at) and the latest appeal", async () => {
    await api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 30, reason: "spam" });
    const created = iso(h.clock.now());
    const before = await api.myAppeal(c.colony, c.member.token);
    expect(before.body).toEqual({ banned: true, ban: { reason: "spam", created_at: created, banned_at: created, expires_at: iso(h.clock.now() + 30 * DAY) }, appeal: null });
    const filed = await api.appeal(c.colony, c.member.token, { body: "I was wrong" });
    const after = await api.myAppeal(c.colony, c.member.token);
    expect(after.body.appeal).toEqual({ appeal_id: filed.body.appeal_id, status: "pending", created_at: filed.body.created_at, resolution_note: null, resolved_at: null });
  });

  test("anonymous 401; a private colony is 404 to a stranger but reachable by a user banned from it", async () => {
    expect((await api.myAppeal(c.colony, null)).status).toBe(401);
    const p = await crew(h, "private");
    expectError(await api.myAppeal(p.colony, p.stranger.token), 404, "NOT_FOUND");
    await api.ban(p.colony, p.member.id, p.mod.token);
    expect((await api.myAppeal(p.colony, p.member.token)).body.banned).toBe(true);
    expect((await api.appeal(p.colony, p.member.token)).status).toBe(201);
    expectError(await api.myAppeal("00000000-0000-7000-8000-000000000000", p.member.token), 404, "NOT_FOUND");
  });
});

describe("POST .../appeal", () => {
  test("201 BanAppealOut; every moderator, the founder and colony admins told at once (not the appellant); the event", async () => {
    const adm = await h.user();
    await joinAs(h, c.colony, adm, c.founder);
    setRole(h, c.colony.id, adm.id, "admin");
    await api.ban(c.colony, c.member.id, c.mod.token);
    const r = await api.appeal(c.colony, c.member.token, { body: "  Please let me back in  " });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ appeal_id: expect.any(String), status: "pending", created_at: iso(h.clock.now()) });
    for (const u of [c.founder, c.mod, adm]) {
      const [n] = await notificationsOf(h, u);
      expect(n.kind).toBe("ban_appeal_filed");
      expect(n.message).toBe(`${c.member.username} appealed their ban from c/${c.colony.name}`);
      expect(n.meta).toMatchObject({ appeal_id: r.body.appeal_id, appellant_id: c.member.id, colony_name: c.colony.name });
    }
    expect(await kindsOf(h, c.member)).not.toContain("ban_appeal_filed");
    expect(await kindsOf(h, c.admin)).toEqual([]);
    expect(eventsOf(h, "ban_appeal_filed", c.colony.id).map((e) => e.payload)).toEqual([
      { colony_id: c.colony.id, colony_name: c.colony.name, appeal_id: r.body.appeal_id, user_id: c.member.id, username: c.member.username, display_name: c.member.username },
    ]);
    const stored = h.ctx.db.$client.query("select body, status from colony_ban_appeals where id = ?").get(r.body.appeal_id);
    expect(stored).toEqual({ body: "Please let me back in", status: "pending" });
  });

  test("a second pending appeal is 409 CONFLICT", async () => {
    await banAndAppeal();
    expectError(await api.appeal(c.colony, c.member.token), 409, "CONFLICT");
  });

  test("404 NOT_FOUND without a ban in force, a lapsed timed ban included", async () => {
    expectError(await api.appeal(c.colony, c.member.token), 404, "NOT_FOUND");
    await api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 1 });
    await advance(h, DAY, c);
    expectError(await api.appeal(c.colony, c.member.token), 404, "NOT_FOUND");
    expect(eventsOf(h, "ban_appeal_filed", c.colony.id)).toEqual([]);
  });

  test("body: missing or empty 422, over 2000 characters 422, blank 400; anonymous 401", async () => {
    await api.ban(c.colony, c.member.id, c.mod.token);
    await refused(h, () => api.appeal(c.colony, c.member.token, {}), 422);
    await refused(h, () => api.appeal(c.colony, c.member.token, { body: "" }), 422);
    await refused(h, () => api.appeal(c.colony, c.member.token, { body: "x".repeat(2001) }), 422);
    await refused(h, () => api.appeal(c.colony, c.member.token, { body: "   " }), 400, "INVALID_INPUT");
    await refused(h, () => api.appeal(c.colony, null), 401);
    expect(h.ctx.db.$client.query("select count(*) as n from colony_ban_appeals where colony_id = ?").get(c.colony.id)).toEqual({ n: 0 });
  });
});

describe("GET .../appeals", () => {
  test("moderators see pending appeals oldest first, each with the ban in force (null once lapsed)", async () => {
    const id = await banAndAppeal({ reason: "spam", duration_days: 7 });
    h.clock.advance(1000);
    await api.ban(c.colony, c.stranger.id, c.mod.token);
    const second = (await api.appeal(c.colony, c.stranger.token, { body: "never was a member" })).body.appeal_id;
    const r = await api.appeals(c.colony, c.mod.token);
    expect(r.status).toBe(200);
    expect(r.body.appeals.map((a: any) => a.appeal_id)).toEqual([id, second]);
    expect(r.body.appeals[0]).toEqual({
      appeal_id: id,
      target_user_id: c.member.id,
      target_username: c.member.username,
      body: "Please let me back in",
      created_at: expect.any(String),
      ban: { reason: "spam", created_at: expect.any(String), banned_at: expect.any(String), expires_at: expect.any(String) },
    });
    await advance(h, 7 * DAY, c);
    expect((await api.appeals(c.colony, c.founder.token)).body.appeals[0].ban).toBeNull();
    expect((await api.appeals(c.colony, c.admin.token)).status).toBe(200);
  });

  test("anonymous 401; member and stranger 403; the appellant 403", async () => {
    await banAndAppeal();
    expect((await api.appeals(c.colony, null)).status).toBe(401);
    expectError(await api.appeals(c.colony, c.stranger.token), 403, "FORBIDDEN");
    expectError(await api.appeals(c.colony, c.member.token), 403, "FORBIDDEN");
  });
});

describe("POST .../appeals/{appeal_id}/resolve", () => {
  test("accepting lifts the ban: 200 AppealResolvedOut, unban and resolve_appeal audit rows, the appellant told they may join", async () => {
    const id = await banAndAppeal();
    h.clock.advance(5000);
    const r = await api.resolve(c.colony, id, c.mod.token, { accept: true, note: "Fair enough" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ appeal_id: id, status: "accepted", unbanned: true });
    expect(banRow(h, c.colony.id, c.member.id)).toBeNull();
    expect(auditRows(h, c.colony.id, "unban").map((a) => [a.actor_id, a.meta])).toEqual([[c.mod.id, { how: "appeal" }]]);
    const [resolved] = auditRows(h, c.colony.id, "resolve_appeal");
    expect(resolved).toMatchObject({ actor_id: c.mod.id, target_type: "appeal", target_id: id, target_user_id: c.member.id, reason: "Fair enough", meta: { accepted: true, unbanned: true } });
    expect(typeof resolved.opened_at).toBe("number");
    const kinds = await kindsOf(h, c.member);
    expect(kinds[0]).toBe("colony_unbanned");
    expect(kinds).not.toContain("ban_appeal_resolved");
    expect((await notificationsOf(h, c.member))[0].meta.how).toBe("appeal");
    const mine = await api.myAppeal(c.colony, c.member.token);
    expect(mine.body).toMatchObject({ banned: false, ban: null, appeal: { appeal_id: id, status: "accepted", resolution_note: "Fair enough", resolved_at: iso(h.clock.now()) } });
    expect((await api.join(c.colony, c.member.token)).status).toBe(204);
    expect((await api.appeals(c.colony, c.mod.token)).body.appeals).toEqual([]);
  });

  test("rejecting closes the appeal and relays the note; the ban stays; a new appeal may be filed", async () => {
    const id = await banAndAppeal();
    const r = await api.resolve(c.colony, id, c.founder.token, { accept: false, note: "  Not yet  " });
    expect(r.body).toEqual({ appeal_id: id, status: "rejected", unbanned: false });
    expect(banRow(h, c.colony.id, c.member.id)).not.toBeNull();
    const [n] = await notificationsOf(h, c.member);
    expect(n.kind).toBe("ban_appeal_resolved");
    expect(n.message).toBe(`Your ban appeal in c/${c.colony.name} was rejected`);
    expect(n.meta).toMatchObject({ appeal_id: id, accepted: false, note: "Not yet" });
    expect((await api.myAppeal(c.colony, c.member.token)).body.appeal).toMatchObject({ status: "rejected", resolution_note: "Not yet" });
    expect(eventsOf(h, "colony_unbanned", c.colony.id)).toEqual([]);
    expect((await api.appeal(c.colony, c.member.token)).status).toBe(201);
  });

  test("accepting an appeal whose ban lapsed: unbanned false, the appellant told by ban_appeal_resolved", async () => {
    const id = await banAndAppeal({ duration_days: 1 });
    await advance(h, DAY, c);
    const r = await api.resolve(c.colony, id, c.mod.token, { accept: true });
    expect(r.body).toEqual({ appeal_id: id, status: "accepted", unbanned: false });
    expect((await notificationsOf(h, c.member))[0]).toMatchObject({ kind: "ban_appeal_resolved", meta: { accepted: true, note: null } });
  });

  test("409 CONFLICT once resolved; 404 for an unknown appeal or one of another colony; 422 for a malformed id or body", async () => {
    const id = await banAndAppeal();
    expect((await api.resolve(c.colony, id, c.mod.token, { accept: false })).status).toBe(200);
    expectError(await api.resolve(c.colony, id, c.mod.token, { accept: true }), 409, "CONFLICT");
    expect(banRow(h, c.colony.id, c.member.id)).not.toBeNull();
    expectError(await api.resolve(c.colony, "00000000-0000-7000-8000-000000000000", c.mod.token, { accept: true }), 404, "NOT_FOUND");
    const other = await crew(h);
    expectError(await api.resolve(other.colony, id, other.mod.token, { accept: true }), 404, "NOT_FOUND");
    expect((await api.resolve(c.colony, "nope", c.mod.token, { accept: true })).status).toBe(422);
    expect((await api.resolve(c.colony, id, c.mod.token, {})).status).toBe(422);
    expect((await api.resolve(c.colony, id, c.mod.token, { accept: true, note: "x".repeat(1001) })).status).toBe(422);
  });

  test("anonymous 401; member, stranger and appellant 403 (the appeal stays pending); a site admin may resolve", async () => {
    const id = await banAndAppeal();
    expect((await api.resolve(c.colony, id, null, { accept: true })).status).toBe(401);
    for (const u of [c.stranger, c.member]) expectError(await api.resolve(c.colony, id, u.token, { accept: true }), 403, "FORBIDDEN");
    expect((await api.appeals(c.colony, c.mod.token)).body.appeals).toHaveLength(1);
    expect(banRow(h, c.colony.id, c.member.id)).not.toBeNull();
    expect((await api.resolve(c.colony, id, c.admin.token, { accept: true })).body.unbanned).toBe(true);
  });
});
