// Colony roles: POST .../members/{user}/promote and /demote, DELETE .../members/{user} (spec Part 2
// §3, §4.1, §8; docs/decisions.md §31), as anonymous, stranger, member, moderator, founder and site
// admin; the approve audit row.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness } from "../../../test/harness";
import { limitRule } from "../../core/limits";
import { eventsOf, makeColony, memberCount, setRole } from "./fixtures";
import { auditRows, crew, joinAs, kindsOf, modApi, notificationsOf, rolesOf, type Crew } from "./mod-fixtures";

let h: Harness;
let api: ReturnType<typeof modApi>;
let c: Crew;

beforeAll(() => {
  h = setup({ rateLimitMultiplier: 0 });
  api = modApi(h);
});

// Each test acts in a colony of its own, with a crew of its own; the test of the rate limit makes a
// database of its own, with the limits on.
beforeEach(async () => {
  c = await crew(h);
});

describe("POST .../members/{user_id}/promote", () => {
  test("a moderator makes a member a moderator: audit row, event and a notification readable at once", async () => {
    const r = await api.promote(c.colony, c.member.id, c.mod.token);
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(rolesOf(h, c.colony.id)[c.member.id]).toBe("moderator");
    expect(auditRows(h, c.colony.id, "promote")).toEqual([
      { actor_id: c.mod.id, action: "promote", target_type: "user", target_id: c.member.id, target_user_id: c.member.id, reason: null, meta: { role: "moderator" }, opened_at: null },
    ]);
    const [n] = await notificationsOf(h, c.member);
    expect(n.kind).toBe("colony_promoted");
    expect(n.message).toBe(`You are now a moderator of c/${c.colony.name}`);
    expect(n.actor?.id).toBe(c.mod.id);
    expect(n.meta).toMatchObject({ colony_id: c.colony.id, colony_name: c.colony.name, role: "moderator" });
    expect(eventsOf(h, "colony_member_promoted", c.colony.id).map((e) => e.payload)).toEqual([
      { colony_id: c.colony.id, colony_name: c.colony.name, user_id: c.member.id, username: c.member.username },
    ]);
    // The new moderator moderates at once.
    expect((await api.bans(c.colony, c.member.token)).status).toBe(200);
  });

  test("by username; the founder and a site admin (not a member) may promote too", async () => {
    expect((await api.promote(c.colony, c.member.username, c.founder.token)).status).toBe(204);
    const other = await h.user();
    await joinAs(h, c.colony, other, c.founder);
    expect((await api.promote(c.colony, other.id, c.admin.token)).status).toBe(204);
    expect(rolesOf(h, c.colony.id)[other.id]).toBe("moderator");
  });

  test("anonymous 401; a stranger or a plain member 403, and nothing changes", async () => {
    await refused(h, () => api.promote(c.colony, c.member.id, null), 401);
    await refused(h, () => api.promote(c.colony, c.member.id, c.stranger.token), 403, "FORBIDDEN");
    const other = await h.user();
    await joinAs(h, c.colony, other, c.founder);
    await refused(h, () => api.promote(c.colony, other.id, c.member.token), 403, "FORBIDDEN");
    expect(rolesOf(h, c.colony.id)[other.id]).toBe("member");
    expect(auditRows(h, c.colony.id, "promote")).toEqual([]);
    expect(await kindsOf(h, other)).toEqual([]);
  });

  test("a colony admin target is refused (403); a moderator or the founder is left as is (204, no audit row)", async () => {
    setRole(h, c.colony.id, c.member.id, "admin");
    expectError(await api.promote(c.colony, c.member.id, c.founder.token), 403, "FORBIDDEN");
    expectError(await api.promote(c.colony, c.member.id, c.admin.token), 403, "FORBIDDEN");
    expect(rolesOf(h, c.colony.id)[c.member.id]).toBe("admin");
    expect((await api.promote(c.colony, c.mod.id, c.founder.token)).status).toBe(204);
    expect((await api.promote(c.colony, c.founder.id, c.mod.token)).status).toBe(204);
    expect(rolesOf(h, c.colony.id)[c.founder.id]).toBe("founder_moderator");
    expect(auditRows(h, c.colony.id, "promote")).toEqual([]);
  });

  test("a member awaiting approval is 409 CONFLICT until approved", async () => {
    const restricted = makeColony(h, c.founder, { type: "restricted" });
    const pending = await h.user();
    expect((await h.req("POST", `/api/v1/colonies/${restricted.id}/join`, { token: pending.token })).status).toBe(204);
    expectError(await api.promote(restricted, pending.id, c.founder.token), 409, "CONFLICT");
    expect((await h.req("POST", `/api/v1/colonies/${restricted.id}/members/${pending.id}/approve`, { token: c.founder.token })).status).toBe(204);
    expect((await api.promote(restricted, pending.id, c.founder.token)).status).toBe(204);
  });

  test("404 NOT_FOUND for a non-member or an unknown user; 404 for a missing colony; 422 for a malformed colony id", async () => {
    expectError(await api.promote(c.colony, c.stranger.id, c.mod.token), 404, "NOT_FOUND");
    expectError(await api.promote(c.colony, "nobody-here", c.mod.token), 404, "NOT_FOUND");
    expectError(await api.promote("00000000-0000-7000-8000-000000000000", c.member.id, c.mod.token), 404, "NOT_FOUND");
    expect((await api.promote("not-a-uuid", c.member.id, c.mod.token)).status).toBe(422);
  });

  test("a private colony is 404 to a stranger", async () => {
    const p = await crew(h, "private");
    expectError(await api.promote(p.colony, p.member.id, p.stranger.token), 404, "NOT_FOUND");
    expect((await api.promote(p.colony, p.member.id, p.mod.token)).status).toBe(204);
  });
});

describe("POST .../members/{user_id}/demote", () => {
  test("a moderator makes another moderator a member again, with a demote audit row and no notification", async () => {
    const r = await api.demote(c.colony, c.mod.username, c.founder.token);
    expect(r.status).toBe(204);
    expect(rolesOf(h, c.colony.id)[c.mod.id]).toBe("member");
    expect(auditRows(h, c.colony.id, "demote").map((a) => [a.actor_id, a.target_user_id, a.meta])).toEqual([[c.founder.id, c.mod.id, { previous_role: "moderator" }]]);
    expect(await kindsOf(h, c.mod)).toEqual([]);
    // Their moderator powers went with the role.
    expectError(await api.bans(c.colony, c.mod.token), 403, "FORBIDDEN");
  });

  test("any moderator may demote a moderator, themselves included; a site admin too", async () => {
    const second = await h.user();
    await joinAs(h, c.colony, second, c.founder);
    setRole(h, c.colony.id, second.id, "moderator");
    expect((await api.demote(c.colony, second.id, c.mod.token)).status).toBe(204);
    expect((await api.demote(c.colony, c.mod.id, c.mod.token)).status).toBe(204);
    expect(rolesOf(h, c.colony.id)[c.mod.id]).toBe("member");
    await api.promote(c.colony, c.mod.id, c.founder.token);
    expect((await api.demote(c.colony, c.mod.id, c.admin.token)).status).toBe(204);
  });

  test("anonymous 401, stranger and member 403", async () => {
    expect((await api.demote(c.colony, c.mod.id, null)).status).toBe(401);
    expectError(await api.demote(c.colony, c.mod.id, c.stranger.token), 403, "FORBIDDEN");
    expectError(await api.demote(c.colony, c.mod.id, c.member.token), 403, "FORBIDDEN");
    expect(rolesOf(h, c.colony.id)[c.mod.id]).toBe("moderator");
  });

  test("a colony admin is refused to everyone; the founder is demoted by a site admin only", async () => {
    setRole(h, c.colony.id, c.member.id, "admin");
    for (const u of [c.mod, c.founder, c.admin]) expectError(await api.demote(c.colony, c.member.id, u.token), 403, "FORBIDDEN");
    expectError(await api.demote(c.colony, c.founder.id, c.mod.token), 403, "FORBIDDEN");
    expectError(await api.demote(c.colony, c.founder.id, c.founder.token), 403, "FORBIDDEN");
    expect(rolesOf(h, c.colony.id)[c.founder.id]).toBe("founder_moderator");
    expect((await api.demote(c.colony, c.founder.id, c.admin.token)).status).toBe(204);
    expect(rolesOf(h, c.colony.id)[c.founder.id]).toBe("member");
  });

  test("the last moderator is 409 CONFLICT (colony admins count as moderators)", async () => {
    const solo = makeColony(h, c.founder);
    expectError(await api.demote(solo, c.founder.id, c.admin.token), 409, "CONFLICT");
    expect(rolesOf(h, solo.id)[c.founder.id]).toBe("founder_moderator");
    // A colony admin besides the founder: the founder may go.
    const adm = await h.user();
    await joinAs(h, solo, adm, c.founder);
    setRole(h, solo.id, adm.id, "admin");
    expect((await api.demote(solo, c.founder.id, c.admin.token)).status).toBe(204);
  });

  test("demoting a plain member changes nothing (204); a non-member is 404", async () => {
    expect((await api.demote(c.colony, c.member.id, c.mod.token)).status).toBe(204);
    expect(auditRows(h, c.colony.id, "demote")).toEqual([]);
    expectError(await api.demote(c.colony, c.stranger.id, c.mod.token), 404, "NOT_FOUND");
  });
});

describe("DELETE .../members/{user_id}", () => {
  test("a moderator removes a member: gone from the roster, member_count down, remove_member written; they may join again", async () => {
    const before = memberCount(h, c.colony.id);
    const r = await api.remove(c.colony, c.member.id, c.mod.token);
    expect(r.status).toBe(204);
    expect(rolesOf(h, c.colony.id)[c.member.id]).toBeUndefined();
    expect(memberCount(h, c.colony.id)).toBe(before - 1);
    expect((await api.members(c.colony)).body.map((m: any) => m.user_id)).not.toContain(c.member.id);
    expect(auditRows(h, c.colony.id, "remove_member")).toEqual([
      { actor_id: c.mod.id, action: "remove_member", target_type: "user", target_id: c.member.id, target_user_id: c.member.id, reason: null, meta: { role: "member", approved: true }, opened_at: null },
    ]);
    expect(eventsOf(h, "colony_member_removed", c.colony.id)).toHaveLength(1);
    expect((await api.join(c.colony, c.member.token)).status).toBe(204);
  });

  test("a pending member can be removed (a join request turned down)", async () => {
    const restricted = makeColony(h, c.founder, { type: "restricted" });
    const pending = await h.user();
    await h.req("POST", `/api/v1/colonies/${restricted.id}/join`, { token: pending.token });
    expect((await api.remove(restricted, pending.username, c.founder.token)).status).toBe(204);
    expect(auditRows(h, restricted.id, "remove_member")[0].meta).toEqual({ role: "member", approved: false });
  });

  test("anonymous 401, stranger and member 403 (nothing changes); a site admin may remove", async () => {
    expect((await api.remove(c.colony, c.member.id, null)).status).toBe(401);
    expectError(await api.remove(c.colony, c.member.id, c.stranger.token), 403, "FORBIDDEN");
    const other = await h.user();
    await joinAs(h, c.colony, other, c.founder);
    expectError(await api.remove(c.colony, c.member.id, other.token), 403, "FORBIDDEN");
    expect(rolesOf(h, c.colony.id)[c.member.id]).toBe("member");
    expect(auditRows(h, c.colony.id, "remove_member")).toEqual([]);
    expect((await api.remove(c.colony, c.member.id, c.admin.token)).status).toBe(204);
  });

  test("the founder is protected from everyone but a site admin", async () => {
    expectError(await api.remove(c.colony, c.founder.id, c.mod.token), 403, "FORBIDDEN");
    expect(rolesOf(h, c.colony.id)[c.founder.id]).toBe("founder_moderator");
    expect((await api.remove(c.colony, c.founder.id, c.admin.token)).status).toBe(204);
    expect(rolesOf(h, c.colony.id)[c.founder.id]).toBeUndefined();
  });

  test("a colony admin is removed only by the founder or a site admin", async () => {
    setRole(h, c.colony.id, c.member.id, "admin");
    expectError(await api.remove(c.colony, c.member.id, c.mod.token), 403, "FORBIDDEN");
    expect((await api.remove(c.colony, c.member.id, c.founder.token)).status).toBe(204);
    const adm = await h.user();
    await joinAs(h, c.colony, adm, c.founder);
    setRole(h, c.colony.id, adm.id, "admin");
    expect((await api.remove(c.colony, adm.id, c.admin.token)).status).toBe(204);
  });

  test("a moderator may remove another moderator; the last moderator is 409 CONFLICT", async () => {
    const second = await h.user();
    await joinAs(h, c.colony, second, c.founder);
    setRole(h, c.colony.id, second.id, "moderator");
    expect((await api.remove(c.colony, second.id, c.mod.token)).status).toBe(204);
    const solo = makeColony(h, c.founder);
    expectError(await api.remove(solo, c.founder.id, c.admin.token), 409, "CONFLICT");
    expect(rolesOf(h, solo.id)[c.founder.id]).toBe("founder_moderator");
  });

  test("404 NOT_FOUND when the user is not a member", async () => {
    expectError(await api.remove(c.colony, c.stranger.id, c.mod.token), 404, "NOT_FOUND");
    expectError(await api.remove(c.colony, "00000000-0000-7000-8000-000000000001", c.mod.token), 404, "NOT_FOUND");
  });
});

describe("approving a member", () => {
  test("writes the approve_member audit row (a no-op approval writes none)", async () => {
    const restricted = makeColony(h, c.founder, { type: "restricted" });
    const pending = await h.user();
    await h.req("POST", `/api/v1/colonies/${restricted.id}/join`, { token: pending.token });
    const approve = () => h.req("POST", `/api/v1/colonies/${restricted.id}/members/${pending.id}/approve`, { token: c.founder.token });
    expect((await approve()).status).toBe(204);
    expect((await approve()).status).toBe(204);
    expect(auditRows(h, restricted.id, "approve_member").map((a) => [a.actor_id, a.target_user_id])).toEqual([[c.founder.id, pending.id]]);
  });
});

describe("rate limit", () => {
  test("promote, demote and remove share the colony admin budget: 30 per hour per moderator", async () => {
    const lh = setup();
    const lapi = modApi(lh);
    const lc = await crew(lh);
    const max = limitRule("colony_admin").max;
    expect(max).toBe(30);
    for (let i = 0; i < max / 2; i++) {
      expect((await lapi.promote(lc.colony, lc.member.id, lc.founder.token)).status).toBe(204);
      expect((await lapi.demote(lc.colony, lc.member.id, lc.founder.token)).status).toBe(204);
    }
    expectError(await lapi.remove(lc.colony, lc.member.id, lc.founder.token), 429, "RATE_LIMIT_COLONY_ADMIN");
    expect(rolesOf(lh, lc.colony.id)[lc.member.id]).toBe("member");
    // Another moderator has their own budget.
    expect((await lapi.remove(lc.colony, lc.member.id, lc.mod.token)).status).toBe(204);
  });
});
