// Migration 0062 makes reports.colony_id nullable: a report of a person, stored with '' while the
// column was NOT NULL, comes out with NULL; a report of content keeps its colony; the indexes are
// there again.
import { expect, test } from "bun:test";
import { openDatabase } from "../../db/client";
import { embeddedMigrations, migrate } from "../../db/migrate";

test("0062 turns a person's report's '' into NULL and keeps every other column", () => {
  const db = openDatabase(":memory:");
  const all = embeddedMigrations();
  const upTo = all.findIndex((m) => m.sql.join("").includes("NULLIF(\"colony_id\", '')"));
  expect(upTo).toBe(all.length - 1);
  (db as any).dialect.migrate(all.slice(0, upTo), (db as any).session, {});
  const insert = db.$client.query(
    "insert into reports (id, reporter_id, colony_id, target_type, target_id, post_id, reason, description, status, created_at) values (?, 'r', ?, ?, 't', ?, 'spam', 'why', 'pending', 1)",
  );
  insert.run("person", "", "user", null);
  insert.run("content", "colony-1", "post", "p-1");
  expect(migrate(db)).toBe(1);
  expect(db.$client.query("select id, colony_id, target_type, post_id, reason, description, status, created_at from reports order by id").all()).toEqual([
    { id: "content", colony_id: "colony-1", target_type: "post", post_id: "p-1", reason: "spam", description: "why", status: "pending", created_at: 1 },
    { id: "person", colony_id: null, target_type: "user", post_id: null, reason: "spam", description: "why", status: "pending", created_at: 1 },
  ]);
  const indexes = (db.$client.query("select name from sqlite_master where type = 'index' and tbl_name = 'reports' and sql is not null order by name").all() as { name: string }[]).map((r) => r.name);
  expect(indexes).toEqual(["reports_colony_status_idx", "reports_target_idx"]);
  db.$client.close();
});
