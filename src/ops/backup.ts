// `colony backup` and `colony restore`.
//
// A backup is one archive (ops/archive.ts): a snapshot of the database, the secrets and every
// folder of uploaded files (core/data-folders.ts), with a manifest. `--db-only` writes the
// snapshot alone, as a plain SQLite file. Restore takes either (told apart by their first
// bytes), verifies it completely before it changes anything, sets aside what it replaces, and
// holds the data folder's lock throughout.
import { Database } from "bun:sqlite";
import { closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Config } from "../config";
import { systemClock } from "../core/clock";
import { databasePath } from "../core/context";
import { DATA_FOLDER_NAMES, sqliteFiles } from "../core/data-folders";
import { acquireDataLock } from "../core/lock";
import { openDatabase } from "../db/client";
import { FTS_INDEXES, rebuildFtsIndex } from "../db/fts";
import { migrate } from "../db/migrate";
import { fileStamp, publishFile, snapshotDatabase } from "../db/snapshot";
import { assertKnownMigrations } from "../db/upgrade";
import { INDEX_FILE as VAULT_INDEX_FILE } from "../features/vault/index-db";
import { extractArchive, formatBytes, writeArchive, type Print } from "./archive";

interface BackupOptions {
  /** Only the database, as a plain SQLite file (no secrets, no uploaded files). */
  dbOnly?: boolean;
}

/** Writes a backup of the data folder to `target` (which must not exist). Safe while serving. */
export async function backup(config: Config, target: string, opts: BackupOptions = {}, print: Print = console.log): Promise<void> {
  const out = resolve(target);
  if (existsSync(out)) throw new Error(`${out} already exists; choose a new file name`);
  if (!opts.dbOnly) {
    const r = await writeArchive({ dataDir: config.dataDir, target: out, now: systemClock.now(), print });
    const files = Object.values(r.manifest.folders).reduce((n, f) => n + f.files, 0);
    print(`backup written to ${out} (${formatBytes(r.bytes)}: the database and ${files} file(s))`);
    return;
  }
  const src = databasePath(config);
  if (!existsSync(src)) throw new Error(`no database at ${src}`);
  mkdirSync(dirname(out), { recursive: true, mode: 0o700 });
  const work = mkdtempSync(join(dirname(out), `.${basename(out)}.partial-`));
  try {
    print(`snapshot of ${src} …`);
    const tmp = join(work, "colony.db");
    snapshotDatabase(src, tmp);
    publishFile(tmp, out);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  print(`backup written to ${out} (${formatBytes(statSync(out).size)}; the database only: keep ${join(config.dataDir, "secrets")} and the uploaded files as well)`);
}

/** What a file to restore is, by its first bytes. */
function backupKind(path: string): "sqlite" | "archive" {
  const head = Buffer.alloc(16);
  const fd = openSync(path, "r");
  let n: number;
  try {
    n = readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (n === 16 && head.toString("latin1") === "SQLite format 3\0") return "sqlite";
  if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "archive";
  throw new Error(`${path} is neither a SQLite database nor a backup archive (.tar.gz)`);
}

/** integrity_check, and a database this build can open; throws otherwise. */
function verifyDatabase(path: string, label: string, print: Print): void {
  print("checking the database's integrity …");
  const db = new Database(path, { readonly: true });
  try {
    const result = (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
    if (result !== "ok") throw new Error(`${label} failed the integrity check: ${result}`);
    assertKnownMigrations(db, label);
  } finally {
    db.close();
  }
}

/** Renames `path` to `to` (default: `path` + `suffix`) when it exists; returns the new name. */
function setAside(path: string, suffix: string, to = path + suffix): string | null {
  if (!existsSync(path)) return null;
  renameSync(path, to);
  return to;
}

/**
 * Replaces the data folder's database (and, from an archive, its secrets and uploaded files)
 * with a backup. Holds the data folder's lock throughout, so never runs beside a server.
 */
export async function restore(config: Config, source: string, print: Print = console.log): Promise<void> {
  const src = resolve(source);
  if (!existsSync(src)) throw new Error(`${src} does not exist`);
  const kind = backupKind(src);
  const lock = acquireDataLock(config.dataDir, "restore");
  const stamp = fileStamp(systemClock.now());
  // Staged inside the data folder, so that moving it into place is a rename.
  const staging = join(config.dataDir, `.restore-${stamp}-${process.pid}`);
  try {
    // 1. Verify everything before anything changes.
    print(`verifying ${src} …`);
    let stagedDb: string;
    let folders: string[] | null = null;
    if (kind === "archive") {
      const staged = await extractArchive(src, staging, print);
      stagedDb = staged.database;
      folders = staged.folders;
    } else {
      mkdirSync(staging, { mode: 0o700 });
      stagedDb = join(staging, "colony.db");
      copyFileSync(src, stagedDb);
    }
    verifyDatabase(stagedDb, src, print);

    // 2. Set aside what is replaced, then move the backup into place.
    const suffix = `.pre-restore-${stamp}`;
    const dest = databasePath(config);
    const aside = setAside(dest, suffix);
    // The -wal goes with its database (it may hold committed transactions not yet in the file),
    // named so that SQLite finds it beside the set-aside copy.
    for (const s of ["-wal", "-shm"]) setAside(dest + s, suffix, dest + suffix + s);
    if (aside) print(`previous database kept as ${aside}`);
    renameSync(stagedDb, dest);
    if (folders) {
      for (const name of DATA_FOLDER_NAMES) {
        const kept = setAside(join(config.dataDir, name), suffix);
        if (kept) print(`previous ${name}/ kept as ${kept}`);
        if (folders.includes(name)) renameSync(join(staging, name), join(config.dataDir, name));
      }
    }

    // 3. Bring the restored database up to this build.
    const db = openDatabase(dest);
    try {
      const applied = migrate(db);
      if (applied) print(`applied ${applied} migration(s)`);
      // VACUUM INTO (how backups are taken) may renumber rowids, which the external-content
      // search indexes refer to: rebuild them from the restored rows, then compact each (a
      // rebuild writes many segments; the server is stopped, so at once rather than in steps).
      print(`rebuilding the search indexes (${FTS_INDEXES.join(", ")}) …`);
      for (const fts of FTS_INDEXES) {
        rebuildFtsIndex(db, fts);
        db.$client.run(`INSERT INTO ${fts}(${fts}) VALUES('optimize')`);
      }
      // The vault's search index is a file of its own, derived from the vault's files and never
      // in a backup (docs/decisions.md §177): the one of the replaced data goes, and the server
      // makes it anew from the restored files when it starts (features/vault/fts.ts).
      for (const f of sqliteFiles(join(config.dataDir, VAULT_INDEX_FILE))) rmSync(f, { force: true });
    } finally {
      db.$client.close();
    }
    const what = folders ? `the database and ${folders.length ? folders.map((f) => `${f}/`).join(", ") : "no data folders"}` : "the database";
    print(`restored ${src} into ${config.dataDir} (${what})`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
    lock.release();
  }
}
