// Scheduled backups: with `backupCron` set, the server writes a backup archive into the backup
// folder (colony-<time>.tar.gz) on that schedule and keeps the newest `backupKeep` of them. The
// archive is written on a worker thread (ops/backup-worker.ts), so the snapshot and the
// compression never hold up requests. A failure is logged and counted; it never stops the
// server, and the next run tries again.
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Ctx } from "../core/context";
import { fileStamp, keepNewest } from "../db/snapshot";
import { workerScript } from "../db/workers";
import type { BackupWorkerMessage, BackupWorkerRequest } from "./backup-worker";

/** The name of a scheduled backup; only files of this form are ever pruned. */
export const SCHEDULED_PATTERN = /^colony-(\d{4}-\d{2}-\d{2}T[\d-]+Z)\.tar\.gz$/;
export const scheduledName = (now: number) => `colony-${fileStamp(now)}.tar.gz`;

export const BACKUP_TASK = "backup";

/** The work folder of a scheduled backup cut short (the server stopped while it ran). */
const LEFTOVER = /^\.colony-\d{4}-\d{2}-\d{2}T[\d-]+Z\.tar\.gz\.partial-/;

export interface BackupRunStats {
  runs: number;
  failures: number;
  /** Failures since the last success. */
  failuresInARow: number;
  lastFile: string | null;
  lastError: string | null;
}

/** Writes one archive on a worker thread; resolves with its summary, rejects with its error. */
function backupOnWorker(req: BackupWorkerRequest, onProgress: (line: string) => void = () => {}): Promise<Extract<BackupWorkerMessage, { type: "done" }>> {
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker(workerScript("backup-worker", "ops"));
    } catch (err) {
      return reject(err);
    }
    const end = () => worker.terminate();
    worker.addEventListener("message", (e: MessageEvent<BackupWorkerMessage>) => {
      const m = e.data;
      if (m.type === "progress") return onProgress(m.line);
      end();
      if (m.type === "done") resolve(m);
      else reject(new Error(m.message));
    });
    worker.addEventListener("error", (e) => {
      end();
      reject(new Error(String((e as ErrorEvent).message ?? e)));
    });
    worker.postMessage(req);
  });
}

/** Writes one scheduled backup and prunes the older ones. Never throws. */
export async function runScheduledBackup(ctx: Ctx, stats: BackupRunStats): Promise<void> {
  const { backupDir, backupKeep, dataDir } = ctx.config;
  const now = ctx.clock.now();
  const target = join(backupDir, scheduledName(now));
  const started = performance.now();
  stats.runs++;
  ctx.log.info("backup started", { file: target });
  try {
    mkdirSync(backupDir, { recursive: true, mode: 0o700 });
    // Runs never overlap (croner's protect), so any such folder is a leftover.
    for (const name of readdirSync(backupDir)) if (LEFTOVER.test(name)) rmSync(join(backupDir, name), { recursive: true, force: true });
    const r = await backupOnWorker({ dataDir, target, now }, (line) => ctx.log.debug("backup", { step: line }));
    const pruned = keepNewest(backupDir, SCHEDULED_PATTERN, backupKeep);
    stats.failuresInARow = 0;
    stats.lastFile = r.path;
    stats.lastError = null;
    ctx.log.info("backup written", { file: r.path, bytes: r.bytes, files: r.files, vanished: r.vanished, duration_ms: Math.round(performance.now() - started), pruned });
  } catch (err) {
    stats.failures++;
    stats.failuresInARow++;
    stats.lastError = err instanceof Error ? err.message : String(err);
    ctx.log.error("backup failed", { file: target, error: stats.lastError, duration_ms: Math.round(performance.now() - started), failures: stats.failures, failures_in_a_row: stats.failuresInARow });
  }
}

/**
 * Declares the scheduled backup task on the server's scheduler when `backupCron` is set (before
 * ctx.jobs.start()). Returns its counters, or null when backups are off.
 */
export function scheduleBackups(ctx: Ctx): BackupRunStats | null {
  if (!ctx.config.backupCron) return null;
  const stats: BackupRunStats = { runs: 0, failures: 0, failuresInARow: 0, lastFile: null, lastError: null };
  ctx.jobs.every(BACKUP_TASK, ctx.config.backupCron, () => runScheduledBackup(ctx, stats));
  ctx.log.info("scheduled backups on", { cron: ctx.config.backupCron, dir: ctx.config.backupDir, keep: ctx.config.backupKeep });
  return stats;
}
