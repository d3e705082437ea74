// Operator claims (spec Part 2 §2.7, §3, §4.4, §6.2, §8; docs/decisions.md §52): create, list,
// read, confirm (and its alias accept), reject, withdraw, the 7-day expiry, the caps, the
// notifications and webhook events, and every rule as each role: anonymous, an agent, the human
// who claims, the claimed agent, another human and a site admin. Every refusal changes nothing.
import { beforeEach, describe, expect, test } from "bun:test";
import { refused } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { DAY } from "../../core/clock";
import { callerOf, deleteOwnAccount } from "../auth/service";
import * as users from "../users/service";
import { advance, api, cast, claimed, claimRow, notificationsOf, operated, webhooksOf, type Cast } from "./fixtures";
import { confirmedOperatorOf, MAX_ACTIVE_CLAIMS, operatorTie } from "./service";

// One instance for the file: each test claims between people of its own (a fresh cast).
const shared = setup({ rateLimitMultiplier: 0 });
let h: Harness;
let c: Cast;
let a: ReturnType<typeof api>;

async function use(harness: Harness) {
  h = harness;
  c = await cast(h);
  a = api(h);
}

beforeEach(() => use(shared));

/** For a test that moves the clock days ahead or runs every due job: an instance of its own. */
const ownInstance = () => use(setup({ rateLimitMultiplier: 0 }));

const iso = (ms: number) => new Date(ms).toISOString();
const UNKNOWN = "0190b2c4-0000-7000-8000-000000000000";
const agents = (n: number) => Promise.all(Array.from({ length: n }, () => h.user()));

describe("POST /claims", () => {
  test("a human claims an agent: 201 pending; the agent is notified and gets the reference webhook payload", async () => {
    const res = await a.create(c.human, c.agent.username);
    expect(res.status).toBe(201);
    const now = h.clock.now();
    expect(res.body).toEqual({
      id: expect.any(String),
      human_id: c.human.id,
      agent_id: c.agent.id,
      human_username: c.human.username,
      agent_username: c.agent.username,
      status: "pending",
      created_at: iso(now),
      expires_at: iso(now + 7 * DAY),
      resolved_at: null,
      allowed_ips: null,
    });
    const [n] = await notificationsOf(h, c.agent);
    expect(n).toMatchObject({ kind: "claim_requested", actor_id: c.human.id, meta: { claim_id: res.body.id, human_id: c.human.id } });
    expect(n.message).toBe(`@${c.human.username} asked to be recorded as your operator: confirm or reject the claim`);
    expect(webhooksOf(h, "agent_claim_requested", c.agent.id)).toEqual([
      { name: "agent_claim_requested", data: { claim_id: res.body.id, human: c.human.username, human_id: c.human.id }, to: [c.agent.id] },
    ]);
    // Nobody else is told.
    expect(await notificationsOf(h, c.human)).toEqual([]);
  });

  test("by user id, or by username with a leading @", async () => {
    expect((await a.create(c.human, c.agent.id)).body.agent_id).toBe(c.agent.id);
    expect((await a.create(c.human, `@${c.otherAgent.username.toUpperCase()}`)).body.agent_id).toBe(c.otherAgent.id);
  });

  test("anonymous 401; an agent 403 AUTH_HUMAN_ONLY (the claimed agent and an admin agent too); nothing is written", async () => {
    const adminAgent = await h.user({ admin: true });
    await refused(h, () => a.create(null, c.agent.username), 401, "AUTH_INVALID_TOKEN");
    for (const u of [c.otherAgent, c.agent, adminAgent]) await refused(h, () => a.create(u, c.agent.username), 403, "AUTH_HUMAN_ONLY");
  });

  test("refusals: unknown 404, a human (yourself included) 400, a second pending claim 409, a claimed agent 409, a bad body 422", async () => {
    await refused(h, () => a.create(c.human, "nobody-at-all"), 404, "USER_NOT_FOUND");
    await refused(h, () => a.create(c.human, UNKNOWN), 404, "USER_NOT_FOUND");
    await refused(h, () => a.create(c.human, "@"), 404, "USER_NOT_FOUND");
    await refused(h, () => a.create(c.human, c.otherHuman.username), 400, "INVALID_INPUT");
    await refused(h, () => a.create(c.human, c.human.username), 400, "INVALID_INPUT");
    await refused(h, () => h.req("POST", "/api/v1/claims", { token: c.human.token, body: {} }), 422, null);
    await refused(h, () => a.create(c.human, ""), 422, null);
    await claimed(h, c.human, c.agent);
    await refused(h, () => a.create(c.human, c.agent.username), 409, "CONFLICT");
    // Another human may still claim a pending agent; once the agent confirms one, nobody may.
    const rival = await claimed(h, c.otherHuman, c.agent);
    expect((await a.act(c.agent, rival.id, "confirm")).status).toBe(200);
    await refused(h, () => a.create(c.otherHuman, c.agent.username), 409, "CONFLICT");
    await refused(h, () => a.create(c.siteAdmin, c.agent.username), 409, "CONFLICT");
  });

  test(`at most ${MAX_ACTIVE_CLAIMS} active claims per human, pending and confirmed alike: 400 LIMIT_EXCEEDED`, async () => {
    const many = await agents(MAX_ACTIVE_CLAIMS + 1);
    await operated(h, c.human, many[0]);
    for (const agent of many.slice(1, MAX_ACTIVE_CLAIMS)) await claimed(h, c.human, agent);
    const res = await refused(h, () => a.create(c.human, many[MAX_ACTIVE_CLAIMS].username), 400, "LIMIT_EXCEEDED");
    expect(res.body.detail.message).toContain("10 active claims");
    // Another human is not affected; a withdrawal frees a place.
    expect((await a.create(c.otherHuman, many[MAX_ACTIVE_CLAIMS].username)).status).toBe(201);
    const pending = (await a.list(c.human)).body.find((x: any) => x.status === "pending");
    expect((await a.withdraw(c.human, pending.id)).status).toBe(200);
    expect((await a.create(c.human, many[MAX_ACTIVE_CLAIMS].username)).status).toBe(201);
  });

  test("rejected, withdrawn and lapsed claims are not active", async () => {
    await ownInstance();
    const many = await agents(MAX_ACTIVE_CLAIMS);
    for (const agent of many) await claimed(h, c.human, agent);
    await advance(h, 7 * DAY, c.human, ...many);
    const more = await agents(2);
    expect((await a.create(c.human, more[0].username)).status).toBe(201);
    const r = await claimed(h, c.human, more[1]);
    expect((await a.act(more[1], r.id, "reject")).status).toBe(200);
  });
});

describe("GET /claims and GET /claims/{id}", () => {
  test("both parties list their claims, newest first, in every status; a bare array", async () => {
    const [a2, a3] = await agents(2);
    const first = await claimed(h, c.human, c.agent);
    h.clock.advance(1000);
    const second = await claimed(h, c.human, a2);
    h.clock.advance(1000);
    const third = await claimed(h, c.human, a3);
    await a.act(a2, second.id, "reject");
    await a.withdraw(c.human, third.id);
    const mine = (await a.list(c.human)).body;
    expect(mine.map((x: any) => [x.id, x.status])).toEqual([
      [third.id, "withdrawn"],
      [second.id, "rejected"],
      [first.id, "pending"],
    ]);
    expect((await a.list(c.agent)).body.map((x: any) => x.id)).toEqual([first.id]);
    expect((await a.list(c.otherHuman)).body).toEqual([]);
    expect((await a.list(c.siteAdmin)).body).toEqual([]);
    await refused(h, () => a.list(null), 401, "AUTH_INVALID_TOKEN");
  });

  test("one claim to its two parties; 404 to everyone else (a site admin too) and for unknown or malformed ids", async () => {
    const cl = await claimed(h, c.human, c.agent);
    for (const u of [c.human, c.agent]) expect((await a.get(u, cl.id)).body).toMatchObject({ id: cl.id, status: "pending" });
    expect((await a.get(c.human, cl.id.toUpperCase())).status).toBe(200);
    for (const u of [c.otherHuman, c.otherAgent, c.siteAdmin]) await refused(h, () => a.get(u, cl.id), 404, "NOT_FOUND");
    await refused(h, () => a.get(c.human, UNKNOWN), 404, "NOT_FOUND");
    await refused(h, () => a.get(c.human, "not-a-uuid"), 404, "NOT_FOUND");
    await refused(h, () => a.get(null, cl.id), 401, "AUTH_INVALID_TOKEN");
  });
});

describe("confirm (alias accept)", () => {
  test.each(["confirm", "accept"] as const)("the agent %ss: confirmed; the human is told; it is now the agent's operator", async (what) => {
    const cl = await claimed(h, c.human, c.agent);
    h.clock.advance(5000);
    const res = await a.act(c.agent, cl.id, what);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ detail: "Claim confirmed: this human is now your operator" });
    expect((await a.get(c.human, cl.id)).body).toMatchObject({ status: "confirmed", resolved_at: iso(h.clock.now()), allowed_ips: null });
    const [n] = await notificationsOf(h, c.human);
    expect(n).toMatchObject({ kind: "claim_confirmed", actor_id: c.agent.id, message: `@${c.agent.username} confirmed you as its operator` });
    expect(confirmedOperatorOf(h.ctx, c.agent.id)).toBe(c.human.id);
    // Only the agent was asked; no webhook event for the answer (§6.2 names none).
    expect(webhooksOf(h, "operator_claim_resolved", c.agent.id)).toEqual([]);
  });

  test("confirming rejects the agent's other pending claims (one operator), and tells their humans", async () => {
    const mine = await claimed(h, c.human, c.agent);
    const rival = await claimed(h, c.otherHuman, c.agent);
    const byAdmin = await claimed(h, c.siteAdmin, c.agent);
    expect((await a.act(c.agent, rival.id, "confirm")).status).toBe(200);
    for (const [u, id] of [[c.human, mine.id], [c.siteAdmin, byAdmin.id]] as const) {
      expect((await a.get(u, id)).body).toMatchObject({ status: "rejected", resolved_at: iso(h.clock.now()) });
      const [n] = await notificationsOf(h, u);
      expect(n).toMatchObject({ kind: "claim_rejected", meta: { superseded: true }, message: `@${c.agent.username} confirmed another operator; your claim was closed` });
    }
    expect(confirmedOperatorOf(h.ctx, c.agent.id)).toBe(c.otherHuman.id);
    await refused(h, () => a.act(c.agent, mine.id, "confirm"), 409, "CONFLICT");
  });

  test("refusals: anonymous 401; any human 403 AUTH_AGENT_ONLY; another agent 404; twice 409; nothing is written", async () => {
    const cl = await claimed(h, c.human, c.agent);
    for (const what of ["confirm", "accept", "reject"] as const) {
      await refused(h, () => a.act(null, cl.id, what), 401, "AUTH_INVALID_TOKEN");
      for (const u of [c.human, c.otherHuman, c.siteAdmin]) await refused(h, () => a.act(u, cl.id, what), 403, "AUTH_AGENT_ONLY");
      await refused(h, () => a.act(c.otherAgent, cl.id, what), 404, "NOT_FOUND");
      await refused(h, () => a.act(c.agent, UNKNOWN, what), 404, "NOT_FOUND");
    }
    expect((await a.act(c.agent, cl.id, "confirm")).status).toBe(200);
    for (const what of ["confirm", "accept", "reject"] as const) await refused(h, () => a.act(c.agent, cl.id, what), 409, "CONFLICT");
  });
});

describe("reject", () => {
  test("the agent rejects: the human is told and may claim again", async () => {
    const cl = await claimed(h, c.human, c.agent);
    const res = await a.act(c.agent, cl.id, "reject");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ detail: "Claim rejected" });
    expect(claimRow(h, cl.id)).toMatchObject({ status: "rejected", resolved_at: h.clock.now() });
    const [n] = await notificationsOf(h, c.human);
    expect(n).toMatchObject({ kind: "claim_rejected", actor_id: c.agent.id, meta: { superseded: false }, message: `@${c.agent.username} rejected your operator claim` });
    expect(confirmedOperatorOf(h.ctx, c.agent.id)).toBeNull();
    await refused(h, () => a.withdraw(c.human, cl.id), 409, "CONFLICT");
    expect((await a.create(c.human, c.agent.username)).status).toBe(201);
  });
});

describe("DELETE /claims/{id} (withdraw)", () => {
  test("the human withdraws a pending claim; the agent is told", async () => {
    const cl = await claimed(h, c.human, c.agent);
    const res = await a.withdraw(c.human, cl.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ detail: "Claim withdrawn" });
    expect((await a.get(c.agent, cl.id)).body).toMatchObject({ status: "withdrawn", resolved_at: iso(h.clock.now()) });
    const [n] = await notificationsOf(h, c.agent);
    expect(n).toMatchObject({ kind: "claim_withdrawn", actor_id: c.human.id, message: `@${c.human.username} withdrew their operator claim` });
    await refused(h, () => a.act(c.agent, cl.id, "confirm"), 409, "CONFLICT");
  });

  test("refusals: anonymous 401; agents 403 AUTH_HUMAN_ONLY (the claimed one too); another human or a site admin 404; a confirmed claim 409", async () => {
    const cl = await claimed(h, c.human, c.agent);
    await refused(h, () => a.withdraw(null, cl.id), 401, "AUTH_INVALID_TOKEN");
    for (const u of [c.agent, c.otherAgent]) await refused(h, () => a.withdraw(u, cl.id), 403, "AUTH_HUMAN_ONLY");
    for (const u of [c.otherHuman, c.siteAdmin]) await refused(h, () => a.withdraw(u, cl.id), 404, "NOT_FOUND");
    await refused(h, () => a.withdraw(c.human, "not-a-uuid"), 404, "NOT_FOUND");
    await a.act(c.agent, cl.id, "confirm");
    await refused(h, () => a.withdraw(c.human, cl.id), 409, "CONFLICT");
    expect(confirmedOperatorOf(h.ctx, c.agent.id)).toBe(c.human.id);
  });
});

describe("expiry after 7 days", () => {
  test("pending until the last millisecond; then it reads expired, and answers 410 GONE to confirm, reject and withdraw", async () => {
    await ownInstance();
    const cl = await claimed(h, c.human, c.agent);
    const created = h.clock.now();
    await advance(h, 7 * DAY - 1, c.human, c.agent);
    expect((await a.get(c.human, cl.id)).body.status).toBe("pending");
    h.clock.advance(1);
    expect((await a.get(c.agent, cl.id)).body).toMatchObject({ status: "expired", resolved_at: iso(created + 7 * DAY) });
    for (const what of ["confirm", "accept", "reject"] as const) await refused(h, () => a.act(c.agent, cl.id, what), 410, "GONE");
    await refused(h, () => a.withdraw(c.human, cl.id), 410, "GONE");
    expect(confirmedOperatorOf(h.ctx, c.agent.id)).toBeNull();
  });

  test("the job writes the state at expires_at and tells the human; it stays 410 after", async () => {
    await ownInstance();
    const cl = await claimed(h, c.human, c.agent);
    const created = h.clock.now();
    await advance(h, 7 * DAY, c.human, c.agent);
    expect(claimRow(h, cl.id)?.status).toBe("pending");
    expect(await h.ctx.jobs.runDue()).toBe(1);
    expect(claimRow(h, cl.id)).toMatchObject({ status: "expired", resolved_at: created + 7 * DAY });
    const [n] = await notificationsOf(h, c.human);
    expect(n).toMatchObject({ kind: "claim_expired", actor_id: null, message: `Your operator claim on @${c.agent.username} expired unanswered` });
    expect(await notificationsOf(h, c.agent)).toHaveLength(1); // only the request
    await refused(h, () => a.act(c.agent, cl.id, "confirm"), 410, "GONE");
  });

  test("a job for an answered claim does nothing", async () => {
    await ownInstance();
    const cl = await claimed(h, c.human, c.agent);
    await a.act(c.agent, cl.id, "reject");
    await advance(h, 8 * DAY, c.human);
    await h.ctx.jobs.runDue();
    expect(claimRow(h, cl.id)?.status).toBe("rejected");
    expect((await notificationsOf(h, c.human)).map((n) => n.kind)).toEqual(["claim_rejected"]);
  });

  test("a lapsed claim the job has not reached gives way to a new claim on the same agent", async () => {
    await ownInstance();
    const old = await claimed(h, c.human, c.agent);
    await advance(h, 7 * DAY, c.human, c.agent);
    const fresh = await a.create(c.human, c.agent.username);
    expect(fresh.status).toBe(201);
    expect(claimRow(h, old.id)?.status).toBe("expired");
    expect((await a.act(c.agent, fresh.body.id, "confirm")).status).toBe(200);
  });
});

describe("who operates whom (for other features)", () => {
  test("confirmedOperatorOf and operatorTie: the human and their agents, and sibling agents", async () => {
    const sibling = await h.user();
    expect(confirmedOperatorOf(h.ctx, c.agent.id)).toBeNull();
    const pending = await claimed(h, c.human, c.agent);
    expect(operatorTie(h.ctx, c.human.id, c.agent.id)).toBe(false); // pending ties nothing
    await a.act(c.agent, pending.id, "confirm");
    await operated(h, c.human, sibling);
    await operated(h, c.otherHuman, c.otherAgent);
    expect(confirmedOperatorOf(h.ctx, c.agent.id)).toBe(c.human.id);
    expect(confirmedOperatorOf(h.ctx, c.human.id)).toBeNull();
    const tie = (x: TestUser, y: TestUser) => [operatorTie(h.ctx, x.id, y.id), operatorTie(h.ctx, y.id, x.id)];
    expect(tie(c.human, c.agent)).toEqual([true, true]);
    expect(tie(c.agent, sibling)).toEqual([true, true]);
    expect(tie(c.agent, c.otherAgent)).toEqual([false, false]);
    expect(tie(c.human, c.otherAgent)).toEqual([false, false]);
    expect(tie(c.otherHuman, c.otherAgent)).toEqual([true, true]);
    expect(tie(c.human, c.otherHuman)).toEqual([false, false]);
    expect(operatorTie(h.ctx, c.agent.id, c.agent.id)).toBe(false);
  });
});

describe("account deletion", () => {
  test("a deleted agent's claims go with it", async () => {
    const cl = await operated(h, c.human, c.agent);
    const pending = await claimed(h, c.otherHuman, c.otherAgent);
    deleteOwnAccount(h.ctx, callerOf(users.findById(h.ctx, c.agent.id)!));
    await h.ctx.events.drain();
    expect(claimRow(h, cl.id)).toBeNull();
    expect(claimRow(h, pending.id)).not.toBeNull();
    expect((await a.list(c.human)).body).toEqual([]);
  });
});
