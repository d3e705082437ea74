// `colony migrate`: applies pending migrations under the data folder's lock, after taking a copy
// of the database into the backup folder (db/upgrade.ts).
import type { Config } from "../config";
import { systemClock } from "../core/clock";
import { databasePath } from "../core/context";
import { acquireDataLock } from "../core/lock";
import { openDatabase } from "../db/client";
import { migrateGuarded } from "../db/upgrade";

export function migrateDataDir(config: Config, print: (line: string) => void = console.log): void {
  const lock = acquireDataLock(config.dataDir, "migrate");
  try {
    const path = databasePath(config);
    const db = openDatabase(path);
    try {
      const { applied, copy } = migrateGuarded(db, { label: path, backupDir: config.backupDir, keep: config.upgradeBackupsKeep, now: systemClock.now(), print });
      print(applied ? `applied ${applied} migration(s)${copy ? `; the database before them is ${copy}` : ""}` : "database is up to date");
    } finally {
      db.$client.close();
    }
  } finally {
    lock.release();
  }
}
