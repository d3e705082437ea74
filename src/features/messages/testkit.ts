// Shared helpers of the messaging tests (not a test file itself). The tests of a file share one
// harness: `beginTest` starts each test, and `count`, `rowsAdded` and `eventsOf` then see only what
// that test caused, as they would on a database of its own.
import { expect } from "bun:test";
import { expectError } from "../../../test/expect";
import type { Harness, Res, TestUser } from "../../../test/harness";
import type { RealtimeEvent } from "../../core/realtime";

/** A validation answer: 422 without an error code, its detail the list of failures. */
export function expect422(res: Res) {
  expectError(res, 422, null);
  expect(Array.isArray(res.body.detail)).toBe(true);
}

/** Where a test began on a shared harness: each table's row count and newest rowid (0 for a table without rowids). */
type Start = Map<string, { rows: number; last: number }>;
const starts = new WeakMap<Harness, Start>();

const tablesOf = (h: Harness) =>
  h.ctx.db.$client.query("select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%' and sql not like 'create virtual table%' collate nocase").all() as { name: string; sql: string }[];
const rowsIn = (h: Harness, table: string) => (h.ctx.db.$client.query(`select count(*) as n from "${table}"`).get() as { n: number }).n;
const lastRowid = (h: Harness, table: string) => (h.ctx.db.$client.query(`select coalesce(max(rowid), 0) as n from "${table}"`).get() as { n: number }).n;

/**
 * Starts a test on a harness the file's tests share: delivers the events earlier tests left
 * undelivered (so none is delivered in the middle of this one), then marks the database, so that
 * `count`, `rowsAdded` and `eventsOf` report only what this test causes.
 */
export async function beginTest(h: Harness): Promise<void> {
  await h.ctx.events.drain();
  starts.set(h, new Map(tablesOf(h).map(({ name, sql }) => [name, { rows: rowsIn(h, name), last: /without\s+rowid/i.test(sql) ? 0 : lastRowid(h, name) }])));
}

/** `n` new users, created one after another (ids in this order), each with a name of its own. */
export async function newUsers(h: Harness, n: number): Promise<TestUser[]> {
  const out: TestUser[] = [];
  for (let i = 0; i < n; i++) out.push(await h.user());
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

/** How many rows `table` gained since the test began (beginTest); on a harness never begun, all of them. */
export const count = (h: Harness, table: string) => rowsIn(h, table) - (starts.get(h)?.get(table)?.rows ?? 0);

/** The rows inserted into `table` since the test began (beginTest), `columns` of each, in insertion order. */
export const rowsAdded = (h: Harness, table: string, columns = "*") =>
  h.ctx.db.$client.query(`select ${columns} from "${table}" where rowid > ? order by rowid`).all(starts.get(h)?.get(table)?.last ?? 0) as any[];

/** The events of `type` emitted since the test began (beginTest), oldest first, payloads parsed. */
export const eventsOf = (h: Harness, type: string) =>
  (h.ctx.db.$client.query("select * from events where type = ? and rowid > ? order by id").all(type, starts.get(h)?.get("events")?.last ?? 0) as any[]).map((e) => ({
    ...e,
    payload: JSON.parse(e.payload),
  }));
