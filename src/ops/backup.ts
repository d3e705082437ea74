// `colony backup` and `colony restore`.
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Config } from "../config";
import { databasePath } from "../core/context";
import { acquireDataLock } from "../core/lock";
import { openDatabase } from "../db/client";
import { FTS_INDEXES } from "../db/fts";
import { migrate } from "../db/migrate";

export function backup(config: Config, target: string, print: (line: string) => void = console.log) {
  const out = resolve(target);
  if (existsSync(out)) throw new Error(`${out} already exists; choose a new file name`);
  const src = databasePath(config);
  if (!existsSync(src)) throw new Error(`no database at ${src}`);
  mkdirSync(dirname(out), { recursive: true });
  const db = new Database(src, { readonly: true });
  db.run("PRAGMA busy_timeout = 5000");
  // VACUUM INTO takes a read transaction: a consistent snapshot while the server keeps serving.
  db.query("VACUUM INTO ?").run(out);
  db.close();
  print(`backup written to ${out}`);
}

/** Replaces the data folder's database with a backup. Holds the data folder's lock throughout. */
export function restore(config: Config, source: string, print: (line: string) => void = console.log) {
  const src = resolve(source);
  if (!existsSync(src)) throw new Error(`${src} does not exist`);
  const lock = acquireDataLock(config.dataDir, "restore");
  try {
    const check = new Database(src, { readonly: true });
    let result: string;
    try {
      result = (check.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
    } finally {
      check.close();
    }
    if (result !== "ok") throw new Error(`${src} failed the integrity check: ${result}`);
    const dest = databasePath(config);
    if (existsSync(dest)) {
      const aside = `${dest}.pre-restore-${new Date().toISOString().replace(/[:.]/g, "-")}`;
      renameSync(dest, aside);
      print(`previous database kept as ${aside}`);
    }
    for (const suffix of ["-wal", "-shm"]) rmSync(dest + suffix, { force: true });
    copyFileSync(src, dest);
    const db = openDatabase(dest);
    const applied = migrate(db);
    // VACUUM INTO (how backups are taken) may renumber rowids, which the external-content search
    // indexes refer to: rebuild them from the restored rows, then compact each (a rebuild writes
    // many segments; the server is stopped, so at once rather than in steps).
    for (const fts of FTS_INDEXES) {
      db.$client.run(`INSERT INTO ${fts}(${fts}) VALUES('rebuild')`);
      db.$client.run(`INSERT INTO ${fts}(${fts}) VALUES('optimize')`);
    }
    db.$client.close();
    print(`restored ${src} to ${dest}${applied ? ` (${applied} migration(s) applied)` : ""}`);
  } finally {
    lock.release();
  }
}
