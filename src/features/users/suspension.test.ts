// Suspended accounts (docs/decisions.md §148, §173-§176): who may suspend whom, what a suspension
// refuses (access tokens, the key exchange, OAuth and MCP through the same check), what stays (the
// account's content and profile), the timed end by the clock, and the hot path's statements.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setup, type Harness } from "../../../test/harness";
import { DAY } from "../../core/clock";
import { callerOf } from "../auth/caller";
import { initialize, listen, rpc, type Listening } from "../mcp/testkit";
import { post } from "../posts/fixtures";
import { refusal } from "../sessions/fixtures";
import * as users from "./service";
import { isSuspended, suspend, unsuspend } from "./suspension";

const me = (h: Harness, token: string) => h.req("GET", "/api/v1/users/me", { token });
const mint = (h: Harness, apiKey: string) => h.req("POST", "/api/v1/auth/token", { body: { api_key: apiKey } });
const row = (h: Harness, id: string) => users.findById(h.ctx, id)!;
const adminOf = async (h: Harness) => callerOf(row(h, (await h.user({ admin: true, human: true })).id));

describe("suspend and unsuspend (service)", () => {
  const h = setup();

  test("only site admins suspend; not themselves, not another site admin; an unknown account is 404", async () => {
    const admin = await adminOf(h);
    const plain = callerOf(row(h, (await h.user()).id));
    const target = await h.user();
    const other = await h.user({ admin: true });
    expect(await refusal(() => suspend(h.ctx, plain, target.id))).toEqual({ status: 403, code: "FORBIDDEN" });
    expect(await refusal(() => suspend(h.ctx, admin, admin.id))).toEqual({ status: 403, code: "FORBIDDEN" });
    expect(await refusal(() => suspend(h.ctx, admin, other.id))).toEqual({ status: 403, code: "FORBIDDEN" });
    expect(await refusal(() => suspend(h.ctx, admin, "0190aaaa-0000-7000-8000-000000000000"))).toEqual({ status: 404, code: "USER_NOT_FOUND" });
    expect(await refusal(() => unsuspend(h.ctx, plain, target.id))).toEqual({ status: 403, code: "FORBIDDEN" });
    expect(row(h, target.id).suspendedAt).toBeNull();
    // The operator's command line (no account) may suspend a site admin.
    expect(isSuspended(suspend(h.ctx, null, other.id, { reason: "compromised" }), h.clock.now())).toBe(true);
  });

  test("bad input is refused and changes nothing: a reason over 500 characters, days outside 1-3650", async () => {
    const admin = await adminOf(h);
    const target = await h.user();
    expect(await refusal(() => suspend(h.ctx, admin, target.id, { reason: "x".repeat(501) }))).toEqual({ status: 422, code: "body.reason" });
    for (const days of [0, -1, 1.5, 3651]) expect(await refusal(() => suspend(h.ctx, admin, target.id, { days }))).toEqual({ status: 422, code: "body.days" });
    expect(row(h, target.id)).toEqual(users.findById(h.ctx, target.id)!);
    expect(row(h, target.id).suspendedAt).toBeNull();
  });

  test("suspending records when, until when, why and by whom; again replaces the end and reason; unsuspend ends it now", async () => {
    const admin = await adminOf(h);
    const target = await h.user();
    const t0 = h.clock.now();
    const s = suspend(h.ctx, admin, target.id, { reason: "  spam  ", days: 7 });
    expect({ at: s.suspendedAt, until: s.suspendedUntil, reason: s.suspensionReason, by: s.suspendedBy }).toEqual({ at: t0, until: t0 + 7 * DAY, reason: "spam", by: admin.id });
    h.clock.advance(1000);
    const again = suspend(h.ctx, admin, target.id, { reason: "" });
    expect({ at: again.suspendedAt, until: again.suspendedUntil, reason: again.suspensionReason }).toEqual({ at: t0, until: null, reason: null });
    const lifted = unsuspend(h.ctx, admin, target.id);
    expect(isSuspended(lifted, h.clock.now())).toBe(false);
    expect(lifted.suspendedUntil).toBe(h.clock.now());
    expect(await refusal(() => unsuspend(h.ctx, admin, target.id))).toEqual({ status: 409, code: "CONFLICT" });
  });

  test("each change is one domain event in its write", async () => {
    const admin = await adminOf(h);
    const target = await h.user();
    suspend(h.ctx, admin, target.id, { days: 1, reason: "r" });
    unsuspend(h.ctx, admin, target.id);
    const events = h.ctx.db.$client
      .query("select type, payload from events where subject_id = ? order by id")
      .all(target.id)
      .map((e: any) => ({ type: e.type, payload: JSON.parse(e.payload) }));
    expect(events.map((e) => e.type)).toEqual(["account_suspended", "account_unsuspended"]);
    expect(events[0].payload).toMatchObject({ user_id: target.id, username: target.username, reason: "r", by_id: admin.id });
  });
});

describe("a suspended account cannot authenticate", () => {
  const h = setup({ rateLimitMultiplier: 0 });
  let admin: ReturnType<typeof callerOf>;
  beforeAll(async () => {
    admin = await adminOf(h);
  });

  test("its access tokens (cached ones too) and the key exchange answer 403 ACCOUNT_SUSPENDED with the end and reason", async () => {
    const agent = await h.user();
    expect((await me(h, agent.token)).status).toBe(200); // the token is now verified and cached
    expect((await h.req("GET", "/api/v1/posts", { token: agent.token })).status).toBe(200); // and this read's answer is cached for it
    suspend(h.ctx, admin, agent.id, { reason: "flooding", days: 2 });
    const refused = await me(h, agent.token);
    expect(refused.status).toBe(403);
    expect(refused.body.detail.code).toBe("ACCOUNT_SUSPENDED");
    expect(refused.body.detail.message).toContain("Reason: flooding");
    expect(refused.body.detail.suspended_until).toBe(new Date(h.clock.now() + 2 * DAY).toISOString());
    expect((await h.req("GET", "/api/v1/posts", { token: agent.token })).body.detail.code).toBe("ACCOUNT_SUSPENDED");
    const minted = await mint(h, agent.apiKey);
    expect(minted.status).toBe(403);
    expect(minted.body.detail.code).toBe("ACCOUNT_SUSPENDED");
    // A write is refused before it runs.
    expect((await h.req("PUT", "/api/v1/users/me", { token: agent.token, body: { bio: "changed" } })).status).toBe(403);
    expect(row(h, agent.id).bio).toBeNull();
  });

  test("after unsuspend the old tokens stay revoked (401 AUTH_TOKEN_REVOKED) and the key mints a working one", async () => {
    const agent = await h.user();
    expect((await me(h, agent.token)).status).toBe(200);
    suspend(h.ctx, admin, agent.id, { reason: "flooding", days: 2 });
    expect((await me(h, agent.token)).body.detail.code).toBe("ACCOUNT_SUSPENDED");
    unsuspend(h.ctx, admin, agent.id);
    const old = await me(h, agent.token);
    expect(old.status).toBe(401);
    expect(old.body.detail.code).toBe("AUTH_TOKEN_REVOKED");
    const minted = await mint(h, agent.apiKey);
    expect(minted.status).toBe(200);
    expect((await me(h, minted.body.access_token)).status).toBe(200);
  });

  test("a timed suspension ends by itself at its instant (the clock moved, nothing run)", async () => {
    // The clock moves days ahead: an instance of its own, so no other test's tokens expire.
    const h = setup({ rateLimitMultiplier: 0 });
    const admin = await adminOf(h);
    const u = await h.user();
    suspend(h.ctx, admin, u.id, { days: 3 });
    h.clock.advance(3 * DAY - 1);
    expect((await mint(h, u.apiKey)).body.detail.code).toBe("ACCOUNT_SUSPENDED");
    h.clock.advance(1);
    const minted = await mint(h, u.apiKey);
    expect(minted.status).toBe(200);
    expect((await me(h, minted.body.access_token)).status).toBe(200);
    expect(isSuspended(row(h, u.id), h.clock.now())).toBe(false);
  });

  test("its content and profile stay readable by others", async () => {
    const author = await h.user();
    const reader = await h.user();
    const p = await post(h, author);
    suspend(h.ctx, admin, author.id, { reason: "r" });
    expect((await h.req("GET", `/api/v1/posts/${p.id}`, { token: reader.token })).status).toBe(200);
    const profile = await h.req("GET", `/api/v1/users/${author.username}`, { token: reader.token });
    expect(profile.status).toBe(200);
    expect(profile.body.username).toBe(author.username);
  });

  test("OAuth token exchange: invalid_grant naming ACCOUNT_SUSPENDED", async () => {
    const u = await h.user();
    const rp = (await h.req("POST", "/oauth/register", { body: { client_name: "RP", allowed_scopes: ["openid", "profile"] } })).body.client_id;
    suspend(h.ctx, admin, u.id);
    const r = await h.req("POST", "/oauth/token", {
      raw: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:token-exchange", subject_token: u.token, audience: rp }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_grant");
    expect(r.body.error_description).toContain("ACCOUNT_SUSPENDED");
  });
});

describe("MCP goes through the same check", () => {
  const h = setup();
  let srv: Listening;
  beforeAll(() => {
    srv = listen(h);
  });
  afterAll(() => srv.stop());

  test("a request with a suspended account's token is 403 ACCOUNT_SUSPENDED, the REST body in the JSON-RPC error", async () => {
    const admin = await adminOf(h);
    const agent = await h.user();
    suspend(h.ctx, admin, agent.id, { reason: "r" });
    const res = await rpc(srv.url, initialize("2025-06-18"), { authorization: `Bearer ${agent.token}` });
    expect(res.status).toBe(403);
    const rest = await h.req("GET", "/api/v1/notifications", { token: agent.token });
    expect(((await res.json()) as { error: { data: unknown } }).error.data).toEqual({ detail: { ...rest.body.detail, status: 403 } });
  });
});

describe("the hot path", () => {
  test("GET /users/me with a seen token runs the same statements whether or not anyone is suspended: no query added", async () => {
    const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 }, { countQueries: true });
    const u = await h.user();
    const other = await h.user();
    await me(h, u.token);
    const before = await h.queries!.during(() => me(h, u.token));
    suspend(h.ctx, null, other.id);
    const after = await h.queries!.during(() => me(h, u.token));
    expect(after.sql).toEqual(before.sql);
    expect(before.sql.filter((s) => /from users/i.test(s))).toEqual(["select * from users where id = ?"]);
  });
});
