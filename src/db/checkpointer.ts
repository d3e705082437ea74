// WAL checkpoints off the request thread. SQLite's automatic checkpoint runs on the connection
// that commits the transaction crossing 1,000 WAL pages, inside that request, and ends with an
// fsync of the database file: a stall of whichever request happens to cross the threshold. The
// server instead runs PASSIVE checkpoints from a worker
// thread with its own connection every 50 ms, and raises the writer's automatic threshold to
// FALLBACK_PAGES, where it only restarts a log the worker has already copied (under sustained
// writing the WAL cannot restart from the worker's side). Should the worker fail to start, the
// default threshold stays.
import type { Db } from "./client";
import { stopWorker, workerScript } from "./workers";
import type { Logger } from "../core/log";

export const CHECKPOINT_INTERVAL_MS = 50;
/** 16,000 pages of 4 KiB: the WAL may grow to about 64 MiB before the writer checkpoints. */
export const FALLBACK_PAGES = 16_000;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(db: Db, path: string, log: Logger, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  let worker: Worker | null = null;
  try {
    worker = new Worker(workerScript("checkpoint-worker"));
  } catch (err) {
    log.warn("checkpointer not started; SQLite's automatic checkpoints stay on", { error: String(err) });
    return { stop: async () => {} };
  }
  const w = worker;
  w.addEventListener("error", (e) => {
    log.warn("checkpointer failed; back to SQLite's automatic checkpoints", { error: String((e as ErrorEvent).message ?? e) });
    db.$client.run("PRAGMA wal_autocheckpoint = 1000");
  });
  w.addEventListener("message", (e) => {
    if (e.data !== "started") return;
    db.$client.run(`PRAGMA wal_autocheckpoint = ${FALLBACK_PAGES}`);
    log.debug("WAL checkpointer running", { interval_ms: intervalMs, fallback_pages: FALLBACK_PAGES });
  });
  w.postMessage({ path, intervalMs });
  return { stop: () => stopWorker(w) };
}

/**
 * For a connection of a process whose supervisor runs the checkpointer (a worker of several): the
 * same raised threshold, so that its commits do not checkpoint (and fsync) inside its requests.
 */
export function leaveCheckpointsToSupervisor(db: Db): void {
  db.$client.run(`PRAGMA wal_autocheckpoint = ${FALLBACK_PAGES}`);
}
