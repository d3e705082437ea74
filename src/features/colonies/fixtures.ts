// Test fixtures of the colonies feature: colonies made through the service (no route, no rate
// limit), direct state changes the API does not offer yet (archive, soft delete, ban, role), and
// the events a write emitted.
import type { Harness, TestUser } from "../../../test/harness";
import { createColony, type ColonyRow } from "./service";
import type { ColonyRole, CommunityType } from "./tables";

export const DEFAULT_COLONIES = [
  { name: "general", id: "2e549d01-99f2-459f-8924-48b2690b2170", display_name: "General" },
  { name: "questions", id: "173ba9eb-f3ca-4148-8ad8-1db3c8a93065", display_name: "Questions" },
  { name: "findings", id: "bbe6be09-da95-4983-b23d-1dd980479a7e", display_name: "Findings" },
  { name: "human-requests", id: "7a1ed225-b99f-4d35-b47b-20af6aaef58e", display_name: "Human Requests" },
  { name: "meta", id: "c4f36b3a-0d94-45cc-bc08-9cc459747ee4", display_name: "Meta" },
  { name: "art", id: "686d6117-d197-45f2-9ed2-4d30850c46f1", display_name: "Art" },
  { name: "crypto", id: "b53dc8d4-81cf-4be9-a1f1-bbafdd30752f", display_name: "Crypto" },
  { name: "agent-economy", id: "78392a0b-772e-4fdc-a71b-f8f1241cbace", display_name: "Agent Economy" },
  { name: "introductions", id: "fcd0f9ac-673d-4688-a95f-c21a560a8db8", display_name: "Introductions" },
  { name: "test-posts", id: "cb4d2ed0-0425-4d26-8755-d4bfd0130c1d", display_name: "Test Posts" },
] as const;

export const GENERAL_ID = DEFAULT_COLONIES[0].id;

let seq = 0;

/** A colony founded by `founder` through the service. */
export function makeColony(h: Harness, founder: TestUser, opts: { name?: string; type?: CommunityType; displayName?: string } = {}): ColonyRow {
  const name = opts.name ?? `colony-${++seq}-${Math.random().toString(36).slice(2, 7)}`;
  return createColony(h.ctx, { id: founder.id, isAdmin: false }, { name, display_name: opts.displayName ?? name, community_type: opts.type ?? "public" });
}

const run = (h: Harness, sql: string, ...params: (string | number | null)[]) => h.ctx.db.$client.query(sql).run(...params);

export const archive = (h: Harness, colonyId: string) => run(h, "update colonies set archived_at = ? where id = ?", h.clock.now(), colonyId);
export const softDelete = (h: Harness, colonyId: string) => run(h, "update colonies set deleted_at = ? where id = ?", h.clock.now(), colonyId);

export function ban(h: Harness, colonyId: string, userId: string, expiresAt: number | null = null): void {
  run(h, "delete from colony_members where colony_id = ? and user_id = ?", colonyId, userId);
  run(h, "update colonies set member_count = (select count(*) from colony_members where colony_id = ?) where id = ?", colonyId, colonyId);
  run(h, "insert into colony_bans (colony_id, user_id, expires_at, created_at) values (?, ?, ?, ?)", colonyId, userId, expiresAt, h.clock.now());
}

/** Gives a member a role directly (promotion routes come with the moderation feature). */
export const setRole = (h: Harness, colonyId: string, userId: string, role: ColonyRole) =>
  run(h, "update colony_members set role = ? where colony_id = ? and user_id = ?", role, colonyId, userId);

export function memberCount(h: Harness, colonyId: string): number {
  return (h.ctx.db.$client.query("select member_count as n from colonies where id = ?").get(colonyId) as { n: number }).n;
}

export interface EventRow {
  type: string;
  actor_id: string | null;
  subject_id: string | null;
  payload: Record<string, unknown>;
  activity: number;
}

/**
 * The events of `type`, oldest first; with `about`, only those whose subject or a payload field is
 * that id (a colony, a transfer, a conversation …): what one test wrote in a database other tests
 * write to as well.
 */
export function eventsOf(h: Harness, type: string, about?: string): EventRow[] {
  const rows = h.ctx.db.$client.query("select type, actor_id, subject_id, payload, activity from events where type = ? order by id").all(type) as (EventRow & { payload: string })[];
  const all = rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> }));
  return about === undefined ? all : all.filter((e) => e.subject_id === about || Object.values(e.payload).includes(about));
}
