// Guarded upgrades (db/upgrade.ts). The commands run as separate processes on temporary data
// folders; table rows that only vary the input run in-process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrations } from "../migrations";
import { createApp } from "../src/app";
import { loadConfig, type Config } from "../src/config";
import { DAY, TestClock } from "../src/core/clock";
import { createContext, type Ctx } from "../src/core/context";
import { hashSecret, newApiKey } from "../src/core/ids";
import { acquireDataLock, LOCK_FILE } from "../src/core/lock";
import { openDatabase } from "../src/db/client";
import { embeddedMigrations } from "../src/db/migrate";
import { fileStamp } from "../src/db/snapshot";
import { NewerDatabaseError } from "../src/db/upgrade";
import { issueToken } from "../src/features/auth/service";
import * as users from "../src/features/users/service";

const root = join(import.meta.dir, "..");
const tmp = mkdtempSync(join(tmpdir(), "colony-backup-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
const fresh = (name: string) => join(tmp, `${name}-${++n}`);
const BASE = "http://localhost";
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function colony(dataDir: string, args: string[], extraEnv: Record<string, string> = {}, timeout = 20_000) {
  const p = Bun.spawnSync(["bun", join(root, "src/main.ts"), ...args], {
    cwd: tmp,
    env: { ...process.env, COLONY_DATA_DIR: dataDir, COLONY_LOG_LEVEL: "silent", ...extraEnv },
    timeout,
  });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

const configFor = (dataDir: string, extra: Partial<Config> = {}): Config => ({ ...loadConfig({ COLONY_LOG_LEVEL: "silent" }), dataDir, publicUrl: BASE, ...extra });

/** A data folder served in-process (database open, as under a live server). */
function live(dataDir: string, extra: Partial<Config> = {}, clock = new TestClock(T0)) {
  const config = configFor(dataDir, extra);
  const ctx = createContext({ config, clock });
  const app = createApp(ctx);
  const req = async (method: string, path: string, opts: { token?: string; raw?: RequestInit["body"] } = {}) => {
    const res = await app.handle(new Request(`${BASE}${path}`, { method, headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {}, body: opts.raw }));
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, body };
  };
  const user = async (username: string) => {
    const apiKey = newApiKey();
    const row = ctx.db.transaction((tx) => users.createAccount(ctx, tx, { username, displayName: username, apiKeyHash: hashSecret(apiKey) }));
    const { access_token } = await issueToken(ctx, apiKey);
    return { id: row.id, username, apiKey, token: access_token };
  };
  return { ctx, app, req, user, clock, close: () => ctx.db.$client.close() };
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** What a database holds, as a digest: its tables and the rows that matter here. */
function databaseDigest(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const rows = [
      db.query("select type, name, sql from sqlite_master order by name").all(),
      db.query("select hash, created_at from __drizzle_migrations order by id").all(),
      db.query("select id, username, api_key_hash from users order by id").all(),
    ];
    return sha256(Buffer.from(JSON.stringify(rows)));
  } finally {
    db.close();
  }
}

/**
 * Every file under a folder with its content hash; the database by what it holds (its bytes
 * move between the file and the -wal as connections open and close), the lock file aside (its
 * content is informational).
 */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(d, e.name), r);
      else if (r === LOCK_FILE || r === "colony.db-wal" || r === "colony.db-shm") continue;
      else out[r] = r === "colony.db" ? databaseDigest(join(d, e.name)) : sha256(readFileSync(join(d, e.name)));
    }
  };
  if (existsSync(dir)) walk(dir, "");
  return out;
}

/** A database at `path` with only the first `k` migrations applied. */
function partiallyMigrated(path: string, k: number) {
  const db = openDatabase(path);
  (db as any).dialect.migrate(embeddedMigrations().slice(0, k), (db as any).session, {});
  db.$client.close();
}

/** Records a migration this build does not know, as a newer colony would have. */
function addFutureMigration(path: string) {
  const db = new Database(path);
  const latest = Math.max(...migrations.map((m) => m.when));
  db.query("insert into __drizzle_migrations (hash, created_at) values ('from-a-newer-colony', ?)").run(latest + 86_400_000);
  db.close();
}

describe("guarded upgrades", () => {
  const older = migrations.length - 2;
  const copiesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith("pre-migrate-")) : []);

  const entryPoints: [string, (dataDir: string, backupDir: string, now: number) => void][] = [
    ["server start and the admin commands (createContext)", (dataDir, backupDir, now) => live(dataDir, { backupDir }, new TestClock(now)).close()],
    ["colony migrate", (dataDir, backupDir) => expect(colony(dataDir, ["migrate", "--backup-dir", backupDir]).code).toBe(0)],
  ];

  test.each(entryPoints)("%s: a copy of the database is taken once, before pending migrations run", (_name, open) => {
    const dataDir = fresh("upgrade");
    const backupDir = join(dataDir, "backups");
    mkdirSync(dataDir);
    partiallyMigrated(join(dataDir, "colony.db"), older);
    open(dataDir, backupDir, T0);
    const copies = copiesIn(backupDir);
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatch(new RegExp(`^pre-migrate-${older}-to-${migrations.length}-\\d{4}-.*Z\\.db$`));
    const copy = join(backupDir, copies[0]);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    const db = new Database(copy, { readonly: true });
    expect((db.query("select count(*) as n from __drizzle_migrations").get() as { n: number }).n).toBe(older);
    db.close();
    // Up to date now: no more copies.
    open(dataDir, backupDir, T0 + DAY);
    expect(copiesIn(backupDir)).toHaveLength(1);
  });

  test("a fresh database needs no copy", () => {
    const dataDir = fresh("fresh");
    live(dataDir).close();
    expect(copiesIn(join(dataDir, "backups"))).toEqual([]);
  });

  test("only the newest upgradeBackupsKeep copies are kept", () => {
    const backupDir = fresh("kept-copies");
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      const dataDir = fresh("keep");
      mkdirSync(dataDir);
      partiallyMigrated(join(dataDir, "colony.db"), older);
      const now = T0 + i * DAY;
      names.push(`pre-migrate-${older}-to-${migrations.length}-${fileStamp(now)}.db`);
      live(dataDir, { backupDir, upgradeBackupsKeep: 2 }, new TestClock(now)).close();
    }
    expect(copiesIn(backupDir).sort()).toEqual(names.slice(1).sort());
  });

  const refusals: [string, (dataDir: string) => { code: number | null; err: string } | void][] = [
    ["createContext", (dataDir) => expect(() => live(dataDir)).toThrow(NewerDatabaseError)],
    ["colony serve", (dataDir) => colony(dataDir, ["serve", "--port", "0"])],
    ["colony migrate", (dataDir) => colony(dataDir, ["migrate"])],
    ["colony admin create-user", (dataDir) => colony(dataDir, ["admin", "create-user", "too-new"])],
  ];

  test.each(refusals)("%s refuses a database last opened by a newer colony, changing nothing", (_name, run) => {
    const dataDir = fresh("too-new");
    live(dataDir).close();
    addFutureMigration(join(dataDir, "colony.db"));
    const before = tree(dataDir);
    const r = run(dataDir);
    if (r) {
      expect(r.code).toBe(1);
      expect(r.err).toContain("was last opened by a newer colony");
      expect(r.err).toContain("pre-migrate");
    }
    expect(tree(dataDir)).toEqual(before);
    expect(copiesIn(join(dataDir, "backups"))).toEqual([]);
  });
});
