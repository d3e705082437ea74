// A colony keeps a founder (docs/decisions.md §47): when the founder leaves, or a site admin
// demotes, removes or bans them, the longest-serving colony admin, else the longest-serving
// moderator, becomes founder_moderator and the colony's created_by, and can hand the colony on.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { setRole } from "./fixtures";
import { crew, joinAs, type Crew } from "./mod-fixtures";

let h: Harness;
let c: Crew;

beforeAll(() => {
  h = setup();
});

// Each test acts in a colony of its own, with a crew of its own.
beforeEach(async () => {
  c = await crew(h);
});

const roleOf = (u: TestUser) =>
  (h.ctx.db.$client.query("select role from colony_members where colony_id = ? and user_id = ?").get(c.colony.id, u.id) as { role: string } | null)?.role ?? null;
const createdBy = () => (h.ctx.db.$client.query("select created_by from colonies where id = ?").get(c.colony.id) as { created_by: string }).created_by;

const exits: [string, () => Promise<{ status: number }>][] = [
  ["leaves", () => h.req("POST", `/api/v1/colonies/${c.colony.id}/leave`, { token: c.founder.token })],
  ["is demoted by a site admin", () => h.req("POST", `/api/v1/colonies/${c.colony.id}/members/${c.founder.id}/demote`, { token: c.admin.token })],
  ["is removed by a site admin", () => h.req("DELETE", `/api/v1/colonies/${c.colony.id}/members/${c.founder.id}`, { token: c.admin.token })],
  ["is banned by a site admin", () => h.req("POST", `/api/v1/colonies/${c.colony.id}/bans/${c.founder.id}`, { token: c.admin.token, body: { duration_days: 7 } })],
];

describe("the founder goes", () => {
  for (const [how, act] of exits) {
    test(`founder ${how}: the moderator becomes founder when there is no colony admin`, async () => {
      const r = await act();
      expect(r.status).toBeLessThan(300);
      expect(roleOf(c.mod)).toBe("founder_moderator");
      expect(createdBy()).toBe(c.mod.id);
      expect(roleOf(c.member)).toBe("member");
    });
  }

  test("a colony admin goes before a moderator who served longer; among admins the longest-serving", async () => {
    const later = await h.user();
    await joinAs(h, c.colony, later, c.founder);
    setRole(h, c.colony.id, later.id, "admin");
    setRole(h, c.colony.id, c.member.id, "admin");
    expect((await h.req("POST", `/api/v1/colonies/${c.colony.id}/leave`, { token: c.founder.token })).status).toBe(204);
    expect(roleOf(c.member)).toBe("founder_moderator");
    expect(roleOf(later)).toBe("admin");
    expect(roleOf(c.mod)).toBe("moderator");
  });

  test("the new founder can offer the colony to someone else", async () => {
    await h.req("POST", `/api/v1/colonies/${c.colony.id}/leave`, { token: c.founder.token });
    const r = await h.req("POST", `/api/v1/colonies/${c.colony.id}/members/${c.member.id}/promote`, { token: c.mod.token });
    expect(r.status).toBeLessThan(300);
    const t = await h.req("POST", `/api/v1/colonies/${c.colony.id}/ownership-transfers`, { token: c.mod.token, body: { recipient_username: c.member.username } });
    expect(t.status).toBe(201);
  });

  test("a moderator leaving passes nothing on", async () => {
    expect((await h.req("POST", `/api/v1/colonies/${c.colony.id}/leave`, { token: c.mod.token })).status).toBe(204);
    expect(roleOf(c.founder)).toBe("founder_moderator");
    expect(createdBy()).toBe(c.founder.id);
  });
});
