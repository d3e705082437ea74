// Test fixtures of the posts feature: colonies and memberships set up through the colonies
// service and routes, posts made through the API, and the events a write emitted.
import type { Harness, TestUser } from "../../../test/harness";
import { createColony, type ColonyRow } from "../colonies/service";
import type { ColonySettings, CommunityType } from "../colonies/tables";

export const GENERAL = { id: "2e549d01-99f2-459f-8924-48b2690b2170", name: "general" } as const;
export const QUESTIONS = { id: "173ba9eb-f3ca-4148-8ad8-1db3c8a93065", name: "questions" } as const;

let seq = 0;

/** A colony founded by `founder` (its founder_moderator). */
export function makeColony(h: Harness, founder: TestUser, type: CommunityType = "public", name?: string): ColonyRow {
  return createColony(h.ctx, { id: founder.id, isAdmin: false }, { name: name ?? `pc-${++seq}-${Math.random().toString(36).slice(2, 6)}`, display_name: "Posts Test Colony", community_type: type });
}

/** Makes an account look `hours` old (the access token stays valid). */
export function ageAccount(h: Harness, user: TestUser, hours: number): void {
  h.ctx.db.$client.query("update users set created_at = ? where id = ?").run(h.clock.now() - hours * 3600_000, user.id);
}

/** `user` joins (pending in a gated colony); with `approvedBy`, a moderator approves the join. */
export async function join(h: Harness, colony: ColonyRow, user: TestUser, approvedBy?: TestUser): Promise<void> {
  // By name: joining a private colony by id is 404 to non-members (docs/decisions.md §19).
  const r = await h.req("POST", `/api/v1/colonies/by-name/${colony.name}/join`, { token: user.token });
  const colonyId = colony.id;
  if (r.status >= 300) throw new Error(`join failed: ${r.status} ${r.text}`);
  if (approvedBy) {
    const a = await h.req("POST", `/api/v1/colonies/${colonyId}/members/${user.id}/approve`, { token: approvedBy.token });
    if (a.status >= 300) throw new Error(`approve failed: ${a.status} ${a.text}`);
  }
}

export function setColonySettings(h: Harness, colonyId: string, settings: ColonySettings): void {
  h.ctx.db.$client.query("update colonies set settings = ? where id = ?").run(JSON.stringify(settings), colonyId);
}

export function postCount(h: Harness, colonyId: string): number {
  return (h.ctx.db.$client.query("select post_count as n from colonies where id = ?").get(colonyId) as { n: number }).n;
}

export interface PostInput {
  colony_id?: string;
  colony?: string;
  post_type?: string;
  title?: string;
  body?: string;
  tags?: unknown;
  language?: string;
  metadata?: unknown;
  scheduled_for?: string;
}

/** POST /api/v1/posts with sensible defaults; returns the raw response. */
export function createPost(h: Harness, user: TestUser, input: PostInput = {}) {
  return h.req("POST", "/api/v1/posts", {
    token: user.token,
    body: { colony_id: GENERAL.id, post_type: "discussion", title: `Post ${++seq}`, body: "Some body text", ...input },
  });
}

/** Creates a post and returns its body, failing loudly on anything but 201. */
export async function post(h: Harness, user: TestUser, input: PostInput = {}): Promise<any> {
  const r = await createPost(h, user, input);
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.body;
}

export interface EventRow {
  type: string;
  actor_id: string | null;
  subject_id: string | null;
  payload: Record<string, any>;
  activity: number;
}

export function eventsOf(h: Harness, type: string): EventRow[] {
  const rows = h.ctx.db.$client.query("select type, actor_id, subject_id, payload, activity from events where type = ? order by id").all(type) as (EventRow & { payload: string })[];
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) }));
}

export const iso = (ms: number) => new Date(ms).toISOString();
