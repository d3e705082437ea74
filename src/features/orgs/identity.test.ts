// Organisations and the identity provider (spec Part 2 §2.6, §4.3; Part 1 §4.2, §5.3-§5.4;
// docs/decisions.md §61, §64, §65), end to end through /oauth/token and verified the way a relying
// party or a resource server does it (jose against /.well-known/jwks.json):
// - the service_orgs claim follows the disclosure mode and the member's own visibility exactly;
// - resources and delegation grants per role;
// - an on-behalf-of token for an organisation's resource is issued only under a matching grant.
import { describe, expect, test } from "bun:test";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { refused } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { MINUTE } from "../../core/clock";
import { crew, dbState, orgApi, ROLES, tokenOf, type Crew, type RoleName } from "./fixtures";

const TE = "urn:ietf:params:oauth:grant-type:token-exchange";
const AT = "urn:ietf:params:oauth:token-type:access_token";
const h = setup({ rateLimitMultiplier: 0 });
const api = orgApi(h);

const token = (hh: Harness, params: Record<string, string | undefined>) =>
  hh.req("POST", "/oauth/token", {
    raw: new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });

async function client(hh: Harness, scopes = ["openid", "profile", "service:orgs"]): Promise<string> {
  const r = await hh.req("POST", "/oauth/register", { body: { client_name: "RP", allowed_scopes: scopes } });
  expect(r.status).toBe(201);
  return r.body.client_id;
}

async function verify(hh: Harness, jwt: string, audience: string) {
  const jwks = createLocalJWKSet((await hh.req("GET", "/.well-known/jwks.json")).body);
  return (await jwtVerify(jwt, jwks, { issuer: "http://localhost", audience, currentDate: new Date(hh.clock.now()) })).payload;
}

/** The service_orgs claim `u` gives the relying party `rp` (id_token and userinfo agree). */
async function orgClaim(u: TestUser, rp: string, scope = "service:orgs") {
  const r = await token(h, { grant_type: TE, subject_token: u.token, audience: rp, scope });
  expect(r.status).toBe(200);
  const claims = await verify(h, r.body.id_token, rp);
  const info = await h.req("GET", "/oauth/userinfo", { headers: { authorization: `Bearer ${r.body.access_token}` } });
  expect(info.body.service_orgs).toEqual(claims.service_orgs);
  return claims.service_orgs as Record<string, unknown>[] | undefined;
}

describe("the service_orgs claim", () => {
  test("named only when the mode is public or opaque AND the member made their membership visible", async () => {
    const rp = await client(h);
    const c = await crew(h, { disclosure: "public" });
    const org = (await api.req("GET", `/${c.slug}`, c.member.token)).body;
    // Visibility off (the default): nothing, whatever the mode.
    for (const mode of ["public", "opaque", "none"]) {
      await api.req("PUT", `/${c.slug}/disclosure`, c.owner.token, { mode });
      expect(await orgClaim(c.member, rp)).toEqual([]);
    }
    await api.req("PUT", `/${c.slug}/visibility`, c.member.token, { visible: true });
    await api.req("PUT", `/${c.slug}/disclosure`, c.owner.token, { mode: "public" });
    expect(await orgClaim(c.member, rp)).toEqual([{ id: org.id, slug: c.slug, name: org.name, verified_domain: null, role: "member", disclosure: "public" }]);
    await api.req("PUT", `/${c.slug}/disclosure`, c.owner.token, { mode: "opaque" });
    const [opaque] = (await orgClaim(c.member, rp))!;
    expect(opaque).toEqual({ id: expect.stringMatching(/^org_[0-9a-f]{32}$/), disclosure: "opaque" });
    expect(JSON.stringify(opaque)).not.toContain(c.slug);
    expect(JSON.stringify(opaque)).not.toContain(org.id);
    await api.req("PUT", `/${c.slug}/disclosure`, c.owner.token, { mode: "none" });
    expect(await orgClaim(c.member, rp)).toEqual([]);
    // Another member who has not opted in is never named, and the opt-out takes effect at once.
    await api.req("PUT", `/${c.slug}/disclosure`, c.owner.token, { mode: "public" });
    expect(await orgClaim(c.admin, rp)).toEqual([]);
    await api.req("PUT", `/${c.slug}/visibility`, c.member.token, { visible: false });
    expect(await orgClaim(c.member, rp)).toEqual([]);
  });

  test("opaque: the same identifier for two members at one relying party, a different one at another", async () => {
    const rp1 = await client(h);
    const rp2 = await client(h);
    const c = await crew(h);
    for (const u of [c.member, c.admin]) await api.req("PUT", `/${c.slug}/visibility`, u.token, { visible: true });
    const [a] = (await orgClaim(c.member, rp1))!;
    const [b] = (await orgClaim(c.admin, rp1))!;
    const [other] = (await orgClaim(c.member, rp2))!;
    expect(a.id).toBe(b.id);
    expect(other.id).not.toBe(a.id);
  });

  test("only with the service:orgs scope, and only when the client may have it", async () => {
    const c = await crew(h, { disclosure: "public" });
    await api.req("PUT", `/${c.slug}/visibility`, c.member.token, { visible: true });
    const rp = await client(h);
    expect(await orgClaim(c.member, rp, "profile")).toBeUndefined();
    const narrow = await client(h, ["openid", "profile"]);
    const r = await token(h, { grant_type: TE, subject_token: c.member.token, audience: narrow, scope: "service:orgs" });
    expect(r.body.scope).toBe("openid");
    expect((await verify(h, r.body.id_token, narrow)).service_orgs).toBeUndefined();
    expect((await h.req("GET", "/.well-known/openid-configuration")).body).toMatchObject({ scopes_supported: expect.arrayContaining(["service:orgs"]), claims_supported: expect.arrayContaining(["service_orgs"]) });
  });

  test("a delegated id_token carries the principal's organisations, not the actor's", async () => {
    const rp = (await h.req("POST", "/oauth/register", { body: { client_name: "RP", allowed_scopes: ["openid", "service:orgs"], delegation_policy: "allow" } })).body.client_id;
    const c = await crew(h, { disclosure: "public" });
    await api.req("PUT", `/${c.slug}/visibility`, c.member.token, { visible: true });
    const d = await h.req("POST", "/api/v1/auth/delegation-token", { token: c.member.token, body: { actor: c.stranger.username } });
    const r = await token(h, { grant_type: TE, subject_token: d.body.delegation_token, actor_token: c.stranger.token, audience: rp, scope: "service:orgs" });
    expect(r.status).toBe(200);
    const claims = await verify(h, r.body.id_token, rp);
    expect(claims).toMatchObject({ sub: c.member.id, act: { sub: c.stranger.id } });
    expect((claims.service_orgs as { slug: string }[]).map((o) => o.slug)).toEqual([c.slug]);
  });
});

describe("resources", () => {
  test("per role: admins and owners register and remove; site admins read", async () => {
    const c = await crew(h);
    const body = { identifier: `https://api.${c.slug}.example.com`, label: "API" };
    await refused(h, () => api.req("POST", `/${c.slug}/resources`, null, body), 401);
    for (const role of ["stranger", "member", "siteAdmin"] as const) await refused(h, () => api.req("POST", `/${c.slug}/resources`, c[role].token, body), 403, "FORBIDDEN");
    const r = await api.req("POST", `/${c.slug}/resources`, c.admin.token, body);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: expect.any(String), identifier: body.identifier, label: "API", created_at: expect.any(String) });
    const expected: Record<RoleName, number> = { anonymous: 401, stranger: 403, member: 403, admin: 200, owner: 200, siteAdmin: 200 };
    for (const role of ROLES) expect([role, (await api.req("GET", `/${c.slug}/resources`, tokenOf(c, role))).status]).toEqual([role, expected[role]]);
    expect((await api.req("GET", `/${c.slug}/resources`, c.siteAdmin.token)).body).toEqual([r.body]);
    for (const role of ["stranger", "member", "siteAdmin"] as const) await refused(h, () => api.req("DELETE", `/${c.slug}/resources/${r.body.id}`, c[role].token), 403, "FORBIDDEN");
    expect((await api.req("DELETE", `/${c.slug}/resources/${r.body.id}`, c.owner.token)).body).toEqual({ id: r.body.id, deleted: true });
    // Idempotent: again, unknown or malformed ids answer deleted false and change nothing.
    for (const id of [r.body.id, "0190c5a8-1c1f-7c5e-9b3a-0d6e2f4a1b2c", "nope"]) {
      const again = await api.req("DELETE", `/${c.slug}/resources/${id}`, c.owner.token);
      expect(again.body).toEqual({ id, deleted: false });
    }
  });

  test("400 for what is not an absolute URI or has a fragment; 409 when any organisation has it; 400 LIMIT_EXCEEDED past 20; another org's id is not touched", async () => {
    const c = await crew(h);
    const d = await crew(h);
    for (const identifier of ["api.example.com", "/relative", "https://api.example.com/#frag", "not a uri"]) await refused(h, () => api.req("POST", `/${c.slug}/resources`, c.owner.token, { identifier }), 400, "INVALID_INPUT");
    const mine = await api.req("POST", `/${c.slug}/resources`, c.owner.token, { identifier: "urn:example:resource:one" });
    expect(mine.status).toBe(201);
    await refused(h, () => api.req("POST", `/${d.slug}/resources`, d.owner.token, { identifier: "urn:example:resource:one" }), 409, "CONFLICT");
    expect((await api.req("DELETE", `/${d.slug}/resources/${mine.body.id}`, d.owner.token)).body.deleted).toBe(false);
    for (let i = 2; i <= 20; i++) expect((await api.req("POST", `/${c.slug}/resources`, c.owner.token, { identifier: `https://r${i}.${c.slug}.example.com` })).status).toBe(201);
    await refused(h, () => api.req("POST", `/${c.slug}/resources`, c.owner.token, { identifier: `https://r21.${c.slug}.example.com` }), 400, "LIMIT_EXCEEDED");
    await refused(h, () => api.req("POST", `/${c.slug}/resources`, c.owner.token, {}), 422);
  });
});

describe("delegation grants", () => {
  async function withResource(c: Crew): Promise<string> {
    const identifier = `https://api.${c.slug}.example.com`;
    expect((await api.req("POST", `/${c.slug}/resources`, c.owner.token, { identifier })).status).toBe(201);
    return identifier;
  }

  test("per role: admins and owners add and revoke; site admins read; revoking is idempotent and keeps the row", async () => {
    const c = await crew(h);
    const resource = await withResource(c);
    const body = { resource, scopes: ["invoices:read"] };
    await refused(h, () => api.req("POST", `/${c.slug}/delegation-grants`, null, body), 401);
    for (const role of ["stranger", "member", "siteAdmin"] as const) await refused(h, () => api.req("POST", `/${c.slug}/delegation-grants`, c[role].token, body), 403, "FORBIDDEN");
    const r = await api.req("POST", `/${c.slug}/delegation-grants`, c.admin.token, body);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: expect.any(String), resource, allowed_scopes: ["invoices:read"], min_role: "admin", max_ttl_seconds: 900, member_user_id: null, is_active: true, created_at: expect.any(String), revoked_at: null });
    const expected: Record<RoleName, number> = { anonymous: 401, stranger: 403, member: 403, admin: 200, owner: 200, siteAdmin: 200 };
    for (const role of ROLES) expect([role, (await api.req("GET", `/${c.slug}/delegation-grants`, tokenOf(c, role))).status]).toEqual([role, expected[role]]);
    for (const role of ["stranger", "member", "siteAdmin"] as const) await refused(h, () => api.req("DELETE", `/${c.slug}/delegation-grants/${r.body.id}`, c[role].token), 403, "FORBIDDEN");
    expect((await api.req("DELETE", `/${c.slug}/delegation-grants/${r.body.id}`, c.owner.token)).body).toEqual({ id: r.body.id, revoked: true });
    expect((await api.req("DELETE", `/${c.slug}/delegation-grants/${r.body.id}`, c.owner.token)).body).toEqual({ id: r.body.id, revoked: false });
    expect((await api.req("GET", `/${c.slug}/delegation-grants`, c.owner.token)).body).toEqual([{ ...r.body, is_active: false, revoked_at: expect.any(String) }]);
  });

  test("the lifetime is clamped to 3600; a member may be named; 400 for an unregistered resource or a bad scope; 404 for a non-member", async () => {
    const c = await crew(h);
    const resource = await withResource(c);
    expect((await api.req("POST", `/${c.slug}/delegation-grants`, c.owner.token, { resource, scopes: ["a"], max_ttl_seconds: 86400, min_role: "member", member_user_id: c.member.username })).body).toMatchObject({
      max_ttl_seconds: 3600,
      min_role: "member",
      member_user_id: c.member.id,
    });
    await refused(h, () => api.req("POST", `/${c.slug}/delegation-grants`, c.owner.token, { resource: "https://elsewhere.example.com", scopes: ["a"] }), 400, "INVALID_INPUT");
    await refused(h, () => api.req("POST", `/${c.slug}/delegation-grants`, c.owner.token, { resource, scopes: ["has space"] }), 400, "INVALID_INPUT");
    await refused(h, () => api.req("POST", `/${c.slug}/delegation-grants`, c.owner.token, { resource, scopes: ["a"], member_user_id: c.stranger.id }), 404, "NOT_FOUND");
    await refused(h, () => api.req("POST", `/${c.slug}/delegation-grants`, c.owner.token, { resource, scopes: [] }), 422);
    await refused(h, () => api.req("POST", `/${c.slug}/delegation-grants`, c.owner.token, { resource, scopes: ["a"], min_role: "god" }), 422);
    await refused(h, () => api.req("POST", `/${c.slug}/delegation-grants`, c.owner.token, { resource, scopes: ["a"], max_ttl_seconds: 0 }), 422);
  });
});

describe("on-behalf-of tokens for an organisation's resource (POST /oauth/token with resource)", () => {
  async function setupGrant(opts: { minRole?: string; scopes?: string[]; ttl?: number } = {}) {
    const c = await crew(h);
    const resource = `https://api.${c.slug}.example.com`;
    await api.req("POST", `/${c.slug}/resources`, c.owner.token, { identifier: resource });
    const grant = await api.req("POST", `/${c.slug}/delegation-grants`, c.owner.token, { resource, scopes: opts.scopes ?? ["invoices:read", "invoices:write"], min_role: opts.minRole ?? "member", max_ttl_seconds: opts.ttl ?? 600 });
    expect(grant.status).toBe(201);
    const org = (await api.req("GET", `/${c.slug}`, c.owner.token)).body;
    return { c, resource, grant: grant.body, org };
  }
  const obo = (u: TestUser, resource: string, extra: Record<string, string> = {}) => token(h, { grant_type: TE, subject_token: u.token, resource, ...extra });

  test("under a matching grant: an RS256 at+jwt the resource server verifies — sub the organisation, act the member, aud the resource", async () => {
    const { c, resource, grant, org } = await setupGrant();
    const r = await obo(c.member, resource, { scope: "invoices:read", subject_token_type: AT });
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body).toEqual({ access_token: expect.any(String), issued_token_type: AT, token_type: "Bearer", expires_in: 600, scope: "invoices:read" });
    expect(decodeProtectedHeader(r.body.access_token)).toMatchObject({ alg: "RS256", typ: "at+jwt" });
    const claims = await verify(h, r.body.access_token, resource);
    expect(claims).toMatchObject({ iss: "http://localhost", aud: resource, sub: org.id, act: { sub: c.member.id }, scope: "invoices:read", org: { id: org.id, slug: c.slug, role: "member" }, grant_id: grant.id });
    expect(claims.exp! - claims.iat!).toBe(600);
    // No scope asked: everything the grant allows.
    expect((await obo(c.admin, resource)).body.scope).toBe("invoices:read invoices:write");
    // The token is for the resource only: no relying party accepts it.
    await expect(verify(h, r.body.access_token, "colony_someone")).rejects.toThrow();
    h.clock.advance(10 * MINUTE);
    await expect(verify(h, r.body.access_token, resource)).rejects.toThrow();
  });

  test("refused without a matching grant: a stranger, a role below min_role, a scope outside the grant, a revoked grant, a removed resource", async () => {
    const { c, resource, grant } = await setupGrant({ minRole: "admin" });
    const refusedGrant = async (u: TestUser, error: string, extra: Record<string, string> = {}) => {
      const before = dbState(h);
      const r = await obo(u, resource, extra);
      expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error });
      expect(Object.keys(r.body).sort()).toEqual(["error", "error_description"]);
      expect(dbState(h)).toEqual(before);
    };
    await refusedGrant(c.stranger, "invalid_target");
    await refusedGrant(c.siteAdmin, "invalid_target");
    await refusedGrant(c.member, "invalid_target");
    await refusedGrant(c.admin, "invalid_scope", { scope: "invoices:read payroll:read" });
    expect((await obo(c.admin, resource, { scope: "invoices:write" })).status).toBe(200);
    expect((await obo(c.owner, resource)).status).toBe(200);
    await api.req("DELETE", `/${c.slug}/delegation-grants/${grant.id}`, c.owner.token);
    await refusedGrant(c.admin, "invalid_target");
    const again = await api.req("POST", `/${c.slug}/delegation-grants`, c.owner.token, { resource, scopes: ["invoices:read"] });
    expect((await obo(c.admin, resource)).status).toBe(200);
    const resId = (await api.req("GET", `/${c.slug}/resources`, c.owner.token)).body[0].id;
    await api.req("DELETE", `/${c.slug}/resources/${resId}`, c.owner.token);
    await refusedGrant(c.admin, "invalid_target");
    // Removing the resource revoked its grants: registering it again does not revive them.
    await api.req("POST", `/${c.slug}/resources`, c.owner.token, { identifier: resource });
    await refusedGrant(c.admin, "invalid_target");
    expect((await api.req("GET", `/${c.slug}/delegation-grants`, c.owner.token)).body.find((g: { id: string }) => g.id === again.body.id).is_active).toBe(false);
    await refusedGrant(c.admin, "invalid_target", {});
    const unknown = await token(h, { grant_type: TE, subject_token: c.admin.token, resource: "https://unregistered.example.com" });
    expect(unknown.body.error).toBe("invalid_target");
  });

  test("a grant for one member only; the longest lifetime among matching grants, within the ceiling", async () => {
    const { c, resource } = await setupGrant({ minRole: "owner", ttl: 300 });
    await api.req("POST", `/${c.slug}/delegation-grants`, c.owner.token, { resource, scopes: ["invoices:read"], min_role: "member", member_user_id: c.member.id, max_ttl_seconds: 1200 });
    expect((await obo(c.member, resource)).body).toMatchObject({ expires_in: 1200, scope: "invoices:read" });
    expect((await obo(c.admin, resource)).body.error).toBe("invalid_target");
    // The member-only grant is not the owner's; a second owner grant with a longer life wins for what it covers.
    expect((await obo(c.owner, resource, { scope: "invoices:read" })).body.expires_in).toBe(300);
    await api.req("POST", `/${c.slug}/delegation-grants`, c.owner.token, { resource, scopes: ["invoices:read"], min_role: "owner", max_ttl_seconds: 900 });
    expect((await obo(c.owner, resource, { scope: "invoices:read" })).body.expires_in).toBe(900);
    expect((await obo(c.owner, resource, { scope: "invoices:write" })).body.expires_in).toBe(300);
  });

  test("bad requests: a delegation token or an actor_token with a resource, a different audience, an invalid subject token", async () => {
    const { c, resource } = await setupGrant();
    const d = await h.req("POST", "/api/v1/auth/delegation-token", { token: c.owner.token, body: { actor: c.member.username } });
    expect((await obo(c.member, resource, { actor_token: c.member.token })).body.error).toBe("invalid_request");
    expect((await token(h, { grant_type: TE, subject_token: d.body.delegation_token, resource })).body.error).toBe("invalid_request");
    expect((await obo(c.member, resource, { audience: "colony_other" })).body.error).toBe("invalid_target");
    expect((await obo(c.member, resource, { audience: resource })).status).toBe(200);
    expect((await token(h, { grant_type: TE, subject_token: c.member.apiKey, resource })).body.error).toBe("invalid_grant");
  });

  test("off with the delegation switch: invalid_request", async () => {
    const off = setup({ oidc: { tokenExchange: true, delegation: false }, rateLimitMultiplier: 0 });
    const u = await off.user();
    const r = await token(off, { grant_type: TE, subject_token: u.token, resource: "https://api.example.com" });
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error: "invalid_request" });
  });
});
