import { beforeAll, describe, expect, test } from "bun:test";
import { hashSecret } from "../../core/ids";
import { setup, type TestUser } from "../../../test/harness";
import { callerOf } from "../auth/service";
import * as usersService from "../users/service";
import { MAX_CLIENTS_PER_OWNER, createClient } from "./clients";

const h = setup();
const TE = "urn:ietf:params:oauth:grant-type:token-exchange";
let owner: TestUser, stranger: TestUser;

beforeAll(async () => {
  owner = await h.user();
  stranger = await h.user();
});

const create = (u: TestUser | null, body: Record<string, unknown>) => h.req("POST", "/api/v1/oauth-clients", { token: u?.token ?? null, body });
const base = { name: "My RP", redirect_uris: ["https://rp.example/callback"] };

describe("POST /api/v1/oauth-clients", () => {
  test("201 in the reference shape with the secret once; defaults; the secret is stored hashed", async () => {
    const r = await create(owner, base);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      client_id: expect.stringMatching(/^colony_[0-9A-Za-z]{24}$/),
      name: "My RP",
      owner_contact: null,
      redirect_uris: ["https://rp.example/callback"],
      post_logout_redirect_uris: [],
      backchannel_logout_uri: null,
      allowed_scopes: ["openid", "profile"],
      is_active: true,
      created_at: expect.stringMatching(/Z$/),
      audience_policy: "both",
      subject_type: "public",
      delegation_policy: "deny",
      token_endpoint_auth_method: "client_secret_basic",
      jwks_uri: null,
      has_jwks: false,
      connections: { users: 0, logins: 0 },
      client_secret: expect.stringMatching(/^cs_[0-9A-Za-z]{43}$/),
    });
    const row = h.ctx.db.$client.query("select secret_hash, owner_id from oauth_clients where id = ?").get(r.body.id);
    expect(row).toEqual({ secret_hash: hashSecret(r.body.client_secret), owner_id: owner.id });
    const again = await h.req("GET", `/api/v1/oauth-clients/${r.body.id}`, { token: owner.token });
    expect(again.body.client_secret).toBeUndefined();
  });

  test("all settings are stored: scopes (openid added), policies, contact, logout URIs, jwks", async () => {
    const r = await create(owner, {
      ...base,
      scopes: ["email", "service:karma", "email"],
      audience_policy: "agents_only",
      subject_type: "pairwise",
      delegation_policy: "allow",
      owner_contact: "ops@rp.example",
      post_logout_redirect_uris: ["http://localhost:3000/bye"],
      backchannel_logout_uri: "https://rp.example/logout",
      jwks: { keys: [] },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      allowed_scopes: ["openid", "email", "service:karma"],
      audience_policy: "agents_only",
      subject_type: "pairwise",
      delegation_policy: "allow",
      owner_contact: "ops@rp.example",
      post_logout_redirect_uris: ["http://localhost:3000/bye"],
      backchannel_logout_uri: "https://rp.example/logout",
      has_jwks: true,
    });
  });

  test("422 for bad redirect URIs, unknown scopes, bad enums, missing fields; nothing created", async () => {
    const before = h.ctx.db.$client.query("select count(*) n from oauth_clients").get();
    const bad = [
      { ...base, redirect_uris: [] },
      { ...base, redirect_uris: ["http://rp.example/cb"] },
      { ...base, redirect_uris: ["https://rp.example/cb#frag"] },
      { ...base, redirect_uris: ["not a url"] },
      { ...base, scopes: ["openid", "offline_access"] },
      { ...base, audience_policy: "everyone" },
      { ...base, name: "" },
      { redirect_uris: base.redirect_uris },
      { name: "x" },
    ];
    for (const body of bad) {
      const r = await create(owner, body);
      expect(r.status).toBe(422);
    }
    expect(h.ctx.db.$client.query("select count(*) n from oauth_clients").get()).toEqual(before);
  });

  test("401 anonymous; 400 LIMIT_EXCEEDED past the per-owner cap", async () => {
    expect((await create(null, base)).status).toBe(401);
    const busy = await h.user();
    const caller = callerOf(usersService.findById(h.ctx, busy.id)!);
    for (let i = 0; i < MAX_CLIENTS_PER_OWNER; i++) await createClient(h.ctx, caller, base);
    const r = await create(busy, base);
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("LIMIT_EXCEEDED");
  });
});

test("429 RATE_LIMIT_OAUTH_CLIENT_CREATE past 10 an hour", async () => {
  const hh = setup();
  const u = await hh.user();
  for (let i = 0; i < 10; i++) expect((await hh.req("POST", "/api/v1/oauth-clients", { token: u.token, body: base })).status).toBe(201);
  const r = await hh.req("POST", "/api/v1/oauth-clients", { token: u.token, body: base });
  expect(r.status).toBe(429);
  expect(r.body.detail.code).toBe("RATE_LIMIT_OAUTH_CLIENT_CREATE");
});

describe("owner management: list, get, patch, delete", () => {
  test("the owner sees their clients (newest first) with connection stats; a stranger sees none of them", async () => {
    const u = await h.user();
    const first = (await create(u, { ...base, name: "first" })).body;
    const second = (await create(u, { ...base, name: "second" })).body;
    const list = await h.req("GET", "/api/v1/oauth-clients", { token: u.token });
    expect(list.status).toBe(200);
    expect(list.body.map((c: any) => c.name)).toEqual(["second", "first"]);
    expect(list.body[0].client_secret).toBeUndefined();
    const theirs = await h.req("GET", "/api/v1/oauth-clients", { token: stranger.token });
    expect(theirs.body.map((c: any) => c.id)).not.toContain(first.id);
    expect((await h.req("GET", "/api/v1/oauth-clients")).status).toBe(401);

    // Connection stats count distinct users and logins, never who.
    const a = await h.user();
    const b = await h.user();
    const ex = (t: string) => h.req("POST", "/oauth/token", { raw: new URLSearchParams({ grant_type: TE, subject_token: t, audience: second.client_id }).toString(), headers: { "content-type": "application/x-www-form-urlencoded" } });
    await ex(a.token);
    await ex(a.token);
    await ex(b.token);
    const one = await h.req("GET", `/api/v1/oauth-clients/${second.id}`, { token: u.token });
    expect(one.body.connections).toEqual({ users: 2, logins: 3 });
  });

  test("GET one: by id or client_id for the owner; 404 for a stranger or an unknown id; 401 anonymous", async () => {
    const c = (await create(owner, base)).body;
    expect((await h.req("GET", `/api/v1/oauth-clients/${c.id}`, { token: owner.token })).body.client_id).toBe(c.client_id);
    expect((await h.req("GET", `/api/v1/oauth-clients/${c.client_id}`, { token: owner.token })).body.id).toBe(c.id);
    const hidden = await h.req("GET", `/api/v1/oauth-clients/${c.id}`, { token: stranger.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body.detail.code).toBe("NOT_FOUND");
    expect((await h.req("GET", "/api/v1/oauth-clients/00000000-0000-7000-8000-000000000000", { token: owner.token })).status).toBe(404);
    expect((await h.req("GET", `/api/v1/oauth-clients/${c.id}`)).status).toBe(401);
  });

  test("422 for a jwks_uri or backchannel_logout_uri on a loopback, private or link-local address, created or patched; allowed where private targets are", async () => {
    for (const [field, url] of [
      ["jwks_uri", "https://127.0.0.1/jwks.json"],
      ["jwks_uri", "https://localhost/jwks.json"],
      ["backchannel_logout_uri", "https://169.254.169.254/logout"],
      ["backchannel_logout_uri", "https://[fd00::1]/logout"],
      ["jwks_uri", "https://[2002:7f00:1::]/jwks.json"],
    ] as const) {
      const r = await create(owner, { ...base, [field]: url });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", field]);
    }
    const c = (await create(owner, base)).body;
    const patched = await h.req("PATCH", `/api/v1/oauth-clients/${c.id}`, { token: owner.token, body: { jwks_uri: "https://10.0.0.5/jwks.json" } });
    expect(patched.status).toBe(422);
    expect((await h.req("GET", `/api/v1/oauth-clients/${c.id}`, { token: owner.token })).body.jwks_uri).toBeNull();
    h.ctx.config.allowPrivateWebhooks = true;
    try {
      expect((await h.req("PATCH", `/api/v1/oauth-clients/${c.id}`, { token: owner.token, body: { jwks_uri: "http://localhost:9000/jwks.json" } })).status).toBe(200);
    } finally {
      h.ctx.config.allowPrivateWebhooks = false;
    }
  });

  test("PATCH changes only what is sent; validated like create; 404 for a stranger", async () => {
    const c = (await create(owner, { ...base, owner_contact: "a@rp.example" })).body;
    const r = await h.req("PATCH", `/api/v1/oauth-clients/${c.id}`, { token: owner.token, body: { name: "Renamed", scopes: ["profile", "email"], audience_policy: "humans_only" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: "Renamed", allowed_scopes: ["openid", "profile", "email"], audience_policy: "humans_only", owner_contact: "a@rp.example", redirect_uris: base.redirect_uris });
    expect((await h.req("PATCH", `/api/v1/oauth-clients/${c.id}`, { token: owner.token, body: { redirect_uris: ["ftp://x"] } })).status).toBe(422);
    expect((await h.req("PATCH", `/api/v1/oauth-clients/${c.id}`, { token: owner.token, body: { scopes: ["nope"] } })).status).toBe(422);
    const foreign = await h.req("PATCH", `/api/v1/oauth-clients/${c.id}`, { token: stranger.token, body: { name: "Mine now" } });
    expect(foreign.status).toBe(404);
    expect((await h.req("GET", `/api/v1/oauth-clients/${c.id}`, { token: owner.token })).body.name).toBe("Renamed");
    expect((await h.req("PATCH", `/api/v1/oauth-clients/${c.id}`, { body: { name: "x" } })).status).toBe(401);
  });

  test("DELETE: 404 for a stranger; the owner's delete drops grants and issued tokens", async () => {
    const c = (await create(owner, base)).body;
    const user = await h.user();
    const ex = await h.req("POST", "/oauth/token", { raw: new URLSearchParams({ grant_type: TE, subject_token: user.token, audience: c.client_id }).toString(), headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(ex.status).toBe(200);
    expect((await h.req("DELETE", `/api/v1/oauth-clients/${c.id}`, { token: stranger.token })).status).toBe(404);
    expect((await h.req("DELETE", `/api/v1/oauth-clients/${c.id}`)).status).toBe(401);
    const r = await h.req("DELETE", `/api/v1/oauth-clients/${c.id}`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ deleted: true });
    expect((await h.req("GET", `/api/v1/oauth-clients/${c.id}`, { token: owner.token })).status).toBe(404);
    expect((await h.req("GET", "/oauth/userinfo", { token: ex.body.access_token })).status).toBe(401);
    expect(h.ctx.db.$client.query("select count(*) n from oauth_grants where client_ref = ?").get(c.id)).toEqual({ n: 0 });
  });
});

describe("POST /oauth/register (RFC 7591)", () => {
  test("201 anonymously: a public token-exchange client by default, no secret, no-store", async () => {
    const r = await h.req("POST", "/oauth/register", { body: { client_name: "Agent tool", scope: "openid profile service:karma" } });
    expect(r.status).toBe(201);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body).toMatchObject({
      client_id: expect.stringMatching(/^colony_/),
      client_name: "Agent tool",
      grant_types: [TE],
      token_endpoint_auth_method: "none",
      scope: "openid profile service:karma",
      allowed_scopes: ["openid", "profile", "service:karma"],
      audience_policy: "both",
      redirect_uris: [],
    });
    expect(r.body.client_secret).toBeUndefined();
    expect(typeof r.body.client_id_issued_at).toBe("number");
  });

  test("a confidential client gets a secret; allowed_scopes wins over scope; audience_policy kept", async () => {
    const r = await h.req("POST", "/oauth/register", {
      body: { client_name: "Web RP", redirect_uris: ["https://rp.example/cb"], token_endpoint_auth_method: "client_secret_basic", scope: "openid", allowed_scopes: ["email"], audience_policy: "agents_only" },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ client_secret: expect.stringMatching(/^cs_/), client_secret_expires_at: 0, allowed_scopes: ["openid", "email"], audience_policy: "agents_only", redirect_uris: ["https://rp.example/cb"] });
  });

  test("with a bearer token the client is owned by the caller and listed for them", async () => {
    const u = await h.user();
    const r = await h.req("POST", "/oauth/register", { token: u.token, body: { client_name: "Owned" } });
    expect(r.status).toBe(201);
    const list = await h.req("GET", "/api/v1/oauth-clients", { token: u.token });
    expect(list.body.map((c: any) => c.client_id)).toEqual([r.body.client_id]);
  });

  test("400 invalid_redirect_uri and invalid_client_metadata; nothing created", async () => {
    const before = h.ctx.db.$client.query("select count(*) n from oauth_clients").get();
    const cases: [Record<string, unknown>, string][] = [
      [{ redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: "https://rp.example" }, "invalid_redirect_uri"],
      [{ grant_types: ["password"] }, "invalid_client_metadata"],
      [{ grant_types: ["authorization_code"] }, "invalid_redirect_uri"],
      [{ grant_types: ["refresh_token"], redirect_uris: ["https://rp.example/cb"] }, "invalid_client_metadata"],
      [{ response_types: ["token"], grant_types: ["authorization_code"], redirect_uris: ["https://rp.example/cb"] }, "invalid_client_metadata"],
      [{ redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["myapp:/cb"] }, "invalid_redirect_uri"],
      [{ scope: "openid offline_access" }, "invalid_client_metadata"],
      [{ allowed_scopes: ["admin"] }, "invalid_client_metadata"],
      [{ audience_policy: "robots" }, "invalid_client_metadata"],
      [{ token_endpoint_auth_method: "magic" }, "invalid_client_metadata"],
      [{ client_name: 7 }, "invalid_client_metadata"],
      // Fetched by a server, not a browser: never a loopback, private or link-local (metadata) address.
      [{ jwks_uri: "https://[::1]/jwks.json" }, "invalid_client_metadata"],
      [{ backchannel_logout_uri: "https://169.254.169.254/latest/meta-data/" }, "invalid_client_metadata"],
    ];
    for (const [body, error] of cases) {
      const r = await h.req("POST", "/oauth/register", { body });
      expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error });
      expect(typeof r.body.error_description).toBe("string");
    }
    expect(h.ctx.db.$client.query("select count(*) n from oauth_clients").get()).toEqual(before);
  });

  test("429 RATE_LIMIT_OAUTH_REGISTER after 20 an hour per IP", async () => {
    const hh = setup();
    for (let i = 0; i < 20; i++) expect((await hh.req("POST", "/oauth/register", { body: {} })).status).toBe(201);
    const r = await hh.req("POST", "/oauth/register", { body: {} });
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_OAUTH_REGISTER");
  });
});
