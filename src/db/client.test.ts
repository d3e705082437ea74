import { expect, test } from "bun:test";
import { inTransaction, openDatabase } from "./client";

function db() {
  const d = openDatabase(":memory:");
  d.$client.run("create table t (v text)");
  return d;
}
const values = (d: ReturnType<typeof db>) => (d.$client.query("select v from t order by rowid").all() as { v: string }[]).map((r) => r.v);

test("inTransaction commits what the function wrote and returns its result", () => {
  const d = db();
  expect(inTransaction(d, (tx) => (tx.$client.run("insert into t values ('a')"), 42))).toBe(42);
  expect(values(d)).toEqual(["a"]);
  expect(d.$client.inTransaction).toBe(false);
});

test("a throw rolls everything back and is rethrown", () => {
  const d = db();
  expect(() =>
    inTransaction(d, (tx) => {
      tx.$client.run("insert into t values ('a')");
      throw new Error("boom");
    }),
  ).toThrow("boom");
  expect(values(d)).toEqual([]);
  expect(d.$client.inTransaction).toBe(false);
});

test("nested: a savepoint; an inner throw undoes the inner writes only", () => {
  const d = db();
  inTransaction(d, () => {
    d.$client.run("insert into t values ('outer')");
    expect(() =>
      inTransaction(d, () => {
        d.$client.run("insert into t values ('inner')");
        throw new Error("inner");
      }),
    ).toThrow("inner");
    inTransaction(d, () => d.$client.run("insert into t values ('kept')"));
    // Inside drizzle's own transaction API too (bun:sqlite nests it as a savepoint).
    d.transaction(() => d.$client.run("insert into t values ('drizzle')"));
  });
  expect(values(d)).toEqual(["outer", "kept", "drizzle"]);
  expect(d.$client.inTransaction).toBe(false);
});

test("an async function is refused and nothing it wrote before its first await stays", () => {
  const d = db();
  expect(() =>
    inTransaction(d, async () => {
      d.$client.run("insert into t values ('a')");
    }),
  ).toThrow("synchronous");
  expect(values(d)).toEqual([]);
});
