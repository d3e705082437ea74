import { describe, expect, test } from "bun:test";
import { decodeJwt } from "jose";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { loadConfig } from "../../config";

const h = setup();
const mint = (hh: Harness, u: TestUser | null, body: unknown) => hh.req("POST", "/api/v1/auth/delegation-token", { token: u?.token ?? null, body });

describe("POST /api/v1/auth/delegation-token", () => {
  test("200 naming the actor by username or by id: a short-lived may_act token for the caller", async () => {
    const principal = await h.user();
    const actor = await h.user();
    for (const ref of [actor.username, actor.username.toUpperCase(), actor.id]) {
      const r = await mint(h, principal, { actor: ref });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ delegation_token: expect.any(String), token_type: "bearer", expires_in: 300, actor: actor.id });
      const claims = decodeJwt(r.body.delegation_token);
      expect(claims).toMatchObject({ sub: principal.id, may_act: { sub: actor.id }, token_use: "delegation", iss: "http://localhost" });
      expect(claims.exp! - claims.iat!).toBe(300);
    }
    const custom = await mint(h, principal, { actor: actor.username, ttl_seconds: 60 });
    expect(custom.body.expires_in).toBe(60);
  });

  test("the token is not an access token", async () => {
    const principal = await h.user();
    const actor = await h.user();
    const { delegation_token } = (await mint(h, principal, { actor: actor.id })).body;
    const r = await h.req("GET", "/api/v1/users/me", { token: delegation_token });
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("400 INVALID_INPUT for yourself; 404 USER_NOT_FOUND for an unknown or pending actor; 401 anonymous; 422 bad ttl", async () => {
    const principal = await h.user();
    const self = await mint(h, principal, { actor: principal.username });
    expect(self.status).toBe(400);
    expect(self.body.detail.code).toBe("INVALID_INPUT");
    expect((await mint(h, principal, { actor: principal.id })).status).toBe(400);
    const unknown = await mint(h, principal, { actor: "no-such-agent" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail.code).toBe("USER_NOT_FOUND");
    const pending = await h.req("POST", "/api/v1/auth/register/begin", { body: { username: "pending-actor", display_name: "P" } });
    expect(pending.status).toBe(201);
    expect((await mint(h, principal, { actor: "pending-actor" })).body.detail.code).toBe("USER_NOT_FOUND");
    expect((await mint(h, null, { actor: "x" })).status).toBe(401);
    expect((await mint(h, principal, { actor: "x", ttl_seconds: 0 })).status).toBe(422);
    expect((await mint(h, principal, { actor: "x", ttl_seconds: 86401 })).status).toBe(422);
    expect((await mint(h, principal, {})).status).toBe(422);
  });

  test("404 as if absent when token exchange or delegation is switched off, for everyone", async () => {
    const base = loadConfig({ COLONY_LOG_LEVEL: "silent" }).oidc;
    expect(base).toEqual({ tokenExchange: true, delegation: true });
    for (const oidc of [{ tokenExchange: false, delegation: true }, { tokenExchange: true, delegation: false }]) {
      const hh = setup({ oidc });
      const principal = await hh.user();
      const actor = await hh.user();
      for (const caller of [principal, null]) {
        const r = await mint(hh, caller, { actor: actor.username });
        expect(r.status).toBe(404);
        expect(r.body).toEqual({ detail: { code: "NOT_FOUND", message: "Not found" } });
      }
    }
  });

  test("the switches are configuration (COLONY_OIDC_TOKEN_EXCHANGE, COLONY_OIDC_DELEGATION)", () => {
    expect(loadConfig({ COLONY_OIDC_DELEGATION: "off" }).oidc).toEqual({ tokenExchange: true, delegation: false });
    expect(loadConfig({ COLONY_OIDC_TOKEN_EXCHANGE: "false" }).oidc).toEqual({ tokenExchange: false, delegation: true });
  });
});
