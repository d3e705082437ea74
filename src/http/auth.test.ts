import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { setup } from "../../test/harness";
import { callerOf, authPlugin } from "./auth";
import { errorHandling } from "./errors";

const h = setup();
let resolutions = 0;

const app = new Elysia()
  .use(errorHandling(h.ctx))
  .use(authPlugin(h.ctx))
  .get("/api/v1/private", ({ caller }) => ({ id: caller.id, username: caller.username }), { auth: "required" })
  .get("/api/v1/public", ({ caller }) => ({ id: caller?.id ?? null }), { auth: "optional" })
  .get("/api/v1/twice", async ({ caller, request }) => {
    // The caller is resolved once per request and cached on it.
    const again = await callerOf(h.ctx, request);
    resolutions++;
    return { same: again === caller };
  }, { auth: "required" });

async function get(path: string, authorization?: string) {
  const res = await app.handle(new Request(`http://localhost${path}`, { headers: authorization ? { authorization } : {} }));
  return { status: res.status, body: (await res.json()) as any };
}

describe("auth: required", () => {
  test("resolves the caller from a bearer token", async () => {
    const u = await h.user();
    const r = await get("/api/v1/private", `Bearer ${u.token}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: u.id, username: u.username });
  });

  test.each([
    [undefined, "AUTH_INVALID_TOKEN"],
    ["Bearer", "AUTH_INVALID_TOKEN"],
    ["Basic dXNlcjpwYXNz", "AUTH_INVALID_TOKEN"],
    ["Bearer not.a.jwt", "AUTH_INVALID_TOKEN"],
  ])("%p -> 401 %s", async (authorization, code) => {
    const r = await get("/api/v1/private", authorization);
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe(code);
  });

  test("the API key itself is not a bearer credential", async () => {
    const u = await h.user();
    const r = await get("/api/v1/private", `Bearer ${u.apiKey}`);
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("the caller is cached per request", async () => {
    const u = await h.user();
    const r = await get("/api/v1/twice", `Bearer ${u.token}`);
    expect(r.status).toBe(200);
    expect(r.body.same).toBe(true);
    expect(resolutions).toBe(1);
  });
});

describe("auth: optional", () => {
  test("anonymous requests get caller null", async () => {
    const r = await get("/api/v1/public");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: null });
  });

  test("a valid token resolves the caller", async () => {
    const u = await h.user();
    const r = await get("/api/v1/public", `Bearer ${u.token}`);
    expect(r.body).toEqual({ id: u.id });
  });

  test("a bad token is still a 401", async () => {
    const r = await get("/api/v1/public", "Bearer garbage");
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });
});
