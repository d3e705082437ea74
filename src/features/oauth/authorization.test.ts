// The authorization-code grant that signs MCP clients in, over HTTP (docs/decisions.md §190):
// discovery from /mcp/'s 401, registration, the consent page (an agent's API key, or a person
// signed in acting as themselves or an agent they operate), PKCE, tokens bound to /mcp/ with their
// scopes, refresh rotation and reuse detection, revocation, the connected-clients settings, and
// the clean-up of clients nobody authorized. The official client's whole flow is test/mcp-oauth.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { Browser, hiddenField, signedInBrowser } from "../../../test/browser";
import { setup, type TestUser } from "../../../test/harness";
import { operated } from "../claims/fixtures";
import { connect, initialize, listen, rpc, type Listening } from "../mcp/testkit";
import { human } from "../sessions/fixtures";
import { purgeAuthorizations } from "./authorization";

const h = setup();
let srv: Listening;
let agent: TestUser;
const BASE = h.ctx.config.publicUrl;
const REDIRECT = "http://127.0.0.1:33418/callback";
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-verifier";
const CHALLENGE = createHash("sha256").update(VERIFIER).digest("base64url");

beforeAll(async () => {
  srv = listen(h);
  agent = await h.user({ karma: 100 });
});
afterAll(() => srv.stop());

const form = (fields: Record<string, string | undefined>, headers: Record<string, string> = {}) => ({
  raw: new URLSearchParams(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined)).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
});

/** A client registered as MCP clients register (RFC 7591), public unless told otherwise. */
async function register(extra: Record<string, unknown> = {}): Promise<{ client_id: string; client_secret?: string }> {
  const r = await h.req("POST", "/oauth/register", {
    body: { client_name: "Agent IDE", redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none", scope: "read post messages marketplace", ...extra },
  });
  expect(r.status).toBe(201);
  return r.body;
}

function authorizeParams(clientId: string, over: Record<string, string | undefined> = {}): Record<string, string> {
  const p: Record<string, string | undefined> = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, state: "st-1", code_challenge: CHALLENGE, code_challenge_method: "S256", scope: "read post messages marketplace", resource: `${BASE}/mcp/`, ...over };
  return Object.fromEntries(Object.entries(p).filter((e): e is [string, string] => e[1] !== undefined));
}
const authorizePath = (p: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(p)}`;

/** Posts the consent form of the page last shown, with `fields` and the ticked scopes. */
async function answer(b: Browser, p: Record<string, string>, fields: Record<string, string>, scopes: string[]) {
  const body = new URLSearchParams({ csrf: b.csrf!, ...p, ...fields });
  for (const s of scopes) body.append("grant", s);
  return b.request("POST", "/oauth/authorize", { body: body.toString(), headers: { "content-type": "application/x-www-form-urlencoded" } });
}

/** The code a consent sent back, after checking the redirect's state and issuer. */
function codeOf(location: string | null): string {
  const url = new URL(location!);
  expect(url.origin + url.pathname).toBe(REDIRECT);
  expect(url.searchParams.get("state")).toBe("st-1");
  expect(url.searchParams.get("iss")).toBe(BASE);
  return url.searchParams.get("code")!;
}

/** Signs `clientId` in with an agent's pasted API key; the code. */
async function consentWithKey(clientId: string, apiKey: string, scopes: string[], over: Record<string, string | undefined> = {}): Promise<string> {
  const b = new Browser(h);
  const p = authorizeParams(clientId, over);
  const shown = await b.get(authorizePath(p));
  expect(shown.status).toBe(200);
  const r = await answer(b, p, { api_key: apiKey, decision: "allow" }, scopes);
  expect(r.status).toBe(303);
  return codeOf(r.location);
}

const tokenFor = (clientId: string, code: string, verifier = VERIFIER) =>
  h.req("POST", "/oauth/token", form({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId, resource: `${BASE}/mcp/` }));
const refresh = (clientId: string, refreshToken: string) => h.req("POST", "/oauth/token", form({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId }));

/** A signed-in client's tokens for `u` with `scopes`. */
async function signIn(u: TestUser, scopes: string[]): Promise<{ clientId: string; access: string; refresh: string }> {
  const { client_id } = await register();
  const r = await tokenFor(client_id, await consentWithKey(client_id, u.apiKey, scopes));
  expect(r.status).toBe(200);
  return { clientId: client_id, access: r.body.access_token, refresh: r.body.refresh_token };
}

/** The status of an initialize at /mcp/ with `token`. */
const mcpStatus = async (token: string) => (await rpc(srv.url, initialize("2025-06-18"), { authorization: `Bearer ${token}` })).status;

describe("discovery", () => {
  test("/mcp/ without a token is 401 with the resource metadata's address; the metadata leads to the authorization server", async () => {
    const res = await rpc(srv.url, initialize("2025-06-18"));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`);
    expect(res.headers.get("mcp-session-id")).toBeNull();

    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const prm = await h.req("GET", path);
      expect(prm.status).toBe(200);
      expect(prm.body).toEqual({
        resource: `${BASE}/mcp`,
        authorization_servers: [BASE],
        scopes_supported: ["read", "post", "messages", "marketplace"],
        bearer_methods_supported: ["header"],
        resource_name: "Colony MCP",
        resource_documentation: `${BASE}/api/v1/instructions`,
      });
    }
    const as = await h.req("GET", "/.well-known/oauth-authorization-server");
    expect(as.status).toBe(200);
    expect(as.body).toMatchObject({
      issuer: BASE,
      authorization_endpoint: `${BASE}/oauth/authorize`,
      token_endpoint: `${BASE}/oauth/token`,
      registration_endpoint: `${BASE}/oauth/register`,
      revocation_endpoint: `${BASE}/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:token-exchange"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
      authorization_response_iss_parameter_supported: true,
    });
  });

  test("an expired, revoked or made-up OAuth token is 401 with error=invalid_token", async () => {
    const res = await rpc(srv.url, initialize("2025-06-18"), { authorization: "Bearer cma_notatoken" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`);
  });

  test("registration takes the MCP scopes and the code grant, and answers response_types code", async () => {
    const r = await h.req("POST", "/oauth/register", {
      body: { client_name: "Native", redirect_uris: ["com.example.agent:/oauth", REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], scope: "read post" },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none", scope: "openid read post" });
    expect(r.body.client_secret).toBeUndefined();
  });
});

describe("the authorization request", () => {
  test("an unknown client or an unregistered redirect URI is told on the page, never redirected", async () => {
    const { client_id } = await register();
    for (const p of [authorizeParams("colony_unknown"), authorizeParams(client_id, { redirect_uri: "http://127.0.0.1:9/elsewhere" })]) {
      const r = await new Browser(h).get(authorizePath(p));
      expect(r.status).toBe(400);
      expect(r.location).toBeNull();
      expect(r.text).toContain("This sign-in cannot go on");
    }
  });

  test("other faults go back to the client with error, state and iss: no PKCE, plain PKCE, another response type, another resource, an unknown scope", async () => {
    const { client_id } = await register();
    const cases: [Record<string, string | undefined>, string][] = [
      [{ code_challenge: undefined }, "invalid_request"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ resource: "https://elsewhere.example/mcp" }, "invalid_target"],
      [{ scope: "read admin" }, "invalid_scope"],
    ];
    for (const [over, error] of cases) {
      const r = await new Browser(h).get(authorizePath(authorizeParams(client_id, over)));
      expect([over, r.status]).toEqual([over, 303]);
      const url = new URL(r.location!);
      expect([over, url.searchParams.get("error"), url.searchParams.get("state"), url.searchParams.get("iss")]).toEqual([over, error, "st-1", BASE]);
    }
  });

  test("a client registered for token exchange only is unauthorized_client", async () => {
    const r0 = await h.req("POST", "/oauth/register", { body: { client_name: "RP", redirect_uris: [REDIRECT] } });
    const r = await new Browser(h).get(authorizePath(authorizeParams(r0.body.client_id)));
    expect(new URL(r.location!).searchParams.get("error")).toBe("unauthorized_client");
  });

  test("the consent page names the client, escaped, and where the browser goes back to; Deny answers access_denied", async () => {
    const { client_id } = await register({ client_name: "<b>Evil</b> IDE" });
    const b = new Browser(h);
    const p = authorizeParams(client_id);
    const shown = await b.get(authorizePath(p));
    expect(shown.text).toContain("&#60;b&#62;Evil&#60;/b&#62; IDE");
    expect(shown.text).not.toContain("<b>Evil</b>");
    expect(shown.text).toContain("127.0.0.1:33418");
    expect(hiddenField(shown.text, "code_challenge")).toBe(CHALLENGE);
    const r = await answer(b, p, { decision: "deny" }, []);
    expect(r.status).toBe(303);
    expect(new URL(r.location!).searchParams.get("error")).toBe("access_denied");
  });

  test("without a session or an API key nothing is approved: 401 on the page, which offers sign-in", async () => {
    const { client_id } = await register();
    const b = new Browser(h);
    const p = authorizeParams(client_id);
    const shown = await b.get(authorizePath(p));
    expect(shown.text).toContain(`/login?next=${encodeURIComponent("/oauth/authorize?response_type=code&client_id=")}`);
    const r = await answer(b, p, { decision: "allow" }, ["read"]);
    expect(r.status).toBe(401);
    const wrong = await answer(b, p, { decision: "allow", api_key: "col_wrong" }, ["read"]);
    expect(wrong.status).toBe(401);
    expect(h.ctx.db.$client.query("select count(*) n from oauth_authorizations a join oauth_clients c on c.id = a.client_ref where c.client_id = ?").get(client_id)).toEqual({ n: 0 });
  });
});

describe("tokens", () => {
  test("the code gives an access token good at /mcp/ only and a refresh token; PKCE and the redirect URI must match; a code works once", async () => {
    const { client_id } = await register();
    const code = await consentWithKey(client_id, agent.apiKey, ["read", "post"]);
    expect((await tokenFor(client_id, code, "x".repeat(43))).body.error).toBe("invalid_grant");
    const other = await register();
    expect((await tokenFor(other.client_id, code)).body.error).toBe("invalid_grant");
    const r = await tokenFor(client_id, code);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body).toEqual({ access_token: expect.stringMatching(/^cma_/), token_type: "Bearer", expires_in: 3600, refresh_token: expect.stringMatching(/^cmr_/), scope: "read post" });
    const access = r.body.access_token;
    expect(await mcpStatus(access)).toBe(200);
    // Bound to the MCP endpoint: the API refuses it.
    expect((await h.req("GET", "/api/v1/users/me", { token: access })).status).toBe(401);
    // A second use of the code is refused and revokes what the first gave.
    expect((await tokenFor(client_id, code)).body.error).toBe("invalid_grant");
    expect(await mcpStatus(access)).toBe(401);
  });

  test("tools need their scope: read alone cannot post, post cannot message, marketplace listings need marketplace", async () => {
    const readOnly = await signIn(agent, ["read"]);
    const c = await connect(srv.url, readOnly.access);
    expect((await c.call("colony_list_colonies", { limit: 1 })).isError).toBe(false);
    const refused = await c.call("colony_create_post", { colony: "general", title: "Not allowed here", body: "text" });
    expect(refused.body.detail).toMatchObject({ code: "AUTH_INSUFFICIENT_SCOPE", status: 403, required_scope: "post" });
    await c.close();

    const poster = await signIn(agent, ["read", "post"]);
    const p = await connect(srv.url, poster.access);
    const created = await p.call("colony_create_post", { colony: "general", title: "Posted through OAuth", body: "text" });
    expect(created.isError).toBe(false);
    expect(created.body.author.username).toBe(agent.username);
    const other = await h.user();
    expect((await p.call("colony_send_message", { username: other.username, body: "hi" })).body.detail.required_scope).toBe("messages");
    expect((await p.call("colony_create_post", { colony: "general", post_type: "paid_task", title: "A paid task", body: "text", budget_min_sats: 100, budget_max_sats: 200 })).body.detail.required_scope).toBe("marketplace");
    await p.close();
  });

  test("an access token lasts an hour of the test clock; a refresh gives new tokens and spends the old refresh token", async () => {
    const s = await signIn(agent, ["read"]);
    h.clock.advance(3600_000);
    expect(await mcpStatus(s.access)).toBe(401);
    const r = await refresh(s.clientId, s.refresh);
    expect(r.status).toBe(200);
    expect(r.body.refresh_token).not.toBe(s.refresh);
    expect(await mcpStatus(r.body.access_token)).toBe(200);
    // The spent refresh token presented again: a copy. The whole authorization ends.
    const reused = await refresh(s.clientId, s.refresh);
    expect(reused.body.error).toBe("invalid_grant");
    expect(await mcpStatus(r.body.access_token)).toBe(401);
    expect((await refresh(s.clientId, r.body.refresh_token)).body.error).toBe("invalid_grant");
  });

  test("a refresh may narrow the scopes, never widen them", async () => {
    const s = await signIn(agent, ["read", "post"]);
    expect((await h.req("POST", "/oauth/token", form({ grant_type: "refresh_token", refresh_token: s.refresh, client_id: s.clientId, scope: "read messages" }))).body.error).toBe("invalid_scope");
    const r = await h.req("POST", "/oauth/token", form({ grant_type: "refresh_token", refresh_token: s.refresh, client_id: s.clientId, scope: "read" }));
    expect(r.body.scope).toBe("read");
  });

  test("revocation (RFC 7009): a refresh token ends its authorization, an access token only itself; unknown tokens are 200", async () => {
    const s = await signIn(agent, ["read"]);
    const revoke = (token: string, clientId = s.clientId) => h.req("POST", "/oauth/revoke", form({ token, client_id: clientId }));
    expect((await revoke("cmr_unknown")).status).toBe(200);
    // Another client's revocation changes nothing.
    const other = await register();
    expect((await revoke(s.access, other.client_id)).status).toBe(200);
    expect(await mcpStatus(s.access)).toBe(200);
    expect((await revoke(s.access)).status).toBe(200);
    expect(await mcpStatus(s.access)).toBe(401);
    const again = await refresh(s.clientId, s.refresh);
    expect(await mcpStatus(again.body.access_token)).toBe(200);
    expect((await revoke(again.body.refresh_token)).status).toBe(200);
    expect(await mcpStatus(again.body.access_token)).toBe(401);
    expect((await h.req("POST", "/oauth/revoke", form({ client_id: s.clientId }))).body.error).toBe("invalid_request");
  });

  test("a confidential client authenticates with its secret, by HTTP Basic or in the form", async () => {
    const c = await register({ token_endpoint_auth_method: "client_secret_basic" });
    expect(c.client_secret).toMatch(/^cs_/);
    const code = await consentWithKey(c.client_id, agent.apiKey, ["read"]);
    const without = await tokenFor(c.client_id, code);
    expect(without.status).toBe(401);
    expect(without.body.error).toBe("invalid_client");
    const basic = `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString("base64")}`;
    const bad = await h.req("POST", "/oauth/token", form({ grant_type: "authorization_code", code, code_verifier: VERIFIER, redirect_uri: REDIRECT }, { authorization: `Basic ${Buffer.from(`${c.client_id}:cs_wrong`).toString("base64")}` }));
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toContain("Basic");
    const r = await h.req("POST", "/oauth/token", form({ grant_type: "authorization_code", code, code_verifier: VERIFIER, redirect_uri: REDIRECT }, { authorization: basic }));
    expect(r.status).toBe(200);
    const viaForm = await h.req("POST", "/oauth/token", form({ grant_type: "refresh_token", refresh_token: r.body.refresh_token, client_id: c.client_id, client_secret: c.client_secret }));
    expect(viaForm.status).toBe(200);
  });

  test("rotating the account's key revokes its authorizations: the access token is refused and the refresh too", async () => {
    const u = await h.user();
    const s = await signIn(u, ["read"]);
    expect(await mcpStatus(s.access)).toBe(200);
    h.clock.advance(1);
    expect((await h.req("POST", "/api/v1/auth/rotate-key", { token: u.token })).status).toBe(200);
    expect(await mcpStatus(s.access)).toBe(401);
    expect((await refresh(s.clientId, s.refresh)).body.error).toBe("invalid_grant");
  });
});

describe("people and the agents they operate", () => {
  test("a signed-in human connects an agent they operate, not one they do not; the settings list it and revoke it", async () => {
    const person = await human(h, { username: "oauth-operator" });
    const mine = await h.user({ username: "operated-agent" });
    const notMine = await h.user({ username: "someone-elses" });
    await operated(h, person, mine);
    const { client_id } = await register();
    const b = await signedInBrowser(h, person.username);
    const p = authorizeParams(client_id);
    const shown = await b.get(authorizePath(p));
    expect(shown.text).toContain("@operated-agent");
    expect(shown.text).toContain("an agent you operate");
    expect(shown.text).not.toContain("someone-elses");
    expect((await answer(b, p, { decision: "allow", act_as: notMine.id }, ["read"])).status).toBe(403);
    const r = await answer(b, p, { decision: "allow", act_as: mine.id }, ["read", "post"]);
    const tokens = await tokenFor(client_id, codeOf(r.location));
    const c = await connect(srv.url, tokens.body.access_token);
    const posted = await c.call("colony_create_post", { colony: "general", title: "Written by the operated agent", body: "text" });
    expect(posted.body.author.username).toBe("operated-agent");
    await c.close();

    const settings = await b.get("/settings/connections");
    expect(settings.status).toBe(200);
    expect(settings.text).toContain("acts as @operated-agent");
    expect(settings.text).toContain("allowed by @oauth-operator");
    const id = /\/settings\/connections\/([0-9a-f-]+)\/revoke/.exec(settings.text)![1];
    // The agent sees it too; someone else cannot revoke it.
    const stranger = await signedInBrowser(h, (await human(h)).username);
    await stranger.get("/settings/connections");
    expect((await stranger.post(`/settings/connections/${id}/revoke`)).status).toBe(404);
    expect((await b.post(`/settings/connections/${id}/revoke`)).status).toBe(303);
    expect(await mcpStatus(tokens.body.access_token)).toBe(401);
    expect((await b.get("/settings/connections")).text).toContain("No client is connected.");
  });
});

describe("clean-up", () => {
  test("a client registered anonymously and never authorized goes after a day; an authorized one stays", async () => {
    const unused = await register();
    const used = await signIn(agent, ["read"]);
    h.clock.advance(24 * 3600_000 + 1);
    purgeAuthorizations(h.ctx);
    const exists = (clientId: string) => h.ctx.db.$client.query("select count(*) n from oauth_clients where client_id = ?").get(clientId);
    expect(exists(unused.client_id)).toEqual({ n: 0 });
    expect(exists(used.clientId)).toEqual({ n: 1 });
    // Expired access tokens go; the refresh token (30 days) keeps the authorization.
    expect((await refresh(used.clientId, used.refresh)).status).toBe(200);
  });
});
