// Backups started by a site admin from the dashboard (/admin): the scheduled backup's own run
// (ops/scheduled-backup.ts: an archive named colony-<time>.tar.gz in the backup folder, written on
// a worker thread, the older ones pruned to backupKeep), started off the request and watched here.
// One at a time per server. The folder's files are listed by name, and a download names one of
// them: the name is looked up in the folder's listing, never joined to a path from the client.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Ctx } from "../core/context";
import { runScheduledBackup, type BackupRunStats } from "./scheduled-backup";

export interface ManualBackupState {
  stats: BackupRunStats;
  running: Promise<void> | null;
  startedAt: number | null;
}

const states = new WeakMap<Ctx, ManualBackupState>();

export function manualBackupState(ctx: Ctx): ManualBackupState {
  let s = states.get(ctx);
  if (!s) states.set(ctx, (s = { stats: { runs: 0, failures: 0, failuresInARow: 0, lastFile: null, lastError: null }, running: null, startedAt: null }));
  return s;
}

/** Starts a backup unless one started here is running; returns whether it started. */
export function startManualBackup(ctx: Ctx): boolean {
  const s = manualBackupState(ctx);
  if (s.running) return false;
  s.startedAt = ctx.clock.now();
  s.running = runScheduledBackup(ctx, s.stats).finally(() => {
    s.running = null;
  });
  return true;
}

export interface BackupFile {
  name: string;
  bytes: number;
  modifiedAt: number;
}

/** Files a person may download: plain names, no hidden work files. */
const LISTED = /^[0-9A-Za-z][0-9A-Za-z._-]*\.(?:tar\.gz|db)$/;

/** The finished backup files in the backup folder, newest first (none when the folder does not exist). */
export function listBackupFiles(ctx: Ctx): BackupFile[] {
  let names: string[];
  try {
    names = readdirSync(ctx.config.backupDir);
  } catch {
    return [];
  }
  const out: BackupFile[] = [];
  for (const name of names) {
    if (!LISTED.test(name)) continue;
    try {
      const st = statSync(join(ctx.config.backupDir, name));
      if (st.isFile()) out.push({ name, bytes: st.size, modifiedAt: st.mtimeMs });
    } catch {}
  }
  return out.sort((a, b) => b.modifiedAt - a.modifiedAt || b.name.localeCompare(a.name));
}

/** The path of the listed backup file called `name`, or null when the folder has none by that name. */
export function backupFilePath(ctx: Ctx, name: string): string | null {
  const found = listBackupFiles(ctx).find((f) => f.name === name);
  return found ? join(ctx.config.backupDir, found.name) : null;
}
