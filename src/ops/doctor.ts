// `colony doctor`: checks that this machine and data folder can run Colony, one line per check.
// Read-only: it creates, migrates and changes nothing, so it is safe next to a live server and
// on a folder that is not a data folder at all. With `--fix` it repairs what it can: creates a
// missing data folder, applies pending migrations (not while a server holds the folder) and
// tightens file modes.
import { Database } from "bun:sqlite";
import { accessSync, chmodSync, constants, existsSync, mkdirSync, readdirSync, statSync, statfsSync } from "node:fs";
import { join } from "node:path";
import { selfTest } from "../adapters/images";
import type { Config } from "../config";
import { databasePath } from "../core/context";
import { sqliteFiles } from "../core/data-folders";
import { LIMITS_FILE } from "../core/limit-store";
import { INDEX_FILE } from "../features/vault/index-db";
import { describeHolder, lockState } from "../core/lock";
import { MIN_SQLITE, compareVersions } from "../db/client";
import { migrationStatus } from "../db/migrate";
import { migrateDataDir } from "./maintenance";

type Status = "ok" | "warn" | "fail";

interface CheckResult {
  name: string;
  status: Status;
  detail: string;
}

interface CheckOptions {
  fix: boolean;
}

class Problem extends Error {
  constructor(
    readonly status: Exclude<Status, "ok">,
    message: string,
  ) {
    super(message);
  }
}

type Check = { name: string; run: () => string | Promise<string> };

const mode = (path: string) => statSync(path).mode & 0o777;
const octal = (m: number) => `0${m.toString(8)}`;

function checkSqlite(): string {
  const db = new Database(":memory:");
  try {
    const { v } = db.query("select sqlite_version() as v").get() as { v: string };
    if (compareVersions(v, MIN_SQLITE) < 0) throw new Problem("fail", `SQLite ${v} is older than ${MIN_SQLITE} (needed for the WAL-reset fix)`);
    return `SQLite ${v} (needs ${MIN_SQLITE} or newer)`;
  } finally {
    db.close();
  }
}

function checkDataDir(dir: string, opts: CheckOptions, fixed: string[]): string {
  if (!existsSync(dir)) {
    if (!opts.fix) throw new Problem("warn", `${dir} does not exist yet (colony serve or colony migrate creates it; colony doctor --fix creates it now)`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    fixed.push(`created ${dir}`);
  }
  if (!statSync(dir).isDirectory()) throw new Problem("fail", `${dir} is not a directory`);
  try {
    accessSync(dir, constants.W_OK | constants.R_OK | constants.X_OK);
  } catch {
    throw new Problem("fail", `${dir} is not writable by this user (uid ${process.getuid?.() ?? "?"})`);
  }
  let free = "";
  try {
    const fs = statfsSync(dir);
    free = `, ${((fs.bavail * fs.bsize) / 1024 ** 3).toFixed(1)} GiB free`;
  } catch {
    // statfs is informational only
  }
  if (mode(dir) & 0o077) {
    if (!opts.fix) throw new Problem("warn", `${dir} is writable${free}, but readable by others (mode ${octal(mode(dir))}; --fix sets 0700)`);
    chmodSync(dir, 0o700);
    fixed.push(`${dir} set to mode 0700`);
  }
  return `${dir} is writable${free}`;
}

function checkLock(dir: string): string {
  const state = lockState(dir);
  return state.held ? `in use by ${describeHolder(state.holder)}` : "no server holds the data folder";
}

function checkDatabase(config: Config, opts: CheckOptions, fixed: string[]): string {
  const path = databasePath(config);
  if (!existsSync(path)) {
    if (!opts.fix || !existsSync(config.dataDir)) return `no database yet at ${path} (created at first start)`;
  }
  // The database, the vault's search index (words of private files) and the rate-limit windows
  // (client addresses), with their write-ahead logs: owner-only.
  const loose = [path, join(config.dataDir, INDEX_FILE), join(config.dataDir, LIMITS_FILE)].flatMap(sqliteFiles).filter((f) => existsSync(f) && mode(f) & 0o077);
  if (loose.length) {
    if (!opts.fix) throw new Problem("warn", `readable by others: ${loose.map((f) => `${f} (mode ${octal(mode(f))})`).join(", ")}; --fix sets 0600`);
    for (const f of loose) {
      chmodSync(f, 0o600);
      fixed.push(`${f} set to mode 0600`);
    }
  }
  let status = existsSync(path) ? readStatus(path) : null;
  if (status?.unknown.length) {
    throw new Problem("fail", `${path} holds ${status.unknown.length} migration(s) this build does not know: it was opened by a newer version of colony; run that version, or restore a backup taken before the upgrade`);
  }
  if (opts.fix && (!status || status.pending.length)) {
    const state = lockState(config.dataDir);
    if (state.held) throw new Problem("warn", `${status?.pending.length ?? "all"} migration(s) pending; not applied while ${describeHolder(state.holder)} holds the folder`);
    migrateDataDir(config, (line) => fixed.push(line));
    status = readStatus(path);
  }
  const { journal, check } = status!;
  if (check !== "ok") throw new Problem("fail", `${path} failed quick_check: ${check}`);
  if (status!.pending.length) {
    throw new Problem("warn", `${path} opens (journal_mode=${journal}, quick_check ok); ${status!.pending.length} migration(s) pending, applied at the next start (or colony migrate)`);
  }
  return `${path} opens (journal_mode=${journal}, quick_check ok), ${status!.applied} migration(s), up to date`;
}

function readStatus(path: string) {
  let db: Database;
  try {
    db = new Database(path, { readonly: true });
  } catch (err) {
    throw new Problem("fail", `${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    db.run("PRAGMA busy_timeout = 5000");
    const journal = (db.query("pragma journal_mode").get() as { journal_mode: string }).journal_mode;
    const check = (db.query("pragma quick_check").get() as { quick_check: string }).quick_check;
    return { ...migrationStatus(db), journal, check };
  } catch (err) {
    throw new Problem("fail", `${path}: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    db.close();
  }
}

function checkSecrets(dir: string, opts: CheckOptions, fixed: string[]): string {
  const secrets = join(dir, "secrets");
  if (!existsSync(secrets)) return "none yet (generated at first start)";
  const names = readdirSync(secrets);
  const loose = names.filter((n) => mode(join(secrets, n)) & 0o077);
  if (loose.length) {
    if (!opts.fix) throw new Problem("fail", `readable by others: ${loose.join(", ")} (--fix sets 0600)`);
    for (const n of loose) chmodSync(join(secrets, n), 0o600);
    fixed.push(`secrets set to mode 0600: ${loose.join(", ")}`);
  }
  const missing = ["jwt.key", "data.key", "oidc-rs256.pem"].filter((n) => !names.includes(n));
  return `${names.length} file(s), owner-only${missing.length ? `; ${missing.join(", ")} generated at next start` : ""}`;
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

async function runChecks(config: Config, opts: CheckOptions = { fix: false }): Promise<{ results: CheckResult[]; fixed: string[] }> {
  const fixed: string[] = [];
  const checks: Check[] = [
    { name: "sqlite", run: checkSqlite },
    { name: "data folder", run: () => checkDataDir(config.dataDir, opts, fixed) },
    { name: "lock", run: () => checkLock(config.dataDir) },
    { name: "database", run: () => checkDatabase(config, opts, fixed) },
    { name: "secrets", run: () => checkSecrets(config.dataDir, opts, fixed) },
    { name: "images", run: checkImages },
  ];
  const results: CheckResult[] = [];
  for (const check of checks) {
    try {
      results.push({ name: check.name, status: "ok", detail: await check.run() });
    } catch (err) {
      const status = err instanceof Problem ? err.status : "fail";
      results.push({ name: check.name, status, detail: err instanceof Error ? err.message : String(err) });
    }
  }
  return { results, fixed };
}

/** Prints one line per check (and what --fix changed); true unless a check failed. */
export async function runDoctor(config: Config, opts: CheckOptions = { fix: false }, print: (line: string) => void = console.log): Promise<boolean> {
  const { results, fixed } = await runChecks(config, opts);
  const width = Math.max(...results.map((r) => r.name.length));
  const label: Record<Status, string> = { ok: "ok  ", warn: "warn", fail: "FAIL" };
  for (const r of results) print(`${label[r.status]}  ${r.name.padEnd(width)}  ${r.detail}`);
  for (const line of fixed) print(`fixed  ${line}`);
  const failed = results.filter((r) => r.status === "fail").length;
  const warned = results.filter((r) => r.status === "warn").length;
  print(failed ? `${failed} check(s) failed` : warned ? `all checks passed, ${warned} warning(s)` : "all checks passed");
  return failed === 0;
}
