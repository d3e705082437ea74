import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setup, type Harness } from "../../test/harness";
import { compactFtsIndex, compactFtsIndexes, FTS_INDEXES } from "./fts";

let h: Harness;
beforeAll(() => {
  h = setup();
});
afterAll(() => h.close());

const matches = (q: string) => (h.ctx.db.$client.query("select rowid from users_fts where users_fts match ? order by rowid").all(q) as { rowid: number }[]).map((r) => r.rowid);
const integrity = () => h.ctx.db.$client.run("insert into users_fts(users_fts, rank) values ('integrity-check', 1)");

describe("compacting the full-text indexes", () => {
  test("merges an index written in many transactions in steps, serving the event loop between them", async () => {
    const db = h.ctx.db.$client;
    db.run("create virtual table scratch_fts using fts5(x)");
    let seed = 7;
    const word = () => Array.from({ length: 8 }, () => String.fromCharCode(97 + ((seed = (seed * 48271) % 2147483647) % 26))).join("");
    const insert = db.prepare("insert into scratch_fts(x) values (?)");
    for (let i = 0; i < 2000; i++) insert.run(`row${i} common ${Array.from({ length: 12 }, word).join(" ")}`);
    const count = () => (db.query("select count(*) as n from scratch_fts where scratch_fts match 'common'").get() as { n: number }).n;
    const some = () => db.query("select rowid from scratch_fts where scratch_fts match 'row1999 OR row0 OR row777' order by rowid").all();
    const before = { n: count(), some: some() };

    let served = 0;
    const timer = setInterval(() => served++, 0);
    const steps = await compactFtsIndex(h.ctx.db, "scratch_fts", 1);
    clearInterval(timer);
    expect(steps).toBeGreaterThan(1);
    expect(served).toBeGreaterThan(0);
    expect({ n: count(), some: some() }).toEqual(before);
    expect(() => db.run("insert into scratch_fts(scratch_fts, rank) values ('integrity-check', 1)")).not.toThrow();
    // Nothing left the second time.
    expect(await compactFtsIndex(h.ctx.db, "scratch_fts")).toBe(0);
    db.run("drop table scratch_fts");
  });

  test("a real index written row by row: the same answers after compaction", async () => {
    const users = [await h.user({ username: "compact-alpha" }), await h.user({ username: "compact-beta" })];
    // Every single-row write adds a segment to users_fts (through the users triggers).
    const rename = h.ctx.db.$client.prepare("update users set display_name = ? where username = ?");
    for (let i = 0; i < 300; i++) rename.run(`Display ${i % 7} name${i}`, users[i % 2].username);
    const before = { alpha: matches('"alpha"'), display: matches('"display"'), last: matches('"name299"') };
    expect(before.display.length).toBe(2);
    expect(await compactFtsIndex(h.ctx.db, "users_fts")).toBeGreaterThan(0);
    expect({ alpha: matches('"alpha"'), display: matches('"display"'), last: matches('"name299"') }).toEqual(before);
    expect(() => integrity()).not.toThrow();
    expect(await compactFtsIndex(h.ctx.db, "users_fts")).toBe(0);
  });

  test("every index of the schema, and the nightly job runs them", async () => {
    const steps = await compactFtsIndexes(h.ctx.db);
    expect(Object.keys(steps).sort()).toEqual([...FTS_INDEXES].sort());
    for (const index of FTS_INDEXES) {
      expect(() => h.ctx.db.$client.run(`insert into ${index}(${index}, rank) values ('integrity-check', 1)`)).not.toThrow();
    }
    // A new write leaves a segment to merge; the recurring job takes it.
    const u = await h.user();
    h.ctx.db.$client.run("update users set display_name = 'After compaction' where id = ?", [u.id]);
    await h.ctx.jobs.runRecurring("compact-search-indexes");
    expect(await compactFtsIndex(h.ctx.db, "users_fts")).toBe(0);
    expect(matches('"compaction"').length).toBe(1);
  });
});
