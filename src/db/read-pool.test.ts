import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../core/log";
import { openDatabase } from "./client";
import { inlineReads, READER_NICENESS, startReadPool, type Reads } from "./read-pool";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Waits for the worker thread's answer (a message between threads, not a time rule). */
async function until(cond: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await Bun.sleep(10);
  return cond();
}

function fileDb() {
  const dir = mkdtempSync(join(tmpdir(), "colony-reads-"));
  const path = join(dir, "colony.db");
  const db = openDatabase(path);
  db.$client.run("create table t (id integer primary key, v text)");
  db.$client.run("insert into t (v) values ('a'), ('b'), ('c')");
  cleanups.push(() => {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, path };
}

const list = { sql: "select id, v from t where id >= ? order by id", params: [2] };
const count = { sql: "select count(*) as n from t", params: [] };

async function pool(size: number): Promise<{ reads: Reads; db: ReturnType<typeof fileDb>["db"] }> {
  const { db, path } = fileDb();
  const reads = startReadPool(db, path, size, createLogger("silent", () => 0));
  cleanups.push(() => reads.stop());
  return { reads, db };
}

test("a reader thread answers a batch with the rows of each statement, as the main connection would", async () => {
  const { reads, db } = await pool(1);
  expect(await until(() => reads.threads === 1)).toBe(true);
  const rows = await reads.all([list, count]);
  expect(rows).toEqual([
    [
      { id: 2, v: "b" },
      { id: 3, v: "c" },
    ],
    [{ n: 3 }],
  ]);
  expect(rows).toEqual(await inlineReads(db).all([list, count]));
});

test("a read sees every write committed before it (read your writes)", async () => {
  const { reads, db } = await pool(1);
  expect(await until(() => reads.threads === 1)).toBe(true);
  for (let i = 0; i < 20; i++) {
    db.$client.run("insert into t (v) values ('x')");
    expect((await reads.all([count]))[0]).toEqual([{ n: 4 + i }]);
  }
});

test("reads run concurrently with the request thread and keep their order per caller", async () => {
  const { reads } = await pool(2);
  expect(await until(() => reads.threads === 2)).toBe(true);
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => reads.all([{ sql: "select ? as i", params: [i] }])));
  expect(answers.map((a) => a[0][0].i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
});

test("an SQL error rejects that read with SQLite's message and code; the reader keeps serving", async () => {
  const { reads } = await pool(1);
  expect(await until(() => reads.threads === 1)).toBe(true);
  const err = await reads.all([{ sql: "select * from missing", params: [] }]).catch((e) => e);
  expect(String(err.message)).toContain("no such table");
  expect(err.code).toBe("SQLITE_ERROR");
  expect(await reads.all([count])).toEqual([[{ n: 3 }]]);
});

test("readers are read-only connections", async () => {
  const { reads, db } = await pool(1);
  expect(await until(() => reads.threads === 1)).toBe(true);
  const err = await reads.all([{ sql: "delete from t", params: [] }]).catch((e) => e);
  expect(String(err.message)).toContain("readonly");
  expect((db.$client.query("select count(*) as n from t").get() as { n: number }).n).toBe(3);
});

test("size 0, or before a reader is ready, reads run inline on the main connection", async () => {
  const { reads } = await pool(0);
  expect(reads.threads).toBe(0);
  expect(await reads.all([count])).toEqual([[{ n: 3 }]]);
  const { reads: starting } = await pool(1);
  // The first call can come before the reader has opened its connection.
  expect(await starting.all([count])).toEqual([[{ n: 3 }]]);
});

/** Each thread of this process with its name and niceness (Linux: /proc/self/task). */
function threads(): { tid: number; name: string; nice: number }[] {
  const out: { tid: number; name: string; nice: number }[] = [];
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.push({ tid: Number(tid), name: readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim(), nice: Number(fields[16]) });
    } catch {
      // The thread ended between the listing and the read (an earlier test's worker stopping).
    }
  }
  return out;
}

test.skipIf(!existsSync("/proc/self/task"))("reader threads run at a lower priority than the request thread", async () => {
  expect(READER_NICENESS).toBeGreaterThan(0);
  const before = new Set(threads().map((t) => t.tid));
  const { reads } = await pool(2);
  expect(await until(() => reads.threads === 2)).toBe(true);
  const now = threads();
  expect(now.find((t) => t.tid === process.pid)?.nice).toBe(0);
  const readers = now.filter((t) => !before.has(t.tid) && t.name === "Worker");
  expect(readers).toHaveLength(2);
  for (const r of readers) expect(r.nice).toBe(READER_NICENESS);
});

test("stop ends the readers; later reads run inline", async () => {
  const { reads } = await pool(1);
  expect(await until(() => reads.threads === 1)).toBe(true);
  await reads.stop();
  expect(reads.threads).toBe(0);
  expect(await reads.all([count])).toEqual([[{ n: 3 }]]);
});

test("release: each reader gives memory back when asked (caches, then code) and answers reads after", async () => {
  const { reads } = await pool(2);
  expect(await until(() => reads.threads === 2)).toBe(true);
  await reads.release("caches");
  expect(await reads.all([count])).toEqual([[{ n: 3 }]]);
  await reads.release("code");
  expect(await reads.all([list])).toEqual([[{ id: 2, v: "b" }, { id: 3, v: "c" }]]);
  await inlineReads(openDatabase(":memory:")).release("code");
});

test("stop while a release is awaited resolves it", async () => {
  const { reads } = await pool(1);
  expect(await until(() => reads.threads === 1)).toBe(true);
  const released = reads.release("caches");
  await reads.stop();
  await released;
});
