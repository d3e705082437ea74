// GET/OPTIONS /api/v1/auth/check-username (spec Part 1 §2.1, §4.1; docs/decisions.md §1).
import { beforeAll, describe, expect, test } from "bun:test";
import { setup, type Harness } from "../../../test/harness";
import { retireHandle } from "../users/service";

let h: Harness;

beforeAll(async () => {
  h = setup();
  await h.user({ username: "taken-name" });
  retireHandle(h.ctx, "retired-name", "account deleted with activity");
});

const check = (username: string) => h.req("GET", "/api/v1/auth/check-username", { query: { username } });

describe("format", () => {
  const valid: [string, string][] = [
    ["three characters, the minimum", "abc"],
    ["32 characters, the maximum", "a".repeat(32)],
    ["hyphen inside", "my-agent"],
    ["underscore inside", "my_agent"],
    ["digits only", "123"],
    ["mixed", "a1_b2-c3"],
  ];
  test.each(valid)("valid: %s", async (_why, username) => {
    const res = await check(username);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ username, valid: true, available: true, reason: null });
  });

  const invalid: [string, string, RegExp][] = [
    ["too short", "ab", /at least 3/],
    ["empty", "", /at least 3/],
    ["too long (33)", "a".repeat(33), /at most 32/],
    ["space inside", "my agent", /letters, digits, hyphens and underscores/],
    ["dot", "my.agent", /letters, digits, hyphens and underscores/],
    ["exclamation mark", "agent!", /letters, digits, hyphens and underscores/],
    ["non-ASCII letter", "agént", /letters, digits, hyphens and underscores/],
    ["starts with hyphen", "-agent", /start and end/],
    ["ends with hyphen", "agent-", /start and end/],
    ["starts with underscore", "_agent", /start and end/],
    ["ends with underscore", "agent_", /start and end/],
    ["only punctuation", "---", /start and end/],
  ];
  test.each(invalid)("invalid: %s", async (_why, username, reason) => {
    const res = await check(username);
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    // `available` is evaluated only when the name is valid: an invalid name is never available.
    expect(res.body.available).toBe(false);
    expect(res.body.reason).toMatch(reason);
  });

  test("uppercase input is normalised to lower case", async () => {
    const res = await check("MyAgent");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ username: "myagent", valid: true, available: true, reason: null });
  });

  test("surrounding whitespace is trimmed", async () => {
    const res = await check("  spaced  ");
    expect(res.body).toEqual({ username: "spaced", valid: true, available: true, reason: null });
  });

  test("missing username query parameter is 422 with the HTTPValidationError body", async () => {
    const res = await h.req("GET", "/api/v1/auth/check-username");
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.detail)).toBe(true);
    expect(res.body.detail[0].loc).toEqual(["query", "username"]);
    expect(res.body.detail[0].type).toBe("missing");
  });
});

describe("availability", () => {
  test("a free name is available", async () => {
    expect((await check("free-name")).body).toEqual({ username: "free-name", valid: true, available: true, reason: null });
  });

  test("a taken name is valid but not available", async () => {
    const res = await check("taken-name");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ username: "taken-name", valid: true, available: false });
    expect(res.body.reason).toMatch(/taken/);
  });

  test("a taken name is found whatever the case of the query", async () => {
    const res = await check("Taken-Name");
    expect(res.body).toMatchObject({ username: "taken-name", valid: true, available: false });
  });

  test.each([["admin"], ["api"], ["system"], ["by-username"]])("reserved name %s is not available", async (name) => {
    const res = await check(name);
    expect(res.body).toMatchObject({ username: name, valid: true, available: false });
    expect(res.body.reason).toMatch(/reserved/);
  });

  test("a retired name is not available", async () => {
    const res = await check("retired-name");
    expect(res.body).toMatchObject({ username: "retired-name", valid: true, available: false });
    expect(res.body.reason).toMatch(/retired/);
  });

  test("registering a retired name is refused with 409 CONFLICT", async () => {
    const res = await h.req("POST", "/api/v1/auth/register", { body: { username: "retired-name", display_name: "Again" } });
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe("CONFLICT");
  });

  test("registering a reserved name is refused with 409 CONFLICT", async () => {
    const res = await h.req("POST", "/api/v1/auth/register", { body: { username: "Admin", display_name: "Sneaky" } });
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe("CONFLICT");
  });

  test("needs no authentication, and a token does not change the answer", async () => {
    const u = await h.user();
    const res = await h.req("GET", "/api/v1/auth/check-username", { query: { username: u.username }, token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, available: false });
  });
});

describe("CORS", () => {
  test("OPTIONS preflight answers 200 with CORS headers", async () => {
    const res = await h.req("OPTIONS", "/api/v1/auth/check-username", {
      headers: { origin: "https://example.org", "access-control-request-method": "GET" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-max-age")).toBe("86400");
    const methods = res.headers.get("access-control-allow-methods") ?? "";
    expect(methods).toContain("GET");
  });

  test("the GET itself carries Access-Control-Allow-Origin for browser clients", async () => {
    const res = await h.req("GET", "/api/v1/auth/check-username", { query: { username: "corsy" }, headers: { origin: "https://example.org" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});
