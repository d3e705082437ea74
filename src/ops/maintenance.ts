// `colony migrate`: applies pending migrations under the data folder's lock.
import type { Config } from "../config";
import { databasePath } from "../core/context";
import { acquireDataLock } from "../core/lock";
import { openDatabase } from "../db/client";
import { migrate } from "../db/migrate";

export function migrateDataDir(config: Config, print: (line: string) => void = console.log): void {
  const lock = acquireDataLock(config.dataDir, "migrate");
  try {
    const db = openDatabase(databasePath(config));
    try {
      const n = migrate(db);
      print(n ? `applied ${n} migration(s)` : "database is up to date");
    } finally {
      db.$client.close();
    }
  } finally {
    lock.release();
  }
}
