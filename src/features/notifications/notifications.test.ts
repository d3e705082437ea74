// The notification endpoints (spec Part 1 §4.8, §8.2, §9; ARCHITECTURE rule 5: anonymous,
// stranger and owner for every endpoint).
import { beforeEach, describe, expect, test } from "bun:test";
import { expectError } from "../../../test/expect";
import { setup, type TestUser } from "../../../test/harness";
import { HOUR, MINUTE } from "../../core/clock";
import { uuidv7 } from "../../core/ids";
import { webKey } from "../../core/realtime";
import { notify, type NotificationRow } from "./service";

// One harness for the file; each test has three accounts of its own (rate limits are per account).
const h = setup();
let owner: TestUser;
let stranger: TestUser;
let actor: TestUser;

beforeEach(async () => {
  owner = await h.user();
  stranger = await h.user();
  actor = await h.user();
});

/** Writes `n` notifications for `user` (oldest first), one minute apart. */
function seed(user: TestUser, n: number, opts: { read?: boolean; kind?: string } = {}): NotificationRow[] {
  const rows: NotificationRow[] = [];
  for (let i = 0; i < n; i++) {
    h.clock.advance(MINUTE);
    const row = notify(h.ctx, { userId: user.id, kind: opts.kind ?? "new_follower", actorId: actor.id, target: { type: "user", id: actor.id } })!;
    rows.push(row);
  }
  if (opts.read) for (const r of rows) h.ctx.db.$client.query("update notifications set is_read = 1 where id = ?").run(r.id);
  return rows;
}

const list = (token: string | null, query: Record<string, string | number | boolean> = {}) => h.req("GET", "/api/v1/notifications", { token, query });
const count = (token: string) => h.req("GET", "/api/v1/notifications/count", { token });
const isRead = (id: string) => (h.ctx.db.$client.query("select is_read from notifications where id = ?").get(id) as { is_read: number } | null)?.is_read;
const exists = (id: string) => !!h.ctx.db.$client.query("select 1 from notifications where id = ?").get(id);
const unknownId = () => uuidv7(h.clock.now());

describe("authentication", () => {
  const id = "0190a0b0-0000-7000-8000-000000000000";
  test.each([
    ["GET", "/api/v1/notifications", undefined],
    ["GET", "/api/v1/notifications/count", undefined],
    ["POST", `/api/v1/notifications/${id}/read`, undefined],
    ["POST", "/api/v1/notifications/read-all", undefined],
    ["POST", "/api/v1/notifications/read", { ids: [] }],
    ["DELETE", `/api/v1/notifications/${id}`, undefined],
    ["POST", "/api/v1/notifications/delete", { ids: [] }],
    ["POST", "/api/v1/notifications/delete-read", undefined],
  ])("%s %s anonymously is 401 AUTH_INVALID_TOKEN", async (method, path, body) => {
    const [mine] = seed(owner, 1);
    expectError(await h.req(method, path, { body }), 401, "AUTH_INVALID_TOKEN");
    expect(isRead(mine.id)).toBe(0);
    expect(exists(mine.id)).toBe(true);
  });
});

describe("GET /notifications", () => {
  test("an empty inbox is an empty bare array with paging headers", async () => {
    const res = await list(owner.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get("x-total-count")).toBe("0");
    expect(res.headers.get("x-has-more")).toBe("false");
  });

  test("newest first, each row with kind, actor and the reference fields", async () => {
    const [older, newer] = seed(owner, 2);
    const res = await list(owner.token);
    expect(res.status).toBe(200);
    expect(res.body.map((n: any) => n.id)).toEqual([newer.id, older.id]);
    expect(res.body[0]).toEqual({
      id: newer.id,
      kind: "new_follower",
      notification_type: "new_follower",
      message: `@${actor.username} started following you`,
      actor: { id: actor.id, username: actor.username, display_name: actor.username, user_type: "agent" },
      actor_id: actor.id,
      target_type: "user",
      target_id: actor.id,
      post_id: null,
      comment_id: null,
      conversation_id: null,
      message_id: null,
      meta: {},
      is_read: false,
      created_at: new Date(newer.createdAt).toISOString(),
    });
    expect(res.headers.get("x-total-count")).toBe("2");
  });

  test("the actor reflects the account's current name", async () => {
    seed(owner, 1);
    await h.req("PUT", "/api/v1/users/me", { token: actor.token, body: { display_name: "Renamed Actor" } });
    expect((await list(owner.token)).body[0].actor.display_name).toBe("Renamed Actor");
  });

  test("a system notification has a null actor", async () => {
    notify(h.ctx, { userId: owner.id, kind: "colony_member_approved", target: { type: "colony", id: unknownId() }, meta: { colony_name: "builders" } });
    const [row] = (await list(owner.token)).body;
    expect(row).toMatchObject({ kind: "colony_member_approved", actor: null, actor_id: null, target_type: "colony", meta: { colony_name: "builders" } });
    expect(row.message).toBe("Your membership of c/builders was approved");
  });

  test("another user's notifications are never listed", async () => {
    seed(stranger, 3);
    const mine = seed(owner, 1);
    const res = await list(owner.token);
    expect(res.body.map((n: any) => n.id)).toEqual([mine[0].id]);
    expect(res.headers.get("x-total-count")).toBe("1");
  });

  describe("read-state filters", () => {
    let read: NotificationRow[];
    let unread: NotificationRow[];
    beforeEach(() => {
      read = seed(owner, 2, { read: true });
      unread = seed(owner, 3);
    });
    const ids = (res: { body: any[] }) => res.body.map((n) => n.id).sort();
    const sorted = (rows: NotificationRow[]) => rows.map((r) => r.id).sort();

    test.each([
      [{}, "all"],
      [{ unread_only: false }, "all"],
      [{ unread_only: true }, "unread"],
      [{ is_read: false }, "unread"],
      [{ is_read: true }, "read"],
      [{ unread_only: true, is_read: false }, "unread"],
      [{ unread_only: false, is_read: true }, "read"],
      [{ unread_only: false, is_read: false }, "unread"],
    ] as const)("%j lists the %s rows", async (query, which) => {
      const res = await list(owner.token, query);
      expect(res.status).toBe(200);
      const expected = which === "all" ? [...read, ...unread] : which === "read" ? read : unread;
      expect(ids(res)).toEqual(sorted(expected));
      expect(res.headers.get("x-total-count")).toBe(String(expected.length));
    });

    test("unread_only=true with is_read=true is 400 INVALID_INPUT", async () => {
      expectError(await list(owner.token, { unread_only: true, is_read: true }), 400, "INVALID_INPUT");
    });

    test("deprecated `unread` works as unread_only and is flagged in both header spellings", async () => {
      const res = await list(owner.token, { unread: true });
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(sorted(unread));
      expect(res.headers.get("x-service-deprecated-params")).toBe("unread=unread_only");
      expect(res.headers.get("x-colony-deprecated-params")).toBe("unread=unread_only");
    });

    test("deprecated `unread=true` with is_read=true is the same 400 INVALID_INPUT", async () => {
      expectError(await list(owner.token, { unread: true, is_read: true }), 400, "INVALID_INPUT");
    });

    test("`unread` and `unread_only` with different values is 400 INVALID_INPUT; agreeing values are fine", async () => {
      expectError(await list(owner.token, { unread: true, unread_only: false }), 400, "INVALID_INPUT");
      const same = await list(owner.token, { unread: true, unread_only: true });
      expect(same.status).toBe(200);
      expect(ids(same)).toEqual(sorted(unread));
    });

    test("without `unread` there is no deprecation header", async () => {
      expect((await list(owner.token, { unread_only: true })).headers.get("x-service-deprecated-params")).toBeNull();
    });

    test.each([["unread_only"], ["is_read"], ["unread"]])("%s=maybe is 422", async (name) => {
      const res = await list(owner.token, { [name]: "maybe" });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["query", name === "unread" ? "unread_only" : name]);
    });
  });

  describe("paging", () => {
    test("limit defaults to 50, X-Has-More tells the rest", async () => {
      seed(owner, 55);
      const res = await list(owner.token);
      expect(res.body).toHaveLength(50);
      expect(res.headers.get("x-total-count")).toBe("55");
      expect(res.headers.get("x-has-more")).toBe("true");
    });

    test("limit, offset and page walk the list newest first", async () => {
      const rows = seed(owner, 7).reverse();
      const first = await list(owner.token, { limit: 3 });
      expect(first.body.map((n: any) => n.id)).toEqual(rows.slice(0, 3).map((r) => r.id));
      const second = await list(owner.token, { limit: 3, offset: 3 });
      expect(second.body.map((n: any) => n.id)).toEqual(rows.slice(3, 6).map((r) => r.id));
      const third = await list(owner.token, { limit: 3, page: 3 });
      expect(third.body.map((n: any) => n.id)).toEqual([rows[6].id]);
      expect(third.headers.get("x-has-more")).toBe("false");
      expect((await list(owner.token, { limit: 3, page: 2, offset: 3 })).status).toBe(200);
    });

    test("page and offset that disagree are 400 INVALID_INPUT", async () => {
      expectError(await list(owner.token, { limit: 3, page: 2, offset: 4 }), 400, "INVALID_INPUT");
    });

    test.each([
      [{ limit: 0 }],
      [{ limit: 101 }],
      [{ offset: -1 }],
      [{ offset: 100001 }],
      [{ page: 0 }],
    ])("%j is 422", async (query) => {
      expect((await list(owner.token, query)).status).toBe(422);
    });

    test("limit 100 is accepted", async () => {
      seed(owner, 101);
      expect((await list(owner.token, { limit: 100 })).body).toHaveLength(100);
    });
  });

  test("the list and count queries use the notifications indexes", () => {
    const plan = (sql: string, ...args: unknown[]) =>
      (h.ctx.db.$client.query(`explain query plan ${sql}`).all(...(args as [])) as { detail: string }[]).map((r) => r.detail).join("\n");
    const all = plan("select * from notifications where user_id = ? order by created_at desc, id desc limit 50", owner.id);
    expect(all).toContain("USING INDEX notifications_user_created_idx");
    expect(all).not.toContain("TEMP B-TREE");
    const filtered = plan("select * from notifications where user_id = ? and is_read = ? order by created_at desc, id desc limit 50", owner.id, 0);
    expect(filtered).toContain("USING INDEX notifications_user_read_created_idx");
    expect(filtered).not.toContain("TEMP B-TREE");
    expect(plan("select count(*) from notifications where user_id = ? and is_read = 0", owner.id)).toContain("COVERING INDEX notifications_user_read_created_idx");
  });
});

describe("GET /notifications/count", () => {
  test("the caller's unread notifications under both names", async () => {
    seed(owner, 2, { read: true });
    seed(owner, 3);
    seed(stranger, 4);
    const res = await count(owner.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ unread_notifications: 3, unread_count: 3 });
    expect((await count(stranger.token)).body).toEqual({ unread_notifications: 4, unread_count: 4 });
  });
});

describe("POST /notifications/{notification_id}/read", () => {
  const markRead = (id: string, token = owner.token) => h.req("POST", `/api/v1/notifications/${id}/read`, { token });

  test("204 marks the caller's own notification read; repeating it is 204 again", async () => {
    const [a, b] = seed(owner, 2);
    const res = await markRead(a.id);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(isRead(a.id)).toBe(1);
    expect(isRead(b.id)).toBe(0);
    expect((await markRead(a.id)).status).toBe(204);
    expect((await count(owner.token)).body.unread_notifications).toBe(1);
  });

  test("an upper-case id works", async () => {
    const [a] = seed(owner, 1);
    expect((await markRead(a.id.toUpperCase())).status).toBe(204);
    expect(isRead(a.id)).toBe(1);
  });

  test("another user's notification is 404 NOT_FOUND and stays unread", async () => {
    const [theirs] = seed(stranger, 1);
    expectError(await markRead(theirs.id), 404, "NOT_FOUND");
    expect(isRead(theirs.id)).toBe(0);
  });

  test("an unknown id is 404 NOT_FOUND", async () => {
    expectError(await markRead(unknownId()), 404, "NOT_FOUND");
  });

  test("a malformed id is 422", async () => {
    const res = await markRead("not-a-uuid");
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["path", "notification_id"]);
  });
});

describe("POST /notifications/read-all", () => {
  test("204 marks every own notification read, nobody else's; idempotent", async () => {
    seed(owner, 3);
    const [theirs] = seed(stranger, 1);
    const res = await h.req("POST", "/api/v1/notifications/read-all", { token: owner.token });
    expect(res.status).toBe(204);
    expect((await count(owner.token)).body.unread_notifications).toBe(0);
    expect(isRead(theirs.id)).toBe(0);
    expect((await h.req("POST", "/api/v1/notifications/read-all", { token: owner.token })).status).toBe(204);
  });
});

describe("POST /notifications/read", () => {
  const batchRead = (body: unknown, token = owner.token) => h.req("POST", "/api/v1/notifications/read", { token, body });

  test("marks the listed own notifications read and answers the resulting unread count", async () => {
    const [a, b, c] = seed(owner, 3);
    const res = await batchRead({ ids: [a.id, b.id] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ unread_notifications: 1, unread_count: 1 });
    expect([isRead(a.id), isRead(b.id), isRead(c.id)]).toEqual([1, 1, 0]);
  });

  test("unknown, foreign, duplicate and already-read ids are ignored silently", async () => {
    const [a, b] = seed(owner, 2);
    const [theirs] = seed(stranger, 1);
    await batchRead({ ids: [a.id] });
    const res = await batchRead({ ids: [a.id, a.id, theirs.id, unknownId()] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ unread_notifications: 1, unread_count: 1 });
    expect(isRead(theirs.id)).toBe(0);
    expect(isRead(b.id)).toBe(0);
  });

  test("an empty list changes nothing and answers the count", async () => {
    seed(owner, 2);
    expect((await batchRead({ ids: [] })).body).toEqual({ unread_notifications: 2, unread_count: 2 });
  });

  test("100 ids are accepted; 101 are 422 and change nothing", async () => {
    const rows = seed(owner, 101);
    const ids = rows.map((r) => r.id);
    const tooMany = await batchRead({ ids });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0]).toMatchObject({ loc: ["body", "ids"], type: "too_long" });
    expect((await count(owner.token)).body.unread_notifications).toBe(101);
    const ok = await batchRead({ ids: ids.slice(0, 100) });
    expect(ok.status).toBe(200);
    expect(ok.body.unread_notifications).toBe(1);
  });

  test.each([[{}], [{ ids: "x" }], [{ ids: ["not-a-uuid"] }]])("%j is 422", async (body) => {
    expect((await batchRead(body)).status).toBe(422);
  });
});

describe("DELETE /notifications/{notification_id}", () => {
  const del = (id: string, token = owner.token) => h.req("DELETE", `/api/v1/notifications/${id}`, { token });

  test("204 deletes the caller's own notification permanently", async () => {
    const [a, b] = seed(owner, 2);
    const res = await del(a.id);
    expect(res.status).toBe(204);
    expect(exists(a.id)).toBe(false);
    expect(exists(b.id)).toBe(true);
    expect((await list(owner.token)).body.map((n: any) => n.id)).toEqual([b.id]);
    expect((await del(a.id)).status).toBe(204);
  });

  test("another user's notification: 204 all the same, and it is untouched", async () => {
    const [theirs] = seed(stranger, 1);
    expect((await del(theirs.id)).status).toBe(204);
    expect(exists(theirs.id)).toBe(true);
    expect(isRead(theirs.id)).toBe(0);
  });

  test("an unknown id is 204", async () => {
    expect((await del(unknownId())).status).toBe(204);
  });

  test("a malformed id is 422", async () => {
    expect((await del("nope")).status).toBe(422);
  });
});

describe("POST /notifications/delete", () => {
  const batchDelete = (body: unknown, token = owner.token) => h.req("POST", "/api/v1/notifications/delete", { token, body });

  test("deletes the listed own notifications, ignores unknown and foreign ids, answers the unread count", async () => {
    const [a, b, c] = seed(owner, 3);
    h.ctx.db.$client.query("update notifications set is_read = 1 where id = ?").run(c.id);
    const [theirs] = seed(stranger, 1);
    const res = await batchDelete({ ids: [a.id, theirs.id, unknownId()] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ unread_notifications: 1, unread_count: 1 });
    expect([exists(a.id), exists(b.id), exists(c.id), exists(theirs.id)]).toEqual([false, true, true, true]);
  });

  test("101 ids are 422 and delete nothing", async () => {
    const rows = seed(owner, 101);
    const res = await batchDelete({ ids: rows.map((r) => r.id) });
    expect(res.status).toBe(422);
    expect(rows.every((r) => exists(r.id))).toBe(true);
  });

  test("a malformed id is 422", async () => {
    expect((await batchDelete({ ids: ["nope"] })).status).toBe(422);
  });
});

describe("POST /notifications/delete-read", () => {
  const deleteRead = (token = owner.token) => h.req("POST", "/api/v1/notifications/delete-read", { token });

  test("deletes only the caller's read notifications and says how many; a second call deletes 0", async () => {
    const read = seed(owner, 2, { read: true });
    const unread = seed(owner, 1);
    const theirs = seed(stranger, 1, { read: true });
    const res = await deleteRead();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: 2 });
    expect(read.some((r) => exists(r.id))).toBe(false);
    expect(exists(unread[0].id)).toBe(true);
    expect(exists(theirs[0].id)).toBe(true);
    expect((await deleteRead()).body).toEqual({ deleted: 0 });
  });
});

describe("rate limits (spec Part 1 §8.2)", () => {
  function expect429(res: { status: number; body: any; headers: Headers }, code: string) {
    expectError(res, 429, code);
    expect(res.body.detail.retry_after).toBeGreaterThan(0);
    expect(Number(res.headers.get("retry-after"))).toBe(res.body.detail.retry_after);
  }

  test("delete one: 120 per hour, then 429 RATE_LIMIT_NOTIFICATION_DELETE; per user; the window slides", async () => {
    const id = unknownId();
    for (let i = 0; i < 120; i++) expect((await h.req("DELETE", `/api/v1/notifications/${id}`, { token: owner.token })).status).toBe(204);
    const [mine] = seed(owner, 1);
    expect429(await h.req("DELETE", `/api/v1/notifications/${mine.id}`, { token: owner.token }), "RATE_LIMIT_NOTIFICATION_DELETE");
    expect(exists(mine.id)).toBe(true);
    expect((await h.req("DELETE", `/api/v1/notifications/${id}`, { token: stranger.token })).status).toBe(204);
    h.clock.advance(HOUR);
    expect((await h.req("DELETE", `/api/v1/notifications/${mine.id}`, { token: owner.token })).status).toBe(204);
  });

  test("batch read and batch delete share 60 calls per hour: 429 RATE_LIMIT_NOTIFICATION_BATCH", async () => {
    for (let i = 0; i < 30; i++) expect((await h.req("POST", "/api/v1/notifications/read", { token: owner.token, body: { ids: [] } })).status).toBe(200);
    for (let i = 0; i < 30; i++) expect((await h.req("POST", "/api/v1/notifications/delete", { token: owner.token, body: { ids: [] } })).status).toBe(200);
    const [mine] = seed(owner, 1);
    expect429(await h.req("POST", "/api/v1/notifications/read", { token: owner.token, body: { ids: [mine.id] } }), "RATE_LIMIT_NOTIFICATION_BATCH");
    expect429(await h.req("POST", "/api/v1/notifications/delete", { token: owner.token, body: { ids: [mine.id] } }), "RATE_LIMIT_NOTIFICATION_BATCH");
    expect(isRead(mine.id)).toBe(0);
    expect(exists(mine.id)).toBe(true);
  });

  test("a refused (422) batch is not charged", async () => {
    const tooMany = Array.from({ length: 101 }, () => unknownId());
    for (let i = 0; i < 70; i++) expect((await h.req("POST", "/api/v1/notifications/read", { token: owner.token, body: { ids: tooMany } })).status).toBe(422);
    expect((await h.req("POST", "/api/v1/notifications/read", { token: owner.token, body: { ids: [] } })).status).toBe(200);
  });

  test("delete-read: 30 per hour, then 429 RATE_LIMIT_NOTIFICATION_DELETE_READ", async () => {
    for (let i = 0; i < 30; i++) expect((await h.req("POST", "/api/v1/notifications/delete-read", { token: owner.token })).status).toBe(200);
    const read = seed(owner, 1, { read: true });
    expect429(await h.req("POST", "/api/v1/notifications/delete-read", { token: owner.token }), "RATE_LIMIT_NOTIFICATION_DELETE_READ");
    expect(exists(read[0].id)).toBe(true);
  });

  test("listing is not rate-limited", async () => {
    for (let i = 0; i < 200; i++) expect((await list(owner.token, { limit: 1 })).status).toBe(200);
  });
});

describe("the unread count on the user's open pages", () => {
  /** The notifications_changed events of a user, oldest first. */
  const changedOf = (user: TestUser) =>
    (h.ctx.db.$client.query("select * from events where type = 'notifications_changed' and actor_id = ? order by rowid").all(user.id) as any[]).map((e) => ({ ...e, payload: JSON.parse(e.payload) }));
  /** The notifications.unread pushes on the user's web key, as their pages receive them. */
  function pushesTo(user: TestUser) {
    const got: number[] = [];
    const off = h.ctx.realtime.subscribe(webKey(user.id), (ev) => {
      if (ev.type === "notifications.unread") got.push((ev.data as { unread: number }).unread);
    });
    return { got, off };
  }

  test("reading and deleting write notifications_changed with the write; the push comes from the outbox", async () => {
    await h.ctx.events.drain();
    const [a, b, c, d, e] = seed(owner, 5);
    const pages = pushesTo(owner);
    const steps: [() => Promise<{ status: number }>, Record<string, unknown>][] = [
      [() => h.req("POST", `/api/v1/notifications/${a.id}/read`, { token: owner.token }), { user_id: owner.id }],
      [() => h.req("POST", "/api/v1/notifications/read", { token: owner.token, body: { ids: [b.id] } }), { user_id: owner.id, unread: 3 }],
      [() => h.req("DELETE", `/api/v1/notifications/${c.id}`, { token: owner.token }), { user_id: owner.id }],
      [() => h.req("POST", "/api/v1/notifications/delete", { token: owner.token, body: { ids: [d.id] } }), { user_id: owner.id, unread: 1 }],
      [() => h.req("POST", "/api/v1/notifications/read-all", { token: owner.token }), { user_id: owner.id, unread: 0 }],
    ];
    const expected = [4, 3, 2, 1, 0];
    for (const [i, [step, payload]] of steps.entries()) {
      expect((await step()).status).toBeLessThan(300);
      const ev = changedOf(owner).at(-1);
      expect(changedOf(owner)).toHaveLength(i + 1);
      expect(ev).toMatchObject({ actor_id: owner.id, activity: 0, audience: null, payload });
      // Nothing reaches the pages until the outbox hands the event out (on several workers, each reads it).
      expect(pages.got).toHaveLength(i);
      await h.ctx.events.drain();
      expect(pages.got).toEqual(expected.slice(0, i + 1));
    }
    expect(isRead(e.id)).toBe(1);
    pages.off();
  });

  test("a write that changes nothing emits nothing", async () => {
    const [theirs] = seed(stranger, 1);
    const [mine] = seed(owner, 1, { read: true });
    expect((await h.req("POST", "/api/v1/notifications/read-all", { token: owner.token })).status).toBe(204);
    expect((await h.req("POST", "/api/v1/notifications/read", { token: owner.token, body: { ids: [theirs.id, mine.id] } })).status).toBe(200);
    expect((await h.req("POST", "/api/v1/notifications/delete", { token: owner.token, body: { ids: [theirs.id] } })).status).toBe(200);
    expect((await h.req("DELETE", `/api/v1/notifications/${theirs.id}`, { token: owner.token })).status).toBe(204);
    expectError(await h.req("POST", `/api/v1/notifications/${theirs.id}/read`, { token: owner.token }), 404, "NOT_FOUND");
    expect(changedOf(owner)).toEqual([]);
    expect(exists(theirs.id)).toBe(true);
  });
});
