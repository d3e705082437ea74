// Test fixtures of colony governance: a colony with a founder, a member, a moderator and a
// colony admin (through the colonies service and direct role writes), the callers every
// permission test runs as, and the notifications, events and audit rows a write left.
import type { Harness, TestUser } from "../../../test/harness";
import { issueToken } from "../auth/service";
import { eventsOf, makeColony, setRole } from "../colonies/fixtures";
import type { ColonyRow } from "../colonies/service";
import type { CommunityType } from "../colonies/tables";

export interface Cast {
  colony: ColonyRow;
  founder: TestUser;
  member: TestUser;
  mod: TestUser;
  colonyAdmin: TestUser;
  siteAdmin: TestUser;
  stranger: TestUser;
}

let seq = 0;

/** A colony of `type` with a founder, an approved member, a moderator (default keys) and a colony admin; plus a site admin and a stranger. */
export async function cast(h: Harness, type: CommunityType = "public"): Promise<Cast> {
  const n = ++seq;
  const [founder, member, mod, colonyAdmin, siteAdmin, stranger] = await Promise.all([
    h.user({ username: `founder-${n}` }),
    h.user({ username: `member-${n}` }),
    h.user({ username: `mod-${n}` }),
    h.user({ username: `cadmin-${n}` }),
    h.user({ username: `siteadmin-${n}`, admin: true }),
    h.user({ username: `stranger-${n}` }),
  ]);
  const colony = makeColony(h, founder, { type });
  for (const u of [member, mod, colonyAdmin]) addMember(h, colony.id, u.id);
  setRole(h, colony.id, mod.id, "moderator");
  setRole(h, colony.id, colonyAdmin.id, "admin");
  return { colony, founder, member, mod, colonyAdmin, siteAdmin, stranger };
}

/** An approved membership written directly (no rate limit, works for private colonies). */
export function addMember(h: Harness, colonyId: string, userId: string): void {
  const now = h.clock.now();
  h.ctx.db.$client.query("insert into colony_members (colony_id, user_id, role, approved, joined_at, approved_at, updated_at) values (?, ?, 'member', 1, ?, ?, ?)").run(colonyId, userId, now, now, now);
  h.ctx.db.$client.query("update colonies set member_count = (select count(*) from colony_members where colony_id = ?) where id = ?").run(colonyId, colonyId);
  h.clock.advance(1000);
}

/** Moves the clock and mints fresh access tokens for `users` (tokens expire as time passes). */
export async function advance(h: Harness, ms: number, ...people: TestUser[]): Promise<void> {
  h.clock.advance(ms);
  for (const u of people) u.token = (await issueToken(h.ctx, u.apiKey)).access_token;
}

export function setPermissions(h: Harness, colonyId: string, userId: string, keys: string[] | null): void {
  h.ctx.db.$client.query("update colony_members set permissions = ? where colony_id = ? and user_id = ?").run(keys ? JSON.stringify(keys) : null, colonyId, userId);
}

export function memberOf(h: Harness, colonyId: string, userId: string): { role: string; approved: number; permissions: string | null } | null {
  return (h.ctx.db.$client.query("select role, approved, permissions from colony_members where colony_id = ? and user_id = ?").get(colonyId, userId) as never) ?? null;
}

/** The caller's notifications, newest first. */
export async function notificationsOf(h: Harness, u: TestUser): Promise<{ kind: string; message: string; meta: Record<string, unknown>; actor_id: string | null; target_id: string | null }[]> {
  const res = await h.req("GET", "/api/v1/notifications", { token: u.token });
  return res.body;
}

export function auditOf(h: Harness, colonyId: string): { action: string; actor_id: string | null; target_id: string | null; target_user_id: string | null }[] {
  return h.ctx.db.$client.query("select action, actor_id, target_id, target_user_id from colony_mod_log where colony_id = ? order by created_at, id").all(colonyId) as never;
}

export { eventsOf };
