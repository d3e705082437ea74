// The roster and member approval: GET /colonies/{id}/members, POST .../members/{user}/approve and
// /revoke-approval (spec Part 2 §2.2, §3, §4.1, §7), as anonymous, stranger, pending member,
// member, moderator, founder and site admin.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { HOUR } from "../../core/clock";
import { limitRule } from "../../core/limits";
import { GENERAL_ID, eventsOf, makeColony, setRole, softDelete } from "./fixtures";
import { membershipOf, type ColonyRow } from "./service";

let h: Harness;
let founder: TestUser;
let stranger: TestUser;

beforeAll(() => {
  h = setup();
});

// Each test acts with people and colonies of its own.
beforeEach(async () => {
  founder = await h.user();
  stranger = await h.user();
});

const members = (colonyId: string, query: Record<string, string | number | boolean> = {}, token: string | null = null) =>
  h.req("GET", `/api/v1/colonies/${colonyId}/members`, { token, query });
const approve = (colonyId: string, target: string, token: string | null = founder.token) =>
  h.req("POST", `/api/v1/colonies/${colonyId}/members/${target}/approve`, { token });
const revoke = (colonyId: string, target: string, token: string | null = founder.token) =>
  h.req("POST", `/api/v1/colonies/${colonyId}/members/${target}/revoke-approval`, { token });
const joinByName = (name: string, token: string) => h.req("POST", `/api/v1/colonies/by-name/${name}/join`, { token });

/** A colony of `type` with an approved member, a pending member and a moderator. */
async function populated(type: "public" | "restricted" | "private") {
  const colony = makeColony(h, founder, { type });
  const member = await h.user();
  const pending = await h.user();
  const mod = await h.user();
  for (const u of [member, mod, pending]) {
    h.clock.advance(1000);
    await joinByName(colony.name, u.token);
  }
  if (type !== "public") {
    await approve(colony.id, member.id);
    await approve(colony.id, mod.id);
  } else {
    // In a public colony nobody is pending; make one by revoking approval.
    await revoke(colony.id, pending.id);
  }
  setRole(h, colony.id, mod.id, "moderator");
  return { colony, member, pending, mod };
}

describe("GET /colonies/{id}/members", () => {
  test("the roster in join order with every field", async () => {
    const { colony, member, pending, mod } = await populated("restricted");
    const res = await members(colony.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total-count")).toBe("4");
    expect(res.headers.get("x-has-more")).toBe("false");
    expect(res.body.map((m: any) => [m.username, m.role, m.approved, m.is_creator])).toEqual([
      [founder.username, "founder_moderator", true, true],
      [member.username, "member", true, false],
      [mod.username, "moderator", true, false],
      [pending.username, "member", false, false],
    ]);
    expect(res.body[1]).toEqual({
      user_id: member.id,
      username: member.username,
      display_name: member.username,
      user_type: "agent",
      role: "member",
      joined_at: expect.stringMatching(/Z$/),
      is_creator: false,
      approved: true,
    });
    expect([pending.id, mod.id]).toContain(res.body[3].user_id);
  });

  test("pending=true lists those awaiting approval, pending=false the approved", async () => {
    const { colony, pending } = await populated("restricted");
    expect((await members(colony.id, { pending: true })).body.map((m: any) => m.user_id)).toEqual([pending.id]);
    const approved = await members(colony.id, { pending: false });
    expect(approved.body).toHaveLength(3);
    expect(approved.body.every((m: any) => m.approved)).toBe(true);
    expect(approved.headers.get("x-total-count")).toBe("3");
  });

  test("role filters; moderator includes the founder", async () => {
    const { colony, mod } = await populated("public");
    expect((await members(colony.id, { role: "moderator" })).body.map((m: any) => m.username)).toEqual([founder.username, mod.username]);
    expect((await members(colony.id, { role: "founder_moderator" })).body.map((m: any) => m.username)).toEqual([founder.username]);
    expect((await members(colony.id, { role: "member" })).body).toHaveLength(2);
    expect((await members(colony.id, { role: "admin" })).body).toEqual([]);
    expect((await members(colony.id, { role: "owner" })).status).toBe(422);
    expect(mod.id).toBeDefined();
  });

  test("paging: limit 1-500 default 100, headers report the total", async () => {
    const { colony } = await populated("public");
    const first = await members(colony.id, { limit: 3 });
    expect(first.body).toHaveLength(3);
    expect(first.headers.get("x-has-more")).toBe("true");
    const second = await members(colony.id, { limit: 3, page: 2 });
    expect(second.body).toHaveLength(1);
    expect(second.headers.get("x-has-more")).toBe("false");
    expect((await members(colony.id, { limit: 0 })).status).toBe(422);
    expect((await members(colony.id, { limit: 501 })).status).toBe(422);
    expect((await members(colony.id, { limit: 500 })).status).toBe(200);
    expectError(await members(colony.id, { page: 2, offset: 1 }), 400, "INVALID_INPUT");
  });

  test("public and restricted rosters are readable by anyone", async () => {
    for (const type of ["public", "restricted"] as const) {
      const colony = makeColony(h, founder, { type });
      for (const token of [null, stranger.token]) expect((await members(colony.id, {}, token)).status).toBe(200);
    }
  });

  test("private: 404 to anonymous, strangers and pending members; 200 to members, moderators, the founder and site admins", async () => {
    const { colony, member, pending, mod } = await populated("private");
    const admin = await h.user({ admin: true });
    for (const token of [null, stranger.token, pending.token]) expectError(await members(colony.id, {}, token), 404, "NOT_FOUND");
    for (const token of [member.token, mod.token, founder.token, admin.token]) expect((await members(colony.id, {}, token)).body).toHaveLength(4);
  });

  test("404 NOT_FOUND for a missing or soft-deleted colony; 422 for a malformed id", async () => {
    expectError(await members("0190a8b0-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
    const c = makeColony(h, founder);
    softDelete(h, c.id);
    expectError(await members(c.id, {}, founder.token), 404, "NOT_FOUND");
    expect((await members("not-a-uuid")).status).toBe(422);
  });
});

describe("POST .../members/{user_id}/approve", () => {
  let colony: ColonyRow;
  let applicant: TestUser;

  beforeEach(async () => {
    colony = makeColony(h, founder, { type: "restricted" });
    applicant = await h.user();
    await joinByName(colony.name, applicant.token);
  });

  test("a moderator approves a pending member: 204, approved, colony_member_approved emitted", async () => {
    const res = await approve(colony.id, applicant.id);
    expect(res.status).toBe(204);
    expect(membershipOf(h.ctx, colony.id, applicant.id)?.approved).toBe(true);
    const evs = eventsOf(h, "colony_member_approved", colony.id);
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({ actor_id: founder.id, subject_id: colony.id });
    expect(evs[0].payload).toEqual({ colony_id: colony.id, colony_name: colony.name, members_only: false, user_id: applicant.id, username: applicant.username, user_type: "agent" });
  });

  test("the target may be named by username", async () => {
    expect((await approve(colony.id, applicant.username)).status).toBe(204);
    expect(membershipOf(h.ctx, colony.id, applicant.id)?.approved).toBe(true);
  });

  test("idempotent: approving an approved member is a no-op 204 with no second event", async () => {
    await approve(colony.id, applicant.id);
    expect((await approve(colony.id, applicant.id)).status).toBe(204);
    expect(eventsOf(h, "colony_member_approved", colony.id)).toHaveLength(1);
  });

  test("an approved member of a restricted colony can then take part", async () => {
    const { assertCanParticipate, findColony } = await import("./service");
    const actor = { id: applicant.id, isAdmin: false };
    expect(() => assertCanParticipate(h.ctx, findColony(h.ctx, colony.id)!, actor)).toThrow();
    await approve(colony.id, applicant.id);
    expect(() => assertCanParticipate(h.ctx, findColony(h.ctx, colony.id)!, actor)).not.toThrow();
  });

  test("moderators, colony admins and site admins may approve", async () => {
    const mod = await h.user();
    await joinByName(colony.name, mod.token);
    await approve(colony.id, mod.id);
    setRole(h, colony.id, mod.id, "moderator");
    const other = await h.user();
    await joinByName(colony.name, other.token);
    expect((await approve(colony.id, other.id, mod.token)).status).toBe(204);

    setRole(h, colony.id, mod.id, "admin");
    const third = await h.user();
    await joinByName(colony.name, third.token);
    expect((await approve(colony.id, third.id, mod.token)).status).toBe(204);

    const admin = await h.user({ admin: true });
    expect((await approve(colony.id, applicant.id, admin.token)).status).toBe(204);
  });

  test("403 FORBIDDEN for a stranger, a member, and the pending member themself; nothing changes", async () => {
    const member = await h.user();
    await joinByName(colony.name, member.token);
    await approve(colony.id, member.id);
    for (const token of [stranger.token, member.token, applicant.token]) await refused(h, () => approve(colony.id, applicant.id, token), 403, "FORBIDDEN");
    expect(membershipOf(h.ctx, colony.id, applicant.id)?.approved).toBe(false);
    expect(eventsOf(h, "colony_member_approved", colony.id)).toHaveLength(1); // the member's own approval only
  });

  test("a pending moderator-role holder has no moderator powers", async () => {
    const half = await h.user();
    await joinByName(colony.name, half.token);
    setRole(h, colony.id, half.id, "moderator");
    expectError(await approve(colony.id, applicant.id, half.token), 403, "FORBIDDEN");
  });

  test("404 NOT_FOUND when the target is not a member or does not exist", async () => {
    expectError(await approve(colony.id, stranger.id), 404, "NOT_FOUND");
    expectError(await approve(colony.id, "nobody-here"), 404, "NOT_FOUND");
    expectError(await approve(colony.id, "0190a8b0-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
  });

  test("a non-moderator learns nothing about membership: 403 before 404", async () => {
    expectError(await approve(colony.id, "nobody-here", stranger.token), 403, "FORBIDDEN");
  });

  test("404 NOT_FOUND for a private colony the caller cannot see, missing or deleted colonies", async () => {
    const priv = makeColony(h, founder, { type: "private" });
    await joinByName(priv.name, applicant.token);
    expectError(await approve(priv.id, applicant.id, stranger.token), 404, "NOT_FOUND");
    expectError(await approve(priv.id, applicant.id, applicant.token), 404, "NOT_FOUND");
    expectError(await approve("0190a8b0-0000-7000-8000-000000000000", applicant.id), 404, "NOT_FOUND");
    softDelete(h, colony.id);
    expectError(await approve(colony.id, applicant.id), 404, "NOT_FOUND");
  });

  test("the private colony's founder approves a by-name join; the member can then see it", async () => {
    const priv = makeColony(h, founder, { type: "private", name: "inner-circle" });
    await joinByName("inner-circle", applicant.token);
    expect((await h.req("GET", "/api/v1/colonies/by-name/inner-circle", { token: applicant.token })).status).toBe(404);
    expect((await approve(priv.id, applicant.username)).status).toBe(204);
    expect((await h.req("GET", "/api/v1/colonies/by-name/inner-circle", { token: applicant.token })).status).toBe(200);
  });

  test("401 AUTH_INVALID_TOKEN anonymously", async () => {
    expectError(await approve(colony.id, applicant.id, null), 401, "AUTH_INVALID_TOKEN");
  });

  test("user_id longer than 64 characters is 422", async () => {
    expect((await approve(colony.id, "u".repeat(65))).status).toBe(422);
  });
});

describe("POST .../members/{user_id}/revoke-approval", () => {
  let colony: ColonyRow;
  let member: TestUser;

  beforeEach(async () => {
    colony = makeColony(h, founder, { type: "restricted" });
    member = await h.user();
    await joinByName(colony.name, member.token);
    await approve(colony.id, member.id);
  });

  test("204: stays a member, unapproved, nobody notified; idempotent", async () => {
    expect((await revoke(colony.id, member.id)).status).toBe(204);
    expect(membershipOf(h.ctx, colony.id, member.id)).toMatchObject({ role: "member", approved: false });
    expect((await revoke(colony.id, member.username)).status).toBe(204);
    expect(eventsOf(h, "colony_member_approval_revoked", colony.id)).toHaveLength(1);
    expect(eventsOf(h, "colony_member_approved", colony.id)).toHaveLength(1);
    // Still on the roster, now pending; the restricted colony stays readable.
    expect((await members(colony.id, { pending: true })).body.map((m: any) => m.user_id)).toEqual([member.id]);
    expect((await h.req("GET", `/api/v1/colonies/by-name/${colony.name}`, { token: member.token })).status).toBe(200);
  });

  test("re-approval works", async () => {
    await revoke(colony.id, member.id);
    await approve(colony.id, member.id);
    expect(membershipOf(h.ctx, colony.id, member.id)?.approved).toBe(true);
  });

  test("403 FORBIDDEN for non-moderators", async () => {
    for (const token of [stranger.token, member.token]) expectError(await revoke(colony.id, member.id, token), 403, "FORBIDDEN");
    expect(membershipOf(h.ctx, colony.id, member.id)?.approved).toBe(true);
  });

  test("404 NOT_FOUND when not a member", async () => {
    expectError(await revoke(colony.id, stranger.id), 404, "NOT_FOUND");
  });

  test("409 CONFLICT for a member holding a moderating role", async () => {
    expectError(await revoke(colony.id, founder.id), 409, "CONFLICT");
    setRole(h, colony.id, member.id, "moderator");
    expectError(await revoke(colony.id, member.id), 409, "CONFLICT");
    expect(membershipOf(h.ctx, colony.id, member.id)?.approved).toBe(true);
  });

  test("in a private colony, revoking approval hides the colony again", async () => {
    const priv = makeColony(h, founder, { type: "private", name: "closing-circle" });
    await joinByName("closing-circle", member.token);
    await approve(priv.id, member.id);
    expect((await members(priv.id, {}, member.token)).status).toBe(200);
    await revoke(priv.id, member.id);
    expectError(await members(priv.id, {}, member.token), 404, "NOT_FOUND");
  });
});

describe("colony admin rate limit", () => {
  test("approve and revoke share 30 per hour per moderator (429 RATE_LIMIT_COLONY_ADMIN)", async () => {
    const colony = makeColony(h, founder, { type: "restricted" });
    await joinByName(colony.name, stranger.token);
    for (let i = 0; i < 30; i++) expect((await (i % 2 ? revoke : approve)(colony.id, stranger.id)).status).toBe(204);
    expectError(await approve(colony.id, stranger.id), 429, "RATE_LIMIT_COLONY_ADMIN");
    h.clock.advance(HOUR);
    expect((await approve(colony.id, stranger.id)).status).toBe(204);
  });

  test("a refused approval is not charged", async () => {
    const res = await approve(GENERAL_ID, stranger.id, stranger.token);
    expectError(res, 403, "FORBIDDEN");
    expect(h.ctx.limits.status(limitRule("colony_admin"), { userId: stranger.id }).current).toBe(0);
  });
});
