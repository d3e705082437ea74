// Applies the embedded migrations through drizzle's own migrator, so the bookkeeping table
// (__drizzle_migrations) stays compatible with drizzle-kit.
import { createHash } from "node:crypto";
import type { MigrationMeta } from "drizzle-orm/migrator";
import { migrations } from "../../migrations";
import type { Database } from "bun:sqlite";
import type { Db } from "./client";

export function embeddedMigrations(): MigrationMeta[] {
  return migrations.map((m) => ({
    sql: m.sql.split("--> statement-breakpoint"),
    bps: m.breakpoints,
    folderMillis: m.when,
    hash: createHash("sha256").update(m.sql).digest("hex"),
  }));
}

/** Returns how many migrations were applied. */
export function migrate(db: Db): number {
  const before = appliedCount(db);
  // drizzle's sqlite dialect runs them in one transaction and skips those already recorded.
  (db as any).dialect.migrate(embeddedMigrations(), (db as any).session, {});
  return appliedCount(db) - before;
}

function appliedCount(db: Db): number {
  const row = db.$client
    .query("select count(*) as n from sqlite_master where type = 'table' and name = '__drizzle_migrations'")
    .get() as { n: number };
  if (!row.n) return 0;
  return (db.$client.query("select count(*) as n from __drizzle_migrations").get() as { n: number }).n;
}

interface MigrationStatus {
  /** Migrations recorded in the database. */
  applied: number;
  /** Embedded migrations not yet applied, by tag. */
  pending: string[];
  /**
   * Migrations recorded in the database that this build does not know (by their creation
   * time): the database was last opened by a newer version.
   */
  unknown: number[];
}

/** Compares the database's migration record with the migrations embedded in this build. Reads only. */
export function migrationStatus(sqlite: Database): MigrationStatus {
  const table = sqlite.query("select count(*) as n from sqlite_master where type = 'table' and name = '__drizzle_migrations'").get() as { n: number };
  const applied = table.n ? (sqlite.query("select created_at from __drizzle_migrations").all() as { created_at: number }[]).map((r) => Number(r.created_at)) : [];
  const known = new Set(migrations.map((m) => m.when));
  const done = new Set(applied);
  return {
    applied: applied.length,
    pending: migrations.filter((m) => !done.has(m.when)).map((m) => m.tag),
    unknown: applied.filter((when) => !known.has(when)),
  };
}
