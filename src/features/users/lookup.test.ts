// The hot lookups read users through cached bun:sqlite statements and a mapper derived from the
// drizzle table; they must return exactly what drizzle's own query returns.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { setup } from "../../../test/harness";
import { uuidv7 } from "../../core/ids";
import { inTransaction } from "../../db/client";
import { suspendUser } from "../../ops/admin";
import { EXTERNAL_CHECK_MS, findById, findByKeyHash, KEPT_ROWS_MAX, keptRowCount, updateProfile } from "./service";
import { users } from "./tables";

test("findById and findByKeyHash match drizzle's row, JSON and boolean columns included", async () => {
  const h = setup();
  const u = await h.user({ admin: true });
  const before = findById(h.ctx, u.id)!;
  updateProfile(h.ctx, before, { capabilities: { specialties: ["rust"], n: 2 }, social_links: { github: "me" }, bio: "hi" });
  const viaDrizzle = h.ctx.db.select().from(users).where(eq(users.id, u.id)).get();
  const fast = findById(h.ctx, u.id);
  expect(fast).toEqual(viaDrizzle!);
  expect(fast!.isAdmin).toBe(true);
  expect(fast!.capabilities).toEqual({ specialties: ["rust"], n: 2 });
  expect(findByKeyHash(h.ctx, viaDrizzle!.apiKeyHash)).toEqual(viaDrizzle!);
  expect(findById(h.ctx, "0190a0b0-0000-7000-8000-000000000000")).toBeNull();
});

describe("users rows kept between writes (findById)", () => {
  const h = setup({}, { readers: 1, countQueries: true });
  afterAll(() => h.close());
  const me = (token: string) => h.req("GET", "/api/v1/users/me", { token });
  const rename = (id: string, name: string) => h.ctx.db.$client.query("update users set display_name = ? where id = ?").run(name, id);

  test("an authenticated request reads no users row while nothing was written", async () => {
    const u = await h.user();
    await me(u.token); // records the account's activity: a write, at most once a minute
    await me(u.token);
    const again = await h.queries!.during(() => me(u.token));
    expect(again.result.status).toBe(200);
    expect(again.sql.filter((q) => q.includes("from users"))).toEqual([]);
  });

  test("a write on the connection, through the service or not, is seen by the next request", async () => {
    const u = await h.user();
    expect((await me(u.token)).body.display_name).toBe(u.username);
    rename(u.id, "Renamed directly");
    expect((await me(u.token)).body.display_name).toBe("Renamed directly");
    // A write to any other table drops the kept rows too: the check is the connection's count of writes.
    const before = await h.queries!.during(() => me(u.token));
    h.ctx.db.$client.query("update users set display_name = display_name where 0").run();
    h.ctx.db.$client.query("create table if not exists scratch (n)").run();
    h.ctx.db.$client.query("insert into scratch values (1)").run();
    const after = await h.queries!.during(() => me(u.token));
    expect(before.sql.filter((q) => q.includes("from users"))).toEqual([]);
    expect(after.sql.filter((q) => q.includes("from users")).length).toBe(1);
  });

  test("inside a transaction the row is read, never kept; a rolled-back write leaves the committed row", async () => {
    const u = await h.user();
    rename(u.id, "Committed");
    expect(findById(h.ctx, u.id)!.displayName).toBe("Committed");
    expect(() =>
      inTransaction(h.ctx.db, () => {
        rename(u.id, "Rolled back");
        expect(findById(h.ctx, u.id)!.displayName).toBe("Rolled back");
        throw new Error("undo");
      }),
    ).toThrow("undo");
    expect(findById(h.ctx, u.id)!.displayName).toBe("Committed");
    expect((await me(u.token)).body.display_name).toBe("Committed");
  });

  test("a commit by another process (colony admin suspend) is seen once EXTERNAL_CHECK_MS have passed", async () => {
    const u = await h.user();
    await me(u.token); // records the account's activity (a write on this connection)
    expect((await me(u.token)).status).toBe(200);
    suspendUser(h.ctx.config, u.username, { reason: "spam", days: null }, () => {});
    // Within the window the kept row still answers; once it has passed, the suspension does.
    h.clock.advance(EXTERNAL_CHECK_MS - 1);
    expect((await me(u.token)).status).toBe(200);
    h.clock.advance(1);
    const res = await me(u.token);
    expect(res.status).toBe(403);
    expect(res.body.detail.code).toBe("ACCOUNT_SUSPENDED");
  });

  test(`at most ${KEPT_ROWS_MAX} rows are kept, the latest read`, async () => {
    // The rows are inserted in a few statements (the accounts' creation rules are not what this
    // test is about, and a thousand of them take seconds).
    const now = h.clock.now();
    const rows = Array.from({ length: KEPT_ROWS_MAX + 5 }, (_, i) => ({ id: uuidv7(now), username: `kept-${i}`, displayName: `Kept ${i}`, apiKeyHash: `hash-${i}`, keyIssuedAt: now, createdAt: now, updatedAt: now }));
    h.ctx.db.transaction((tx) => {
      for (let i = 0; i < rows.length; i += 100) tx.insert(users).values(rows.slice(i, i + 100)).run();
    });
    const ids = rows.map((r) => r.id);
    for (const id of ids) expect(findById(h.ctx, id)!.id).toBe(id);
    expect(keptRowCount(h.ctx)).toBe(KEPT_ROWS_MAX);
    const latest = await h.queries!.during(() => findById(h.ctx, ids.at(-1)!));
    expect(latest.sql.filter((q) => q.includes("from users"))).toEqual([]);
    const first = await h.queries!.during(() => findById(h.ctx, ids[0]!));
    expect(first.sql.filter((q) => q.includes("from users")).length).toBe(1);
  });
});
