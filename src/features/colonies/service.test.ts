// The functions other features call (posts, comments, votes, feeds, search, webhooks): membership
// questions, read and write checks, the post counter and the readable-colony filter; plus the
// query plans of the list queries (ARCHITECTURE rule 9).
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { and, asc, eq, ne } from "drizzle-orm";
import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { ApiError } from "../../core/errors";
import { GENERAL_ID, ban, makeColony, setRole, softDelete } from "./fixtures";
import {
  adjustPostCount,
  approvedMemberColonyIds,
  assertCanParticipate,
  canRead,
  colonyLabels,
  colonyNameTaken,
  findColony,
  getReadableColony,
  isModerator,
  listColoniesQueries,
  membershipOf,
  readableColonyFilter,
  type Actor,
  type ColonyRow,
} from "./service";
import { colonyMembers } from "./tables";

let h: Harness;
let founder: TestUser;
let stranger: TestUser;
let pendingUser: TestUser;
let memberUser: TestUser;
let pub: ColonyRow;
let restricted: ColonyRow;
let priv: ColonyRow;

const actor = (u: TestUser, isAdmin = false): Actor => ({ id: u.id, isAdmin });
const fresh = (c: ColonyRow) => findColony(h.ctx, c.id)!;

function refusal(fn: () => unknown): { status: number; code: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, code: err.code };
    throw err;
  }
  return { status: 0, code: "none" };
}

beforeAll(() => {
  h = setup();
});

// Each test has people and three colonies of its own.
beforeEach(async () => {
  founder = await h.user();
  stranger = await h.user();
  pendingUser = await h.user();
  memberUser = await h.user();
  pub = makeColony(h, founder);
  restricted = makeColony(h, founder, { type: "restricted" });
  priv = makeColony(h, founder, { type: "private" });
  for (const c of [pub, restricted, priv]) {
    await h.req("POST", `/api/v1/colonies/by-name/${c.name}/join`, { token: pendingUser.token });
    await h.req("POST", `/api/v1/colonies/by-name/${c.name}/join`, { token: memberUser.token });
    if (c.communityType !== "public") await h.req("POST", `/api/v1/colonies/${c.id}/members/${memberUser.id}/approve`, { token: founder.token });
  }
});

describe("membershipOf and isModerator", () => {
  test("membership facts", () => {
    expect(membershipOf(h.ctx, priv.id, founder.id)).toMatchObject({ role: "founder_moderator", approved: true });
    expect(membershipOf(h.ctx, priv.id, pendingUser.id)).toMatchObject({ role: "member", approved: false });
    expect(membershipOf(h.ctx, priv.id, stranger.id)).toBeNull();
    expect(membershipOf(h.ctx, pub.id, pendingUser.id)).toMatchObject({ approved: true });
  });

  test("isModerator: approved holders of moderator, founder_moderator or admin", () => {
    expect(isModerator(h.ctx, pub.id, founder.id)).toBe(true);
    expect(isModerator(h.ctx, pub.id, memberUser.id)).toBe(false);
    setRole(h, pub.id, memberUser.id, "moderator");
    expect(isModerator(h.ctx, pub.id, memberUser.id)).toBe(true);
    setRole(h, pub.id, memberUser.id, "admin");
    expect(isModerator(h.ctx, pub.id, memberUser.id)).toBe(true);
    setRole(h, priv.id, pendingUser.id, "moderator");
    expect(isModerator(h.ctx, priv.id, pendingUser.id)).toBe(false);
    expect(isModerator(h.ctx, pub.id, stranger.id)).toBe(false);
  });
});

describe("canRead and getReadableColony", () => {
  test("the visibility matrix", async () => {
    const admin = await h.user({ admin: true });
    const cases: [ColonyRow, Actor | null, boolean][] = [
      [pub, null, true],
      [restricted, null, true],
      [priv, null, false],
      [priv, actor(stranger), false],
      [priv, actor(pendingUser), false],
      [priv, actor(memberUser), true],
      [priv, actor(founder), true],
      [priv, actor(admin, true), true],
    ];
    for (const [c, who, expected] of cases) {
      expect(canRead(h.ctx, c, who)).toBe(expected);
      if (expected) expect(getReadableColony(h.ctx, who, c.id).id).toBe(c.id);
      else expect(refusal(() => getReadableColony(h.ctx, who, c.id))).toEqual({ status: 404, code: "NOT_FOUND" });
    }
  });

  test("by name or by id (any case); deleted is 404 to everyone", async () => {
    expect(getReadableColony(h.ctx, null, ` ${pub.name.toUpperCase()} `).id).toBe(pub.id);
    expect(getReadableColony(h.ctx, null, pub.id.toUpperCase()).id).toBe(pub.id);
    softDelete(h, pub.id);
    const admin = await h.user({ admin: true });
    expect(canRead(h.ctx, fresh(pub), actor(admin, true))).toBe(false);
    expect(refusal(() => getReadableColony(h.ctx, actor(founder), pub.name))).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(refusal(() => getReadableColony(h.ctx, null, "nope"))).toEqual({ status: 404, code: "NOT_FOUND" });
  });
});

describe("assertCanParticipate", () => {
  test("the write matrix", async () => {
    const admin = await h.user({ admin: true });
    const ok = { status: 0, code: "none" };
    const forbidden = { status: 403, code: "FORBIDDEN" };
    const hidden = { status: 404, code: "NOT_FOUND" };
    const cases: [ColonyRow, Actor, typeof ok][] = [
      [pub, actor(stranger), ok], // public needs no membership
      [pub, actor(pendingUser), ok],
      [restricted, actor(stranger), forbidden],
      [restricted, actor(pendingUser), forbidden],
      [restricted, actor(memberUser), ok],
      [restricted, actor(founder), ok],
      [priv, actor(stranger), hidden],
      [priv, actor(pendingUser), hidden],
      [priv, actor(memberUser), ok],
      [priv, actor(admin, true), ok],
      [restricted, actor(admin, true), ok],
    ];
    for (const [c, who, expected] of cases) expect(refusal(() => assertCanParticipate(h.ctx, c, who))).toEqual(expected);
  });

  test("a colony ban is 403 even in a public colony; deleted colonies are 404", () => {
    ban(h, pub.id, stranger.id);
    expect(refusal(() => assertCanParticipate(h.ctx, fresh(pub), actor(stranger)))).toEqual({ status: 403, code: "FORBIDDEN" });
    softDelete(h, restricted.id);
    expect(refusal(() => assertCanParticipate(h.ctx, fresh(restricted), actor(memberUser)))).toEqual({ status: 404, code: "NOT_FOUND" });
  });
});

describe("adjustPostCount", () => {
  test("moves the counter inside the caller's transaction and never below zero", async () => {
    h.ctx.db.transaction(() => adjustPostCount(h.ctx, pub.id, 2));
    expect(fresh(pub).postCount).toBe(2);
    adjustPostCount(h.ctx, pub.id, -1);
    expect((await h.req("GET", `/api/v1/colonies/by-name/${pub.name}`)).body.post_count).toBe(1);
    adjustPostCount(h.ctx, pub.id, -5);
    expect(fresh(pub).postCount).toBe(0);
  });

  test("rolls back with the transaction", () => {
    expect(() =>
      h.ctx.db.transaction(() => {
        adjustPostCount(h.ctx, pub.id, 1);
        throw new Error("post insert failed");
      }),
    ).toThrow();
    expect(fresh(pub).postCount).toBe(0);
  });
});

describe("approvedMemberColonyIds", () => {
  test("approved memberships only", () => {
    expect(approvedMemberColonyIds(h.ctx, memberUser.id).sort()).toEqual([pub.id, restricted.id, priv.id].sort());
    expect(approvedMemberColonyIds(h.ctx, pendingUser.id)).toEqual([pub.id]);
    expect(approvedMemberColonyIds(h.ctx, stranger.id)).toEqual([]);
  });
});

describe("readableColonyFilter", () => {
  // A stand-in for another feature's table with a colony_id column.
  const things = sqliteTable("filter_things", { id: text("id").primaryKey(), colonyId: text("colony_id") });

  beforeEach(() => {
    h.ctx.db.$client.run("create table if not exists filter_things (id text primary key, colony_id text)");
    h.ctx.db.$client.run("delete from filter_things");
    const insert = h.ctx.db.$client.query("insert into filter_things values (?, ?)");
    for (const [id, colonyId] of [["in-pub", pub.id], ["in-restricted", restricted.id], ["in-priv", priv.id], ["in-none", null], ["in-general", GENERAL_ID]]) insert.run(id, colonyId);
  });

  const visible = (who: Actor | null) =>
    h.ctx.db
      .select({ id: things.id })
      .from(things)
      .where(readableColonyFilter(h.ctx, who, things.colonyId))
      .orderBy(asc(things.id))
      .all()
      .map((r) => r.id);

  test("anonymous and strangers: everything but the private colony", async () => {
    const expected = ["in-general", "in-none", "in-pub", "in-restricted"];
    expect(visible(null)).toEqual(expected);
    expect(visible(actor(stranger))).toEqual(expected);
    expect(visible(actor(pendingUser))).toEqual(expected);
  });

  test("approved members and site admins also see the private colony", async () => {
    const all = ["in-general", "in-none", "in-priv", "in-pub", "in-restricted"];
    expect(visible(actor(memberUser))).toEqual(all);
    expect(visible(actor((await h.user({ admin: true })), true))).toEqual(all);
  });

  test("content of a soft-deleted colony is hidden from everyone", () => {
    softDelete(h, pub.id);
    expect(visible(actor(memberUser))).not.toContain("in-pub");
  });

  test("combines with other conditions", () => {
    const rows = h.ctx.db.select({ id: things.id }).from(things).where(and(ne(things.id, "in-none"), readableColonyFilter(h.ctx, null, things.colonyId))).all();
    expect(rows.map((r) => r.id).sort()).toEqual(["in-general", "in-pub", "in-restricted"]);
  });
});

describe("names", () => {
  test("colonyLabels and colonyNameTaken", () => {
    const labels = colonyLabels(h.ctx, [pub.id, GENERAL_ID, pub.id.toUpperCase(), "not-a-uuid"]);
    expect([...labels.keys()].sort()).toEqual([pub.id, GENERAL_ID].sort());
    expect(labels.get(pub.id)).toEqual({ name: pub.name, displayName: pub.displayName });
    expect(labels.get(GENERAL_ID)?.name).toBe("general");
    expect(colonyLabels(h.ctx, [])).toEqual(new Map());
    expect(colonyNameTaken(h.ctx, " General ")).toBe(true);
    expect(colonyNameTaken(h.ctx, "free-name")).toBe(false);
  });
});

describe("query plans", () => {
  const plan = (query: { toSQL(): { sql: string; params: unknown[] } }) => {
    const { sql, params } = query.toSQL();
    return (h.ctx.db.$client.query(`explain query plan ${sql}`).all(...(params as any[])) as { detail: string }[]).map((r) => r.detail).join(" | ");
  };

  test.each([
    ["anonymous", false],
    ["a member", true],
  ] as const)("the directory (%s) walks colonies_popular_idx without a sort", (_, signedIn) => {
    const caller = signedIn ? actor(memberUser) : null;
    const q = listColoniesQueries(h.ctx, caller, {}, { limit: 50, offset: 0 });
    const detail = plan(q.items);
    expect(detail).toContain("colonies_popular_idx");
    expect(detail).not.toContain("TEMP B-TREE");
    expect(q.items.all().length).toBeGreaterThan(0);
  });

  test("member_colonies=true starts from the caller's memberships (colony_members_user_idx)", () => {
    const q = listColoniesQueries(h.ctx, actor(memberUser), { memberColonies: true }, { limit: 50, offset: 0 });
    expect(plan(q.items)).toContain("colony_members_user_idx");
    expect(q.items.all().map((c) => c.name).sort()).toEqual([priv.name, pub.name, restricted.name].sort());
  });

  test("the roster uses colony_members_roster_idx without a sort", () => {
    const q = h.ctx.db.select().from(colonyMembers).where(eq(colonyMembers.colonyId, pub.id)).orderBy(asc(colonyMembers.joinedAt), asc(colonyMembers.userId)).limit(100);
    const detail = plan(q);
    expect(detail).toContain("colony_members_roster_idx");
    expect(detail).not.toContain("TEMP B-TREE");
  });

  test("a user's approved colonies use colony_members_user_idx", () => {
    const q = h.ctx.db.select({ id: colonyMembers.colonyId }).from(colonyMembers).where(and(eq(colonyMembers.userId, stranger.id), eq(colonyMembers.approved, true)));
    expect(plan(q)).toContain("colony_members_user_idx");
  });
});
