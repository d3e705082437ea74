// `colony doctor`: checks that this machine and data folder can run Colony, one line per check.
// Safe to run next to a live server: it only adds missing migrations (as the server would at
// start) and writes one scratch file that it removes again.
import { Database } from "bun:sqlite";
import { mkdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { selfTest } from "./adapters/images";
import type { Config } from "./config";
import { databasePath } from "./core/context";
import { MIN_SQLITE, compareVersions, openDatabase } from "./db/client";
import { migrate } from "./db/migrate";

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

type Check = { name: string; run: () => string | Promise<string> };

function checkSqlite(): string {
  const db = new Database(":memory:");
  try {
    const { v } = db.query("select sqlite_version() as v").get() as { v: string };
    if (compareVersions(v, MIN_SQLITE) < 0) throw new Error(`SQLite ${v} is older than ${MIN_SQLITE} (needed for the WAL-reset fix)`);
    return `SQLite ${v} (needs ${MIN_SQLITE} or newer)`;
  } finally {
    db.close();
  }
}

function checkDataDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const probe = join(dir, `.doctor-${process.pid}`);
  try {
    writeFileSync(probe, "ok", { flag: "wx", mode: 0o600 });
  } finally {
    rmSync(probe, { force: true });
  }
  let free = "";
  try {
    const fs = statfsSync(dir);
    free = `, ${((fs.bavail * fs.bsize) / 1024 ** 3).toFixed(1)} GiB free`;
  } catch {
    // statfs is informational only
  }
  return `${dir} is writable${free}`;
}

function checkDatabase(config: Config): string {
  const path = databasePath(config);
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(path);
  } catch (err) {
    throw new Error(`${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const applied = migrate(db);
    const sqlite = db.$client;
    const total = (sqlite.query("select count(*) as n from __drizzle_migrations").get() as { n: number }).n;
    const mode = (sqlite.query("pragma journal_mode").get() as { journal_mode: string }).journal_mode;
    const check = (sqlite.query("pragma quick_check").get() as { quick_check: string }).quick_check;
    if (check !== "ok") throw new Error(`${path} failed quick_check: ${check}`);
    const migrations = applied ? `applied ${applied} migration(s), ${total} in total` : `${total} migration(s), up to date`;
    return `${path} opens (journal_mode=${mode}, quick_check ok), ${migrations}`;
  } finally {
    db.$client.close();
  }
}

async function checkImages(): Promise<string> {
  const started = performance.now();
  const r = await selfTest();
  const ms = Math.round(performance.now() - started);
  const b = r.backend;
  return (
    `${r.input.format} ${r.input.width}x${r.input.height} -> ${r.output.format} ${r.output.width}x${r.output.height}, ` +
    `metadata stripped, via ${b.kind} (sharp ${b.sharp}, libvips ${b.vips}) in ${ms} ms`
  );
}

export async function runChecks(config: Config): Promise<CheckResult[]> {
  const checks: Check[] = [
    { name: "sqlite", run: checkSqlite },
    { name: "data folder", run: () => checkDataDir(config.dataDir) },
    { name: "database", run: () => checkDatabase(config) },
    { name: "images", run: checkImages },
  ];
  const results: CheckResult[] = [];
  for (const check of checks) {
    try {
      results.push({ name: check.name, ok: true, detail: await check.run() });
    } catch (err) {
      results.push({ name: check.name, ok: false, detail: err instanceof Error ? err.message : String(err) });
    }
  }
  return results;
}

/** Prints one line per check and returns whether all of them passed. */
export async function runDoctor(config: Config, print: (line: string) => void = console.log): Promise<boolean> {
  const results = await runChecks(config);
  const width = Math.max(...results.map((r) => r.name.length));
  for (const r of results) print(`${r.ok ? "ok  " : "FAIL"}  ${r.name.padEnd(width)}  ${r.detail}`);
  const failed = results.filter((r) => !r.ok).length;
  print(failed ? `${failed} check(s) failed` : "all checks passed");
  return failed === 0;
}
