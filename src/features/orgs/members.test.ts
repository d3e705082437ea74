// Organisation members (spec Part 2 §4.3, §6.2): the roster (admins and owners), role changes
// (owners), removal (admins and owners; an owner only by an owner) and ownership transfer, with
// their notifications and webhooks (org_removed, org_role_changed) — per role, and every refusal
// leaving the database as it was.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { refused } from "../../../test/expect";
import { setup } from "../../../test/harness";
import { receiverHooks } from "../webhooks/fixtures";
import { startReceiver } from "../webhooks/test-receiver";
import { crew, notificationsOf, orgApi, ROLES, tokenOf, type RoleName } from "./fixtures";

const h = setup({ allowPrivateWebhooks: true, webhookTimeoutMs: 2000, rateLimitMultiplier: 0 });
const api = orgApi(h);
const rx = startReceiver();
afterAll(() => rx.stop());
beforeEach(() => rx.clear());
const hooks = receiverHooks(h, rx, "o");
const { flush, got } = hooks;
/** A webhook registered after the events so far went out (so it hears only what follows). */
const hook = async (...args: Parameters<typeof hooks.hook>) => {
  await flush();
  return hooks.hook(...args);
};
const ORG_EVENTS = ["org_invited", "org_removed", "org_role_changed"];

describe("GET /orgs/{slug}/members", () => {
  test("per role: admins, owners and site admins read the roster; members and strangers are 403; a private org's strangers 404", async () => {
    const c = await crew(h);
    const expected: Record<RoleName, number> = { anonymous: 401, stranger: 403, member: 403, admin: 200, owner: 200, siteAdmin: 200 };
    for (const role of ROLES) expect([role, (await api.req("GET", `/${c.slug}/members`, tokenOf(c, role))).status]).toEqual([role, expected[role]]);
    const r = await api.req("GET", `/${c.slug}/members`, c.admin.token);
    expect(r.body).toEqual(
      (["owner", "admin", "member"] as const).map((role) => ({
        user_id: c[role].id,
        username: c[role].username,
        display_name: c[role].username,
        user_type: "agent",
        role,
        member_visible: false,
        joined_at: expect.any(String),
      })),
    );
    const p = await crew(h, { disclosure: "none" });
    await refused(h, () => api.req("GET", `/${p.slug}/members`, p.stranger.token), 404, "NOT_FOUND");
    await refused(h, () => api.req("GET", `/${p.slug}/members`, p.member.token), 403, "FORBIDDEN");
  });
});

describe("PUT /orgs/{slug}/members/{user_id}/role", () => {
  test("per role: owners only", async () => {
    const c = await crew(h);
    const path = `/${c.slug}/members/${c.member.id}/role`;
    await refused(h, () => api.req("PUT", path, null, { role: "admin" }), 401);
    for (const role of ["stranger", "member", "admin", "siteAdmin"] as const) await refused(h, () => api.req("PUT", path, c[role].token, { role: "admin" }), 403, "FORBIDDEN");
  });

  test("200 by username or id; the member is told (notification and org_role_changed webhook); the same role changes nothing", async () => {
    const c = await crew(h);
    const w = await hook(c.member, ORG_EVENTS);
    const r = await api.req("PUT", `/${c.slug}/members/${c.member.username.toUpperCase()}/role`, c.owner.token, { role: "admin" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ slug: c.slug, user_id: c.member.id, username: c.member.username, role: "admin", previous_role: "member" });
    const again = await api.req("PUT", `/${c.slug}/members/${c.member.id}/role`, c.owner.token, { role: "admin" });
    expect(again.body).toEqual({ slug: c.slug, user_id: c.member.id, username: c.member.username, role: "admin", previous_role: "admin" });
    const [n] = await notificationsOf(h, c.member);
    expect(n).toMatchObject({ kind: "org_role_changed", message: `@${c.owner.username} made you an admin of Org ${c.slug.split("-")[1]}`, meta: { org_slug: c.slug, new_role: "admin", previous_role: "member" } });
    await flush();
    expect(got(w)).toEqual([{ event: "org_role_changed", org_slug: c.slug, org_name: expect.any(String), new_role: "admin", actor: c.owner.username }]);
    // Now an admin, the member reads the roster.
    expect((await api.req("GET", `/${c.slug}/members`, c.member.token)).status).toBe(200);
  });

  test("an owner may make another owner, demote owners while one remains, and demote themselves; the last owner is 409", async () => {
    const c = await crew(h);
    await refused(h, () => api.req("PUT", `/${c.slug}/members/${c.owner.id}/role`, c.owner.token, { role: "admin" }), 409, "CONFLICT");
    expect((await api.req("PUT", `/${c.slug}/members/${c.admin.id}/role`, c.owner.token, { role: "owner" })).status).toBe(200);
    expect((await api.req("PUT", `/${c.slug}/members/${c.owner.id}/role`, c.owner.token, { role: "member" })).status).toBe(200);
    // The former owner has lost the power.
    await refused(h, () => api.req("PUT", `/${c.slug}/members/${c.admin.id}/role`, c.owner.token, { role: "member" }), 403, "FORBIDDEN");
    await refused(h, () => api.req("PUT", `/${c.slug}/members/${c.admin.id}/role`, c.admin.token, { role: "member" }), 409, "CONFLICT");
  });

  test("404 USER_NOT_FOUND for no such user, 404 NOT_FOUND for a non-member; 422 for an unknown role", async () => {
    const c = await crew(h);
    await refused(h, () => api.req("PUT", `/${c.slug}/members/nobody-at-all/role`, c.owner.token, { role: "admin" }), 404, "USER_NOT_FOUND");
    await refused(h, () => api.req("PUT", `/${c.slug}/members/${c.stranger.id}/role`, c.owner.token, { role: "admin" }), 404, "NOT_FOUND");
    await refused(h, () => api.req("PUT", `/${c.slug}/members/${c.member.id}/role`, c.owner.token, { role: "boss" }), 422);
  });
});

describe("DELETE /orgs/{slug}/members/{user_id}", () => {
  test("per role: admins and owners remove members; members, strangers and site admins are 403", async () => {
    const c = await crew(h);
    const path = `/${c.slug}/members/${c.member.id}`;
    await refused(h, () => api.req("DELETE", path, null), 401);
    for (const role of ["stranger", "member", "siteAdmin"] as const) await refused(h, () => api.req("DELETE", path, c[role].token), 403, "FORBIDDEN");
    const w = await hook(c.member, ORG_EVENTS);
    const r = await api.req("DELETE", path, c.admin.token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ removed: true, slug: c.slug, user_id: c.member.id, username: c.member.username, role: "member" });
    expect((await api.req("GET", "", c.member.token)).body).toEqual([]);
    expect((await api.req("GET", `/${c.slug}`, c.owner.token)).body.member_count).toBe(2);
    const [n] = await notificationsOf(h, c.member);
    expect(n).toMatchObject({ kind: "org_removed", message: `@${c.admin.username} removed you from Org ${c.slug.split("-")[1]}` });
    await flush();
    expect(got(w)).toEqual([{ event: "org_removed", org_slug: c.slug, org_name: expect.any(String), actor: c.admin.username }]);
    await refused(h, () => api.req("DELETE", path, c.admin.token), 404, "NOT_FOUND");
  });

  test("removing an owner needs an owner; an admin removes an admin; yourself is 400", async () => {
    const c = await crew(h);
    await api.req("PUT", `/${c.slug}/members/${c.member.id}/role`, c.owner.token, { role: "owner" });
    await refused(h, () => api.req("DELETE", `/${c.slug}/members/${c.member.id}`, c.admin.token), 403, "FORBIDDEN");
    await refused(h, () => api.req("DELETE", `/${c.slug}/members/${c.admin.id}`, c.admin.token), 400, "INVALID_INPUT");
    expect((await api.req("DELETE", `/${c.slug}/members/${c.member.id}`, c.owner.token)).status).toBe(200);
    const second = await h.user();
    await api.add(c.slug, c.owner, second, "admin");
    expect((await api.req("DELETE", `/${c.slug}/members/${second.username}`, c.admin.token)).status).toBe(200);
  });

  test("someone who blocked the remover is still told (a governance fact)", async () => {
    const c = await crew(h);
    expect((await h.req("POST", `/api/v1/users/${c.admin.id}/block`, { token: c.member.token })).status).toBeLessThan(300);
    await api.req("DELETE", `/${c.slug}/members/${c.member.id}`, c.admin.token);
    expect((await notificationsOf(h, c.member)).map((n) => n.kind)).toContain("org_removed");
  });
});

describe("POST /orgs/{slug}/transfer", () => {
  test("per role: owners only", async () => {
    const c = await crew(h);
    const body = { user_id: c.member.id };
    await refused(h, () => api.req("POST", `/${c.slug}/transfer`, null, body), 401);
    for (const role of ["stranger", "member", "admin", "siteAdmin"] as const) await refused(h, () => api.req("POST", `/${c.slug}/transfer`, c[role].token, body), 403, "FORBIDDEN");
  });

  test("200: the member becomes owner (told, org_role_changed) and the caller an admin", async () => {
    const c = await crew(h);
    const w = await hook(c.member, ORG_EVENTS);
    const wOwner = await hook(c.owner, ORG_EVENTS);
    const r = await api.req("POST", `/${c.slug}/transfer`, c.owner.token, { user_id: c.member.username });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ slug: c.slug, user_id: c.member.id, username: c.member.username, role: "owner", your_role: "admin" });
    const roles = Object.fromEntries(((await api.req("GET", `/${c.slug}/members`, c.member.token)).body as any[]).map((m) => [m.user_id, m.role]));
    expect(roles).toEqual({ [c.owner.id]: "admin", [c.admin.id]: "admin", [c.member.id]: "owner" });
    const [n] = await notificationsOf(h, c.member);
    expect(n).toMatchObject({ kind: "org_role_changed", meta: { new_role: "owner", transfer: true } });
    expect(n.message).toMatch(/handed .* over to you/);
    await flush();
    expect(got(w)).toEqual([{ event: "org_role_changed", org_slug: c.slug, org_name: expect.any(String), new_role: "owner", actor: c.owner.username }]);
    expect(got(wOwner)).toEqual([]);
  });

  test("400 for yourself, 404 for a non-member or unknown user, 409 for an owner, 422 without user_id", async () => {
    const c = await crew(h);
    await refused(h, () => api.req("POST", `/${c.slug}/transfer`, c.owner.token, { user_id: c.owner.id }), 400, "INVALID_INPUT");
    await refused(h, () => api.req("POST", `/${c.slug}/transfer`, c.owner.token, { user_id: c.stranger.id }), 404, "NOT_FOUND");
    await refused(h, () => api.req("POST", `/${c.slug}/transfer`, c.owner.token, { user_id: "ghost-user" }), 404, "USER_NOT_FOUND");
    await api.req("PUT", `/${c.slug}/members/${c.admin.id}/role`, c.owner.token, { role: "owner" });
    await refused(h, () => api.req("POST", `/${c.slug}/transfer`, c.owner.token, { user_id: c.admin.id }), 409, "CONFLICT");
    await refused(h, () => api.req("POST", `/${c.slug}/transfer`, c.owner.token, {}), 422);
  });
});

describe("a deleted account", () => {
  test("a self-deleted account's pending invitations go", async () => {
    const c = await crew(h);
    const reg = await h.req("POST", "/api/v1/auth/register", { body: { username: `fleeting-${c.slug}`, display_name: "F" } });
    const token = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: reg.body.api_key } })).body.access_token;
    await api.invite(c.slug, c.owner, reg.body.username);
    expect((await h.req("DELETE", "/api/v1/auth/account", { token })).status).toBe(204);
    await h.ctx.events.drain();
    expect((h.ctx.db.$client.query("select count(*) as n from org_invitations where invitee_id = ?").get(reg.body.id) as { n: number }).n).toBe(0);
  });
});
