// Group commit (client.ts inGroupCommit): writes of one turn of the event loop share a transaction,
// each under its own savepoint, and are answered once it has committed.
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commitAlone, inGroupCommit, inTransaction, onGroupSettled, openDatabase, settleGroupCommit, type Db } from "./client";

let dir: string;
let db: Db;
let other: Database;
const seen = () => (other.query("select count(*) as n from t").get() as { n: number }).n;
const insert = (tx: Db, v: number) => tx.$client.run("insert into t(v) values (?)", [v]);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "colony-group-"));
  db = openDatabase(join(dir, "g.db"));
  db.$client.run("create table t(v integer not null unique)");
  db.$client.run("create table parent(id integer primary key)");
  db.$client.run("create table child(p integer references parent(id) deferrable initially deferred)");
  other = new Database(join(dir, "g.db"));
});
afterEach(() => {
  other.close();
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

test("writes of one turn share one transaction and are answered after its COMMIT", async () => {
  const writes = [1, 2, 3].map((v) => inGroupCommit(db, (tx) => (insert(tx, v), v * 10)));
  // Each write ran at once: this connection sees them; another connection does not until the commit.
  expect((db.$client.query("select count(*) as n from t").get() as { n: number }).n).toBe(3);
  expect(seen()).toBe(0);
  expect(await Promise.all(writes)).toEqual([10, 20, 30]);
  expect(seen()).toBe(3);
  expect(db.$client.inTransaction).toBe(false);
});

test("a write that throws rolls back alone, at once; the others commit", async () => {
  const ok = inGroupCommit(db, (tx) => insert(tx, 1));
  expect(() => inGroupCommit(db, (tx) => (insert(tx, 2), insert(tx, 1)))).toThrow(/UNIQUE/);
  const ok2 = inGroupCommit(db, (tx) => insert(tx, 3));
  await Promise.all([ok, ok2]);
  expect(other.query("select v from t order by v").all()).toEqual([{ v: 1 }, { v: 3 }]);
});

test("a COMMIT that fails rejects every write of the group and keeps none of them", async () => {
  const a = inGroupCommit(db, (tx) => insert(tx, 1));
  const b = inGroupCommit(db, (tx) => tx.$client.run("insert into child(p) values (99)")); // deferred foreign key: fails at COMMIT
  const results = await Promise.allSettled([a, b]);
  expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
  expect(seen()).toBe(0);
  expect(db.$client.inTransaction).toBe(false);
  // The connection goes on.
  await inGroupCommit(db, (tx) => insert(tx, 5));
  expect(seen()).toBe(1);
});

test("any other transaction commits the open group first, so what it commits is committed when it returns", () => {
  const pending = inGroupCommit(db, (tx) => insert(tx, 1));
  inTransaction(db, (tx) => insert(tx, 2));
  expect(seen()).toBe(2);
  expect(db.$client.inTransaction).toBe(false);
  void pending;

  const pending2 = inGroupCommit(db, (tx) => insert(tx, 3));
  db.transaction(() => db.$client.run("insert into t(v) values (4)")); // drizzle, through bun:sqlite's transaction()
  expect(seen()).toBe(4);
  void pending2;

  const pending3 = inGroupCommit(db, (tx) => insert(tx, 5));
  settleGroupCommit(db);
  expect(seen()).toBe(5);
  return Promise.all([pending, pending2, pending3]);
});

test("transactions inside a grouped write nest in it; a grouped write inside a transaction nests too", async () => {
  await inGroupCommit(db, (tx) => {
    insert(tx, 1);
    inTransaction(tx, (t2) => insert(t2, 2));
    expect(() => inTransaction(tx, (t2) => (insert(t2, 3), insert(t2, 1)))).toThrow(/UNIQUE/);
  });
  let nested = Promise.resolve("");
  inTransaction(db, (tx) => {
    nested = inGroupCommit(tx, (t2) => (insert(t2, 4), "inner"));
  });
  expect(seen()).toBe(3);
  expect(await nested).toBe("inner");
  expect(other.query("select v from t order by v").all()).toEqual([{ v: 1 }, { v: 2 }, { v: 4 }]);
});

test("closing the connection commits the open group", async () => {
  const pending = inGroupCommit(db, (tx) => insert(tx, 1));
  db.$client.close();
  await pending;
  expect(seen()).toBe(1);
  db = openDatabase(join(dir, "g.db")); // for afterEach
});

test("settle hooks run once the group settles, and only inside a group", async () => {
  const calls: string[] = [];
  expect(onGroupSettled(db, () => calls.push("outside"))).toBe(false);
  const pending = inGroupCommit(db, (tx) => {
    insert(tx, 1);
    expect(onGroupSettled(db, () => calls.push(`settled, seen ${seen()}`))).toBe(true);
  });
  expect(calls).toEqual([]);
  await pending;
  expect(calls).toEqual(["settled, seen 1"]);
});

test("a connection shared with other processes (commitAlone) commits each grouped write on its own: another connection sees it, and a plain write beside it, at once", async () => {
  commitAlone(db);
  const grouped = inGroupCommit(db, (tx) => insert(tx, 1));
  expect(seen()).toBe(1);
  // Without commitAlone this write would join the open group's transaction and stay unseen.
  insert(db, 2);
  expect(seen()).toBe(2);
  await grouped;
  expect(db.$client.inTransaction).toBe(false);
});

test("without commitAlone a plain write beside a group joins it (one process: its own reads see it)", async () => {
  const grouped = inGroupCommit(db, (tx) => insert(tx, 1));
  insert(db, 2);
  expect(seen()).toBe(0);
  await grouped;
  expect(seen()).toBe(2);
});
