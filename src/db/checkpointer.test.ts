import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../core/log";
import { FALLBACK_PAGES, leaveCheckpointsToSupervisor, startCheckpointer } from "./checkpointer";
import { openDatabase } from "./client";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Waits for the worker thread's answer (a message between threads, not a time rule). */
async function until(cond: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await Bun.sleep(10);
  return cond();
}

test("the worker takes over checkpoints: the writer's threshold rises, the frames reach the database file, stop ends it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "colony-ckpt-"));
  dirs.push(dir);
  const path = join(dir, "colony.db");
  const db = openDatabase(path);
  const threshold = () => (db.$client.query("pragma wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
  expect(threshold()).toBe(1000);
  const cp = startCheckpointer(db, path, createLogger("silent", () => 0), 10);
  expect(await until(() => threshold() === FALLBACK_PAGES)).toBe(true);
  db.$client.run("create table t (id integer primary key, v text)");
  const created = statSync(path).size;
  const ins = db.$client.prepare("insert into t (v) values (?)");
  for (let i = 0; i < 500; i++) ins.run("x".repeat(200));
  // In WAL mode the database file grows only by checkpoints, and this thread runs none (its
  // threshold is far above these few hundred pages): growth means the worker copied the frames.
  expect(await until(() => statSync(path).size > created + 100 * 200)).toBe(true);
  await cp.stop();
  db.$client.close();
  const again = openDatabase(path);
  expect((again.$client.query("select count(*) as n from t").get() as { n: number }).n).toBe(500);
  again.$client.close();
});

test("a worker of several processes leaves checkpoints to its supervisor: its threshold is the raised one from the start", () => {
  const dir = mkdtempSync(join(tmpdir(), "colony-ckpt-"));
  dirs.push(dir);
  const db = openDatabase(join(dir, "colony.db"));
  leaveCheckpointsToSupervisor(db);
  expect((db.$client.query("pragma wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint).toBe(FALLBACK_PAGES);
  db.$client.close();
});
