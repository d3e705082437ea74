// `colony admin suspend` and `colony admin unsuspend` (through main(), test/cli.ts) on a temporary
// data folder (docs/decisions.md §148): the same service as the dashboard, the state in the row.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { colonyWith } from "./cli";

const dir = mkdtempSync(join(tmpdir(), "colony-cli-suspend-"));
const dataDir = join(dir, "data");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const colony = (...args: string[]) => colonyWith({ ...process.env, COLONY_DATA_DIR: dataDir }, ...args);

function row(username: string) {
  const db = new Database(join(dataDir, "colony.db"), { readonly: true });
  try {
    return db.query("select suspended_at, suspended_until, suspension_reason, suspended_by from users where username = ?").get(username) as Record<string, number | string | null>;
  } finally {
    db.close();
  }
}

test("suspend (with --reason and --days, or until lifted) and unsuspend; bad input is a usage error and changes nothing", async () => {
  expect((await colony("admin", "create-user", "cli-target")).code).toBe(0);
  expect((await colony("admin", "create-user", "cli-admin", "--admin")).code).toBe(0);

  expect((await colony("admin", "suspend", "cli-target", "--days", "0")).code).toBe(2);
  expect((await colony("admin", "suspend", "cli-target", "--days", "x")).code).toBe(2);
  expect((await colony("admin", "suspend", "cli-target", "--reason", "y".repeat(501))).code).toBe(2);
  expect((await colony("admin", "suspend", "nobody-here")).code).toBe(1);
  expect((await colony("admin", "unsuspend", "cli-target")).code).toBe(1); // not suspended: 409
  expect(row("cli-target").suspended_at).toBeNull();

  const r = await colony("admin", "suspend", "cli-target", "--reason", "spam", "--days", "7");
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/^suspended cli-target until \d{4}-\d\d-\d\dT[\d:.]+Z \(reason: spam\)/);
  const s = row("cli-target");
  expect(s.suspension_reason).toBe("spam");
  expect(s.suspended_by).toBeNull();
  expect(Number(s.suspended_until) - Number(s.suspended_at)).toBe(7 * 24 * 3600 * 1000);

  const u = await colony("admin", "unsuspend", "cli-target");
  expect(u.code).toBe(0);
  expect(u.out).toContain("unsuspended cli-target");

  // The operator may suspend a site admin, until lifted.
  const a = await colony("admin", "suspend", "cli-admin");
  expect(a.code).toBe(0);
  expect(a.out).toContain("suspended cli-admin until unsuspended");
  expect(row("cli-admin").suspended_until).toBeNull();
}, 60_000);
