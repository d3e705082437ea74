// Shared helpers of the group tests (not a test file itself).
import { expect } from "bun:test";
import type { Harness, Res, TestUser } from "../../../../test/harness";

export const G = "/api/v1/messages/groups";

/** Creates a group through the API; `accept` lists the invitees who then accept. Returns its id. */
export async function makeGroup(h: Harness, creator: TestUser, invitees: TestUser[], accept: TestUser[] = invitees, title = "Team"): Promise<string> {
  const url = `${G}?title=${encodeURIComponent(title)}&${invitees.map((u) => `members=${u.username}`).join("&")}`;
  const r = await h.req("POST", url, { token: creator.token });
  expect(r.status).toBe(201);
  for (const u of accept) {
    const a = await h.req("POST", `${G}/${r.body.id}/invite/respond`, { token: u.token, body: { accept: true } });
    expect(a.status).toBe(200);
  }
  return r.body.id as string;
}

export async function groupSend(h: Harness, from: TestUser, convId: string, body: unknown): Promise<Res> {
  return h.req("POST", `${G}/${convId}/send`, { token: from.token, body: typeof body === "string" ? { body } : body });
}

/** Sends and returns the message (fails the test unless 201). */
export async function groupSent(h: Harness, from: TestUser, convId: string, text: string): Promise<any> {
  const r = await groupSend(h, from, convId, text);
  expect(r.status).toBe(201);
  return r.body;
}

export const memberOf = (h: Harness, convId: string, u: TestUser) =>
  h.ctx.db.$client.query("select * from conversation_members where conversation_id = ? and user_id = ?").get(convId, u.id) as any;

export const convRow = (h: Harness, convId: string) => h.ctx.db.$client.query("select * from conversations where id = ?").get(convId) as any;
