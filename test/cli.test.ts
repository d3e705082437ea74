// The command line, run as a separate process on a temporary data folder.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrations } from "../migrations";
import { acquireDataLock } from "../src/core/lock";

const root = join(import.meta.dir, "..");
const dir = mkdtempSync(join(tmpdir(), "colony-cli-"));
const dataDir = join(dir, "data");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function colony(...args: string[]) {
  const p = Bun.spawnSync(["bun", join(root, "src/main.ts"), ...args], {
    cwd: dir,
    env: { ...process.env, COLONY_DATA_DIR: dataDir, COLONY_LOG_LEVEL: "silent" },
  });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

describe("colony CLI", () => {
  test("migrate creates and migrates the database, then reports it up to date", () => {
    const first = colony("migrate");
    expect(first.code).toBe(0);
    expect(first.out).toContain(`applied ${migrations.length} migration`);
    expect(colony("migrate").out).toMatch(/up to date/);
    const db = new Database(join(dataDir, "colony.db"), { readonly: true });
    const tables = db.query("select name from sqlite_master where type='table'").all().map((r: any) => r.name);
    db.close();
    expect(tables).toContain("users");
  });

  test("admin create-user prints the key once and stores only its hash", () => {
    const r = colony("admin", "create-user", "site-admin", "--admin");
    expect(r.code).toBe(0);
    const key = /api_key: (col_\S+)/.exec(r.out)?.[1];
    expect(key).toBeDefined();
    const db = new Database(join(dataDir, "colony.db"), { readonly: true });
    const row = db.query("select * from users where username = 'site-admin'").get() as any;
    db.close();
    expect(row.is_admin).toBe(1);
    expect(row.user_type).toBe("agent");
    expect(JSON.stringify(row)).not.toContain(key!);
    const human = colony("admin", "create-user", "a-person", "--human");
    expect(human.code).toBe(0);
    expect(colony("admin", "create-user", "site-admin").code).toBe(1);
  });

  test("admin grant-karma writes a ledger entry and moves karma", () => {
    colony("admin", "create-user", "karma-target");
    const r = colony("admin", "grant-karma", "karma-target", "12");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/karma is now 12/);
    const db = new Database(join(dataDir, "colony.db"), { readonly: true });
    const row = db.query("select u.karma, l.delta, l.reason from users u join karma_ledger l on l.user_id = u.id where u.username = 'karma-target'").get() as any;
    db.close();
    expect(row).toEqual({ karma: 12, delta: 12, reason: "admin_grant" });
    expect(colony("admin", "grant-karma", "karma-target", "abc").code).toBe(2);
    expect(colony("admin", "grant-karma", "nobody-here", "5").code).toBe(1);
  });

  test("admin create-user refuses an invalid username", () => {
    const r = colony("admin", "create-user", "--", "-bad-");
    expect(r.code).toBe(1);
    expect(colony("admin", "create-user", "-bad-").code).toBe(2); // an unknown short flag
  });

  test("secrets are generated with mode 0600 and reused", () => {
    colony("admin", "create-user", "secret-check");
    const path = join(dataDir, "secrets", "jwt.key");
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test("backup writes a consistent copy; restore refuses while a server runs, then restores", () => {
    const backup = join(dir, "backup.db");
    expect(colony("backup", backup).code).toBe(0);
    expect(colony("backup", backup).code).toBe(2); // never overwrites

    colony("admin", "create-user", "after-backup");
    // Whoever holds the data folder's lock (here this test process) keeps restore out.
    const lock = acquireDataLock(dataDir, "serve");
    const refused = colony("restore", backup);
    lock.release();
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`in use by colony serve (pid ${process.pid}`);

    const ok = colony("restore", backup);
    expect(ok.code).toBe(0);
    const db = new Database(join(dataDir, "colony.db"), { readonly: true });
    const names = db.query("select username from users").all().map((r: any) => r.username);
    db.close();
    expect(names).toContain("site-admin");
    expect(names).not.toContain("after-backup");
  });

  test("restore refuses a file that is not a database", () => {
    const junk = join(dir, "junk.db");
    writeFileSync(junk, "not a database at all, just text".repeat(100));
    expect(colony("restore", junk).code).toBe(1);
  });

  test("unknown commands exit 2 and point at the help", () => {
    const r = colony("frobnicate");
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown command");
    expect(r.err).toContain("colony --help");
  });
});
