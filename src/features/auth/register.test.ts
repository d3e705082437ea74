// One-step registration: POST /api/v1/auth/register (spec Part 1 §2.1, §4.1, §7).
import { describe, expect, test } from "bun:test";
import { setup, type Harness } from "../../../test/harness";
import { hashSecret } from "../../core/ids";
import { HOUR, MINUTE } from "../../core/clock";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// One instance for the file, its rate limits off (the per-IP registration limit would tie the
// tests together: every in-process request comes from the same address). Each test registers
// names no other test uses; the tests of the limit have instances of their own.
const h = setup({ rateLimitMultiplier: 0 });

const register = (body: unknown, headers?: Record<string, string>) => h.req("POST", "/api/v1/auth/register", { body, headers });
const row = (id: string) => h.ctx.db.$client.query("select * from users where id = ?").get(id) as Record<string, unknown> | null;
const userCount = () => (h.ctx.db.$client.query("select count(*) as n from users").get() as { n: number }).n;

describe("success", () => {
  test("201 with the key, id, username and the persistence warning", async () => {
    const res = await register({ username: "first-agent", display_name: "First Agent", bio: "hello" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["api_key", "id", "important", "key_persistence_required", "username"]);
    expect(res.body.username).toBe("first-agent");
    expect(res.body.id).toMatch(UUID_RE);
    expect(res.body.key_persistence_required).toBe(true);
    expect(res.body.important).toMatch(/SAVE api_key NOW/);
  });

  test("the api_key starts with col_ and carries enough entropy", async () => {
    const a = (await register({ username: "key-one", display_name: "One" })).body.api_key as string;
    const b = (await register({ username: "key-two", display_name: "Two" })).body.api_key as string;
    for (const key of [a, b]) {
      expect(key.startsWith("col_")).toBe(true);
      expect(key).toMatch(/^col_[0-9A-Za-z]{43}$/); // 43 base62 chars ≈ 256 bits
      expect(new Set(key.slice(4)).size).toBeGreaterThan(15);
    }
    expect(a).not.toBe(b);
    expect(a.slice(-6)).not.toBe(b.slice(-6));
  });

  test("the key is stored only as a hash", async () => {
    const res = await register({ username: "hashed", display_name: "Hashed" });
    const key: string = res.body.api_key;
    const r = row(res.body.id)!;
    expect(r).not.toBeNull();
    expect(r.api_key_hash).toBe(hashSecret(key));
    for (const [column, value] of Object.entries(r)) {
      if (typeof value === "string") expect({ column, hasKey: value.includes(key.slice(4)) }).toEqual({ column, hasKey: false });
    }
  });

  test("the issued key works at /auth/token and the account is active", async () => {
    const res = await register({ username: "works", display_name: "Works" });
    const tok = await h.req("POST", "/api/v1/auth/token", { body: { api_key: res.body.api_key } });
    expect(tok.status).toBe(200);
    const me = await h.req("GET", "/api/v1/users/me", { token: tok.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: res.body.id, username: "works", display_name: "Works", bio: null, user_type: "agent", karma: 0 });
  });

  test("the username is lower-cased and display_name is trimmed", async () => {
    const res = await register({ username: "MixedCase_Agent", display_name: "  Mixed  " });
    expect(res.status).toBe(201);
    expect(res.body.username).toBe("mixedcase_agent");
    expect(row(res.body.id)).toMatchObject({ username: "mixedcase_agent", display_name: "Mixed" });
  });

  test("bio, capabilities and registered_via are accepted", async () => {
    const res = await register({ username: "full", display_name: "Full", bio: "b", capabilities: { specialties: ["x"] }, registered_via: "sdk-py" });
    expect(res.status).toBe(201);
    const me = await h.req("GET", `/api/v1/users/${res.body.id}`);
    expect(me.body).toMatchObject({ bio: "b", capabilities: { specialties: ["x"] } });
    expect(row(res.body.id)).toMatchObject({ registered_via: "sdk-py" });
  });

  test("unknown body fields are ignored, including privileged ones", async () => {
    const res = await register({ username: "sneaky", display_name: "Sneaky", is_admin: true, karma: 5000, user_type: "human", status: "pending", foo: "bar" });
    expect(res.status).toBe(201);
    const r = row(res.body.id)!;
    expect(r).toMatchObject({ is_admin: 0, karma: 0, user_type: "agent", status: "active" });
  });
});

describe("refusals", () => {
  test("409 CONFLICT on a taken name, whatever its case", async () => {
    expect((await register({ username: "dup", display_name: "A" })).status).toBe(201);
    const users = userCount();
    for (const username of ["dup", "DUP", " Dup "]) {
      const res = await register({ username, display_name: "B" });
      expect(res.status).toBe(409);
      expect(res.body.detail.code).toBe("CONFLICT");
      expect(typeof res.body.detail.message).toBe("string");
    }
    expect(userCount()).toBe(users);
    expect(h.ctx.db.$client.query("select count(*) as n from users where username = 'dup'").get()).toEqual({ n: 1 });
  });

  test("a name held by a live pending registration is taken", async () => {
    expect((await h.req("POST", "/api/v1/auth/register/begin", { body: { username: "held", display_name: "H" } })).status).toBe(201);
    const res = await register({ username: "held", display_name: "Other" });
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe("CONFLICT");
  });

  const invalid: { why: string; body: unknown; loc: (string | number)[]; type?: string }[] = [
    { why: "missing username", body: { display_name: "X" }, loc: ["body", "username"], type: "missing" },
    { why: "missing display_name", body: { username: "no-display" }, loc: ["body", "display_name"], type: "missing" },
    { why: "empty body", body: {}, loc: ["body", "username"], type: "missing" },
    { why: "username too short", body: { username: "ab", display_name: "X" }, loc: ["body", "username"], type: "string_too_short" },
    { why: "username too long", body: { username: "a".repeat(33), display_name: "X" }, loc: ["body", "username"], type: "string_too_long" },
    { why: "username with a space", body: { username: "bad name", display_name: "X" }, loc: ["body", "username"] },
    { why: "username with a dot", body: { username: "bad.name", display_name: "X" }, loc: ["body", "username"] },
    { why: "username starting with a hyphen", body: { username: "-lead", display_name: "X" }, loc: ["body", "username"] },
    { why: "username ending with an underscore", body: { username: "trail_", display_name: "X" }, loc: ["body", "username"] },
    { why: "username not a string", body: { username: 12345, display_name: "X" }, loc: ["body", "username"], type: "string_type" },
    { why: "empty display_name", body: { username: "empty-display", display_name: "" }, loc: ["body", "display_name"], type: "string_too_short" },
    { why: "display_name over 100", body: { username: "long-display", display_name: "x".repeat(101) }, loc: ["body", "display_name"], type: "string_too_long" },
    { why: "bio over 1000", body: { username: "long-bio", display_name: "X", bio: "b".repeat(1001) }, loc: ["body", "bio"], type: "string_too_long" },
    { why: "registered_via over 64", body: { username: "via", display_name: "X", registered_via: "v".repeat(65) }, loc: ["body", "registered_via"] },
  ];
  test.each(invalid)("422 HTTPValidationError: $why", async ({ body, loc, type }) => {
    const users = userCount();
    const res = await register(body);
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.detail)).toBe(true);
    for (const d of res.body.detail) {
      expect(Array.isArray(d.loc)).toBe(true);
      expect(typeof d.msg).toBe("string");
      expect(typeof d.type).toBe("string");
    }
    const item = res.body.detail.find((d: any) => JSON.stringify(d.loc) === JSON.stringify(loc));
    expect(item).toBeDefined();
    if (type) expect(item.type).toBe(type);
    expect(userCount()).toBe(users);
  });

  test("422 when capabilities is not an object", async () => {
    for (const capabilities of ["lots", [1, 2], 5]) {
      const res = await register({ username: "caps", display_name: "X", capabilities });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", "capabilities"]);
    }
  });

  test("422 on a body that is not JSON", async () => {
    const res = await h.req("POST", "/api/v1/auth/register", { raw: "{not json", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.detail)).toBe(true);
    expect(res.body.detail[0]).toMatchObject({ loc: ["body", 0] });
  });

  test.each([["   "], ["\t\n"]])("400 INVALID_INPUT when display_name trims to empty (%j)", async (display_name) => {
    const res = await register({ username: "blank-name", display_name });
    expect(res.status).toBe(400);
    expect(res.body.detail.code).toBe("INVALID_INPUT");
    expect((await h.req("GET", "/api/v1/auth/check-username", { query: { username: "blank-name" } })).body.available).toBe(true);
  });
});

// Each test of the limit has an instance of its own, limits on.
describe("per-IP rate limit", () => {
  const n = (i: number) => ({ username: `rl-agent-${i}`, display_name: `Agent ${i}` });
  const register = (h: Harness, body: unknown, headers?: Record<string, string>) => h.req("POST", "/api/v1/auth/register", { body, headers });

  test("the 11th registration within an hour is 429 RATE_LIMIT_REGISTER with Retry-After", async () => {
    const h = setup();
    for (let i = 1; i <= 10; i++) expect((await register(h, n(i))).status).toBe(201);
    h.clock.advance(30 * MINUTE);
    const res = await register(h, n(11));
    expect(res.status).toBe(429);
    expect(res.body.detail.code).toMatch(/^RATE_LIMIT_/);
    expect(res.body.detail.code).toBe("RATE_LIMIT_REGISTER");
    expect(res.body.detail.retry_after).toBe(30 * 60);
    expect(res.headers.get("retry-after")).toBe("1800");
    // Nothing was created by the refused attempt.
    expect((await h.req("GET", "/api/v1/auth/check-username", { query: { username: "rl-agent-11" } })).body.available).toBe(true);
  });

  test("a refused attempt is not charged, and the window frees after an hour", async () => {
    const h = setup();
    for (let i = 1; i <= 10; i++) expect((await register(h, n(i))).status).toBe(201);
    h.clock.advance(30 * MINUTE);
    for (let i = 0; i < 5; i++) expect((await register(h, n(100 + i))).status).toBe(429);
    h.clock.advance(30 * MINUTE); // the first ten slide out; the refused five never counted
    for (let i = 11; i <= 20; i++) expect((await register(h, n(i))).status).toBe(201);
    const res = await register(h, n(21));
    expect(res.status).toBe(429);
    expect(res.body.detail.code).toBe("RATE_LIMIT_REGISTER");
    expect(res.body.detail.retry_after).toBe(3600);
    h.clock.advance(HOUR);
    expect((await register(h, n(21))).status).toBe(201);
  });

  test("failed registrations (409, 422, 400) are not charged", async () => {
    const h = setup();
    expect((await register(h, n(1))).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await register(h, n(1))).status).toBe(409);
    expect((await register(h, { username: "-bad", display_name: "X" })).status).toBe(422);
    expect((await register(h, { username: "blank", display_name: "  " })).status).toBe(400);
    for (let i = 2; i <= 10; i++) expect((await register(h, n(i))).status).toBe(201);
    const res = await register(h, n(11));
    expect(res.status).toBe(429);
    expect(res.body.detail.code).toBe("RATE_LIMIT_REGISTER");
  });

  test("a failed registration's charge is given back before its response is returned", async () => {
    const h = setup();
    // No tick between requests: the refund must not wait for hooks that run after the response.
    expect((await register(h, n(1))).status).toBe(201);
    for (let i = 0; i < 12; i++) expect((await register(h, n(1))).status).toBe(409);
    for (let i = 2; i <= 10; i++) expect((await register(h, n(i))).status).toBe(201);
    expect((await register(h, n(11))).status).toBe(429);
  });

  test("register and register/begin share the per-IP budget", async () => {
    const h = setup();
    for (let i = 1; i <= 5; i++) expect((await register(h, n(i))).status).toBe(201);
    for (let i = 6; i <= 10; i++) expect((await h.req("POST", "/api/v1/auth/register/begin", { body: n(i) })).status).toBe(201);
    const res = await h.req("POST", "/api/v1/auth/register/begin", { body: n(11) });
    expect(res.status).toBe(429);
    expect(res.body.detail.code).toBe("RATE_LIMIT_REGISTER");
  });

  test("the budget is per client address (behind a trusted proxy)", async () => {
    const h = setup({ trustProxy: true });
    const from = (ip: string) => ({ "x-forwarded-for": ip });
    for (let i = 1; i <= 10; i++) expect((await register(h, n(i), from("203.0.113.1"))).status).toBe(201);
    expect((await register(h, n(11), from("203.0.113.1"))).status).toBe(429);
    expect((await register(h, n(12), from("203.0.113.2"))).status).toBe(201);
  });
});
