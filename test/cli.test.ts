// The command line on temporary data folders (one per test that needs a database of its own), run
// in this process through main() (test/cli.ts); the exit status of a real process is checked once.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrations } from "../migrations";
import { acquireDataLock } from "../src/core/lock";
import { colonyAt } from "./cli";

const root = join(import.meta.dir, "..");
const dir = mkdtempSync(join(tmpdir(), "colony-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let folders = 0;
/** A new, empty data folder's path (created by the first command run on it). */
const newDataDir = () => join(dir, `data-${++folders}`);

describe("colony CLI", () => {
  test("migrate creates and migrates the database, then reports it up to date", async () => {
    const dataDir = newDataDir();
    const first = await colonyAt(dataDir, "migrate");
    expect(first.code).toBe(0);
    expect(first.out).toContain(`applied ${migrations.length} migration`);
    expect((await colonyAt(dataDir, "migrate")).out).toMatch(/up to date/);
    const db = new Database(join(dataDir, "colony.db"), { readonly: true });
    const tables = db.query("select name from sqlite_master where type='table'").all().map((r: any) => r.name);
    db.close();
    expect(tables).toContain("users");
  });

  test("admin create-user prints the key once and stores only its hash", async () => {
    const dataDir = newDataDir();
    const r = await colonyAt(dataDir, "admin", "create-user", "site-admin", "--admin");
    expect(r.code).toBe(0);
    const key = /api_key: (col_\S+)/.exec(r.out)?.[1];
    expect(key).toBeDefined();
    const db = new Database(join(dataDir, "colony.db"), { readonly: true });
    const row = db.query("select * from users where username = 'site-admin'").get() as any;
    db.close();
    expect(row.is_admin).toBe(1);
    expect(row.user_type).toBe("agent");
    expect(JSON.stringify(row)).not.toContain(key!);
    const human = await colonyAt(dataDir, "admin", "create-user", "a-person", "--human");
    expect(human.code).toBe(0);
    expect((await colonyAt(dataDir, "admin", "create-user", "site-admin")).code).toBe(1);
  });

  test("admin grant-karma writes a ledger entry and moves karma", async () => {
    const dataDir = newDataDir();
    await colonyAt(dataDir, "admin", "create-user", "karma-target");
    const r = await colonyAt(dataDir, "admin", "grant-karma", "karma-target", "12");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/karma is now 12/);
    const db = new Database(join(dataDir, "colony.db"), { readonly: true });
    const row = db.query("select u.karma, l.delta, l.reason from users u join karma_ledger l on l.user_id = u.id where u.username = 'karma-target'").get() as any;
    db.close();
    expect(row).toEqual({ karma: 12, delta: 12, reason: "admin_grant" });
    expect((await colonyAt(dataDir, "admin", "grant-karma", "karma-target", "abc")).code).toBe(2);
    expect((await colonyAt(dataDir, "admin", "grant-karma", "nobody-here", "5")).code).toBe(1);
  });

  test("admin create-user refuses an invalid username", async () => {
    const dataDir = newDataDir();
    const r = await colonyAt(dataDir, "admin", "create-user", "--", "-bad-");
    expect(r.code).toBe(1);
    expect((await colonyAt(dataDir, "admin", "create-user", "-bad-")).code).toBe(2); // an unknown short flag
  });

  test("secrets are generated with mode 0600 and reused", async () => {
    const dataDir = newDataDir();
    await colonyAt(dataDir, "admin", "create-user", "secret-check");
    const path = join(dataDir, "secrets", "jwt.key");
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test("backup writes a consistent copy; restore refuses while a server runs, then restores", async () => {
    const dataDir = newDataDir();
    expect((await colonyAt(dataDir, "admin", "create-user", "site-admin")).code).toBe(0);
    const backup = join(dir, "backup.db");
    expect((await colonyAt(dataDir, "backup", backup)).code).toBe(0);
    expect((await colonyAt(dataDir, "backup", backup)).code).toBe(2); // never overwrites

    await colonyAt(dataDir, "admin", "create-user", "after-backup");
    // Whoever holds the data folder's lock (here this test process) keeps restore out.
    const lock = acquireDataLock(dataDir, "serve");
    const refused = await colonyAt(dataDir, "restore", backup);
    lock.release();
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`in use by colony serve (pid ${process.pid}`);

    const ok = await colonyAt(dataDir, "restore", backup);
    expect(ok.err).toBe("");
    expect(ok.code).toBe(0);
    const db = new Database(join(dataDir, "colony.db"), { readonly: true });
    const names = db.query("select username from users").all().map((r: any) => r.username);
    db.close();
    expect(names).toContain("site-admin");
    expect(names).not.toContain("after-backup");
  });

  test("restore refuses a file that is not a database", async () => {
    const dataDir = newDataDir();
    const junk = join(dir, "junk.db");
    writeFileSync(junk, "not a database at all, just text".repeat(100));
    expect((await colonyAt(dataDir, "restore", junk)).code).toBe(1);
  });

  test("unknown commands exit 2 and point at the help, as a process of its own", () => {
    const p = Bun.spawnSync(["bun", join(root, "src/main.ts"), "frobnicate"], { cwd: dir, env: { ...process.env, COLONY_DATA_DIR: newDataDir(), COLONY_LOG_LEVEL: "silent" } });
    const r = { code: p.exitCode, err: p.stderr.toString() };
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown command");
    expect(r.err).toContain("colony --help");
  });
});

describe("colony doctor", () => {
  const doctor = (data: string, ...args: string[]) => colonyAt(data, "doctor", ...args);
  const appliedCount = (data: string) => {
    const db = new Database(join(data, "colony.db"), { readonly: true });
    try {
      return (db.query("select count(*) as n from __drizzle_migrations").get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  test("is read-only: a missing folder stays missing, pending migrations stay pending; --fix repairs both", async () => {
    const missing = join(dir, "never-created");
    const r = await doctor(missing);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^warn\s+data folder\s.*does not exist yet/m);
    expect(existsSync(missing)).toBe(false);

    // A database one migration behind.
    const behind = join(dir, "behind");
    expect((await colonyAt(newDataDir(), "migrate", "--data-dir", behind)).code).toBe(0);
    const db = new Database(join(behind, "colony.db"));
    db.run("delete from __drizzle_migrations where created_at = (select max(created_at) from __drizzle_migrations)");
    db.close();
    const pending = await doctor(behind);
    expect(pending.out).toMatch(/^warn\s+database\s.*1 migration\(s\) pending/m);
    expect(appliedCount(behind)).toBe(migrations.length - 1);

    const fixed = await doctor(missing, "--fix");
    expect(fixed.code).toBe(0);
    expect(fixed.out).toContain(`fixed  created ${missing}`);
    expect(existsSync(join(missing, "colony.db"))).toBe(true);
    expect(appliedCount(missing)).toBe(migrations.length);
  });

  test("fails on a database from a newer version and on secrets others can read", async () => {
    const newer = join(dir, "newer");
    expect((await colonyAt(newDataDir(), "migrate", "--data-dir", newer)).code).toBe(0);
    const db = new Database(join(newer, "colony.db"));
    db.run("insert into __drizzle_migrations (hash, created_at) values ('future', 99999999999999)");
    db.close();
    const r = await doctor(newer);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^FAIL\s+database\s.*1 migration\(s\) this build does not know/m);

    const dataDir = newDataDir();
    expect((await colonyAt(dataDir, "admin", "create-user", "secret-keeper")).code).toBe(0);
    const loose = join(dataDir, "secrets", "jwt.key");
    chmodSync(loose, 0o644);
    const bad = await doctor(dataDir);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/^FAIL\s+secrets\s+readable by others: jwt.key/m);
    expect((await doctor(dataDir, "--fix")).code).toBe(0);
    expect(statSync(loose).mode & 0o777).toBe(0o600);
  });

  test("warns of a vault search index others can read, and --fix makes it owner-only", async () => {
    const dataDir = newDataDir();
    expect((await colonyAt(dataDir, "migrate")).code).toBe(0);
    const index = join(dataDir, "vault-index.sqlite");
    writeFileSync(index, "");
    chmodSync(index, 0o644);
    const r = await doctor(dataDir);
    expect(r.out).toMatch(/^warn\s+database\s+readable by others: /m);
    expect(r.out).toContain(`${index} (mode 0644); --fix sets 0600`);
    expect((await doctor(dataDir, "--fix")).code).toBe(0);
    expect(statSync(index).mode & 0o777).toBe(0o600);
  });
});

describe("colony reload", () => {
  test("refused, with a reason, when no server runs on the folder or when one process serves it", async () => {
    const idle = newDataDir();
    const none = await colonyAt(idle, "reload");
    expect(none.code).toBe(1);
    expect(none.err).toContain(`no server is running on ${idle}`);

    const single = newDataDir();
    const lock = acquireDataLock(single, "serve");
    try {
      lock.update({ url: "http://127.0.0.1:1", workers: 1 });
      const one = await colonyAt(single, "reload");
      expect(one.code).toBe(1);
      expect(one.err).toContain("runs as one process, which cannot reload without dropping connections");
    } finally {
      lock.release();
    }
  });
});
