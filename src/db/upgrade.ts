// Guarded upgrades: every path that opens the data folder's database for work (serve, migrate,
// the admin commands, restore) goes through here. A database that a newer colony has migrated
// is refused before anything touches it; before pending migrations run on a database that has
// data, a copy of it is taken into the backup folder, so an upgrade can always be rolled back.
import type { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "./client";
import { migrate, migrationStatus } from "./migrate";
import { fileStamp, keepNewest, snapshotDatabase } from "./snapshot";

/** The database holds migrations this build does not know: a newer colony opened it. */
export class NewerDatabaseError extends Error {
  constructor(
    readonly label: string,
    readonly unknown: number[],
  ) {
    super(
      `${label} was last opened by a newer colony (${unknown.length} migration(s) this build does not know); ` +
        "run that version, or restore the pre-upgrade copy (colony restore <backup dir>/pre-migrate-….db) to go back to this one",
    );
  }
}

/** Throws NewerDatabaseError when the database holds migrations this build does not know. */
export function assertKnownMigrations(sqlite: Database, label: string): void {
  const { unknown } = migrationStatus(sqlite);
  if (unknown.length) throw new NewerDatabaseError(label, unknown);
}

/** Pre-migration copies: pre-migrate-<from>-to-<to>-<stamp>.db. */
const PRE_MIGRATE_PATTERN = /^pre-migrate-\d+-to-\d+-(\d{4}-\d{2}-\d{2}T[\d-]+Z)\.db$/;

interface GuardedMigrateOptions {
  /** How the database is named in messages (its path). */
  label: string;
  /** Where the pre-migration copy goes. */
  backupDir: string;
  /** How many pre-migration copies to keep (the newest). */
  keep: number;
  /** The instant in the copy's name. */
  now: number;
  print?: (line: string) => void;
}

interface GuardedMigrateResult {
  /** Migrations applied. */
  applied: number;
  /** The copy taken before they ran, if any. */
  copy: string | null;
}

/**
 * Refuses a database from a newer colony; takes a copy into `backupDir` when migrations are
 * pending on a database that already has some (a fresh one has nothing to lose); then migrates.
 * The caller holds the data folder's lock, or (the admin commands) works where a server already
 * migrated.
 */
export function migrateGuarded(db: Db, opts: GuardedMigrateOptions): GuardedMigrateResult {
  const status = migrationStatus(db.$client);
  if (status.unknown.length) throw new NewerDatabaseError(opts.label, status.unknown);
  // Up to date (every start but the first after an upgrade): nothing for drizzle's migrator to do.
  if (!status.pending.length) return { applied: 0, copy: null };
  let copy: string | null = null;
  if (status.applied > 0) {
    mkdirSync(opts.backupDir, { recursive: true, mode: 0o700 });
    const to = status.applied + status.pending.length;
    copy = join(opts.backupDir, `pre-migrate-${status.applied}-to-${to}-${fileStamp(opts.now)}.db`);
    opts.print?.(`${status.pending.length} migration(s) pending: copying the database to ${copy} first`);
    snapshotDatabase(db.$client, copy);
    keepNewest(opts.backupDir, PRE_MIGRATE_PATTERN, opts.keep);
  }
  return { applied: migrate(db), copy };
}
