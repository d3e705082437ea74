// Colonies: check-name, the directory, creation, lookup by name and the seeded defaults
// (spec Part 2 §2.1, §4.1, §7; ARCHITECTURE rule 5: anonymous, stranger, member, owner).
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { DAY, HOUR } from "../../core/clock";
import { DEFAULT_COLONIES, GENERAL_ID, archive, eventsOf, makeColony, softDelete } from "./fixtures";

/** The database of the tests that need none of their own; each names its colonies differently. */
let shared: Harness;
let h: Harness;
let founder: TestUser;
let stranger: TestUser;

beforeAll(() => {
  shared = setup();
});

beforeEach(async () => {
  h = shared;
  founder = await h.user();
  stranger = await h.user();
});

/** Gives the test a database of its own: the tests that read every colony of the instance or the defaults' members. */
async function ownDatabase(): Promise<void> {
  h = setup();
  founder = await h.user();
  stranger = await h.user();
}

const create = (body: unknown, token: string | null = founder.token) => h.req("POST", "/api/v1/colonies", { token, body });
const list = (query: Record<string, string | number | boolean> = {}, token: string | null = null) => h.req("GET", "/api/v1/colonies", { token, query });
const byName = (name: string, token: string | null = null) => h.req("GET", `/api/v1/colonies/by-name/${encodeURIComponent(name)}`, { token });
const join = (id: string, token: string) => h.req("POST", `/api/v1/colonies/${id}/join`, { token });
const approve = (colonyId: string, userId: string, token = founder.token) => h.req("POST", `/api/v1/colonies/${colonyId}/members/${userId}/approve`, { token });

describe("default colonies", () => {
  test("a fresh instance holds the ten defaults with their exact ids, names and display names", async () => {
    await ownDatabase();
    const res = await list({ limit: 200 });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(10);
    const byId = new Map(res.body.map((c: any) => [c.id, c]));
    for (const d of DEFAULT_COLONIES) {
      expect(byId.get(d.id)).toMatchObject({
        id: d.id,
        name: d.name,
        display_name: d.display_name,
        is_default: true,
        community_type: "public",
        member_count: 0,
        post_count: 0,
        created_at: "2026-01-01T00:00:00.000Z",
      });
    }
  });

  test("each resolves by name and has no founder or members", async () => {
    await ownDatabase();
    for (const d of DEFAULT_COLONIES) {
      const res = await byName(d.name);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(d.id);
      const members = await h.req("GET", `/api/v1/colonies/${d.id}/members`);
      expect(members.body).toEqual([]);
    }
  });

  test("test-posts is the sandbox", async () => {
    expect((await byName("test-posts")).body.is_sandbox).toBe(true);
    expect((await byName("general")).body.is_sandbox).toBe(false);
  });

  test("default names are taken", async () => {
    const res = await create({ name: "general", display_name: "Another general" });
    expectError(res, 409, "CONFLICT");
  });
});

describe("GET /colonies/check-name", () => {
  const check = (name: string) => h.req("GET", "/api/v1/colonies/check-name", { query: { name } });

  test("a free, well-formed slug", async () => {
    const res = await check("unclaimed-club");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: "unclaimed-club", valid: true, available: true, reason: null });
  });

  test("normalised: stripped and lower-cased", async () => {
    expect((await check("  Unclaimed-Club ")).body).toEqual({ name: "unclaimed-club", valid: true, available: true, reason: null });
  });

  test("taken and reserved names are valid but unavailable", async () => {
    const taken = await check("General");
    expect(taken.body).toMatchObject({ name: "general", valid: true, available: false });
    expect(taken.body.reason).toMatch(/taken/);
    const reserved = await check("admin");
    expect(reserved.body).toMatchObject({ valid: true, available: false });
    expect(reserved.body.reason).toMatch(/reserved/);
  });

  test.each([
    ["", /empty/],
    ["ab", /at least 3/],
    ["a".repeat(51), /at most 50/],
    ["has space", /only lower-case/],
    ["dots.here", /only lower-case/],
    ["-leading", /start and end/],
    ["trailing_", /start and end/],
    ["0190a8b0-0000-7000-8000-000000000000", /look like an id/],
  ])("invalid %p", async (name, reason) => {
    const res = await check(name);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, available: false });
    expect(res.body.reason).toMatch(reason);
  });

  test("a soft-deleted colony keeps its name", async () => {
    const c = makeColony(h, founder, { name: "gone-colony" });
    softDelete(h, c.id);
    expect((await check("gone-colony")).body).toMatchObject({ valid: true, available: false });
  });

  test("name is required (422)", async () => {
    const res = await h.req("GET", "/api/v1/colonies/check-name");
    expect(res.status).toBe(422);
  });
});

describe("POST /colonies", () => {
  test("201: the creator becomes founder_moderator, approved, and the first member", async () => {
    const res = await create({ name: "Lightning-Club", display_name: "  Lightning Club ", description: "Paid posts." });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: "lightning-club",
      display_name: "Lightning Club",
      description: "Paid posts.",
      member_count: 1,
      post_count: 0,
      is_default: false,
      is_sandbox: false,
      community_type: "public",
      created_at: new Date(h.clock.now()).toISOString(),
    });
    const members = await h.req("GET", `/api/v1/colonies/${res.body.id}/members`);
    expect(members.body).toEqual([
      {
        user_id: founder.id,
        username: founder.username,
        display_name: founder.username,
        user_type: "agent",
        role: "founder_moderator",
        joined_at: new Date(h.clock.now()).toISOString(),
        is_creator: true,
        approved: true,
      },
    ]);
  });

  test("emits colony_created as activity of the founder", async () => {
    const res = await create({ name: "evented", display_name: "Evented" });
    const evs = eventsOf(h, "colony_created", res.body.id);
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({ actor_id: founder.id, subject_id: res.body.id, activity: 1 });
    expect(evs[0].payload).toMatchObject({ colony_id: res.body.id, colony_name: "evented", founder_id: founder.id, community_type: "public" });
  });

  test.each(["public", "restricted", "private"])("community_type %s is kept", async (type) => {
    const res = await create({ name: `typed-${type}`, display_name: "Typed", community_type: type });
    expect(res.status).toBe(201);
    expect(res.body.community_type).toBe(type);
  });

  test("community_type null means public", async () => {
    expect((await create({ name: "nulltype", display_name: "N", community_type: null })).body.community_type).toBe("public");
  });

  test("401 AUTH_INVALID_TOKEN anonymously; nothing is created", async () => {
    await refused(h, () => create({ name: "anon-colony", display_name: "A" }, null), 401, "AUTH_INVALID_TOKEN");
    expect((await byName("anon-colony")).status).toBe(404);
  });

  test("409 CONFLICT for a taken name, whatever its case or padding", async () => {
    await create({ name: "taken-name", display_name: "First" });
    expectError(await create({ name: " Taken-NAME ", display_name: "Second" }, stranger.token), 409, "CONFLICT");
  });

  test("409 CONFLICT for a reserved name", async () => {
    expectError(await create({ name: "admin", display_name: "Admin" }), 409, "CONFLICT");
  });

  test.each([["x y"], ["ab"], ["-dash"], ["Ünïcode"], ["0190a8b0-0000-7000-8000-000000000000"]])("400 INVALID_INPUT for the malformed name %p", async (name) => {
    expectError(await create({ name, display_name: "Bad" }), 400, "INVALID_INPUT");
  });

  test("400 INVALID_INPUT for a display_name that trims to empty", async () => {
    await refused(h, () => create({ name: "blank-display", display_name: "   " }), 400, "INVALID_INPUT");
    expect((await byName("blank-display")).status).toBe(404);
  });

  test.each([
    ["no name", { display_name: "No name" }],
    ["no display_name", { name: "no-display" }],
    ["a name over 100 characters", { name: "x".repeat(101), display_name: "Long" }],
    ["a description over 2000 characters", { name: "long-desc", display_name: "D", description: "d".repeat(2001) }],
    ["an unknown community_type", { name: "bad-type", display_name: "T", community_type: "secret" }],
  ])("422 for %s", async (_, body) => {
    expect((await create(body)).status).toBe(422);
  });

  test("a daily creation cap of 3 per founder (429 RATE_LIMIT_CREATE_COLONY); failures are not charged", async () => {
    expectError(await create({ name: "admin", display_name: "refused" }), 409, "CONFLICT");
    for (let i = 0; i < 3; i++) expect((await create({ name: `capped-${i}`, display_name: "C" })).status).toBe(201);
    const capped = await refused(h, () => create({ name: "capped-3", display_name: "C" }), 429, "RATE_LIMIT_CREATE_COLONY");
    expect(Number(capped.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await create({ name: "capped-4", display_name: "C" }, stranger.token)).status).toBe(201);
    h.clock.advance(DAY);
    const { access_token } = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: founder.apiKey } })).body;
    expect((await create({ name: "capped-5", display_name: "C" }, access_token)).status).toBe(201);
  });

  test("the cap is reported by /limits/me", async () => {
    await create({ name: "counted", display_name: "C" });
    const res = await h.req("GET", "/api/v1/limits/me", { token: founder.token });
    expect(res.body.limits.find((l: any) => l.action === "create_colony")).toMatchObject({ window_seconds: 86400, max: 3, current: 1, remaining: 2 });
  });
});

describe("GET /colonies", () => {
  test("busiest first, as a bare array with paging headers", async () => {
    await ownDatabase();
    const busy = makeColony(h, founder, { name: "busy" });
    const busier = makeColony(h, founder, { name: "busier" });
    for (const u of [await h.user(), await h.user()]) await join(busier.id, u.token);
    await join(busy.id, stranger.token);
    const res = await list({ limit: 3 });
    expect(res.status).toBe(200);
    expect(res.body.map((c: any) => [c.name, c.member_count])).toEqual([
      ["busier", 3],
      ["busy", 2],
      ["agent-economy", 0], // ties: oldest first, then by name
    ]);
    expect(res.headers.get("x-total-count")).toBe("12");
    expect(res.headers.get("x-has-more")).toBe("true");
  });

  test("ties keep a stable order (oldest first), pages do not overlap", async () => {
    await ownDatabase();
    const all = (await list({ limit: 200 })).body.map((c: any) => c.id);
    const a = (await list({ limit: 4, page: 1 })).body.map((c: any) => c.id);
    const b = (await list({ limit: 4, offset: 4 })).body.map((c: any) => c.id);
    const c = (await list({ limit: 4, page: 3 })).body.map((c: any) => c.id);
    expect([...a, ...b, ...c]).toEqual(all);
    const last = await list({ limit: 4, page: 3 });
    expect(last.headers.get("x-has-more")).toBe("false");
  });

  test("default limit 50; limit 1-200; page and offset must agree", async () => {
    expect((await list({ limit: 0 })).status).toBe(422);
    expect((await list({ limit: 201 })).status).toBe(422);
    expect((await list({ limit: 200 })).status).toBe(200);
    expect((await list({ offset: 100001 })).status).toBe(422);
    expectError(await list({ page: 2, offset: 3 }), 400, "INVALID_INPUT");
    expect((await list({ page: 2, offset: 50 })).status).toBe(200);
  });

  test("name is an exact, normalised slug filter", async () => {
    makeColony(h, founder, { name: "general-two" });
    const res = await list({ name: " General " });
    expect(res.body.map((c: any) => c.name)).toEqual(["general"]);
    expect((await list({ name: "gen" })).body).toEqual([]);
  });

  test("an empty name filter does not bind", async () => {
    await ownDatabase();
    expect((await list({ name: "" })).body).toHaveLength(10);
  });

  test("visibility: private colonies only for their approved members (and site admins)", async () => {
    const priv = makeColony(h, founder, { name: "hidden-club", type: "private" });
    const restricted = makeColony(h, founder, { name: "gated-club", type: "restricted" });
    const pending = await h.user();
    await h.req("POST", "/api/v1/colonies/by-name/hidden-club/join", { token: pending.token });
    const member = await h.user();
    await h.req("POST", "/api/v1/colonies/by-name/hidden-club/join", { token: member.token });
    await approve(priv.id, member.id);
    const admin = await h.user({ admin: true });
    const names = async (token: string | null) => (await list({ limit: 200 }, token)).body.map((c: any) => c.name);
    for (const token of [null, stranger.token, pending.token]) {
      expect(await names(token)).not.toContain("hidden-club");
      expect(await names(token)).toContain("gated-club");
    }
    for (const token of [member.token, founder.token, admin.token]) expect(await names(token)).toContain("hidden-club");
    expect(restricted.communityType).toBe("restricted");
    // The name filter does not reveal it either.
    expect((await list({ name: "hidden-club" }, stranger.token)).body).toEqual([]);
    expect((await list({ name: "hidden-club" }, stranger.token)).headers.get("x-total-count")).toBe("0");
  });

  test("member_colonies: true lists approved memberships only, false the others", async () => {
    await ownDatabase();
    const priv = makeColony(h, founder, { name: "mine-private", type: "private" });
    const restricted = makeColony(h, founder, { name: "mine-restricted", type: "restricted" });
    await join(GENERAL_ID, stranger.token);
    await h.req("POST", `/api/v1/colonies/by-name/mine-private/join`, { token: stranger.token });
    await join(restricted.id, stranger.token);
    await approve(restricted.id, stranger.id);
    const mine = (await list({ member_colonies: true }, stranger.token)).body.map((c: any) => c.name).sort();
    expect(mine).toEqual(["general", "mine-restricted"]); // the pending private join does not count
    const others = (await list({ member_colonies: false, limit: 200 }, stranger.token)).body.map((c: any) => c.name);
    expect(others).not.toContain("general");
    expect(others).not.toContain("mine-restricted");
    expect(others).not.toContain("mine-private");
    expect(others).toHaveLength(9);
    expect(priv.communityType).toBe("private");
  });

  test("member_colonies needs authentication: 401 AUTH_INVALID_TOKEN for either value", async () => {
    expectError(await list({ member_colonies: true }), 401, "AUTH_INVALID_TOKEN");
    expectError(await list({ member_colonies: false }), 401, "AUTH_INVALID_TOKEN");
  });

  test("soft-deleted colonies are hidden, archived ones listed", async () => {
    const gone = makeColony(h, founder, { name: "deleted-one" });
    const old = makeColony(h, founder, { name: "archived-one" });
    softDelete(h, gone.id);
    archive(h, old.id);
    const names = (await list({ limit: 200 })).body.map((c: any) => c.name);
    expect(names).not.toContain("deleted-one");
    expect(names).toContain("archived-one");
    expect((await list({ name: "deleted-one" })).body).toEqual([]);
  });

  test("a bad token is 401 even though auth is optional", async () => {
    expectError(await list({}, "garbage"), 401, "AUTH_INVALID_TOKEN");
  });
});

describe("GET /colonies/by-name/{name}", () => {
  test("resolves a slug, normalised", async () => {
    const c = makeColony(h, founder, { name: "resolved" });
    const res = await byName(" RESOLVED ");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.id, name: "resolved", member_count: 1 });
  });

  test("404 NOT_FOUND when missing or soft-deleted", async () => {
    expectError(await byName("no-such-colony"), 404, "NOT_FOUND");
    const c = makeColony(h, founder, { name: "soon-gone" });
    softDelete(h, c.id);
    expectError(await byName("soon-gone", founder.token), 404, "NOT_FOUND");
  });

  test("an id is not a name", async () => {
    expectError(await byName(GENERAL_ID), 404, "NOT_FOUND");
  });

  test("archived colonies stay browseable", async () => {
    const c = makeColony(h, founder, { name: "browse-archived" });
    archive(h, c.id);
    expect((await byName("browse-archived")).status).toBe(200);
  });

  test("private: 404 to anonymous, strangers and pending members; 200 to approved members, the founder and site admins", async () => {
    const c = makeColony(h, founder, { name: "secret-club", type: "private" });
    const pending = await h.user();
    await h.req("POST", "/api/v1/colonies/by-name/secret-club/join", { token: pending.token });
    const member = await h.user();
    await h.req("POST", "/api/v1/colonies/by-name/secret-club/join", { token: member.token });
    await approve(c.id, member.id);
    const admin = await h.user({ admin: true });
    for (const token of [null, stranger.token, pending.token]) expectError(await byName("secret-club", token), 404, "NOT_FOUND");
    for (const token of [member.token, founder.token, admin.token]) expect((await byName("secret-club", token)).body.id).toBe(c.id);
  });

  test("restricted colonies are readable by anyone", async () => {
    makeColony(h, founder, { name: "readable-gate", type: "restricted" });
    expect((await byName("readable-gate")).status).toBe(200);
  });

  test("posting_rules and report_reasons follow the settings", async () => {
    const c = makeColony(h, founder, { name: "ruled" });
    expect((await byName("ruled")).body.posting_rules).toBeNull();
    await h.req("PATCH", `/api/v1/colonies/${c.id}`, { token: founder.token, body: { min_karma_to_post: 5, report_reasons: ["Spam"] } });
    const res = await byName("ruled");
    expect(res.body.posting_rules).toMatchObject({ min_karma_to_post: 5, min_karma_to_comment: null, min_karma_to_vote: null, min_comment_length: null });
    expect(res.body.report_reasons).toEqual(["Spam"]);
  });
});

describe("time", () => {
  test("created_at is the clock's instant", async () => {
    h.clock.advance(5 * HOUR);
    const res = await create({ name: "later", display_name: "Later" });
    expect(res.body.created_at).toBe(new Date(h.clock.now()).toISOString());
  });
});
