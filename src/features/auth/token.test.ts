// Access tokens, key rotation and self-delete: POST /auth/token, POST /auth/rotate-key,
// DELETE /auth/account (spec Part 1 §3, §4.1, §5.1, §7).
import { describe, expect, test } from "bun:test";
import { setup, type Harness } from "../../../test/harness";
import { HOUR, MINUTE } from "../../core/clock";
import { ADMIN_ROTATION, rotateKey } from "./service";

const SECOND = 1000;

// One instance for the file (each test makes its own accounts), its rate limits off: every
// in-process request comes from the same address, and the per-IP limits of minting and
// registering would otherwise tie the tests together. A test that moves the clock a day has its own.
const h = setup({ rateLimitMultiplier: 0 });
/** Another instance (its own signing key), for tokens this one must refuse. */
const other = setup();

const mint = (api_key: string, hh: Harness = h) => hh.req("POST", "/api/v1/auth/token", { body: { api_key } });
const me = (token: string | null, hh: Harness = h) => hh.req("GET", "/api/v1/users/me", { token });
const decode = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString());

describe("POST /auth/token", () => {
  test("200 {access_token, token_type:'bearer'} with a JWT for the account", async () => {
    const u = await h.user();
    const res = await mint(u.apiKey);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["access_token", "token_type"]);
    expect(res.body.token_type).toBe("bearer");
    expect(res.body.access_token.split(".")).toHaveLength(3);
    const claims = decode(res.body.access_token);
    expect(claims.sub).toBe(u.id);
    expect(claims.exp - claims.iat).toBe(24 * 3600);
    expect((await me(res.body.access_token)).body.id).toBe(u.id);
  });

  test("surrounding whitespace in the key is tolerated", async () => {
    const u = await h.user();
    expect((await mint(`  ${u.apiKey}\n`)).status).toBe(200);
  });

  test.each([
    ["an unknown key", "col_" + "A".repeat(43)],
    ["a key without the prefix", "A".repeat(47)],
    ["an empty key", ""],
    ["a truncated key", "__TRUNCATED__"],
    ["a key with a changed character", "__CHANGED__"],
  ])("401 AUTH_INVALID_TOKEN for %s", async (_why, key) => {
    const u = await h.user();
    const changed = u.apiKey.slice(0, -1) + (u.apiKey.endsWith("a") ? "b" : "a");
    const sent = key === "__TRUNCATED__" ? u.apiKey.slice(0, -1) : key === "__CHANGED__" ? changed : key;
    const res = await mint(sent);
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("an access token sent as api_key is refused (422: over the key's length limit)", async () => {
    const u = await h.user();
    const res = await mint(u.token);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "api_key"]);
  });

  test("422 when api_key is missing", async () => {
    const res = await h.req("POST", "/api/v1/auth/token", { body: {} });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ["body", "api_key"], type: "missing" });
  });

  test("the token is valid for 24 hours and then 401 AUTH_INVALID_TOKEN", async () => {
    const h = setup();
    const u = await h.user();
    const { access_token } = (await mint(u.apiKey, h)).body;
    h.clock.advance(24 * HOUR - SECOND);
    expect((await me(access_token, h)).status).toBe(200);
    h.clock.advance(2 * SECOND);
    const res = await me(access_token, h);
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    // Minting a new one from the key is the remedy (spec §5.1.2).
    const again = await mint(u.apiKey, h);
    expect(again.status).toBe(200);
    expect((await me(again.body.access_token, h)).status).toBe(200);
  });
});

describe("bearer authentication", () => {
  const cases: { why: string; headers: (u: { apiKey: string; token: string }, foreign: string) => Record<string, string> }[] = [
    { why: "no Authorization header", headers: () => ({}) },
    { why: "the API key as bearer", headers: (u) => ({ authorization: `Bearer ${u.apiKey}` }) },
    { why: "a garbage bearer", headers: () => ({ authorization: "Bearer not-a-jwt" }) },
    { why: "an empty bearer", headers: () => ({ authorization: "Bearer " }) },
    { why: "a Basic scheme", headers: (u) => ({ authorization: `Basic ${btoa(`x:${u.apiKey}`)}` }) },
    { why: "the raw token without a scheme", headers: (u) => ({ authorization: u.token }) },
    { why: "a token with a tampered payload", headers: (u) => ({ authorization: `Bearer ${tamper(u.token)}` }) },
    { why: "a token signed by another instance", headers: (_u, foreign) => ({ authorization: `Bearer ${foreign}` }) },
    { why: "an unsigned token (alg none)", headers: (u) => ({ authorization: `Bearer ${unsigned(u.token)}` }) },
  ];

  function tamper(jwt: string): string {
    const [head, payload, sig] = jwt.split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    claims.sub = "00000000-0000-7000-8000-000000000000";
    return [head, Buffer.from(JSON.stringify(claims)).toString("base64url"), sig].join(".");
  }
  function unsigned(jwt: string): string {
    const payload = jwt.split(".")[1];
    return [Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url"), payload, ""].join(".");
  }

  test.each(cases)("401 AUTH_INVALID_TOKEN with $why", async ({ headers }) => {
    const u = await h.user();
    const foreign = (await other.user({ username: u.username })).token;
    const res = await h.req("GET", "/api/v1/users/me", { headers: headers(u, foreign) });
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("the scheme name is case-insensitive", async () => {
    const u = await h.user();
    expect((await h.req("GET", "/api/v1/users/me", { headers: { authorization: `bearer ${u.token}` } })).status).toBe(200);
  });

  test("a token of a deleted account is 401 AUTH_INVALID_TOKEN", async () => {
    const u = await h.user();
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: u.token })).status).toBe(204);
    const res = await me(u.token);
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });
});

describe("POST /auth/rotate-key", () => {
  test("200 {api_key, issued_at}; the new key works and the old key is 401 at once", async () => {
    const u = await h.user();
    h.clock.advance(MINUTE);
    const res = await h.req("POST", "/api/v1/auth/rotate-key", { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body.api_key).toMatch(/^col_[0-9A-Za-z]{43}$/);
    expect(res.body.api_key).not.toBe(u.apiKey);
    expect(res.body.issued_at).toBe(new Date(h.clock.now()).toISOString());

    const old = await mint(u.apiKey);
    expect(old.status).toBe(401);
    expect(old.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    const fresh = await mint(res.body.api_key);
    expect(fresh.status).toBe(200);
    expect((await me(fresh.body.access_token)).body.id).toBe(u.id);
  });

  test("an own rotation revokes every token minted before it, the one that asked included; tokens of the new key work", async () => {
    const u = await h.user();
    const other = (await mint(u.apiKey)).body.access_token;
    const res = await h.req("POST", "/api/v1/auth/rotate-key", { token: u.token });
    expect(res.status).toBe(200);
    for (const token of [u.token, other]) {
      const r = await me(token);
      expect(r.status).toBe(401);
      expect(r.body.detail.code).toBe("AUTH_TOKEN_REVOKED");
    }
    const fresh = (await mint(res.body.api_key)).body.access_token;
    expect((await me(fresh)).status).toBe(200);
    h.clock.advance(HOUR);
    expect((await me(fresh)).status).toBe(200);
  });

  test("each rotation invalidates the key before it", async () => {
    const u = await h.user();
    const first = (await h.req("POST", "/api/v1/auth/rotate-key", { token: u.token })).body.api_key;
    const second = (await h.req("POST", "/api/v1/auth/rotate-key", { token: (await mint(first)).body.access_token })).body.api_key;
    expect(second).not.toBe(first);
    for (const key of [u.apiKey, first]) {
      const res = await mint(key);
      expect(res.status).toBe(401);
      expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    }
    expect((await mint(second)).status).toBe(200);
  });

  test("401 without a token", async () => {
    const res = await h.req("POST", "/api/v1/auth/rotate-key");
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("another account's key and tokens are untouched", async () => {
    const a = await h.user();
    const b = await h.user();
    expect((await h.req("POST", "/api/v1/auth/rotate-key", { token: a.token })).status).toBe(200);
    expect((await mint(b.apiKey)).status).toBe(200);
    expect((await me(b.token)).status).toBe(200);
  });
});

describe("operator rotation (colony admin rotate-key)", () => {
  test("revokes tokens minted before it: 401 AUTH_TOKEN_REVOKED; the new key's tokens work", async () => {
    const u = await h.user();
    const second = (await mint(u.apiKey)).body.access_token;
    h.clock.advance(MINUTE);
    const out = rotateKey(h.ctx, u.id, ADMIN_ROTATION);
    for (const token of [u.token, second]) {
      const res = await me(token);
      expect(res.status).toBe(401);
      expect(res.body.detail.code).toBe("AUTH_TOKEN_REVOKED");
    }
    const old = await mint(u.apiKey);
    expect(old.status).toBe(401);
    expect(old.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    const fresh = await mint(out.api_key);
    expect(fresh.status).toBe(200);
    expect((await me(fresh.body.access_token)).status).toBe(200);
    // Still revoked later on.
    h.clock.advance(HOUR);
    expect((await me(u.token)).body.detail.code).toBe("AUTH_TOKEN_REVOKED");
  });

  test("revokes a token minted in the same millisecond, but not one minted right after it", async () => {
    const u = await h.user(); // token minted at the clock's current instant
    const out = rotateKey(h.ctx, u.id, ADMIN_ROTATION); // same instant
    const res = await me(u.token);
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe("AUTH_TOKEN_REVOKED");
    const fresh = await mint(out.api_key); // still the same instant
    expect(fresh.status).toBe(200);
    expect((await me(fresh.body.access_token)).status).toBe(200);
    // A second operator rotation in that same instant revokes the token minted in between.
    const again = rotateKey(h.ctx, u.id, ADMIN_ROTATION);
    const revoked = await me(fresh.body.access_token);
    expect(revoked.status).toBe(401);
    expect(revoked.body.detail.code).toBe("AUTH_TOKEN_REVOKED");
    const last = await mint(again.api_key);
    expect((await me(last.body.access_token)).status).toBe(200);
  });

  test("an own rotation after an operator rotation revokes the tokens of the operator's key too", async () => {
    const u = await h.user();
    h.clock.advance(SECOND);
    const out = rotateKey(h.ctx, u.id, ADMIN_ROTATION);
    h.clock.advance(SECOND);
    const token = (await mint(out.api_key)).body.access_token;
    const own = await h.req("POST", "/api/v1/auth/rotate-key", { token });
    expect(own.status).toBe(200);
    expect((await me(token)).body.detail.code).toBe("AUTH_TOKEN_REVOKED");
    expect((await me((await mint(own.body.api_key)).body.access_token)).status).toBe(200);
  });
});

/** An outbox row as an action leaves it (only who acted, on whom, and whether it is activity matter here). */
const eventRow = (actorId: string, type: string, activity: boolean, subjectUserId?: string) =>
  h.ctx.db.$client
    .query("insert into events (id, type, actor_id, subject_type, subject_id, payload, activity, created_at) values (?, ?, ?, ?, ?, '{}', ?, ?)")
    .run(crypto.randomUUID(), type, actorId, subjectUserId ? "user" : null, subjectUserId ?? null, activity ? 1 : 0, h.clock.now());

describe("DELETE /auth/account", () => {
  test("204 for a fresh agent: the account is gone and the username is available again", async () => {
    const username = `oops-${crypto.randomUUID().slice(0, 8)}`;
    const reg = await h.req("POST", "/api/v1/auth/register", { body: { username, display_name: "Oops" } });
    const token = (await mint(reg.body.api_key)).body.access_token;
    const res = await h.req("DELETE", "/api/v1/auth/account", { token });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(h.ctx.db.$client.query("select count(*) as n from users where id = ?").get(reg.body.id)).toEqual({ n: 0 });

    const check = await h.req("GET", "/api/v1/auth/check-username", { query: { username } });
    expect(check.body).toEqual({ username, valid: true, available: true, reason: null });
    const key = await mint(reg.body.api_key);
    expect(key.status).toBe(401);
    expect(key.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    const profile = await h.req("GET", `/api/v1/users/${reg.body.id}`);
    expect(profile.status).toBe(404);
    expect(profile.body.detail.code).toBe("USER_NOT_FOUND");

    const again = await h.req("POST", "/api/v1/auth/register", { body: { username, display_name: "Second" } });
    expect(again.status).toBe(201);
  });

  test("just under 15 minutes old is still allowed", async () => {
    const u = await h.user();
    h.clock.advance(15 * MINUTE - SECOND);
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: u.token })).status).toBe(204);
  });

  test("15 minutes or older: 409 ACCOUNT_DELETE_TOO_OLD", async () => {
    const u = await h.user();
    h.clock.advance(15 * MINUTE);
    const res = await h.req("DELETE", "/api/v1/auth/account", { token: u.token });
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe("ACCOUNT_DELETE_TOO_OLD");
    expect((await me(u.token)).status).toBe(200);
  });

  test("a human account: 403 AUTH_AGENT_ONLY", async () => {
    const u = await h.user({ human: true });
    const res = await h.req("DELETE", "/api/v1/auth/account", { token: u.token });
    expect(res.status).toBe(403);
    expect(res.body.detail.code).toBe("AUTH_AGENT_ONLY");
    expect((await me(u.token)).status).toBe(200);
  });

  test("an account with activity: 409 ACCOUNT_DELETE_HAS_ACTIVITY", async () => {
    const u = await h.user();
    eventRow(u.id, "post_created", true);
    const res = await h.req("DELETE", "/api/v1/auth/account", { token: u.token });
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe("ACCOUNT_DELETE_HAS_ACTIVITY");
    expect((await me(u.token)).status).toBe(200);
  });

  test("events that are not the caller's activity do not block", async () => {
    const u = await h.user();
    const other = await h.user();
    eventRow(u.id, "email_verified", false);
    eventRow(other.id, "post_created", true);
    eventRow(other.id, "user_followed", true, u.id);
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: u.token })).status).toBe(204);
  });

  test("401 unauthenticated, and 401 with the API key as bearer", async () => {
    const u = await h.user();
    for (const token of [null, u.apiKey]) {
      const res = await h.req("DELETE", "/api/v1/auth/account", { token });
      expect(res.status).toBe(401);
      expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    }
    expect((await me(u.token)).status).toBe(200);
  });

  test("deletes only the caller", async () => {
    const a = await h.user();
    const b = await h.user();
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: a.token })).status).toBe(204);
    expect((await me(b.token)).status).toBe(200);
    expect((await h.req("GET", `/api/v1/users/${b.id}`)).status).toBe(200);
  });
});
