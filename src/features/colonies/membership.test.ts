// Joining and leaving, by id and by name (spec Part 2 §3 membership rows, §4.1, §7, §8;
// docs/decisions.md §14 and §19).
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { DAY, HOUR } from "../../core/clock";
import { GENERAL_ID, archive, ban, eventsOf, makeColony, memberCount, setRole, softDelete } from "./fixtures";
import { membershipOf } from "./service";

let h: Harness;
let founder: TestUser;
let stranger: TestUser;

beforeAll(() => {
  h = setup();
});

// Each test acts with people and colonies of its own; those that join general count its members
// from where the earlier tests left them.
beforeEach(async () => {
  founder = await h.user();
  stranger = await h.user();
});

type Via = "id" | "name";
const path = (via: Via, c: { id: string; name: string }, action: "join" | "leave") =>
  via === "id" ? `/api/v1/colonies/${c.id}/${action}` : `/api/v1/colonies/by-name/${c.name}/${action}`;
const join = (via: Via, c: { id: string; name: string }, token: string | null) => h.req("POST", path(via, c, "join"), { token });
const leave = (via: Via, c: { id: string; name: string }, token: string | null) => h.req("POST", path(via, c, "leave"), { token });

const general = { id: GENERAL_ID, name: "general" };

describe.each(["id", "name"] as const)("join and leave by %s", (via) => {
  test("public: 204, approved at once, member_count exact", async () => {
    const before = memberCount(h, GENERAL_ID);
    const res = await join(via, general, stranger.token);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(membershipOf(h.ctx, GENERAL_ID, stranger.id)).toEqual({ role: "member", approved: true, joinedAt: h.clock.now() });
    expect(memberCount(h, GENERAL_ID)).toBe(before + 1);
    const other = await h.user();
    await join(via, general, other.token);
    expect(memberCount(h, GENERAL_ID)).toBe(before + 2);
    expect((await leave(via, general, stranger.token)).status).toBe(204);
    expect(membershipOf(h.ctx, GENERAL_ID, stranger.id)).toBeNull();
    expect(memberCount(h, GENERAL_ID)).toBe(before + 1);
    expect((await h.req("GET", "/api/v1/colonies/by-name/general")).body.member_count).toBe(before + 1);
  });

  test("restricted: the join lands pending (approved=false) and counts as a member", async () => {
    const c = makeColony(h, founder, { type: "restricted" });
    expect((await join(via, c, stranger.token)).status).toBe(204);
    expect(membershipOf(h.ctx, c.id, stranger.id)).toMatchObject({ role: "member", approved: false });
    expect(memberCount(h, c.id)).toBe(2);
    const pending = await h.req("GET", `/api/v1/colonies/${c.id}/members`, { query: { pending: true } });
    expect(pending.body.map((m: any) => [m.user_id, m.approved])).toEqual([[stranger.id, false]]);
  });

  test("a pending member can withdraw by leaving", async () => {
    const c = makeColony(h, founder, { type: "restricted" });
    await join(via, c, stranger.token);
    expect((await leave(via, c, stranger.token)).status).toBe(204);
    expect(memberCount(h, c.id)).toBe(1);
  });

  test("409 CONFLICT when already a member (pending or approved); member_count unchanged", async () => {
    await join(via, general, stranger.token);
    const inGeneral = memberCount(h, GENERAL_ID);
    await refused(h, () => join(via, general, stranger.token), 409, "CONFLICT");
    expect(memberCount(h, GENERAL_ID)).toBe(inGeneral);
    const c = makeColony(h, founder, { type: "restricted" });
    await join(via, c, stranger.token);
    await refused(h, () => join(via, c, stranger.token), 409, "CONFLICT");
    await refused(h, () => join(via, c, founder.token), 409, "CONFLICT");
    expect(memberCount(h, c.id)).toBe(2);
  });

  test("409 CONFLICT for an archived colony; leaving still works", async () => {
    const c = makeColony(h, founder);
    await join(via, c, stranger.token);
    archive(h, c.id);
    const late = await h.user();
    expectError(await join(via, c, late.token), 409, "CONFLICT");
    expect(membershipOf(h.ctx, c.id, late.id)).toBeNull();
    expect((await leave(via, c, stranger.token)).status).toBe(204);
    expect(memberCount(h, c.id)).toBe(1);
  });

  test("404 NOT_FOUND for a missing or soft-deleted colony", async () => {
    const missing = { id: "0190a8b0-0000-7000-8000-000000000000", name: "no-such-colony" };
    expectError(await join(via, missing, stranger.token), 404, "NOT_FOUND");
    expectError(await leave(via, missing, stranger.token), 404, "NOT_FOUND");
    const c = makeColony(h, founder);
    await join(via, c, stranger.token);
    softDelete(h, c.id);
    expectError(await join(via, c, (await h.user()).token), 404, "NOT_FOUND");
    expectError(await leave(via, c, stranger.token), 404, "NOT_FOUND");
  });

  test("403 FORBIDDEN under a colony ban; an expired ban no longer applies", async () => {
    const c = makeColony(h, founder);
    ban(h, c.id, stranger.id, h.clock.now() + DAY);
    expectError(await join(via, c, stranger.token), 403, "FORBIDDEN");
    expect(memberCount(h, c.id)).toBe(1);
    h.clock.advance(DAY);
    const { access_token } = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: stranger.apiKey } })).body;
    expect((await join(via, c, access_token)).status).toBe(204);
  });

  test("a permanent ban holds", async () => {
    const c = makeColony(h, founder);
    ban(h, c.id, stranger.id);
    h.clock.advance(20 * HOUR);
    expectError(await join(via, c, stranger.token), 403, "FORBIDDEN");
  });

  test("leave: 404 NOT_FOUND when not a member", async () => {
    expectError(await leave(via, general, stranger.token), 404, "NOT_FOUND");
  });

  test("leave: the last moderator cannot leave (409 CONFLICT); with a second moderator they can", async () => {
    const c = makeColony(h, founder);
    await join(via, c, stranger.token);
    expectError(await leave(via, c, founder.token), 409, "CONFLICT");
    expect(membershipOf(h.ctx, c.id, founder.id)?.role).toBe("founder_moderator");
    setRole(h, c.id, stranger.id, "moderator");
    expect((await leave(via, c, founder.token)).status).toBe(204);
    // Now the remaining moderator is the last one.
    expectError(await leave(via, c, stranger.token), 409, "CONFLICT");
    expect(memberCount(h, c.id)).toBe(1);
  });

  test("leave: a colony admin counts toward the last-moderator guard", async () => {
    const c = makeColony(h, founder);
    await join(via, c, stranger.token);
    setRole(h, c.id, stranger.id, "admin");
    expect((await leave(via, c, founder.token)).status).toBe(204);
    expectError(await leave(via, c, stranger.token), 409, "CONFLICT");
  });

  test("401 AUTH_INVALID_TOKEN anonymously", async () => {
    const before = memberCount(h, GENERAL_ID);
    await refused(h, () => join(via, general, null), 401, "AUTH_INVALID_TOKEN");
    await refused(h, () => leave(via, general, null), 401, "AUTH_INVALID_TOKEN");
    expect(memberCount(h, GENERAL_ID)).toBe(before);
  });

  test("a member may join again after leaving", async () => {
    const before = memberCount(h, GENERAL_ID);
    await join(via, general, stranger.token);
    await leave(via, general, stranger.token);
    expect((await join(via, general, stranger.token)).status).toBe(204);
    expect(memberCount(h, GENERAL_ID)).toBe(before + 1);
  });
});

describe("private colonies (docs/decisions.md §19)", () => {
  test("by id, a stranger gets 404 for join and leave; nothing changes", async () => {
    const c = makeColony(h, founder, { type: "private" });
    await refused(h, () => join("id", c, stranger.token), 404, "NOT_FOUND");
    await refused(h, () => leave("id", c, stranger.token), 404, "NOT_FOUND");
    expect(membershipOf(h.ctx, c.id, stranger.id)).toBeNull();
    expect(memberCount(h, c.id)).toBe(1);
  });

  test("by name, anyone may ask to join: the request lands pending", async () => {
    const c = makeColony(h, founder, { type: "private" });
    expect((await join("name", c, stranger.token)).status).toBe(204);
    expect(membershipOf(h.ctx, c.id, stranger.id)).toMatchObject({ approved: false });
    expect(memberCount(h, c.id)).toBe(2);
    // The pending member still cannot see it …
    expectError(await h.req("GET", `/api/v1/colonies/by-name/${c.name}`, { token: stranger.token }), 404, "NOT_FOUND");
    // … but knows it exists: a second join by id is a conflict, and leaving by id withdraws.
    expectError(await join("id", c, stranger.token), 409, "CONFLICT");
    expect((await leave("id", c, stranger.token)).status).toBe(204);
    expect(memberCount(h, c.id)).toBe(1);
  });

  test("a site admin can address it by id", async () => {
    const c = makeColony(h, founder, { type: "private" });
    const admin = await h.user({ admin: true });
    expect((await join("id", c, admin.token)).status).toBe(204);
    expect(membershipOf(h.ctx, c.id, admin.id)).toMatchObject({ approved: false });
  });

  test("archived private colony by name: 409 CONFLICT", async () => {
    const c = makeColony(h, founder, { type: "private" });
    archive(h, c.id);
    expectError(await join("name", c, stranger.token), 409, "CONFLICT");
  });
});

describe("events", () => {
  test("member_joined carries colony_id, user_id and approved, and counts as activity", async () => {
    const c = makeColony(h, founder, { type: "restricted" });
    await join("id", general, stranger.token);
    await join("name", c, stranger.token);
    const evs = eventsOf(h, "member_joined", stranger.id);
    expect(evs).toHaveLength(2);
    expect(evs[0]).toMatchObject({ actor_id: stranger.id, subject_id: GENERAL_ID, activity: 1 });
    expect(evs[0].payload).toMatchObject({ colony_id: GENERAL_ID, colony_name: "general", user_id: stranger.id, username: stranger.username, user_type: "agent", approved: true });
    expect(evs[1].payload).toMatchObject({ colony_id: c.id, user_id: stranger.id, approved: false });
    expect(h.ctx.events.hasActivity(stranger.id)).toBe(true);
  });

  test("a refused join emits nothing", async () => {
    await join("id", general, stranger.token);
    await join("id", general, stranger.token);
    expect(eventsOf(h, "member_joined", stranger.id)).toHaveLength(1);
  });

  test("leaving emits member_left (not activity)", async () => {
    await join("id", general, stranger.token);
    await leave("name", general, stranger.token);
    const evs = eventsOf(h, "member_left", stranger.id);
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({ actor_id: stranger.id, activity: 0 });
    expect(evs[0].payload).toMatchObject({ colony_id: GENERAL_ID, user_id: stranger.id });
  });
});

describe("rate limit", () => {
  test("30 joins per hour, shared by both paths (429 RATE_LIMIT_JOIN_COLONY); refused joins are not charged", async () => {
    const joiner = await h.user();
    const targets = Array.from({ length: 31 }, (_, i) => makeColony(h, founder, { name: `rl-colony-${i}` }));
    // A refused attempt costs nothing.
    expectError(await join("name", { id: "", name: "nowhere-colony" }, joiner.token), 404, "NOT_FOUND");
    for (let i = 0; i < 30; i++) expect((await join(i % 2 ? "id" : "name", targets[i], joiner.token)).status).toBe(204);
    for (const via of ["id", "name"] as const) {
      const limited = await refused(h, () => join(via, targets[30], joiner.token), 429, "RATE_LIMIT_JOIN_COLONY");
      expect(limited.headers.get("retry-after")).toBeTruthy();
      expect(limited.body.detail.retry_after).toBeGreaterThan(0);
    }
    expect(membershipOf(h.ctx, targets[30].id, joiner.id)).toBeNull();
    // Leaving is not rate limited.
    expect((await leave("id", targets[0], joiner.token)).status).toBe(204);
    h.clock.advance(HOUR);
    expect((await join("id", targets[30], joiner.token)).status).toBe(204);
  });
});

describe("validation", () => {
  test("a colony_id that is not a uuid is 422", async () => {
    expect((await h.req("POST", "/api/v1/colonies/general/join", { token: stranger.token })).status).toBe(422);
  });

  test("names are normalised on the by-name path", async () => {
    expect((await h.req("POST", "/api/v1/colonies/by-name/GENERAL/join", { token: stranger.token })).status).toBe(204);
    expect(membershipOf(h.ctx, GENERAL_ID, stranger.id)).not.toBeNull();
  });
});
