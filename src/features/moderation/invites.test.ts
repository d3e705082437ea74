// Moderator invitations (spec Part 2 §2.5, §3 "Mod invite", §4.2, §8, §9): every route as
// anonymous, stranger, member, moderator, colony admin, founder and site admin; each error;
// the 7-day expiry by moving the clock; notifications readable at once; audit rows.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { DAY, HOUR } from "../../core/clock";
import { archive, ban } from "../colonies/fixtures";
import { advance, auditOf, cast, eventsOf, memberOf, notificationsOf, setPermissions, type Cast } from "./governance-fixtures";

let h: Harness;
let c: Cast;

beforeAll(() => {
  h = setup({ rateLimitMultiplier: 0 });
});

// Each test acts in a colony of its own, with a cast of its own.
beforeEach(async () => {
  c = await cast(h);
});

const create = (token: string | null, body: Record<string, unknown>, colonyId = c.colony.id) => h.req("POST", `/api/v1/colonies/${colonyId}/mod-invites`, { token, body });
const list = (token: string | null, colonyId = c.colony.id) => h.req("GET", `/api/v1/colonies/${colonyId}/mod-invites`, { token });
const received = (token: string | null) => h.req("GET", "/api/v1/colonies/mod-invites/received", { token });
const accept = (token: string | null, id: string) => h.req("POST", `/api/v1/colonies/mod-invites/${id}/accept`, { token });
const decline = (token: string | null, id: string) => h.req("POST", `/api/v1/colonies/mod-invites/${id}/decline`, { token });
const revoke = (token: string | null, id: string, colonyId = c.colony.id) => h.req("POST", `/api/v1/colonies/${colonyId}/mod-invites/${id}/revoke`, { token });

async function invite(by: TestUser, invitee: TestUser, extra: Record<string, unknown> = {}, colonyId = c.colony.id) {
  const res = await create(by.token, { invitee_username: invitee.username, ...extra }, colonyId);
  expect(res.status).toBe(201);
  return res.body;
}

describe("POST /colonies/{id}/mod-invites", () => {
  test("the founder invites by @username: 201 ModInviteOut with invitation_id and its deprecated duplicate invite_id", async () => {
    const res = await create(c.founder.token, { invitee_username: `@${c.stranger.username}` });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      invitation_id: expect.any(String),
      invite_id: res.body.invitation_id,
      colony_id: c.colony.id,
      invitee_id: c.stranger.id,
      invited_by: c.founder.id,
      role_offered: "moderator",
      permissions: ["can_manage_settings", "can_remove", "can_ban"],
      status: "pending",
      expires_at: new Date(h.clock.now() + 7 * DAY).toISOString(),
      created_at: new Date(h.clock.now()).toISOString(),
      responded_at: null,
    });
    // No powers until accepted.
    expect(memberOf(h, c.colony.id, c.stranger.id)).toBeNull();
    expect(auditOf(h, c.colony.id).map((a) => a.action)).toContain("mod_invite");
    expect(eventsOf(h, "mod_invite_created", c.colony.id)).toHaveLength(1);
  });

  test("the invitee is notified at once (mod_invite)", async () => {
    const inv = await invite(c.founder, c.stranger);
    const [n] = await notificationsOf(h, c.stranger);
    expect(n.kind).toBe("mod_invite");
    expect(n.message).toBe(`@${c.founder.username} invited you to be a moderator of c/${c.colony.name}`);
    expect(n.meta).toMatchObject({ colony_id: c.colony.id, invitation_id: inv.invitation_id, role_offered: "moderator" });
  });

  test("by user id, with an explicit permission list", async () => {
    const body = await invite(c.founder, c.member, { invitee_username: c.member.id, permissions: ["can_remove", "can_remove"] });
    expect(body.permissions).toEqual(["can_remove"]);
    expect(body.invitee_id).toBe(c.member.id);
  });

  test("who may invite: founder, colony admin, a moderator with can_manage_mods, site admin; not a plain moderator, member or stranger", async () => {
    expect((await create(null, { invitee_username: c.stranger.username })).status).toBe(401);
    expectError(await create(c.stranger.token, { invitee_username: c.member.username }), 403, "FORBIDDEN");
    expectError(await create(c.member.token, { invitee_username: c.stranger.username }), 403, "FORBIDDEN");
    expectError(await create(c.mod.token, { invitee_username: c.stranger.username }), 403, "FORBIDDEN");
    setPermissions(h, c.colony.id, c.mod.id, ["can_manage_mods"]);
    const others = await Promise.all([1, 2, 3].map(() => h.user()));
    expect((await create(c.mod.token, { invitee_username: others[0].username })).status).toBe(201);
    expect((await create(c.colonyAdmin.token, { invitee_username: others[1].username })).status).toBe(201);
    expect((await create(c.siteAdmin.token, { invitee_username: others[2].username })).status).toBe(201);
  });

  test("admin is offered by the founder (and site admins) only", async () => {
    expectError(await create(c.colonyAdmin.token, { invitee_username: c.member.username, role_offered: "admin" }), 403, "FORBIDDEN");
    const body = await invite(c.founder, c.member, { role_offered: "admin" });
    expect(body.role_offered).toBe("admin");
    expect(body.permissions).toEqual(["can_manage_settings", "can_remove", "can_ban", "can_manage_mods"]);
  });

  test("errors: unknown invitee 404, yourself 400, unknown key 400, already a moderator 409, banned 409, a second pending invite 409, bad role 422", async () => {
    // A refused request changes nothing.
    await refused(h, () => create(c.founder.token, { invitee_username: "nobody-here" }), 404, "USER_NOT_FOUND");
    await refused(h, () => create(c.founder.token, { invitee_username: c.founder.username }), 400, "INVALID_INPUT");
    await refused(h, () => create(c.founder.token, { invitee_username: c.member.username, permissions: ["can_fly"] }), 400, "INVALID_INPUT");
    await refused(h, () => create(c.founder.token, { invitee_username: c.mod.username }), 409, "CONFLICT");
    await refused(h, () => create(c.founder.token, { invitee_username: c.colonyAdmin.username, role_offered: "moderator" }), 409, "CONFLICT");
    ban(h, c.colony.id, c.stranger.id);
    await refused(h, () => create(c.founder.token, { invitee_username: c.stranger.username }), 409, "CONFLICT");
    await invite(c.founder, c.member);
    await refused(h, () => create(c.founder.token, { invitee_username: c.member.username }), 409, "CONFLICT");
    await refused(h, () => create(c.founder.token, { invitee_username: c.member.username, role_offered: "owner" }), 422);
    expect(eventsOf(h, "mod_invite_created", c.colony.id)).toHaveLength(1);
  });

  test("a moderator may be offered admin (an upgrade)", async () => {
    expect((await create(c.founder.token, { invitee_username: c.mod.username, role_offered: "admin" })).status).toBe(201);
  });

  test("a private colony is 404 to outsiders; an unknown colony 404", async () => {
    const p = await cast(h, "private");
    expectError(await create(c.stranger.token, { invitee_username: c.member.username }, p.colony.id), 404, "NOT_FOUND");
    expectError(await create(c.founder.token, { invitee_username: c.member.username }, "0190b2c4-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
    expect((await create(p.founder.token, { invitee_username: c.stranger.username }, p.colony.id)).status).toBe(201);
  });
});

describe("GET /colonies/{id}/mod-invites and /colonies/mod-invites/received", () => {
  test("managers see the outstanding invites; the invitee sees theirs across colonies", async () => {
    const other = await cast(h);
    const a = await invite(c.founder, c.stranger);
    const b = await invite(other.founder, c.stranger, {}, other.colony.id);
    const d = await invite(c.founder, c.member);
    await decline(c.member.token, d.invitation_id);
    const res = await list(c.colonyAdmin.token);
    expect(res.status).toBe(200);
    expect(res.body.invites.map((i: any) => i.invitation_id)).toEqual([a.invitation_id]);
    expect((await list(c.siteAdmin.token)).status).toBe(200);
    const mine = await received(c.stranger.token);
    expect(mine.status).toBe(200);
    expect(mine.body.invites.map((i: any) => i.invitation_id).sort()).toEqual([a.invitation_id, b.invitation_id].sort());
    expect((await received(c.member.token)).body.invites).toEqual([]);
  });

  test("permissions: anonymous 401; member and plain moderator 403", async () => {
    expect((await list(null)).status).toBe(401);
    expect((await received(null)).status).toBe(401);
    expectError(await list(c.member.token), 403, "FORBIDDEN");
    expectError(await list(c.mod.token), 403, "FORBIDDEN");
  });
});

describe("accept and decline", () => {
  test("accepting grants the role and the permissions and joins a non-member; the inviter is told", async () => {
    const inv = await invite(c.founder, c.stranger, { permissions: ["can_remove"] });
    const res = await accept(c.stranger.token, inv.invitation_id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ invitation_id: inv.invitation_id, status: "accepted", responded_at: new Date(h.clock.now()).toISOString() });
    expect(memberOf(h, c.colony.id, c.stranger.id)).toEqual({ role: "moderator", approved: 1, permissions: JSON.stringify(["can_remove"]) });
    expect(eventsOf(h, "member_joined", c.colony.id).at(-1)?.payload).toMatchObject({ user_id: c.stranger.id, approved: true });
    expect((await notificationsOf(h, c.founder))[0].kind).toBe("mod_invite_accepted");
    expect(auditOf(h, c.colony.id).map((a) => a.action)).toContain("mod_invite_accepted");
    // The new moderator now holds can_remove only: inviting is still refused.
    expectError(await create(c.stranger.token, { invitee_username: c.member.username }), 403, "FORBIDDEN");
    // A second answer is a conflict.
    expectError(await accept(c.stranger.token, inv.invitation_id), 409, "CONFLICT");
    expectError(await decline(c.stranger.token, inv.invitation_id), 409, "CONFLICT");
  });

  test("an admin invitation makes a member a colony admin; a private colony's pending member is approved", async () => {
    const p = await cast(h, "private");
    await h.req("POST", `/api/v1/colonies/by-name/${p.colony.name}/join`, { token: c.stranger.token });
    expect(memberOf(h, p.colony.id, c.stranger.id)?.approved).toBe(0);
    const inv = await invite(p.founder, c.stranger, { role_offered: "admin" }, p.colony.id);
    expect((await accept(c.stranger.token, inv.invitation_id)).status).toBe(200);
    expect(memberOf(h, p.colony.id, c.stranger.id)).toEqual({ role: "admin", approved: 1, permissions: null });
  });

  test("only the invitee: anyone else gets 404; anonymous 401; unknown id 404", async () => {
    const inv = await invite(c.founder, c.stranger);
    expect((await accept(null, inv.invitation_id)).status).toBe(401);
    for (const u of [c.member, c.mod, c.founder, c.siteAdmin]) {
      expectError(await accept(u.token, inv.invitation_id), 404, "NOT_FOUND");
      expectError(await decline(u.token, inv.invitation_id), 404, "NOT_FOUND");
    }
    expectError(await accept(c.stranger.token, "not-an-id"), 404, "NOT_FOUND");
    expect((await received(c.stranger.token)).body.invites).toHaveLength(1);
  });

  test("declining is terminal; the inviter is told", async () => {
    const inv = await invite(c.founder, c.stranger);
    const res = await decline(c.stranger.token, inv.invitation_id);
    expect(res.body.status).toBe("declined");
    expect((await notificationsOf(h, c.founder))[0].kind).toBe("mod_invite_declined");
    expectError(await accept(c.stranger.token, inv.invitation_id), 409, "CONFLICT");
    expect(memberOf(h, c.colony.id, c.stranger.id)).toBeNull();
  });

  test("an archived colony takes no new members: a non-member cannot accept (409), a member can", async () => {
    const a = await invite(c.founder, c.stranger);
    const b = await invite(c.founder, c.member);
    archive(h, c.colony.id);
    expectError(await accept(c.stranger.token, a.invitation_id), 409, "CONFLICT");
    expect((await accept(c.member.token, b.invitation_id)).status).toBe(200);
  });

  test("a ban after the invitation blocks accepting (409)", async () => {
    const inv = await invite(c.founder, c.stranger);
    ban(h, c.colony.id, c.stranger.id);
    expectError(await accept(c.stranger.token, inv.invitation_id), 409, "CONFLICT");
  });
});

describe("revoke", () => {
  test("a manager withdraws a pending invite; the invitee is told and can no longer accept", async () => {
    const inv = await invite(c.founder, c.stranger);
    expect((await revoke(null, inv.invitation_id)).status).toBe(401);
    expectError(await revoke(c.member.token, inv.invitation_id), 403, "FORBIDDEN");
    expectError(await revoke(c.mod.token, inv.invitation_id), 403, "FORBIDDEN");
    const res = await revoke(c.colonyAdmin.token, inv.invitation_id);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("revoked");
    expect((await notificationsOf(h, c.stranger))[0].kind).toBe("mod_invite_revoked");
    expectError(await accept(c.stranger.token, inv.invitation_id), 409, "CONFLICT");
    expectError(await revoke(c.founder.token, inv.invitation_id), 409, "CONFLICT");
    expect(auditOf(h, c.colony.id).map((a) => a.action)).toContain("mod_invite_revoked");
  });

  test("another colony's invitation is 404 here", async () => {
    const other = await cast(h);
    const inv = await invite(other.founder, c.stranger, {}, other.colony.id);
    expectError(await revoke(c.founder.token, inv.invitation_id), 404, "NOT_FOUND");
    expectError(await revoke(c.siteAdmin.token, "0190b2c4-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
  });
});

describe("7-day expiry", () => {
  test("past 7 days the invite reads expired, cannot be accepted, and the job writes the state", async () => {
    const inv = await invite(c.founder, c.stranger);
    await advance(h, 7 * DAY - HOUR, c.founder, c.stranger);
    expect((await received(c.stranger.token)).body.invites).toHaveLength(1);
    await advance(h, HOUR, c.founder, c.stranger);
    // Derived at read time, before any job ran.
    expect((await received(c.stranger.token)).body.invites).toEqual([]);
    expect((await list(c.founder.token)).body.invites).toEqual([]);
    expectError(await accept(c.stranger.token, inv.invitation_id), 409, "CONFLICT");
    await h.ctx.jobs.runDue();
    const row = h.ctx.db.$client.query("select status from colony_mod_invites where id = ?").get(inv.invitation_id) as { status: string };
    expect(row.status).toBe("expired");
    expect(eventsOf(h, "mod_invite_resolved", c.colony.id).map((e) => e.payload.status)).toEqual(["expired"]);
    expect(auditOf(h, c.colony.id).find((a) => a.action === "mod_invite_expired")?.actor_id).toBeNull();
    // A new invitation can be issued.
    expect((await create(c.founder.token, { invitee_username: c.stranger.username })).status).toBe(201);
  });

  test("a manager may re-issue before the job ran: the lapsed one is closed as expired", async () => {
    await invite(c.founder, c.stranger);
    await advance(h, 8 * DAY, c.founder);
    expect((await create(c.founder.token, { invitee_username: c.stranger.username })).status).toBe(201);
    const statuses = h.ctx.db.$client.query("select status from colony_mod_invites where invitee_id = ? order by created_at").all(c.stranger.id) as { status: string }[];
    expect(statuses.map((s) => s.status)).toEqual(["expired", "pending"]);
    await h.ctx.jobs.runDue();
    expect(eventsOf(h, "mod_invite_resolved", c.colony.id)).toHaveLength(1);
  });

  test("an answered invite is left alone by the job", async () => {
    const inv = await invite(c.founder, c.stranger);
    await accept(c.stranger.token, inv.invitation_id);
    h.clock.advance(8 * DAY);
    await h.ctx.jobs.runDue();
    const row = h.ctx.db.$client.query("select status from colony_mod_invites where id = ?").get(inv.invitation_id) as { status: string };
    expect(row.status).toBe("accepted");
  });
});
