// Test fixtures of operator claims: the people every rule is tested as, requests as them, the
// database's whole state (to assert that a refusal changed nothing), the notifications and
// webhook events a write left, and moving the clock with fresh tokens.
import { expect } from "bun:test";
import type { Harness, TestUser } from "../../../test/harness";
import { issueToken } from "../auth/service";
import { planWebhookEvents } from "../webhooks/mapping";
import { dbState } from "../../../test/db-state";

export interface Cast {
  /** The human who claims. */
  human: TestUser;
  /** The agent claimed. */
  agent: TestUser;
  /** Another human, party to nothing. */
  otherHuman: TestUser;
  /** Another agent, party to nothing. */
  otherAgent: TestUser;
  /** A site administrator (a human account), party to nothing. */
  siteAdmin: TestUser;
}

let seq = 0;

export async function cast(h: Harness): Promise<Cast> {
  const n = ++seq;
  const [human, agent, otherHuman, otherAgent, siteAdmin] = await Promise.all([
    h.user({ username: `human-${n}`, human: true }),
    h.user({ username: `agent-${n}` }),
    h.user({ username: `other-human-${n}`, human: true }),
    h.user({ username: `other-agent-${n}` }),
    h.user({ username: `site-admin-${n}`, human: true, admin: true }),
  ]);
  return { human, agent, otherHuman, otherAgent, siteAdmin };
}

export const tokenOf = (u: TestUser | null) => u?.token ?? null;

export function api(h: Harness) {
  return {
    create: (u: TestUser | null, agent: string) => h.req("POST", "/api/v1/claims", { token: tokenOf(u), body: { agent_username: agent } }),
    list: (u: TestUser | null) => h.req("GET", "/api/v1/claims", { token: tokenOf(u) }),
    get: (u: TestUser | null, id: string) => h.req("GET", `/api/v1/claims/${id}`, { token: tokenOf(u) }),
    act: (u: TestUser | null, id: string, what: "confirm" | "accept" | "reject") => h.req("POST", `/api/v1/claims/${id}/${what}`, { token: tokenOf(u) }),
    withdraw: (u: TestUser | null, id: string) => h.req("DELETE", `/api/v1/claims/${id}`, { token: tokenOf(u) }),
    allowedIps: (u: TestUser | null, id: string, list: unknown) => h.req("PUT", `/api/v1/claims/${id}/allowed-ips`, { token: tokenOf(u), body: { allowed_ips: list } }),
    rotateKey: (u: TestUser | null, id: string) => h.req("POST", `/api/v1/claims/${id}/rotate-key`, { token: tokenOf(u) }),
  };
}

/** A pending claim of `human` on `agent`. */
export async function claimed(h: Harness, human: TestUser, agent: TestUser): Promise<{ id: string; status: string }> {
  const res = await api(h).create(human, agent.username);
  expect(res.status).toBe(201);
  return res.body;
}

/** A confirmed claim of `human` on `agent`. */
export async function operated(h: Harness, human: TestUser, agent: TestUser): Promise<{ id: string }> {
  const c = await claimed(h, human, agent);
  expect((await api(h).act(agent, c.id, "confirm")).status).toBe(200);
  return c;
}

export { dbState };

/** The caller's notifications, newest first (through the API). */
export async function notificationsOf(h: Harness, u: TestUser): Promise<{ kind: string; message: string; meta: Record<string, any>; actor_id: string | null }[]> {
  const res = await h.req("GET", "/api/v1/notifications", { token: u.token });
  expect(res.status).toBe(200);
  return res.body;
}

/** The webhook events the newest domain event of `type` about the user `subjectId` became (name, body, recipients). */
export function webhooksOf(h: Harness, type: string, subjectId: string) {
  const row = h.ctx.db.$client.query("select * from events where type = ? and subject_id = ? order by id desc").get(type, subjectId) as Record<string, any> | null;
  if (!row) return [];
  const ev = { id: row.id, type: row.type, actorId: row.actor_id, subjectType: row.subject_type, subjectId: row.subject_id, payload: JSON.parse(row.payload), audience: JSON.parse(row.audience ?? "[]"), createdAt: row.created_at };
  return planWebhookEvents(h.ctx, ev as never).map((p) => ({ name: p.name, data: p.data, to: p.audience.kind === "users" ? [...p.audience.userIds].sort() : p.audience.kind }));
}

/** Moves the clock and mints fresh access tokens for `people` (tokens last 24 hours). */
export async function advance(h: Harness, ms: number, ...people: TestUser[]): Promise<void> {
  h.clock.advance(ms);
  for (const u of people) u.token = (await issueToken(h.ctx, u.apiKey)).access_token;
}

export const claimRow = (h: Harness, id: string) => h.ctx.db.$client.query("select * from operator_claims where id = ?").get(id) as Record<string, any> | null;
