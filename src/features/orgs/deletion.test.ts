// Scheduled deletion of an organisation (spec Part 2 §3 "Org deletion", §4.3; docs/decisions.md
// §62): owners schedule and cancel, admins read the status, the job deletes when the 7-day
// cooling-off is over (the clock moves; nothing sleeps) — per role, and every refusal leaving the
// database as it was.
import { describe, expect, test } from "bun:test";
import { refused } from "../../../test/expect";
import { setup, type TestUser } from "../../../test/harness";
import { DAY, HOUR, MINUTE } from "../../core/clock";
import { holderOf } from "../handles/service";
import { crew, orgApi, ROLES, tokenOf, type RoleName } from "./fixtures";

const h = setup({ rateLimitMultiplier: 0 });
const api = orgApi(h);
const count = (table: string, orgId: string) => (h.ctx.db.$client.query(`select count(*) as n from ${table} where org_id = ?`).get(orgId) as { n: number }).n;
const idOf = async (slug: string, u: TestUser) => (await api.req("GET", `/${slug}`, u.token)).body.id as string;

/** Moves the clock and mints fresh access tokens (they live a day) for the people who act next. */
async function advance(ms: number, ...people: TestUser[]) {
  h.clock.advance(ms);
  for (const u of people) u.token = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: u.apiKey } })).body.access_token;
}

describe("POST /orgs/{slug}/deletion", () => {
  test("per role: owners only", async () => {
    const c = await crew(h);
    await refused(h, () => api.req("POST", `/${c.slug}/deletion`, null, {}), 401);
    for (const role of ["stranger", "member", "admin", "siteAdmin"] as const) await refused(h, () => api.req("POST", `/${c.slug}/deletion`, c[role].token, { reason: "no" }), 403, "FORBIDDEN");
    const p = await crew(h, { disclosure: "none" });
    await refused(h, () => api.req("POST", `/${p.slug}/deletion`, p.stranger.token, {}), 404, "NOT_FOUND");
  });

  test("200: scheduled 7 days ahead with the reason (the body is optional); a second request is 409", async () => {
    const c = await crew(h);
    const now = h.clock.now();
    const r = await api.req("POST", `/${c.slug}/deletion`, c.owner.token, { reason: "  Wound down. " });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      slug: c.slug,
      scheduled: true,
      delete_at: new Date(now + 7 * DAY).toISOString(),
      requested_at: new Date(now).toISOString(),
      requested_by: c.owner.id,
      reason: "Wound down.",
      cooling_off_seconds: 7 * 24 * 3600,
    });
    await refused(h, () => api.req("POST", `/${c.slug}/deletion`, c.owner.token, {}), 409, "CONFLICT");
    const d = await crew(h);
    expect((await h.req("POST", `/api/v1/orgs/${d.slug}/deletion`, { token: d.owner.token })).body.reason).toBeNull();
    await refused(h, () => api.req("POST", `/${d.slug}/deletion`, d.owner.token, { reason: "x".repeat(501) }), 422);
  });
});

describe("GET and DELETE /orgs/{slug}/deletion", () => {
  test("per role: the status for admins, owners and site admins", async () => {
    const c = await crew(h);
    const expected: Record<RoleName, number> = { anonymous: 401, stranger: 403, member: 403, admin: 200, owner: 200, siteAdmin: 200 };
    for (const role of ROLES) expect([role, (await api.req("GET", `/${c.slug}/deletion`, tokenOf(c, role))).status]).toEqual([role, expected[role]]);
    expect((await api.req("GET", `/${c.slug}/deletion`, c.admin.token)).body).toEqual({
      slug: c.slug,
      scheduled: false,
      delete_at: null,
      requested_at: null,
      requested_by: null,
      reason: null,
      cooling_off_seconds: 604800,
    });
  });

  test("per role: owners cancel; 409 when nothing is scheduled; cancelling clears the status", async () => {
    const c = await crew(h);
    await refused(h, () => api.req("DELETE", `/${c.slug}/deletion`, c.owner.token), 409, "CONFLICT");
    await api.req("POST", `/${c.slug}/deletion`, c.owner.token, {});
    await refused(h, () => api.req("DELETE", `/${c.slug}/deletion`, null), 401);
    for (const role of ["stranger", "member", "admin", "siteAdmin"] as const) await refused(h, () => api.req("DELETE", `/${c.slug}/deletion`, c[role].token), 403, "FORBIDDEN");
    const r = await api.req("DELETE", `/${c.slug}/deletion`, c.owner.token);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ scheduled: false, delete_at: null });
    expect((h.ctx.db.$client.query("select count(*) as n from jobs where kind = 'delete_org' and done_at is null and payload like ?").get(`%${await idOf(c.slug, c.owner)}%`) as { n: number }).n).toBe(0);
  });
});

describe("the cooling-off and the job", () => {
  test("nothing happens before the 7 days are over; then the organisation goes with everything it holds and its slug stays reserved", async () => {
    const c = await crew(h);
    const id = await idOf(c.slug, c.owner);
    const invitee = await h.user();
    await api.invite(c.slug, c.owner, invitee.username);
    await api.req("POST", `/${c.slug}/resources`, c.owner.token, { identifier: `https://api.${c.slug}.example.com` });
    await api.req("POST", `/${c.slug}/domain`, c.owner.token, { domain: `${c.slug}.example.com`, method: "dns_txt" });
    await api.req("POST", `/${c.slug}/deletion`, c.owner.token, {});
    await advance(7 * DAY - MINUTE, c.owner, c.member);
    await h.ctx.jobs.runDue();
    expect((await api.req("GET", `/${c.slug}`, c.member.token)).status).toBe(200);
    await advance(MINUTE, c.owner, c.member);
    expect(await h.ctx.jobs.runDue()).toBeGreaterThan(0);
    await refused(h, () => api.req("GET", `/${c.slug}`, c.member.token), 404, "NOT_FOUND");
    expect((await api.req("GET", "", c.member.token)).body).toEqual([]);
    for (const table of ["org_members", "org_invitations", "org_resources", "org_domain_challenges", "org_delegation_grants"]) expect([table, count(table, id)]).toEqual([table, 0]);
    expect(holderOf(h.ctx, c.slug)).toEqual({ kind: "retired", ownerId: id });
    const other = await h.user({ karma: 10 });
    await refused(h, () => api.create(other, { slug: c.slug, name: "Again" }), 409, "CONFLICT");
    const [ev] = h.ctx.db.$client.query("select payload from events where type = 'org_deleted' and subject_id = ?").all(id) as { payload: string }[];
    expect(JSON.parse(ev.payload)).toMatchObject({ org_id: id, slug: c.slug, member_ids: expect.arrayContaining([c.owner.id, c.admin.id, c.member.id]) });
  });

  test("a cancelled deletion does not happen, even when scheduled again later (the old job is a no-op)", async () => {
    const c = await crew(h);
    const id = await idOf(c.slug, c.owner);
    await api.req("POST", `/${c.slug}/deletion`, c.owner.token, {});
    await advance(DAY, c.owner);
    await api.req("DELETE", `/${c.slug}/deletion`, c.owner.token);
    // A job left behind by a crash between the cancel and its clean-up must not delete either.
    h.ctx.jobs.schedule("delete_org", h.clock.now() + HOUR, { org_id: id });
    await api.req("POST", `/${c.slug}/deletion`, c.owner.token, {});
    await advance(6 * DAY + MINUTE, c.owner);
    await h.ctx.jobs.runDue();
    expect((await api.req("GET", `/${c.slug}`, c.owner.token)).status).toBe(200);
    await advance(DAY, c.owner);
    await h.ctx.jobs.runDue();
    expect((await api.req("GET", `/${c.slug}`, c.owner.token)).status).toBe(404);
  });
});
