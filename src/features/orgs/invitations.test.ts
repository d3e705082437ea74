// Organisation invitations (spec Part 2 §3 "Org invitation", §4.3, §6.2; docs/decisions.md §59):
// invite (admins and owners; admin and owner offered by owners), the invitee's inbox, accept and
// decline, the outbound list, the 7-day lapse by the clock, and org_invited — per role, and every
// refusal leaving the database as it was.
import { afterAll, describe, expect, test } from "bun:test";
import { refused } from "../../../test/expect";
import { setup } from "../../../test/harness";
import { DAY, MINUTE } from "../../core/clock";
import { receiverHooks } from "../webhooks/fixtures";
import { startReceiver } from "../webhooks/test-receiver";
import { crew, notificationsOf, orgApi, ROLES, tokenOf, type RoleName } from "./fixtures";

const h = setup({ allowPrivateWebhooks: true, webhookTimeoutMs: 2000, rateLimitMultiplier: 0 });
const api = orgApi(h);
const rx = startReceiver();
afterAll(() => rx.stop());
const { hook, flush, got } = receiverHooks(h, rx, "i");

describe("POST /orgs/{slug}/invitations", () => {
  test("per role: admins and owners invite members; others 403 (a private org's strangers 404)", async () => {
    const c = await crew(h);
    const invitee = await h.user();
    for (const role of ["stranger", "member", "siteAdmin"] as const) await refused(h, () => api.invite(c.slug, c[role], invitee.username), 403, "FORBIDDEN");
    await refused(h, () => api.req("POST", `/${c.slug}/invitations`, null, { username: invitee.username }), 401);
    const p = await crew(h, { disclosure: "none" });
    await refused(h, () => api.invite(p.slug, p.stranger, invitee.username), 404, "NOT_FOUND");
    for (const by of ["admin", "owner"] as const) {
      const u = await h.user();
      const r = await api.invite(c.slug, c[by], u.username);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ invitation_id: expect.any(String), slug: c.slug, user_id: u.id, username: u.username, role: "member", status: "pending", expires_at: new Date(h.clock.now() + 7 * DAY).toISOString(), created_at: expect.any(String) });
    }
  });

  test("offering admin or owner is for owners: an admin is 403", async () => {
    const c = await crew(h);
    const u = await h.user();
    for (const role of ["admin", "owner"]) await refused(h, () => api.invite(c.slug, c.admin, u.username, role), 403, "FORBIDDEN");
    expect((await api.invite(c.slug, c.owner, u.id, "owner")).body.role).toBe("owner");
    await refused(h, () => api.invite(c.slug, c.owner, u.username, "overlord"), 422);
  });

  test("404 USER_NOT_FOUND; 409 CONFLICT for a member, a pending invitee, and while deletion is scheduled", async () => {
    const c = await crew(h);
    const u = await h.user();
    await refused(h, () => api.invite(c.slug, c.owner, "ghost-user"), 404, "USER_NOT_FOUND");
    await refused(h, () => api.invite(c.slug, c.owner, c.member.username), 409, "CONFLICT");
    await refused(h, () => api.invite(c.slug, c.owner, c.owner.username), 409, "CONFLICT");
    expect((await api.invite(c.slug, c.owner, `@${u.username}`)).status).toBe(200);
    await refused(h, () => api.invite(c.slug, c.admin, u.username), 409, "CONFLICT");
    const other = await h.user();
    await api.req("POST", `/${c.slug}/deletion`, c.owner.token, {});
    await refused(h, () => api.invite(c.slug, c.owner, other.username), 409, "CONFLICT");
  });

  test("the invitee is told at once (org_invited), and by webhook in the reference shape", async () => {
    const c = await crew(h);
    const u = await h.user();
    await flush();
    const w = await hook(u, ["org_invited"]);
    const inv = await api.invite(c.slug, c.admin, u.username);
    const [n] = await notificationsOf(h, u);
    expect(n).toMatchObject({ kind: "org_invited", meta: { org_slug: c.slug, invitation_id: inv.body.invitation_id, role: "member" } });
    expect(n.message).toBe(`@${c.admin.username} invited you to join Org ${c.slug.split("-")[1]}`);
    await flush();
    expect(got(w)).toEqual([{ event: "org_invited", org_slug: c.slug, org_name: `Org ${c.slug.split("-")[1]}`, actor: c.admin.username }]);
  });
});

describe("GET /orgs/invitations and GET /orgs/{slug}/invitations", () => {
  test("the invitee's inbox holds their own pending invitations only", async () => {
    const c = await crew(h, { disclosure: "public" });
    const u = await h.user();
    const inv = await api.invite(c.slug, c.owner, u.username, "admin");
    const r = await api.req("GET", "/invitations", u.token);
    expect(r.body).toEqual([
      { invitation_id: inv.body.invitation_id, slug: c.slug, name: expect.any(String), verified_domain: null, disclosure_mode: "public", role: "admin", expires_at: expect.any(String), created_at: expect.any(String) },
    ]);
    expect((await api.req("GET", "/invitations", c.stranger.token)).body).toEqual([]);
    await refused(h, () => api.req("GET", "/invitations", null), 401);
  });

  test("per role: the outbound list for admins, owners and site admins", async () => {
    const c = await crew(h);
    const u = await h.user();
    const inv = await api.invite(c.slug, c.owner, u.username);
    const expected: Record<RoleName, number> = { anonymous: 401, stranger: 403, member: 403, admin: 200, owner: 200, siteAdmin: 200 };
    for (const role of ROLES) expect([role, (await api.req("GET", `/${c.slug}/invitations`, tokenOf(c, role))).status]).toEqual([role, expected[role]]);
    expect((await api.req("GET", `/${c.slug}/invitations`, c.admin.token)).body).toEqual([
      {
        user_id: u.id,
        username: u.username,
        display_name: u.username,
        user_type: "agent",
        role: "member",
        member_visible: false,
        joined_at: null,
        invitation_id: inv.body.invitation_id,
        invited_by: c.owner.id,
        expires_at: expect.any(String),
        created_at: expect.any(String),
      },
    ]);
  });
});

describe("accept and decline", () => {
  test("accepting makes a member with the offered role; nobody else may answer (404); answered is 404", async () => {
    const c = await crew(h);
    const u = await h.user();
    const inv = await api.invite(c.slug, c.owner, u.username, "admin");
    const id = inv.body.invitation_id;
    for (const other of [c.owner, c.admin, c.stranger, c.siteAdmin]) {
      await refused(h, () => api.accept(id, other), 404, "NOT_FOUND");
      await refused(h, () => api.req("POST", `/invitations/${id}/decline`, other.token), 404, "NOT_FOUND");
    }
    await refused(h, () => api.req("POST", `/invitations/${id}/accept`, null), 401);
    await refused(h, () => api.req("POST", "/invitations/not-a-uuid/accept", u.token), 404, "NOT_FOUND");
    const r = await api.accept(id, u);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: expect.any(String), slug: c.slug, name: expect.any(String), description: null, verified_domain: null, disclosure_mode: "opaque", role: "admin", member_visible: false, joined_at: expect.any(String) });
    expect((await api.req("GET", `/${c.slug}`, u.token)).body.member_count).toBe(4);
    await refused(h, () => api.accept(id, u), 404, "NOT_FOUND");
    await refused(h, () => api.req("POST", `/invitations/${id}/decline`, u.token), 404, "NOT_FOUND");
    expect((await api.req("GET", "/invitations", u.token)).body).toEqual([]);
  });

  test("declining is final: 200 {status: declined}; a new invitation is needed", async () => {
    const c = await crew(h);
    const u = await h.user();
    const inv = await api.invite(c.slug, c.owner, u.username);
    const r = await api.req("POST", `/invitations/${inv.body.invitation_id}/decline`, u.token);
    expect(r.body).toEqual({ status: "declined" });
    await refused(h, () => api.accept(inv.body.invitation_id, u), 404, "NOT_FOUND");
    const again = await api.invite(c.slug, c.owner, u.username);
    expect((await api.accept(again.body.invitation_id, u)).status).toBe(200);
  });

  test("accepting while deletion is scheduled is 409 CONFLICT", async () => {
    const c = await crew(h);
    const u = await h.user();
    const inv = await api.invite(c.slug, c.owner, u.username);
    await api.req("POST", `/${c.slug}/deletion`, c.owner.token, {});
    await refused(h, () => api.accept(inv.body.invitation_id, u), 409, "CONFLICT");
  });

  test("joining is activity: the account can no longer self-delete", async () => {
    const c = await crew(h);
    const reg = await h.req("POST", "/api/v1/auth/register", { body: { username: `joiner-${c.slug}`, display_name: "J" } });
    const token = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: reg.body.api_key } })).body.access_token;
    const inv = await api.invite(c.slug, c.owner, reg.body.username);
    expect((await h.req("POST", `/api/v1/orgs/invitations/${inv.body.invitation_id}/accept`, { token })).status).toBe(200);
    expect((await h.req("DELETE", "/api/v1/auth/account", { token })).body.detail.code).toBe("ACCOUNT_DELETE_HAS_ACTIVITY");
  });
});

describe("the 7-day lapse (the clock)", () => {
  test("a lapsed invitation leaves both lists, cannot be answered, and gives way to a new one", async () => {
    const c = await crew(h);
    const u = await h.user();
    const inv = await api.invite(c.slug, c.owner, u.username);
    // Access tokens live a day: mint fresh ones for the people acting after the clock moved.
    const refresh = async () => {
      for (const x of [u, c.owner]) x.token = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: x.apiKey } })).body.access_token;
    };
    h.clock.advance(7 * DAY - MINUTE);
    await refresh();
    expect((await api.req("GET", "/invitations", u.token)).body).toHaveLength(1);
    h.clock.advance(MINUTE);
    expect((await api.req("GET", "/invitations", u.token)).body).toEqual([]);
    expect((await api.req("GET", `/${c.slug}/invitations`, c.owner.token)).body).toEqual([]);
    await refused(h, () => api.accept(inv.body.invitation_id, u), 404, "NOT_FOUND");
    const again = await api.invite(c.slug, c.owner, u.username);
    expect(again.status).toBe(200);
    const statuses = h.ctx.db.$client.query("select status from org_invitations where invitee_id = ? order by created_at").all(u.id);
    expect(statuses).toEqual([{ status: "expired" }, { status: "pending" }]);
    expect((await api.accept(again.body.invitation_id, u)).status).toBe(200);
  });
});
