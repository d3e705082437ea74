// Test fixtures of colony moderation (roles, bans, strikes, appeals): a colony with its crew
// (founder, moderator, member, stranger, site admin), the requests the tests repeat, the audit
// rows and the notifications a user can read.
import { expect } from "bun:test";
import type { Harness, TestUser } from "../../../test/harness";
import { issueToken } from "../auth/service";
import { makeColony, setRole } from "./fixtures";
import { setApproval, type ColonyRow } from "./service";
import type { CommunityType } from "./tables";

export interface Crew {
  colony: ColonyRow;
  founder: TestUser;
  mod: TestUser;
  member: TestUser;
  stranger: TestUser;
  admin: TestUser;
}

let seq = 0;

/** A colony of `type` whose founder, one moderator and one member are approved; a stranger and a site admin outside it. */
export async function crew(h: Harness, type: CommunityType = "public"): Promise<Crew> {
  const n = ++seq;
  const founder = await h.user({ username: `founder-${n}` });
  const mod = await h.user({ username: `mod-${n}` });
  const member = await h.user({ username: `member-${n}` });
  const stranger = await h.user({ username: `stranger-${n}` });
  const admin = await h.user({ username: `siteadmin-${n}`, admin: true });
  const colony = makeColony(h, founder, { type });
  for (const u of [mod, member]) await joinAs(h, colony, u, founder);
  setRole(h, colony.id, mod.id, "moderator");
  return { colony, founder, mod, member, stranger, admin };
}

/** New access tokens for users after the clock moved past their tokens' lifetime (mutates them). */
export async function refreshTokens(h: Harness, ...us: TestUser[]): Promise<void> {
  for (const u of us) u.token = (await issueToken(h.ctx, u.apiKey)).access_token;
}

/** Moves the clock and refreshes the crew's tokens. */
export async function advance(h: Harness, ms: number, c: Crew): Promise<void> {
  h.clock.advance(ms);
  await refreshTokens(h, c.founder, c.mod, c.member, c.stranger, c.admin);
}

/** Joins `u` by name and, in a gated colony, approves them as `approver`. */
export async function joinAs(h: Harness, colony: ColonyRow, u: TestUser, approver: TestUser): Promise<void> {
  h.clock.advance(1000);
  const r = await h.req("POST", `/api/v1/colonies/by-name/${colony.name}/join`, { token: u.token });
  if (r.status !== 204) throw new Error(`join failed ${r.status} ${r.text}`);
  if (colony.communityType !== "public") setApproval(h.ctx, { id: approver.id, isAdmin: false }, colony.id, u.id, true);
}

export interface AuditRow {
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_user_id: string | null;
  reason: string | null;
  meta: Record<string, unknown> | null;
  opened_at: number | null;
}

/** The colony's audit rows, oldest first (of one action when given). */
export function auditRows(h: Harness, colonyId: string, action?: string): AuditRow[] {
  const rows = h.ctx.db.$client
    .query("select actor_id, action, target_type, target_id, target_user_id, reason, meta, opened_at from colony_mod_log where colony_id = ? order by created_at, id")
    .all(colonyId) as (AuditRow & { meta: string | null })[];
  return rows.map((r) => ({ ...r, meta: r.meta ? JSON.parse(r.meta) : null })).filter((r) => !action || r.action === action);
}

/** The user's notifications, newest first, as the API shows them. */
export async function notificationsOf(h: Harness, u: TestUser): Promise<{ kind: string; message: string; meta: Record<string, unknown>; actor: { id: string } | null }[]> {
  const r = await h.req("GET", "/api/v1/notifications", { token: u.token });
  expect(r.status).toBe(200);
  return r.body;
}

export const kindsOf = async (h: Harness, u: TestUser) => (await notificationsOf(h, u)).map((n) => n.kind);

/** The member rows of a colony as role by user id. */
export function rolesOf(h: Harness, colonyId: string): Record<string, string> {
  const rows = h.ctx.db.$client.query("select user_id, role from colony_members where colony_id = ?").all(colonyId) as { user_id: string; role: string }[];
  return Object.fromEntries(rows.map((r) => [r.user_id, r.role]));
}

export function banRow(h: Harness, colonyId: string, userId: string): { expires_at: number | null; reason: string | null } | null {
  return (h.ctx.db.$client.query("select expires_at, reason from colony_bans where colony_id = ? and user_id = ?").get(colonyId, userId) as { expires_at: number | null; reason: string | null } | null) ?? null;
}

/** Request helpers for one harness. */
export function modApi(h: Harness) {
  const base = (c: ColonyRow | string) => `/api/v1/colonies/${typeof c === "string" ? c : c.id}`;
  return {
    promote: (c: ColonyRow | string, target: string, token: string | null) => h.req("POST", `${base(c)}/members/${target}/promote`, { token }),
    demote: (c: ColonyRow | string, target: string, token: string | null) => h.req("POST", `${base(c)}/members/${target}/demote`, { token }),
    remove: (c: ColonyRow | string, target: string, token: string | null) => h.req("DELETE", `${base(c)}/members/${target}`, { token }),
    ban: (c: ColonyRow | string, target: string, token: string | null, body?: unknown) => h.req("POST", `${base(c)}/bans/${target}`, { token, body }),
    unban: (c: ColonyRow | string, target: string, token: string | null) => h.req("DELETE", `${base(c)}/bans/${target}`, { token }),
    bans: (c: ColonyRow | string, token: string | null, query: Record<string, string | number> = {}) => h.req("GET", `${base(c)}/bans`, { token, query }),
    strike: (c: ColonyRow | string, target: string, token: string | null, body: unknown = { reason: "Off-topic posting" }) =>
      h.req("POST", `${base(c)}/members/${target}/strikes`, { token, body }),
    strikes: (c: ColonyRow | string, target: string, token: string | null) => h.req("GET", `${base(c)}/members/${target}/strikes`, { token }),
    myAppeal: (c: ColonyRow | string, token: string | null) => h.req("GET", `${base(c)}/appeal`, { token }),
    appeal: (c: ColonyRow | string, token: string | null, body: unknown = { body: "Please let me back in" }) => h.req("POST", `${base(c)}/appeal`, { token, body }),
    appeals: (c: ColonyRow | string, token: string | null) => h.req("GET", `${base(c)}/appeals`, { token }),
    resolve: (c: ColonyRow | string, appealId: string, token: string | null, body: unknown) => h.req("POST", `${base(c)}/appeals/${appealId}/resolve`, { token, body }),
    members: (c: ColonyRow | string) => h.req("GET", `${base(c)}/members`, { query: { limit: 500 } }),
    join: (c: ColonyRow | string, token: string) => h.req("POST", `${base(c)}/join`, { token }),
    patch: (c: ColonyRow | string, token: string, body: unknown) => h.req("PATCH", base(c), { token, body }),
  };
}
