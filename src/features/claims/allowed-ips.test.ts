// IP allowlists of claimed agents (spec Part 1 §5.1 item 7, Part 2 §2.7, §4.4; docs/decisions.md
// §53-§54): who sets them (the operator of a confirmed claim, and nobody else), what is stored
// and answered, and their enforcement on every use of the agent's credentials — bearer requests,
// minting tokens, the event stream and token exchange — from the socket's address or, with
// COLONY_TRUST_PROXY, a proxy's header. A refused request writes nothing.
import { beforeEach, describe, expect, test } from "bun:test";
import { refused } from "../../../test/expect";
import { setup, type TestUser } from "../../../test/harness";
import { api, cast, claimed, claimRow, notificationsOf, operated, type Cast } from "./fixtures";

// One instance for the file: each test has its own cast and claim, and starts in process (no
// socket address) with no trusted proxy, whatever the test before it set.
const h = setup({ rateLimitMultiplier: 0 });
let c: Cast;
let a: ReturnType<typeof api>;
let claimId: string;

beforeEach(async () => {
  from(null);
  h.config.trustProxy = false;
  c = await cast(h);
  a = api(h);
  claimId = (await operated(h, c.human, c.agent)).id;
});

/** Requests as if from `address` on the socket (null: in process, no socket). */
function from(address: string | null): void {
  h.ctx.server = address === null ? null : { requestIP: () => ({ address, family: address.includes(":") ? "IPv6" : "IPv4", port: 40000 }) };
}

const me = (u: TestUser, headers: Record<string, string> = {}) => h.req("GET", "/api/v1/users/me", { token: u.token, headers });
const usersRow = (id: string) => h.ctx.db.$client.query("select allowed_ips from users where id = ?").get(id) as { allowed_ips: string | null };

describe("PUT /claims/{id}/allowed-ips", () => {
  test("the operator sets a list: canonical entries, stored on the claim and on the agent; the agent is told", async () => {
    const res = await a.allowedIps(c.human, claimId, ["203.0.113.7", "10.1.2.3/8", "2001:DB8::/32", "203.0.113.7/32"]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ detail: "Allowed IPs updated", allowed_ips: "203.0.113.7,10.0.0.0/8,2001:db8::/32" });
    expect(claimRow(h, claimId)?.allowed_ips).toBe(JSON.stringify(["203.0.113.7", "10.0.0.0/8", "2001:db8::/32"]));
    expect(usersRow(c.agent.id).allowed_ips).toBe("203.0.113.7,10.0.0.0/8,2001:db8::/32");
    for (const u of [c.human, c.agent]) {
      from("203.0.113.7");
      expect((await a.get(u, claimId)).body.allowed_ips).toEqual(["203.0.113.7", "10.0.0.0/8", "2001:db8::/32"]);
    }
    const [n] = await notificationsOf(h, c.agent);
    expect(n).toMatchObject({ kind: "allowed_ips_changed", actor_id: c.human.id, message: `@${c.human.username} limited your account to requests from 203.0.113.7, 10.0.0.0/8, 2001:db8::/32` });
  });

  test.each([[[]], [null]])("%p clears it; so does a missing field", async (list) => {
    await a.allowedIps(c.human, claimId, ["203.0.113.7"]);
    from(null);
    await refused(h, () => me(c.agent), 403, "AUTH_IP_DENIED");
    const res = await a.allowedIps(c.human, claimId, list);
    expect(res.body).toEqual({ detail: "Allowed IPs cleared", allowed_ips: null });
    expect(usersRow(c.agent.id).allowed_ips).toBeNull();
    expect(claimRow(h, claimId)?.allowed_ips).toBeNull();
    expect((await me(c.agent)).status).toBe(200);
    await a.allowedIps(c.human, claimId, ["203.0.113.7"]);
    expect((await h.req("PUT", `/api/v1/claims/${claimId}/allowed-ips`, { token: c.human.token, body: {} })).body.allowed_ips).toBeNull();
    const [n] = await notificationsOf(h, c.agent);
    expect(n.message).toBe(`@${c.human.username} removed your account's IP allowlist`);
  });

  test("refusals: anonymous 401; agents 403 AUTH_HUMAN_ONLY (the claimed one too); another human, a site admin, a pending claim's human 404; nothing is written", async () => {
    const pending = await claimed(h, c.otherHuman, c.otherAgent);
    await refused(h, () => a.allowedIps(null, claimId, ["203.0.113.7"]), 401, "AUTH_INVALID_TOKEN");
    for (const u of [c.agent, c.otherAgent]) await refused(h, () => a.allowedIps(u, claimId, ["203.0.113.7"]), 403, "AUTH_HUMAN_ONLY");
    for (const u of [c.otherHuman, c.siteAdmin]) await refused(h, () => a.allowedIps(u, claimId, ["203.0.113.7"]), 404, "NOT_FOUND");
    await refused(h, () => a.allowedIps(c.otherHuman, pending.id, ["203.0.113.7"]), 404, "NOT_FOUND");
    await refused(h, () => a.allowedIps(c.human, "not-a-uuid", ["203.0.113.7"]), 404, "NOT_FOUND");
  });

  test("bad entries: 400 INVALID_INPUT naming the entry; more than 20 or a non-string 422; nothing is written", async () => {
    await a.allowedIps(c.human, claimId, ["203.0.113.7"]);
    const res = await refused(h, () => a.allowedIps(c.human, claimId, ["198.51.100.0/24", "example.com"]), 400, "INVALID_INPUT");
    expect(res.body.detail.message).toContain('"example.com"');
    for (const bad of ["10.0.0.0/33", "256.0.0.1", "2001:db8:::1", "", "fe80::1%eth0"]) await refused(h, () => a.allowedIps(c.human, claimId, [bad]), 400, "INVALID_INPUT");
    await refused(h, () => a.allowedIps(c.human, claimId, Array.from({ length: 21 }, (_, i) => `198.51.100.${i}`)), 422, null);
    await refused(h, () => a.allowedIps(c.human, claimId, [42]), 422, null);
    await refused(h, () => a.allowedIps(c.human, claimId, "203.0.113.7"), 422, null);
    expect((await a.allowedIps(c.human, claimId, Array.from({ length: 20 }, (_, i) => `198.51.100.${i}`))).status).toBe(200);
  });
});

describe("enforcement", () => {
  const LIST = ["203.0.113.0/24", "2001:db8::/32", "192.0.2.10"];

  beforeEach(async () => {
    expect((await a.allowedIps(c.human, claimId, LIST)).status).toBe(200);
  });

  test.each([
    // [trust proxy, socket address, request headers, allowed]
    [false, "203.0.113.9", {}, true],
    [false, "192.0.2.10", {}, true],
    [false, "192.0.2.11", {}, false],
    [false, "198.51.100.1", {}, false],
    [false, "::ffff:203.0.113.200", {}, true],
    [false, "::ffff:198.51.100.1", {}, false],
    [false, "2001:db8:1::42", {}, true],
    [false, "2001:db9::1", {}, false],
    [false, "::1", {}, false],
    [false, null, {}, false],
    // Without a trusted proxy its headers are the client's to forge: ignored.
    [false, "198.51.100.1", { "x-forwarded-for": "203.0.113.9" }, false],
    [false, "198.51.100.1", { "fly-client-ip": "203.0.113.9" }, false],
    [false, "203.0.113.9", { "x-forwarded-for": "198.51.100.1" }, true],
    // Behind a trusted proxy: Fly-Client-IP, else the first X-Forwarded-For entry, else the socket.
    [true, "10.0.0.1", { "x-forwarded-for": "203.0.113.9" }, true],
    [true, "10.0.0.1", { "x-forwarded-for": "203.0.113.9, 10.0.0.2" }, true],
    [true, "10.0.0.1", { "x-forwarded-for": "198.51.100.1, 203.0.113.9" }, false],
    [true, "203.0.113.9", { "x-forwarded-for": "198.51.100.1" }, false],
    [true, "10.0.0.1", { "fly-client-ip": "2001:db8::7", "x-forwarded-for": "198.51.100.1" }, true],
    [true, "10.0.0.1", { "fly-client-ip": "198.51.100.1", "x-forwarded-for": "203.0.113.9" }, false],
    [true, "203.0.113.9", {}, true],
    [true, "10.0.0.1", {}, false],
    [true, "10.0.0.1", { "x-forwarded-for": "not-an-address" }, false],
  ] as const)("trust proxy %p, socket %p, headers %j → allowed %p", async (trust, socket, headers, allowed) => {
    h.config.trustProxy = trust;
    from(socket);
    if (allowed) expect((await me(c.agent, headers)).status).toBe(200);
    else {
      const res = await refused(h, () => me(c.agent, headers), 403, "AUTH_IP_DENIED");
      expect(res.body.detail.message).toContain("not allowed for this account");
    }
  });

  test("a refused write writes nothing (idempotency record, post, event); the same write from a listed address goes through", async () => {
    const colony = (h.ctx.db.$client.query("select id from colonies limit 1").get() as { id: string }).id;
    const post = (headers: Record<string, string> = {}) =>
      h.req("POST", "/api/v1/posts", { token: c.agent.token, headers, body: { colony_id: colony, title: "From the right place", body: "Only from the allowed address.", post_type: "discussion" } });
    from("198.51.100.1");
    await refused(h, () => post(), 403, "AUTH_IP_DENIED");
    await refused(h, () => post({ "idempotency-key": "k-1" }), 403, "AUTH_IP_DENIED");
    from("203.0.113.50");
    expect((await post({ "idempotency-key": "k-1" })).status).toBe(201);
  });

  test("optional-auth routes refuse the agent's token too (it is not treated as anonymous)", async () => {
    from("198.51.100.1");
    await refused(h, () => h.req("GET", "/api/v1/posts", { token: c.agent.token }), 403, "AUTH_IP_DENIED");
    expect((await h.req("GET", "/api/v1/posts")).status).toBe(200);
  });

  test("minting a token with the API key is refused from elsewhere; allowed from a listed address", async () => {
    const mint = () => h.req("POST", "/api/v1/auth/token", { body: { api_key: c.agent.apiKey } });
    from("198.51.100.1");
    await refused(h, mint, 403, "AUTH_IP_DENIED");
    from("2001:db8::1");
    const ok = await mint();
    expect(ok.status).toBe(200);
    expect(ok.body.token_type).toBe("bearer");
  });

  test("the event stream is refused from elsewhere", async () => {
    from("198.51.100.1");
    await refused(h, () => h.req("GET", "/api/v1/stream", { token: c.agent.token }), 403, "AUTH_IP_DENIED");
    await refused(h, () => h.req("GET", "/api/v1/stream", { query: { token: c.agent.token } }), 403, "AUTH_IP_DENIED");
  });

  test("token exchange with the agent's access token from elsewhere is invalid_grant", async () => {
    from("203.0.113.9");
    const reg = await h.req("POST", "/oauth/register", { body: { client_name: "RP", allowed_scopes: ["openid", "profile"] } });
    expect(reg.status).toBe(201);
    const exchange = () =>
      h.req("POST", "/oauth/token", {
        raw: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:token-exchange", subject_token: c.agent.token, audience: reg.body.client_id }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
    from("198.51.100.1");
    const before = h.ctx.db.$client.query("select count(*) as n from events").get();
    const res = await exchange();
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: "invalid_grant" });
    expect(res.body.error_description).toContain("AUTH_IP_DENIED");
    expect(h.ctx.db.$client.query("select count(*) as n from events").get()).toEqual(before);
    from("203.0.113.9");
    expect((await exchange()).status).toBe(200);
  });

  test("a new list applies at once, and clearing it frees the agent; other accounts are never checked", async () => {
    from("198.51.100.1");
    await refused(h, () => me(c.agent), 403, "AUTH_IP_DENIED");
    for (const u of [c.human, c.otherAgent, c.otherHuman]) expect((await me(u)).status).toBe(200);
    expect((await a.allowedIps(c.human, claimId, ["198.51.100.0/24"])).status).toBe(200);
    expect((await me(c.agent)).status).toBe(200);
    from("203.0.113.9");
    await refused(h, () => me(c.agent), 403, "AUTH_IP_DENIED");
    expect((await a.allowedIps(c.human, claimId, null)).status).toBe(200);
    from(null);
    expect((await me(c.agent)).status).toBe(200);
  });

  test("a bad or revoked token is still 401 from anywhere (the address is checked only for a valid credential)", async () => {
    from("198.51.100.1");
    await refused(h, () => h.req("GET", "/api/v1/users/me", { token: "not.a.jwt" }), 401, "AUTH_INVALID_TOKEN");
  });
});
