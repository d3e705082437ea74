// Organisations (spec Part 2 §2.6, §4.3; docs/decisions.md §57-§66): creating, the caller's list,
// the public view, leaving, rename, disclosure mode and the member's own visibility — each rule
// per role, each refusal with its status and code and nothing changed.
import { describe, expect, test } from "bun:test";
import { refused } from "../../../test/expect";
import { setup } from "../../../test/harness";
import { loadConfig } from "../../config";
import { DAY } from "../../core/clock";
import { holderOf } from "../handles/service";
import { crew, dbState, notificationsOf, orgApi, ROLES, tokenOf, type RoleName } from "./fixtures";

const h = setup({ rateLimitMultiplier: 0 });
const api = orgApi(h);
const events = (type: string) => h.ctx.db.$client.query("select * from events where type = ?").all(type) as { actor_id: string; subject_id: string; payload: string; activity: number }[];

describe("POST /orgs", () => {
  test("201: the caller becomes owner; the slug is lower-cased; an org_created event counts as activity", async () => {
    const founder = await h.user({ karma: 10 });
    const r = await api.create(founder, { slug: "  Acme-Labs ", name: "  Acme Labs ", description: " Robots. " });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      slug: "acme-labs",
      name: "Acme Labs",
      description: "Robots.",
      verified_domain: null,
      disclosure_mode: "opaque",
      role: "owner",
      status: "accepted",
      member_visible: false,
      created_at: new Date(h.clock.now()).toISOString(),
    });
    expect(holderOf(h.ctx, "ACME-LABS")).toEqual({ kind: "org", ownerId: r.body.id });
    const [ev] = events("org_created").filter((e) => e.subject_id === r.body.id);
    expect(ev).toMatchObject({ actor_id: founder.id, activity: 1 });
    expect(JSON.parse(ev.payload)).toEqual({ org_id: r.body.id, slug: "acme-labs", owner_id: founder.id });
    const mine = await api.req("GET", "", founder.token);
    expect(mine.body.map((o: any) => [o.slug, o.role])).toEqual([["acme-labs", "owner"]]);
  });

  test("403 KARMA_TOO_LOW below the configured floor (COLONY_KARMA_CREATE_ORG, default 10), site admins included", async () => {
    expect(loadConfig({}).karma.createOrg).toBe(10);
    expect(loadConfig({ COLONY_KARMA_CREATE_ORG: "25" }).karma.createOrg).toBe(25);
    for (const u of [await h.user({ karma: 9 }), await h.user({ karma: 0, admin: true })]) {
      const r = await refused(h, () => api.create(u, { slug: `poor-${u.username}`, name: "Poor" }), 403, "KARMA_TOO_LOW");
      expect(r.body.detail.message).toMatch(/at least 10 karma/);
    }
    const strict = setup({ karma: { setEmail: 5, createOrg: 25 } });
    const u = await strict.user({ karma: 20 });
    expect((await strict.req("POST", "/api/v1/orgs", { token: u.token, body: { slug: "strict-org", name: "S" } })).status).toBe(403);
  });

  test("400 INVALID_INPUT for a malformed slug or a blank name; 422 outside the schema's lengths", async () => {
    const u = await h.user({ karma: 10 });
    for (const slug of ["bad_slug", "-edge", "edge-", "dots.here", "spa ce", "0190c5a8-1c1f-7c5e-9b3a-0d6e2f4a1b2c"]) {
      await refused(h, () => api.create(u, { slug, name: "X" }), 400, "INVALID_INPUT");
    }
    await refused(h, () => api.create(u, { slug: "blank-name", name: "   " }), 400, "INVALID_INPUT");
    for (const body of [{ slug: "ab", name: "X" }, { slug: "a".repeat(51), name: "X" }, { slug: "okay-slug" }, { slug: "okay-slug", name: "" }, { slug: "okay-slug", name: "X", description: "d".repeat(501) }]) {
      await refused(h, () => api.create(u, body), 422);
    }
  });

  test("409 CONFLICT for a reserved slug or one any organisation, user or colony holds", async () => {
    const u = await h.user({ karma: 10 });
    for (const slug of ["invitations", "admin", "disclosure-recipients"]) await refused(h, () => api.create(u, { slug, name: "X" }), 409, "CONFLICT");
    expect((await api.create(u, { slug: "taken-org", name: "X" })).status).toBe(201);
    await refused(h, () => api.create(u, { slug: "Taken-Org", name: "Y" }), 409, "CONFLICT");
    await refused(h, () => api.create(u, { slug: u.username, name: "Y" }), 409, "CONFLICT");
  });

  test("the daily cap per founder: 3 in 24 hours, then 429 RATE_LIMIT_CREATE_ORG with nothing written; refusals are not charged", async () => {
    const capped = setup();
    const capi = orgApi(capped);
    const u = await capped.user({ karma: 10 });
    expect((await capi.create(u, { slug: "bad_one", name: "X" })).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await capi.create(u, { slug: `capped-${i}`, name: "X" })).status).toBe(201);
    const r = await refused(capped, () => capi.create(u, { slug: "capped-3", name: "X" }), 429, "RATE_LIMIT_CREATE_ORG");
    expect(r.headers.get("retry-after")).toBeTruthy();
    capped.clock.advance(DAY);
    // The access token lasted a day too: mint another.
    u.token = (await capped.req("POST", "/api/v1/auth/token", { body: { api_key: u.apiKey } })).body.access_token;
    expect((await capi.create(u, { slug: "capped-3", name: "X" })).status).toBe(201);
  });

  test("401 anonymously", async () => {
    await refused(h, () => api.create(null, { slug: "anon-org", name: "X" }), 401, "AUTH_INVALID_TOKEN");
  });
});

describe("GET /orgs and GET /orgs/{slug}", () => {
  test("the list holds the caller's memberships only, with role and own visibility", async () => {
    const c = await crew(h);
    for (const role of ["owner", "admin", "member"] as const) {
      const r = await api.req("GET", "", c[role].token);
      expect(r.status).toBe(200);
      expect(r.body).toEqual([expect.objectContaining({ slug: c.slug, role, member_visible: false, disclosure_mode: "opaque" })]);
    }
    expect((await api.req("GET", "", c.stranger.token)).body).toEqual([]);
    await refused(h, () => api.req("GET", "", null), 401);
  });

  test("the public view per role: anyone signed in reads a public or opaque organisation", async () => {
    const c = await crew(h, { disclosure: "public" });
    for (const role of ROLES) {
      const r = await api.req("GET", `/${c.slug}`, tokenOf(c, role));
      if (role === "anonymous") expect(r.status).toBe(401);
      else expect(r.body).toEqual({ id: expect.any(String), slug: c.slug, name: expect.any(String), description: null, verified_domain: null, disclosure_mode: "public", member_count: 3, created_at: expect.any(String) });
    }
    expect((await api.req("GET", `/${c.slug.toUpperCase()}`, c.stranger.token)).status).toBe(200);
    await refused(h, () => api.req("GET", "/no-such-org", c.owner.token), 404, "NOT_FOUND");
  });

  test("a private organisation (disclosure none) does not exist for strangers; members, invitees and site admins read it", async () => {
    const c = await crew(h, { disclosure: "none" });
    const expected: Record<RoleName, number> = { anonymous: 401, stranger: 404, member: 200, admin: 200, owner: 200, siteAdmin: 200 };
    for (const role of ROLES) expect([role, (await api.req("GET", `/${c.slug}`, tokenOf(c, role))).status]).toEqual([role, expected[role]]);
    const invitee = await h.user();
    expect((await api.req("GET", `/${c.slug}`, invitee.token)).status).toBe(404);
    await api.invite(c.slug, c.owner, invitee.username);
    expect((await api.req("GET", `/${c.slug}`, invitee.token)).status).toBe(200);
  });
});

describe("POST /orgs/{slug}/leave", () => {
  test("per role: members and admins leave; a stranger is 404; the last owner is 409", async () => {
    const c = await crew(h);
    await refused(h, () => api.req("POST", `/${c.slug}/leave`, null), 401);
    await refused(h, () => api.req("POST", `/${c.slug}/leave`, c.stranger.token), 404, "NOT_FOUND");
    await refused(h, () => api.req("POST", `/${c.slug}/leave`, c.siteAdmin.token), 404, "NOT_FOUND");
    const last = await refused(h, () => api.req("POST", `/${c.slug}/leave`, c.owner.token), 409, "CONFLICT");
    expect(last.body.detail.message).toMatch(/last owner/);
    for (const role of ["member", "admin"] as const) {
      const r = await api.req("POST", `/${c.slug}/leave`, c[role].token);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ left: true, slug: c.slug });
    }
    expect((await api.req("GET", `/${c.slug}`, c.owner.token)).body.member_count).toBe(1);
    // With a second owner, an owner may leave.
    await api.add(c.slug, c.owner, c.member, "owner");
    expect((await api.req("POST", `/${c.slug}/leave`, c.owner.token)).status).toBe(200);
    expect((await api.req("GET", "", c.member.token)).body[0].role).toBe("owner");
  });
});

describe("POST /orgs/{slug}/rename", () => {
  test("per role: owners only (403 for admins and members, 404 for strangers of a private org, site admins 403)", async () => {
    const c = await crew(h);
    const body = { new_slug: `${c.slug}-x` };
    await refused(h, () => api.req("POST", `/${c.slug}/rename`, null, body), 401);
    for (const role of ["stranger", "member", "admin", "siteAdmin"] as const) await refused(h, () => api.req("POST", `/${c.slug}/rename`, c[role].token, body), 403, "FORBIDDEN");
    const p = await crew(h, { disclosure: "none" });
    await refused(h, () => api.req("POST", `/${p.slug}/rename`, p.stranger.token, { new_slug: "whatever-x" }), 404, "NOT_FOUND");
  });

  test("200: the new slug answers, the old one is 404 and stays reserved; the organisation may take it back", async () => {
    const c = await crew(h);
    const old = c.slug;
    const r = await api.req("POST", `/${old}/rename`, c.owner.token, { new_slug: "Renamed-Org" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: expect.any(String), slug: "renamed-org", previous_slug: old, name: expect.any(String) });
    expect((await api.req("GET", "/renamed-org", c.member.token)).status).toBe(200);
    expect((await api.req("GET", `/${old}`, c.member.token)).status).toBe(404);
    expect(holderOf(h.ctx, old)).toEqual({ kind: "retired", ownerId: r.body.id });
    const other = await h.user({ karma: 10 });
    await refused(h, () => api.create(other, { slug: old, name: "Squatter" }), 409, "CONFLICT");
    expect((await api.req("POST", "/renamed-org/rename", c.owner.token, { new_slug: old })).status).toBe(200);
    expect(holderOf(h.ctx, old)).toEqual({ kind: "org", ownerId: r.body.id });
    expect(holderOf(h.ctx, "renamed-org")).toEqual({ kind: "retired", ownerId: r.body.id });
  });

  test("400 for a malformed or unchanged slug; 409 for a taken or reserved one; 422 out of length", async () => {
    const c = await crew(h);
    const d = await crew(h);
    await refused(h, () => api.req("POST", `/${c.slug}/rename`, c.owner.token, { new_slug: "under_score" }), 400, "INVALID_INPUT");
    await refused(h, () => api.req("POST", `/${c.slug}/rename`, c.owner.token, { new_slug: c.slug.toUpperCase() }), 400, "INVALID_INPUT");
    await refused(h, () => api.req("POST", `/${c.slug}/rename`, c.owner.token, { new_slug: d.slug }), 409, "CONFLICT");
    await refused(h, () => api.req("POST", `/${c.slug}/rename`, c.owner.token, { new_slug: c.member.username }), 409, "CONFLICT");
    await refused(h, () => api.req("POST", `/${c.slug}/rename`, c.owner.token, { new_slug: "invitations" }), 409, "CONFLICT");
    await refused(h, () => api.req("POST", `/${c.slug}/rename`, c.owner.token, { new_slug: "ab" }), 422);
  });
});

describe("PUT /orgs/{slug}/disclosure", () => {
  test("per role: owners set public, opaque or none; 422 for another mode", async () => {
    const c = await crew(h);
    const body = { mode: "public" };
    await refused(h, () => api.req("PUT", `/${c.slug}/disclosure`, null, body), 401);
    for (const role of ["stranger", "member", "admin", "siteAdmin"] as const) await refused(h, () => api.req("PUT", `/${c.slug}/disclosure`, c[role].token, body), 403, "FORBIDDEN");
    await refused(h, () => api.req("PUT", `/${c.slug}/disclosure`, c.owner.token, { mode: "secret" }), 422);
    for (const mode of ["public", "none", "opaque", "opaque"]) {
      const r = await api.req("PUT", `/${c.slug}/disclosure`, c.owner.token, { mode });
      expect(r.body).toEqual({ slug: c.slug, disclosure_mode: mode });
    }
    // Setting the mode it has writes nothing.
    const before = dbState(h);
    expect((await api.req("PUT", `/${c.slug}/disclosure`, c.owner.token, { mode: "opaque" })).status).toBe(200);
    expect(dbState(h)).toEqual(before);
  });
});

describe("PUT /orgs/{slug}/visibility", () => {
  test("per role: every member sets their own, and only their own; others are 404", async () => {
    const c = await crew(h);
    await refused(h, () => api.req("PUT", `/${c.slug}/visibility`, null, { visible: true }), 401);
    for (const role of ["stranger", "siteAdmin"] as const) await refused(h, () => api.req("PUT", `/${c.slug}/visibility`, c[role].token, { visible: true }), 404, "NOT_FOUND");
    await refused(h, () => api.req("PUT", `/${c.slug}/visibility`, c.member.token, { visible: "yes" }), 422);
    for (const role of ["member", "admin", "owner"] as const) {
      const r = await api.req("PUT", `/${c.slug}/visibility`, c[role].token, { visible: true });
      expect(r.body).toEqual({ slug: c.slug, member_visible: true });
    }
    expect((await api.req("PUT", `/${c.slug}/visibility`, c.member.token, { visible: false })).body.member_visible).toBe(false);
    const roster = (await api.req("GET", `/${c.slug}/members`, c.owner.token)).body as { username: string; member_visible: boolean }[];
    expect(Object.fromEntries(roster.map((m) => [m.username, m.member_visible]))).toEqual({ [c.owner.username]: true, [c.admin.username]: true, [c.member.username]: false });
  });
});

describe("notifications", () => {
  test("nothing here tells anyone: creation, rename, disclosure and visibility are quiet", async () => {
    const c = await crew(h);
    await api.req("POST", `/${c.slug}/rename`, c.owner.token, { new_slug: `${c.slug}-quiet` });
    await api.req("PUT", `/${c.slug}-quiet/disclosure`, c.owner.token, { mode: "public" });
    expect((await notificationsOf(h, c.admin)).filter((n) => n.kind !== "org_invited")).toEqual([]);
  });
});
