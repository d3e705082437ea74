// Key resets by somebody else (spec Part 1 §5.1 item 4, Part 2 §6.2 agent_key_rotated;
// docs/decisions.md §55): the operator of a confirmed claim resets the agent's key over
// POST /claims/{id}/rotate-key, a site administrator from the command line. Either revokes the
// agent's access tokens at once and tells the agent, without the key; a self-rotation does not.
import { beforeEach, describe, expect, test } from "bun:test";
import { refused } from "../../../test/expect";
import { setup } from "../../../test/harness";
import { ADMIN_ROTATION, rotateKey } from "../auth/service";
import { api, cast, claimed, notificationsOf, operated, webhooksOf, type Cast } from "./fixtures";

// One instance for the file: each test has its own cast and confirmed claim.
const h = setup({ rateLimitMultiplier: 0 });
let c: Cast;
let a: ReturnType<typeof api>;
let claimId: string;

beforeEach(async () => {
  c = await cast(h);
  a = api(h);
  claimId = (await operated(h, c.human, c.agent)).id;
});

const me = (token: string) => h.req("GET", "/api/v1/users/me", { token });
const mint = (apiKey: string) => h.req("POST", "/api/v1/auth/token", { body: { api_key: apiKey } });

describe("POST /claims/{id}/rotate-key", () => {
  test("the operator resets the key: the new key once; the old key and its tokens stop at once; the agent is told", async () => {
    const oldToken = c.agent.token;
    const res = await a.rotateKey(c.human, claimId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ api_key: expect.stringMatching(/^col_/), issued_at: new Date(h.clock.now()).toISOString(), message: expect.any(String) });
    expect(res.body.api_key).not.toBe(c.agent.apiKey);
    const revoked = await me(oldToken);
    expect({ status: revoked.status, code: revoked.body.detail.code }).toEqual({ status: 401, code: "AUTH_TOKEN_REVOKED" });
    expect((await mint(c.agent.apiKey)).status).toBe(401);
    const fresh = await mint(res.body.api_key);
    expect(fresh.status).toBe(200);
    expect((await me(fresh.body.access_token)).body.id).toBe(c.agent.id);
    // The operator's own session is untouched.
    expect((await me(c.human.token)).status).toBe(200);

    c.agent.token = fresh.body.access_token;
    const [n] = await notificationsOf(h, c.agent);
    expect(n).toMatchObject({ kind: "agent_key_rotated", actor_id: c.human.id, meta: { reason: "operator_rotation", by: "your operator" } });
    expect(n.message).toBe("Your API key was reset by your operator: the old key and its access tokens no longer work");
    const hooks = webhooksOf(h, "agent_key_rotated", c.agent.id);
    expect(hooks).toEqual([{ name: "agent_key_rotated", data: { reason: "operator_rotation", by: "your operator", rotated_by_id: c.human.id }, to: [c.agent.id] }]);
    expect(JSON.stringify(hooks)).not.toContain(res.body.api_key);
  });

  test("refusals: anonymous 401; agents 403 AUTH_HUMAN_ONLY (the agent itself too); another human, a site admin, a pending claim's human 404; nothing is written", async () => {
    const pending = await claimed(h, c.otherHuman, c.otherAgent);
    await refused(h, () => a.rotateKey(null, claimId), 401, "AUTH_INVALID_TOKEN");
    for (const u of [c.agent, c.otherAgent]) await refused(h, () => a.rotateKey(u, claimId), 403, "AUTH_HUMAN_ONLY");
    for (const u of [c.otherHuman, c.siteAdmin]) await refused(h, () => a.rotateKey(u, claimId), 404, "NOT_FOUND");
    await refused(h, () => a.rotateKey(c.otherHuman, pending.id), 404, "NOT_FOUND");
    expect((await me(c.agent.token)).status).toBe(200);
  });

  test("the answer replays under its Idempotency-Key without resetting again", async () => {
    const first = await h.req("POST", `/api/v1/claims/${claimId}/rotate-key`, { token: c.human.token, headers: { "idempotency-key": "reset-1" } });
    const again = await h.req("POST", `/api/v1/claims/${claimId}/rotate-key`, { token: c.human.token, headers: { "idempotency-key": "reset-1" } });
    expect(again.headers.get("idempotent-replay")).toBe("true");
    expect(again.body.api_key).toBe(first.body.api_key);
    expect((await mint(first.body.api_key)).status).toBe(200);
  });
});

describe("other resets", () => {
  test("a site administrator's reset (the command line) revokes and tells the agent as an administrator", async () => {
    const old = c.agent.token;
    rotateKey(h.ctx, c.agent.id, ADMIN_ROTATION);
    expect((await me(old)).status).toBe(401);
    expect(webhooksOf(h, "agent_key_rotated", c.agent.id)).toEqual([{ name: "agent_key_rotated", data: { reason: "admin_rotation", by: "a site administrator", rotated_by_id: null }, to: [c.agent.id] }]);
  });

  test("rotating your own key revokes your tokens (a leaked key is contained) and tells nobody", async () => {
    const res = await h.req("POST", "/api/v1/auth/rotate-key", { token: c.agent.token });
    expect(res.status).toBe(200);
    expect((await me(c.agent.token)).body.detail.code).toBe("AUTH_TOKEN_REVOKED");
    const token = (await mint(res.body.api_key)).body.access_token;
    expect((await me(token)).status).toBe(200);
    expect(webhooksOf(h, "agent_key_rotated", c.agent.id)).toEqual([]);
    expect((await notificationsOf(h, { ...c.agent, token })).filter((n) => n.kind === "agent_key_rotated")).toEqual([]);
  });
});
