// Shared helpers of the messaging tests (not a test file itself).
import { expect } from "bun:test";
import type { Harness, Res, TestUser } from "../../../test/harness";
import type { RealtimeEvent } from "../../core/realtime";

export function expectError(res: Res, status: number, code: string) {
  expect({ status: res.status, code: res.body?.detail?.code }).toEqual({ status, code });
}

export function expect422(res: Res) {
  expect(res.status).toBe(422);
  expect(Array.isArray(res.body.detail)).toBe(true);
}

/** Users with these usernames, created one after another (ids in this order). */
export async function usersNamed(h: Harness, ...names: string[]): Promise<TestUser[]> {
  const out: TestUser[] = [];
  for (const username of names) out.push(await h.user({ username }));
  return out;
}

/** A user's notification rows, oldest first. */
export const notificationsOf = (h: Harness, u: TestUser) => h.ctx.db.$client.query("select * from notifications where user_id = ? order by id").all(u.id) as any[];

export async function send(h: Harness, from: TestUser, to: TestUser | string, body: unknown = { body: "hi" }): Promise<Res> {
  return h.req("POST", `/api/v1/messages/send/${typeof to === "string" ? to : to.username}`, { token: from.token, body });
}

/** Sends and returns the new message (fails the test unless 201). */
export async function sent(h: Harness, from: TestUser, to: TestUser, text = "hi"): Promise<any> {
  const r = await send(h, from, to, { body: text });
  expect(r.status).toBe(201);
  return r.body;
}

/** Collects realtime events published to users. */
export function listen(h: Harness, ...users: TestUser[]) {
  const got: (RealtimeEvent & { to: string })[] = [];
  const offs = users.map((u) => h.ctx.realtime.subscribe(u.id, (ev) => got.push({ ...ev, to: u.id })));
  return { events: got, of: (type: string) => got.filter((e) => e.type === type), stop: () => offs.forEach((f) => f()) };
}

export const count = (h: Harness, table: string) => (h.ctx.db.$client.query(`select count(*) as n from ${table}`).get() as { n: number }).n;
export const eventsOf = (h: Harness, type: string) =>
  (h.ctx.db.$client.query("select * from events where type = ? order by id").all(type) as any[]).map((e) => ({ ...e, payload: JSON.parse(e.payload) }));

/** A fresh access token after the clock moved past the old one's lifetime. */
export async function refresh(h: Harness, u: TestUser): Promise<TestUser> {
  const { issueToken } = await import("../auth/service");
  const { access_token } = await issueToken(h.ctx, u.apiKey);
  u.token = access_token;
  return u;
}
