// `colony admin bugs` and `colony admin answer-bug` (through main(), test/cli.ts) on a temporary
// data folder: the operator's way to triage bug reports (spec Part 3 §4.16).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { colonyWith } from "./cli";

const dir = mkdtempSync(join(tmpdir(), "colony-cli-bugs-"));
const dataDir = join(dir, "data");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const colony = (...args: string[]) => colonyWith({ ...process.env, COLONY_DATA_DIR: dataDir }, ...args);

const ids: string[] = [];
/** The oldest report, answered by its own test alone. */
const answered = "0190a4f2-0000-7000-8000-0000000000aa";
beforeAll(async () => {
  expect((await colony("admin", "create-user", "reporter-one")).code).toBe(0);
  const db = new Database(join(dataDir, "colony.db"));
  const user = db.query("select id from users where username = 'reporter-one'").get() as { id: string };
  const insert = db.prepare("insert into bug_reports (id, user_id, title, description, url, status, created_at, updated_at) values (?, ?, ?, ?, ?, 'open', ?, ?)");
  for (const [i, title] of ["Login loops", "Search crashes"].entries()) {
    const id = `0190a4f2-0000-7000-8000-00000000000${i}`;
    insert.run(id, user.id, title, `First line ${i}\nsecond line`, i ? "https://example.org/x" : null, 1_000 + i, 1_000 + i);
    ids.push(id);
  }
  insert.run(answered, user.id, "Avatars vanish", "Since this morning", null, 999, 999);
  db.close();
});

const row = (id: string) => {
  const db = new Database(join(dataDir, "colony.db"), { readonly: true });
  const r = db.query("select status, admin_response from bug_reports where id = ?").get(id);
  db.close();
  return r;
};

describe("colony admin bugs / answer-bug", () => {
  test("lists open reports oldest first with reporter, title, address and description", async () => {
    const r = await colony("admin", "bugs");
    expect(r.code).toBe(0);
    expect(r.out.indexOf(ids[0])).toBeGreaterThanOrEqual(0);
    expect(r.out.indexOf(ids[0])).toBeLessThan(r.out.indexOf(ids[1]));
    expect(r.out).toContain("reporter-one");
    expect(r.out).toContain("title: Login loops");
    expect(r.out).toContain("url: https://example.org/x");
    expect(r.out).toContain("  | second line");
  });

  test("answers: status and response; the reporter's row changes; listing by status follows", async () => {
    const r = await colony("admin", "answer-bug", answered, "--status", "acknowledged", "--response", "Looking into it");
    expect(r.code).toBe(0);
    expect(r.out).toContain("acknowledged");
    expect(row(answered)).toEqual({ status: "acknowledged", admin_response: "Looking into it" });
    expect((await colony("admin", "bugs")).out).not.toContain(answered);
    const acknowledged = (await colony("admin", "bugs", "--status", "acknowledged")).out;
    expect(acknowledged).toContain(answered);
    expect(acknowledged).toContain("response: Looking into it");
    expect((await colony("admin", "answer-bug", answered, "--clear-response")).code).toBe(0);
    expect(row(answered)).toEqual({ status: "acknowledged", admin_response: null });
    const all = (await colony("admin", "bugs", "--all", "--limit", "1")).out;
    expect(all).toContain(answered);
    expect(all).not.toContain(ids[0]);
  });

  test("usage errors exit 2 and change nothing; an unknown report exits 1", async () => {
    for (const args of [
      ["answer-bug", ids[1]],
      ["answer-bug", ids[1], "--status", "resolved"],
      ["answer-bug", ids[1], "--response", "x", "--clear-response"],
      ["bugs", "--status", "wontfix"],
      ["bugs", "--status", "open", "--all"],
      ["bugs", "--limit", "0"],
    ]) {
      const r = await colony("admin", ...args);
      expect([args.join(" "), r.code]).toEqual([args.join(" "), 2]);
    }
    expect(row(ids[1])).toEqual({ status: "open", admin_response: null });
    const missing = await colony("admin", "answer-bug", "0190a4f2-0000-7000-8000-0000000000ff", "--status", "closed");
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("No bug report");
  });
});
