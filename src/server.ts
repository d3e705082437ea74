// `colony serve`: the server process around the app. Holds the data folder's lock for its whole
// life, starts the background machinery, and shuts down gracefully on SIGTERM / SIGINT.
//
// Shutdown, within `shutdownTimeoutMs` (COLONY_SHUTDOWN_TIMEOUT_MS, default 10 s):
//   1. stop accepting connections, and stop the schedules (a running task may finish);
//   2. end every event stream with a last `server.shutdown` frame (clients reconnect later);
//   3. let the requests in flight finish, until the deadline, then cut what is left;
//   4. deliver what the outbox still holds, in the time that remains (at least a second);
//   5. stop the reader, vault index and checkpoint threads, checkpoint the WAL into the database, close it,
//      release the data folder and exit 0.
// A second signal during all that exits at once (status 128 + signal); the database is in WAL
// mode, so nothing committed is lost, and the kernel drops the lock with the process.
import type { Server } from "bun";
import type { Config } from "./config";
import { startVaultIndex, stopVaultIndex } from "./features/vault/fts";
import { reconcileVault } from "./features/vault/reconcile";
import { createContext, databasePath, type Ctx } from "./core/context";
import { acquireDataLock, type DataLock } from "./core/lock";
import { startReclaimer } from "./core/reclaim";
import { OIDC_KEY_FILE, prepareSigningKey } from "./core/secrets";
import { leaveCheckpointsToSupervisor, startCheckpointer, type Checkpointer } from "./db/checkpointer";
import { sqliteVersion } from "./db/client";
import { startReadPool } from "./db/read-pool";
import { normalJitPolicy } from "./db/workers";
import { serverOptions, writerSocketOptions } from "./http/serve-options";
import { rmSync } from "node:fs";
import { API_VERSION } from "./core/version";
import { scheduleBackups } from "./ops/scheduled-backup";

/**
 * The app's modules (every feature), loaded when a process first builds it: a supervisor, which
 * needs them only after its first worker has started, does not load them before it.
 */
export const loadApp = () => import("./app");

export interface RunningServer {
  ctx: Ctx;
  url: string;
  /** Shuts down as described above; resolves to what happened. Safe to call more than once. */
  shutdown(reason: string): Promise<ShutdownReport>;
}

export interface ShutdownReport {
  streams_closed: number;
  /** Whether requests were still open at the deadline and were cut. */
  cut: boolean;
  events_delivered: number;
  ms: number;
}

const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };
/** The outbox gets at least this long after the requests, whatever the deadline left. */
const MIN_DRAIN_MS = 1000;

/** Resolves after `ms` with `value`; the timer does not keep the process alive. */
const after = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => {
    const t = setTimeout(() => resolve(value), Math.max(0, ms));
    (t as { unref?: () => void }).unref?.();
  });

/**
 * How long after listening the server starts its background machinery (see startServer): enough
 * for the requests that were waiting for it (a health check, the request that woke a stopped
 * machine) to be answered first; the schedules' first runs are seconds away anyway.
 */
export const BACKGROUND_START_MS = 50;

/** The machinery started once the server listens (see startServer); empty until then. */
interface Background {
  timer: ReturnType<typeof setTimeout>;
  checkpointer?: Checkpointer;
  reclaimer?: { stop(): void };
}

/**
 * How often a worker looks for other processes' commits when no request asks (core/events.ts
 * follow()): the longest a realtime push waits for a commit made on another worker.
 */
export const FOLLOW_MS = 2;

/**
 * How often a worker with no stream open looks for other processes' commits (its caches are
 * brought up to date by each request anyway; the writer's outbox hears of events written
 * elsewhere at the latest then), and the supervisor while it does not deliver the outbox.
 */
export const FOLLOW_IDLE_MS = 100;

/** A worker of a supervisor (supervisor.ts): its number, shown on its log lines. */
export interface WorkerIdentity {
  worker: number;
  /** The worker that writes for the others: the Unix socket it takes their writes on (http/writer.ts). */
  writerSocket?: string;
}

/**
 * Starts serving: the whole instance in one process, or, given `as`, one worker of several, which
 * holds no lock (its supervisor does), never migrates and runs nothing that must happen once.
 */
export async function startServer(config: Config, as?: WorkerIdentity): Promise<RunningServer> {
  const lock = as ? null : acquireDataLock(config.dataDir, "serve");
  let ctx: Ctx;
  const servers: Server<unknown>[] = [];
  let opened: Ctx | null = null;
  try {
    ctx = createContext(as ? { config, role: "worker", worker: as.worker, writerSocket: as.writerSocket } : { config });
    opened = ctx;
    if (as) leaveCheckpointsToSupervisor(ctx.db);
    const app = (await loadApp()).createApp(ctx);
    // The vault's search index, on a thread of its own started with the other threads, below
    // (features/vault/fts.ts; until it has opened the index file, searches wait for it). Before
    // the first request the vault's rows and content files agree; the index is brought in step
    // with them after, while the server serves (features/vault/reconcile.ts; the supervisor's
    // job when there are workers).
    startVaultIndex(ctx, { thread: config.readWorkers > 0, delayMs: BACKGROUND_START_MS });
    if (!as) reconcileInBackground(ctx);
    servers.push(Bun.serve(serverOptions(ctx, app)));
    if (as?.writerSocket) {
      // A socket left by a writer that died is taken over (the folder is the instance's own).
      rmSync(as.writerSocket, { force: true });
      servers.push(Bun.serve(writerSocketOptions(ctx, app, as.writerSocket)));
    }
  } catch (err) {
    for (const s of servers) s.stop(true);
    if (opened) await stopVaultIndex(opened).catch(() => {});
    lock?.release();
    throw err;
  }
  // Started: from here on, code that runs often should be compiled as usual.
  normalJitPolicy();
  const url = `http://${servers[0]!.hostname}:${servers[0]!.port}`;
  lock?.update({ url });
  // One process delivers the outbox; a worker follows the events table for its live handlers.
  if (as) ctx.events.follow({ live: true, intervalMs: FOLLOW_MS, busy: () => ctx.realtime.streams > 0, idleMs: FOLLOW_IDLE_MS });
  else ctx.events.start();
  // What no request waits for starts BACKGROUND_START_MS after the server listens, so that the
  // requests waiting for it to come up are answered first:
  // the reader threads (until they are up, reads run on the main connection), the WAL checkpointer
  // (until then SQLite's own automatic checkpoint applies), the schedules (creating them means
  // croner's first next-run computations and loading the time-zone data),
  // the memory reclaimer (core/reclaim.ts) and, in a new data folder, the identity provider's
  // signing key (generated on a pool thread).
  const background: Background = {
    timer: setTimeout(() => {
      ctx.reads = startReadPool(ctx.db, databasePath(config), config.readWorkers, ctx.log);
      background.reclaimer = startReclaimer(ctx);
      if (!as) {
        background.checkpointer = startOnceWork(ctx);
        // In a new data folder, the identity provider's signing key, generated on a pool thread
        // (a supervisor makes it before its workers start).
        prepareSigningKey(config.dataDir).then(
          (made) => made && ctx.log.info("generated the identity provider's signing key", { file: `secrets/${OIDC_KEY_FILE}` }),
          (err) => ctx.log.warn("could not generate the identity provider's signing key in the background; it is made on first use", { error: String(err) }),
        );
      }
      ctx.log.debug("background machinery started", { ms_since_process_start: Math.round(performance.now()) });
    }, BACKGROUND_START_MS),
  };
  if (as) ctx.log.debug("worker listening", { url, ms_since_process_start: Math.round(performance.now()) });
  else announce(ctx, url);

  let shutting: Promise<ShutdownReport> | null = null;
  const shutdown = (reason: string) => (shutting ??= stop(ctx, servers, background, lock, reason));
  return { ctx, url, shutdown };
}

/**
 * What happens once per instance, started in the background: the WAL checkpointer (returned, for
 * the shutdown), scheduled backups and the schedules. The single process and the supervisor run it.
 */
export function startOnceWork(ctx: Ctx): Checkpointer {
  const checkpointer = startCheckpointer(ctx.db, databasePath(ctx.config), ctx.log);
  scheduleBackups(ctx);
  ctx.jobs.start();
  return checkpointer;
}

/** Brings the vault's search index in step with its files while the instance serves (features/vault/reconcile.ts). */
export function reconcileInBackground(ctx: Ctx): void {
  reconcileVault(ctx).catch((err) => {
    // Stopped under way (shutdown) is not a failure: the queue is sent again at the next start.
    if (ctx.events.running) ctx.log.warn("vault: the search index could not be brought in step with the files; it is tried again at the next start", { error: String(err) });
  });
}

/**
 * The start-up lines of an instance: where it listens, how to make its first administrator while
 * it has none (features/instance/setup.ts), and a warning when its wallet is not real.
 */
export function announce(ctx: Ctx, url: string, extra: Record<string, unknown> = {}): void {
  ctx.log.info("colony listening", { url, public_url: ctx.config.publicUrl, data_dir: ctx.config.dataDir, sqlite: sqliteVersion(ctx.db), version: API_VERSION, wallet: ctx.wallet.name, ...extra, ms_since_process_start: Math.round(performance.now()) });
  void announceFirstRun(ctx, url);
  if (ctx.wallet.name === "development")
    ctx.log.warn("DEVELOPMENT WALLET: marketplace invoices are not real money and are paid only by `colony admin settle <payment_hash>`; payouts go to a local ledger. Set COLONY_WALLET (lnbits, nwc or lnd) to take real payments.");
}

/**
 * On a start without an administrator: a new one-time setup link, on the address the server
 * listens on (a browser on this machine opens it; one elsewhere, through the public URL's, printed
 * too when that is another address). A warning, so that it shows at every log level but error.
 * The accounts' modules are loaded here rather than with this file: a supervisor loads the app's
 * modules only once its first worker has started (loadApp).
 */
async function announceFirstRun(ctx: Ctx, url: string): Promise<void> {
  let token: string | null;
  let SETUP_PATH: string;
  try {
    const setup = await import("./features/instance/setup");
    SETUP_PATH = setup.SETUP_PATH;
    token = setup.prepareFirstRun(ctx);
  } catch (err) {
    ctx.log.warn("could not prepare the first run's setup link", { error: String(err) });
    return;
  }
  if (!token) return;
  const local = new URL(url);
  // Listening on every interface: the link a browser here opens is the loopback one.
  if (local.hostname === "0.0.0.0" || local.hostname === "::" || local.hostname === "[::]") local.hostname = "127.0.0.1";
  const path = `${SETUP_PATH}/${token}`;
  const links: Record<string, string> = { setup_url: `${local.origin}${path}` };
  const pub = new URL(ctx.config.publicUrl);
  if (pub.origin !== local.origin && pub.port !== "0") links.public_setup_url = `${pub.origin}${pub.pathname.replace(/\/+$/, "")}${path}`;
  ctx.log.warn("first run: this instance has no administrator yet. Open the setup link in a browser to create the first one (it works once, until the next start)", links);
}

async function stop(ctx: Ctx, servers: Server<unknown>[], background: Background, lock: DataLock | null, reason: string): Promise<ShutdownReport> {
  clearTimeout(background.timer);
  background.reclaimer?.stop();
  const started = performance.now();
  const deadline = started + ctx.config.shutdownTimeoutMs;
  const left = () => deadline - performance.now();
  ctx.log.info("shutting down", { reason, deadline_ms: ctx.config.shutdownTimeoutMs, open_streams: ctx.realtime.streams });

  // 1-3: no new connections; streams told and ended; requests in flight finish or are cut.
  const closed = Promise.all(servers.map((s) => s.stop(false)));
  const jobsIdle = ctx.jobs.stop();
  const streams = ctx.realtime.closeAll();
  const drained = await Promise.race([closed.then(() => true), after(left(), false)]);
  if (!drained) {
    ctx.log.warn("shutdown deadline reached; cutting the requests still open", { pending_requests: servers.reduce((n, s) => n + s.pendingRequests, 0) });
    await Promise.all(servers.map((s) => s.stop(true)));
  }
  await Promise.race([jobsIdle, after(left(), undefined)]);

  // 4: the outbox, in the time left, by the process that delivered it (a worker other than the
  // instance's writer leaves it to the writer or the supervisor).
  const delivering = ctx.events.running;
  ctx.events.stop();
  ctx.events.unfollow();
  const delivered = !delivering ? 0 : await Promise.race([ctx.events.drain().catch(() => 0), after(Math.max(left(), MIN_DRAIN_MS), 0)]);

  // 5: threads, final checkpoint, the lock.
  await ctx.reads.stop();
  await stopVaultIndex(ctx);
  await closeDatabase(ctx, background.checkpointer);
  lock?.release();
  const report: ShutdownReport = { streams_closed: streams, cut: !drained, events_delivered: delivered, ms: Math.round(performance.now() - started) };
  ctx.log.info("stopped", { ...report });
  ctx.log.flush();
  return report;
}

/**
 * Stops the checkpointer, checkpoints the WAL into the database file (the process that holds the
 * data folder: a worker leaves it to its supervisor) and closes the connection.
 */
export async function closeDatabase(ctx: Ctx, checkpointer: Checkpointer | undefined): Promise<void> {
  await checkpointer?.stop();
  if (ctx.role !== "worker") {
    try {
      ctx.db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch (err) {
      ctx.log.warn("final checkpoint failed; the WAL is replayed at next start", { error: String(err) });
    }
  }
  ctx.limits.close?.();
  ctx.db.$client.close();
}

/**
 * Runs until SIGTERM or SIGINT, then shuts down and exits 0 (1 when the shutdown failed); a second
 * signal exits at once.
 */
export function untilSignal(log: Ctx["log"], shutdown: (reason: string) => Promise<unknown>): void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      log.warn("second signal: exiting now", { signal });
      log.flush();
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    }
    shutdown(signal).then(
      () => process.exit(0),
      (err) => {
        log.error("shutdown failed", { error: String(err) });
        log.flush();
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}
