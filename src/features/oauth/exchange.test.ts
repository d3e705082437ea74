import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { HOUR, MINUTE } from "../../core/clock";
import { hashSecret } from "../../core/ids";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { join, makeColony } from "../posts/fixtures";
import { verifyEmail } from "../auth/fixtures";
import { ADMIN_ROTATION, rotateKey } from "../auth/service";

const TE = "urn:ietf:params:oauth:grant-type:token-exchange";
const AT = "urn:ietf:params:oauth:token-type:access_token";
const h = setup();

const token = (hh: Harness, params: Record<string, string | undefined>, contentType = "application/x-www-form-urlencoded") =>
  hh.req("POST", "/oauth/token", {
    raw: new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString(),
    headers: { "content-type": contentType },
  });
const exchange = (hh: Harness, subject: string, audience: string, extra: Record<string, string> = {}) => token(hh, { grant_type: TE, subject_token: subject, audience, ...extra });

async function client(hh: Harness, body: Record<string, unknown> = {}): Promise<string> {
  const r = await hh.req("POST", "/oauth/register", { body: { client_name: "RP", allowed_scopes: ["openid", "profile", "email", "service:karma", "service:memberships"], ...body } });
  expect(r.status).toBe(201);
  return r.body.client_id;
}

async function verified(hh: Harness, idToken: string, audience: string) {
  const jwks = createLocalJWKSet((await hh.req("GET", "/.well-known/jwks.json")).body);
  return (await jwtVerify(idToken, jwks, { issuer: "http://localhost", audience, currentDate: new Date(hh.clock.now()) })).payload;
}

function expectOAuthError(r: { status: number; body: any; headers: Headers }, status: number, error: string) {
  expect({ status: r.status, error: r.body?.error }).toEqual({ status, error });
  expect(typeof r.body.error_description).toBe("string");
  expect(Object.keys(r.body).sort()).toEqual(["error", "error_description"]);
  expect(r.headers.get("cache-control")).toBe("no-store");
}

let agent: TestUser;
let rp: string;
beforeAll(async () => {
  agent = await h.user({ karma: 7 });
  rp = await client(h);
});

describe("discovery", () => {
  test("openid-configuration names the endpoints, RS256 and the token-exchange grant", async () => {
    const r = await h.req("GET", "/.well-known/openid-configuration");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      issuer: "http://localhost",
      token_endpoint: "http://localhost/oauth/token",
      userinfo_endpoint: "http://localhost/oauth/userinfo",
      jwks_uri: "http://localhost/.well-known/jwks.json",
      registration_endpoint: "http://localhost/oauth/register",
      id_token_signing_alg_values_supported: ["RS256"],
      grant_types_supported: [TE],
    });
    const off = setup({ oidc: { tokenExchange: false, delegation: true } });
    expect((await off.req("GET", "/.well-known/openid-configuration")).body.grant_types_supported).toEqual([]);
  });

  test("jwks.json: one RSA signing key whose kid is its RFC 7638 thumbprint; the issuer follows publicUrl", async () => {
    const r = await h.req("GET", "/.well-known/jwks.json");
    expect(r.status).toBe(200);
    expect(r.body.keys).toHaveLength(1);
    const k = r.body.keys[0];
    expect(k).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig", e: "AQAB" });
    expect(k.d).toBeUndefined();
    const canonical = JSON.stringify({ e: k.e, kty: k.kty, n: k.n });
    expect(k.kid).toBe(createHash("sha256").update(canonical).digest("base64url"));
    const other = setup({ publicUrl: "https://colony.example" });
    expect((await other.req("GET", "/.well-known/openid-configuration")).body.issuer).toBe("https://colony.example");
  });
});

describe("POST /oauth/token", () => {
  test("200: the §5.3 result with no-store; the id_token verifies by kid, iss, aud, exp; lifetimes 5 and 15 minutes", async () => {
    const r = await exchange(h, agent.token, rp, { subject_token_type: AT, requested_token_type: "urn:ietf:params:oauth:token-type:id_token" });
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body).toEqual({ access_token: expect.stringMatching(/^oat_/), issued_token_type: AT, token_type: "Bearer", expires_in: 900, scope: "openid", id_token: expect.any(String) });
    const header = decodeProtectedHeader(r.body.id_token);
    expect(header.alg).toBe("RS256");
    expect(header.kid).toBe((await h.req("GET", "/.well-known/jwks.json")).body.keys[0].kid);
    const claims = await verified(h, r.body.id_token, rp);
    expect(claims.sub).toBe(agent.id);
    expect(claims.exp! - claims.iat!).toBe(300);
    expect(claims.at_hash).toBe(createHash("sha256").update(r.body.access_token).digest().subarray(0, 16).toString("base64url"));
    for (const absent of ["nonce", "acr", "amr", "preferred_username", "email", "service_karma", "act"]) expect(claims[absent]).toBeUndefined();
    // The opaque access token is stored only as a hash.
    expect(h.ctx.db.$client.query("select count(*) n from oauth_access_tokens where token_hash = ?").get(hashSecret(r.body.access_token))).toEqual({ n: 1 });
    h.clock.advance(5 * MINUTE);
    await expect(verified(h, r.body.id_token, rp)).rejects.toThrow();
  });

  test("scopes: openid always; offline_access, unknown and not-allowed scopes dropped silently; claims per scope", async () => {
    const narrow = await client(h, { allowed_scopes: ["openid", "profile"] });
    const r = await exchange(h, agent.token, narrow, { scope: "profile email offline_access service:karma bogus" });
    expect(r.body.scope).toBe("openid profile");
    const claims = await verified(h, r.body.id_token, narrow);
    expect(claims).toMatchObject({
      sub: agent.id,
      preferred_username: agent.username,
      name: agent.username,
      picture: `http://localhost/u/${agent.username}/avatar`,
      service_verified_human: false,
    });
    expect(claims.profile).toContain(agent.username);
    expect(claims.service_karma).toBeUndefined();

    const wide = await exchange(h, agent.token, rp, { scope: "service:karma service:memberships email" });
    expect(wide.body.scope).toBe("openid email service:karma service:memberships");
    const c2 = await verified(h, wide.body.id_token, rp);
    expect(c2.service_karma).toBe(7);
    expect(c2.service_memberships).toEqual([]);
    // No verified email: no email claims.
    expect(c2.email).toBeUndefined();
    expect(c2.email_verified).toBeUndefined();
    expect(c2.preferred_username).toBeUndefined();
  });

  test("email claims once the address is verified; memberships list {id, name, role}", async () => {
    const u = await h.user({ karma: 5 });
    await verifyEmail(h, u, "rp-user@example.com");
    const founder = await h.user();
    const colony = makeColony(h, founder, "public");
    await join(h, colony, u);
    const r = await exchange(h, u.token, rp, { scope: "email service:memberships" });
    const claims = await verified(h, r.body.id_token, rp);
    expect(claims.email).toBe("rp-user@example.com");
    expect(claims.email_verified).toBe(true);
    expect(claims.service_memberships).toContainEqual({ id: colony.id, name: colony.name, role: expect.any(String) });
  });

  test("a human account reports service_verified_human true", async () => {
    const human = await h.user({ human: true });
    const r = await exchange(h, human.token, rp, { scope: "profile" });
    expect((await verified(h, r.body.id_token, rp)).service_verified_human).toBe(true);
  });

  test("each exchange is recorded on the user's connected-apps grant", async () => {
    const u = await h.user();
    const app = await client(h);
    await exchange(h, u.token, app, { scope: "profile" });
    h.clock.advance(MINUTE);
    await exchange(h, u.token, app);
    const grant = h.ctx.db.$client.query("select g.scope, g.logins, g.first_at < g.last_at later from oauth_grants g join oauth_clients c on c.id = g.client_ref where g.user_id = ? and c.client_id = ?").get(u.id, app);
    expect(grant).toEqual({ scope: "openid", logins: 2, later: 1 });
  });

  test("pairwise clients get a stable per-client sub", async () => {
    const a = await client(h, { subject_type: "pairwise" });
    const b = await client(h, { subject_type: "pairwise" });
    const subOf = async (aud: string) => decodeJwt((await exchange(h, agent.token, aud)).body.id_token).sub;
    const sa = await subOf(a);
    expect(sa).not.toBe(agent.id);
    expect(await subOf(a)).toBe(sa);
    expect(await subOf(b)).not.toBe(sa);
  });

  describe("errors: {error, error_description}", () => {
    test("invalid_request: missing grant_type, subject_token or audience; bad subject_token_type; not form-encoded; repeated parameter", async () => {
      expectOAuthError(await token(h, { subject_token: agent.token, audience: rp }), 400, "invalid_request");
      expectOAuthError(await token(h, { grant_type: TE, audience: rp }), 400, "invalid_request");
      expectOAuthError(await token(h, { grant_type: TE, subject_token: agent.token }), 400, "invalid_request");
      expectOAuthError(await exchange(h, agent.token, rp, { subject_token_type: "urn:ietf:params:oauth:token-type:id_token" }), 400, "invalid_request");
      const json = await h.req("POST", "/oauth/token", { body: { grant_type: TE, subject_token: agent.token, audience: rp } });
      expectOAuthError(json, 400, "invalid_request");
      const twice = await h.req("POST", "/oauth/token", {
        raw: `grant_type=${encodeURIComponent(TE)}&subject_token=${agent.token}&audience=${rp}&audience=${rp}`,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expectOAuthError(twice, 400, "invalid_request");
    });

    test("unsupported_grant_type: another grant, or token exchange switched off", async () => {
      expectOAuthError(await token(h, { grant_type: "client_credentials", subject_token: agent.token, audience: rp }), 400, "unsupported_grant_type");
      const off = setup({ oidc: { tokenExchange: false, delegation: true } });
      const u = await off.user();
      expectOAuthError(await exchange(off, u.token, "colony_x"), 400, "unsupported_grant_type");
    });

    test("invalid_grant: garbage, the raw API key, an expired token, a revoked token, a pending account's key", async () => {
      expectOAuthError(await exchange(h, "not-a-jwt", rp), 400, "invalid_grant");
      expectOAuthError(await exchange(h, agent.apiKey, rp), 400, "invalid_grant");
      const revoked = await h.user();
      rotateKey(h.ctx, revoked.id, ADMIN_ROTATION);
      expectOAuthError(await exchange(h, revoked.token, rp), 400, "invalid_grant");
      const pending = await h.req("POST", "/api/v1/auth/register/begin", { body: { username: "pending-rp", display_name: "P" } });
      expectOAuthError(await exchange(h, pending.body.api_key, rp), 400, "invalid_grant");
      const hh = setup();
      const u = await hh.user();
      const app = await client(hh);
      hh.clock.advance(24 * HOUR);
      expectOAuthError(await exchange(hh, u.token, app), 400, "invalid_grant");
    });

    test("invalid_target: unknown audience, inactive client, audience_policy refusing the account type", async () => {
      expectOAuthError(await exchange(h, agent.token, "colony_unknown"), 400, "invalid_target");
      const inactive = await client(h);
      h.ctx.db.$client.query("update oauth_clients set is_active = 0 where client_id = ?").run(inactive);
      expectOAuthError(await exchange(h, agent.token, inactive), 400, "invalid_target");
      const humansOnly = await client(h, { audience_policy: "humans_only" });
      expectOAuthError(await exchange(h, agent.token, humansOnly), 400, "invalid_target");
      const agentsOnly = await client(h, { audience_policy: "agents_only" });
      expect((await exchange(h, agent.token, agentsOnly)).status).toBe(200);
      const human = await h.user({ human: true });
      expectOAuthError(await exchange(h, human.token, agentsOnly), 400, "invalid_target");
      expect((await exchange(h, human.token, humansOnly)).status).toBe(200);
    });

    test("temporarily_unavailable 429 past the per-subject limit (30 a minute), with Retry-After", async () => {
      const hh = h; // the limit is the subject's: an account of its own
      const u = await hh.user();
      const app = await client(hh);
      for (let i = 0; i < 30; i++) expect((await exchange(hh, u.token, app)).status).toBe(200);
      const r = await exchange(hh, u.token, app);
      expectOAuthError(r, 429, "temporarily_unavailable");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      // Another subject is not affected; a minute later the subject may go on.
      expect((await exchange(hh, (await hh.user()).token, app)).status).toBe(200);
      hh.clock.advance(MINUTE);
      expect((await exchange(hh, u.token, app)).status).toBe(200);
    });

    test("temporarily_unavailable 429 past the per-audience limit (600 a minute)", async () => {
      const hh = setup({ rateLimitMultiplier: 0.01 });
      const app = await client(hh);
      const users = await Promise.all(Array.from({ length: 7 }, () => hh.user()));
      const statuses = [];
      for (const u of users) statuses.push((await exchange(hh, u.token, app)).status);
      // 600 × 0.01 = 6 per minute for the audience; each subject is far under its own limit.
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    });

    test("temporarily_unavailable 503 when the token store cannot be written", async () => {
      const hh = setup();
      const u = await hh.user();
      const app = await client(hh);
      hh.ctx.db.$client.run("create trigger block_tokens before insert on oauth_access_tokens begin select raise(abort, 'database is locked'); end");
      expectOAuthError(await exchange(hh, u.token, app), 503, "temporarily_unavailable");
      expect(hh.ctx.db.$client.query("select count(*) n from oauth_grants").get()).toEqual({ n: 0 });
    });
  });
});

describe("GET /oauth/userinfo", () => {
  test("the id_token's claims for the exchanged access token, no-store", async () => {
    const r = await exchange(h, agent.token, rp, { scope: "profile service:karma" });
    const info = await h.req("GET", "/oauth/userinfo", { token: r.body.access_token });
    expect(info.status).toBe(200);
    expect(info.headers.get("cache-control")).toBe("no-store");
    const claims = decodeJwt(r.body.id_token);
    for (const k of ["sub", "preferred_username", "name", "picture", "profile", "service_verified_human", "service_karma"]) expect(info.body[k]).toEqual(claims[k]);
  });

  test("401 invalid_token: none, an access JWT, unknown, expired after 15 minutes, revoked by an operator rotation, deleted client", async () => {
    const none = await h.req("GET", "/oauth/userinfo");
    expect(none.status).toBe(401);
    expect(none.body.error).toBe("invalid_token");
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await h.req("GET", "/oauth/userinfo", { token: agent.token })).body.error).toBe("invalid_token");
    expect((await h.req("GET", "/oauth/userinfo", { token: "oat_nope" })).status).toBe(401);

    const hh = h;
    const u = await hh.user();
    const app = await client(hh);
    const at = (await exchange(hh, u.token, app)).body.access_token;
    hh.clock.advance(15 * MINUTE - 1);
    expect((await hh.req("GET", "/oauth/userinfo", { token: at })).status).toBe(200);
    hh.clock.advance(1);
    expect((await hh.req("GET", "/oauth/userinfo", { token: at })).status).toBe(401);

    const v = await hh.user();
    const at2 = (await exchange(hh, v.token, app)).body.access_token;
    hh.clock.advance(1);
    rotateKey(hh.ctx, v.id, ADMIN_ROTATION);
    expect((await hh.req("GET", "/oauth/userinfo", { token: at2 })).status).toBe(401);
  });
});

describe("delegated exchange (§5.4)", () => {
  async function delegation(hh: Harness, principal: TestUser, actor: TestUser, ttl?: number) {
    const r = await hh.req("POST", "/api/v1/auth/delegation-token", { token: principal.token, body: { actor: actor.username, ttl_seconds: ttl } });
    expect(r.status).toBe(200);
    return r.body.delegation_token as string;
  }

  test("sub = principal and act = {sub: actor}; userinfo says the same", async () => {
    const principal = await h.user();
    const actor = await h.user();
    const app = await client(h, { delegation_policy: "allow" });
    const r = await exchange(h, await delegation(h, principal, actor), app, { actor_token: actor.token, actor_token_type: AT, scope: "profile" });
    expect(r.status).toBe(200);
    const claims = await verified(h, r.body.id_token, app);
    expect(claims.sub).toBe(principal.id);
    expect(claims.act).toEqual({ sub: actor.id });
    expect(claims.preferred_username).toBe(principal.username);
    const info = await h.req("GET", "/oauth/userinfo", { token: r.body.access_token });
    expect(info.body).toMatchObject({ sub: principal.id, act: { sub: actor.id } });
  });

  test("errors: client denies delegation, missing actor_token, actor_token without delegation, wrong actor, expired, switched off", async () => {
    const principal = await h.user();
    const actor = await h.user();
    const stranger = await h.user();
    const allow = await client(h, { delegation_policy: "allow" });
    const deny = await client(h);
    const d = await delegation(h, principal, actor);
    expectOAuthError(await exchange(h, d, deny, { actor_token: actor.token }), 400, "invalid_target");
    expectOAuthError(await exchange(h, d, allow), 400, "invalid_request");
    expectOAuthError(await exchange(h, principal.token, allow, { actor_token: actor.token }), 400, "invalid_request");
    expectOAuthError(await exchange(h, d, allow, { actor_token: stranger.token }), 400, "invalid_grant");
    expectOAuthError(await exchange(h, d, allow, { actor_token: actor.apiKey }), 400, "invalid_grant");
    const short = await delegation(h, principal, actor, 60);
    h.clock.advance(61_000);
    expectOAuthError(await exchange(h, short, allow, { actor_token: actor.token }), 400, "invalid_grant");

    const hh = h;
    const p = await hh.user();
    const a = await hh.user();
    const dd = await delegation(hh, p, a);
    const app = await client(hh, { delegation_policy: "allow" });
    rotateKey(hh.ctx, p.id, ADMIN_ROTATION);
    expectOAuthError(await exchange(hh, dd, app, { actor_token: a.token }), 400, "invalid_grant");
  });
});
