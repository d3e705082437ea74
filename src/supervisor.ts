// `colony serve --workers N` (N > 1): the supervisor and its worker processes.
//
// The supervisor holds the data folder's lock, migrates the database, and is the one process that
// runs what must happen once: the schedules and the one-shot jobs (payouts, invoice polling,
// notarisation upgrades, backups), the WAL checkpointer, the vault index's reconciliation and the
// identity provider's first signing key. It serves no HTTP. It starts N workers — the same
// executable, run with the supervisor's configuration in COLONY_WORKER_CONFIG — which serve HTTP
// on one port (SO_REUSEPORT: the kernel spreads new connections over them), read the events table
// for their realtime pushes and read caches (core/events.ts follow()), and run nothing that must
// happen once.
//
// Worker 1 is the writer (http/writer.ts, docs/decisions.md §186): the other workers pass every
// request that may write on to it over a Unix socket in a private folder, and it also delivers
// the outbox (webhooks, mail, clean-up), which the supervisor hands to it once it listens and
// takes back while no writer does, never letting two processes deliver at once.
//
// A worker that dies is started again after a pause that doubles with each quick failure (from
// RESTART_MIN_MS to RESTART_MAX_MS; a worker that ran RESTART_RESET_MS counts as healthy again),
// logged and counted (`restarts` on /health and colony_worker_restarts_total on /metrics).
// SIGTERM or SIGINT stops the workers (each shuts down gracefully, as a single process does), then
// the supervisor delivers what the outbox holds, checkpoints and exits. SIGHUP (`colony reload`)
// replaces the workers one at a time with the program on disk after applying its migrations.
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config } from "./config";
import { metricsRelay, shareMetrics } from "./cluster-metrics";
import { createContext, type ClusterState, type Ctx } from "./core/context";
import { failingJobs } from "./features/meta/health";
import { acquireDataLock, INHERITED_LOCK_FD_ENV, type DataLock } from "./core/lock";
import { createLogger } from "./core/log";
import { OIDC_KEY_FILE, prepareSigningKey } from "./core/secrets";
import type { Checkpointer } from "./db/checkpointer";
import { compiled } from "./db/workers";
import { startVaultIndex, stopVaultIndex } from "./features/vault/fts";
import { drainConnections } from "./http/serve-options";
import { announce, closeDatabase, FOLLOW_IDLE_MS, FOLLOW_MS, loadApp, reconcileInBackground, startOnceWork, startServer, untilSignal, type RunningServer } from "./server";

/** The environment variables that make a `colony serve` process a worker (read by serve()). */
export const WORKER_ENV = "COLONY_WORKER";
export const WORKER_CONFIG_ENV = "COLONY_WORKER_CONFIG";

const RESTART_MIN_MS = 100;
const RESTART_MAX_MS = 10_000;
const RESTART_RESET_MS = 30_000;
/** A worker that does not listen within this long after it started is stopped and started again. */
const START_TIMEOUT_MS = 30_000;

/** The environment variable that makes a worker the writer: the Unix socket it takes the other workers' writes on. */
const WRITER_SOCKET_ENV = "COLONY_WRITER_SOCKET";
/** The worker that writes for the others. */
const WRITER_SLOT = 1;

/** What a worker tells its supervisor over the IPC channel. */
export type WorkerMessage = { t: "listening"; port: number };
/**
 * What the supervisor tells its workers: the state /health and /metrics report; or, to a worker
 * being replaced, to retire (finish its connections and stop).
 */
export type SupervisorMessage = ({ t: "cluster" } & ClusterState) | { t: "retire" } | { t: "outbox" };

/** How often the supervisor tells its workers the state they report (failing jobs change without an event). */
const TELL_EVERY_MS = 5_000;

interface WorkerSlot {
  n: number;
  proc: Subprocess | null;
  /** During a reload, the worker its replacement takes over from (it serves until the new one listens). */
  old: Subprocess | null;
  startedAt: number;
  /** Quick failures in a row: the next start waits RESTART_MIN_MS × 2^failures. */
  failures: number;
  listening: Promise<number>;
  timer: ReturnType<typeof setTimeout> | null;
}

export interface Supervisor {
  ctx: Ctx;
  url: string;
  /** How many times a worker was started again after it died. */
  restarts(): number;
  /** The workers' process ids (tests kill one). */
  pids(): number[];
  /** Replaces the workers one at a time (SIGHUP, `colony reload`); resolves to whether it completed. */
  reload(reason: string): Promise<boolean>;
  shutdown(reason: string): Promise<void>;
}

/** Whether the platform lets several processes listen on one port with the kernel spreading connections. */
export const portSharing = (): boolean => process.platform === "linux";

/**
 * The command line that runs one of this program's commands: the executable on disk (a newer one,
 * if it was replaced since this process started), or bun with src/main.ts from source.
 */
function programCommand(command: string): string[] {
  return compiled() ? [process.execPath, command] : [process.execPath, new URL("./main.ts", import.meta.url).pathname, command];
}

export async function startSupervisor(config: Config): Promise<Supervisor> {
  const lock: DataLock = acquireDataLock(config.dataDir, "serve");
  let ctx: Ctx;
  try {
    ctx = createContext({ config, role: "supervisor" });
  } catch (err) {
    lock.release();
    throw err;
  }
  // Made before any worker starts, so that no two processes make one at once.
  if (await prepareSigningKey(config.dataDir)) ctx.log.info("generated the identity provider's signing key", { file: `secrets/${OIDC_KEY_FILE}` });

  let stopping = false;
  let restarts = 0;
  let port = config.port;
  const slots: WorkerSlot[] = [];
  // The writer's sockets live in a folder only this user reaches (mkdtemp makes it 0700).
  const socketDir = mkdtempSync(join(tmpdir(), "colony-"));
  let sockets = 0;
  /** The writer that listens now: other workers pass their writes to its socket. */
  let writer: { proc: Subprocess; socket: string } | null = null;
  /** The worker that delivers the outbox; null while the supervisor does, or nobody (before the app is built, and at the end). */
  let outboxIn: Subprocess | null = null;
  let built = false;
  // A worker's /metrics gathers the other processes' figures through the supervisor (cluster-metrics.ts).
  const relay = metricsRelay(ctx, config.workers, () => slots);

  const state = (): ClusterState => ({ workers: config.workers, restarts, failingJobs: failingJobs(ctx), writer: writer?.socket ?? null });
  const tellAll = () => {
    ctx.cluster = state();
    const msg: SupervisorMessage = { t: "cluster", ...ctx.cluster };
    for (const s of slots) {
      try {
        s.proc?.send(msg);
      } catch {
        // A worker that is going away hears the next message, or none.
      }
    }
  };

  let assigning = Promise.resolve();
  /**
   * Gives the outbox to the writer that listens, or takes it while none does: the one delivering
   * stops (the supervisor waits for its batch, a worker for its exit) before the other starts.
   */
  const assignOutbox = () =>
    (assigning = assigning.then(async () => {
      if (stopping || !built || outboxIn) return;
      const to = writer?.proc;
      if (!to) {
        if (!ctx.events.running) ctx.events.start();
        return;
      }
      ctx.events.stop();
      await ctx.events.idle();
      // The writer may have gone meanwhile; its exit runs this again.
      if (stopping || writer?.proc !== to) return;
      try {
        to.send({ t: "outbox" } satisfies SupervisorMessage);
        outboxIn = to;
      } catch {
        ctx.events.start();
      }
    }));

  const start = (slot: WorkerSlot) => {
    let heard!: (port: number) => void;
    let failed!: (err: Error) => void;
    slot.listening = new Promise<number>((resolve, reject) => ((heard = resolve), (failed = reject)));
    slot.listening.catch(() => {});
    slot.startedAt = performance.now();
    // The writer's process takes writes on a socket of its own (a new one for each process).
    const socket = slot.n === WRITER_SLOT ? join(socketDir, `writer-${++sockets}.sock`) : null;
    const proc = Bun.spawn(programCommand("serve"), {
      env: { ...process.env, [WORKER_ENV]: String(slot.n), [WORKER_CONFIG_ENV]: JSON.stringify({ ...config, port }), ...(socket ? { [WRITER_SOCKET_ENV]: socket } : {}) },
      stdio: ["ignore", "inherit", "inherit"],
      serialization: "json",
      ipc(message: WorkerMessage) {
        if (relay.fromWorker(proc, message)) return;
        if (message?.t === "listening") {
          heard(message.port);
          if (socket) writer = { proc, socket };
          tellAll();
          if (socket) assignOutbox();
        }
      },
      onExit(_p, code, signal) {
        failed(new Error(`worker ${slot.n} exited before it listened (status ${code}, signal ${signal})`));
        if (writer?.proc === proc) {
          // Until another writer listens, each worker writes for itself.
          writer = null;
          tellAll();
        }
        if (outboxIn === proc) outboxIn = null;
        assignOutbox();
        if (slot.proc !== proc) return;
        slot.proc = null;
        if (stopping) return;
        if (slot.old) {
          // A replacement that died during a reload: the worker it was to replace keeps serving.
          ctx.log.error("the new worker exited during the reload; the old one keeps serving", { worker_exited: slot.n, status: code, signal });
          slot.proc = slot.old;
          slot.old = null;
          return;
        }
        const ranMs = performance.now() - slot.startedAt;
        slot.failures = ranMs >= RESTART_RESET_MS ? 0 : slot.failures + 1;
        const delay = slot.failures ? Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** (slot.failures - 1)) : 0;
        restarts++;
        tellAll();
        ctx.log.warn("worker exited; starting it again", { worker_exited: slot.n, status: code, signal, ran_ms: Math.round(ranMs), restart_in_ms: delay, restarts });
        slot.timer = setTimeout(() => {
          slot.timer = null;
          if (!stopping) start(slot);
        }, delay);
      },
    });
    slot.proc = proc;
    const timeout = setTimeout(() => failed(new Error(`worker ${slot.n} did not listen within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    slot.listening.finally(() => clearTimeout(timeout)).catch(() => {});
  };

  const stopWorkers = async (signal: NodeJS.Signals) => {
    for (const s of slots) if (s.timer) clearTimeout(s.timer);
    // The workers, and those a reload under way has not retired yet.
    const procs = slots.flatMap((s) => [s.proc, s.old]).filter((p): p is Subprocess => p !== null);
    const exits = procs.map((p) => p.exited);
    for (const p of procs) p.kill(signal);
    // Each worker has the shutdown deadline for its requests and streams; then it is killed.
    const killAt = setTimeout(() => procs.forEach((p) => p.kill("SIGKILL")), config.shutdownTimeoutMs + 5_000);
    await Promise.all(exits);
    clearTimeout(killAt);
  };

  // The workers start first: building the app (whose features register the outbox's handlers and
  // the schedules) and opening the vault's index happen while the others start, off the first
  // answer's path.
  try {
    for (let n = 1; n <= config.workers; n++) {
      const slot: WorkerSlot = { n, proc: null, old: null, startedAt: 0, failures: 0, listening: Promise.resolve(0), timer: null };
      slots.push(slot);
      start(slot);
      // The first worker starts alone, so that the first answer comes as soon as it can (the
      // cores are its own); with port 0 it takes a free port, and the others join it there.
      if (n === 1) {
        const listened = await slot.listening;
        if (port === 0) port = listened;
      }
    }
    (await loadApp()).createApp(ctx);
    startVaultIndex(ctx, { thread: config.readWorkers > 0 });
    built = true;
    await Promise.all(slots.map((s) => s.listening));
  } catch (err) {
    stopping = true;
    await stopWorkers("SIGKILL");
    await stopVaultIndex(ctx).catch(() => {});
    ctx.db.$client.close();
    rmSync(socketDir, { recursive: true, force: true });
    lock.release();
    throw err;
  }

  const url = `http://${config.host}:${port}`;
  lock.update({ url, workers: config.workers });
  tellAll();
  const telling = setInterval(tellAll, TELL_EVERY_MS);
  telling.unref?.();
  // The outbox: the writer's once it listens, the supervisor's meanwhile (assignOutbox). Workers'
  // commits wake the supervisor's (they cannot kick it themselves).
  ctx.events.liveInDrain = false;
  ctx.events.follow({ live: false, intervalMs: FOLLOW_MS, busy: () => ctx.events.running, idleMs: FOLLOW_IDLE_MS });
  assignOutbox();
  const checkpointer: Checkpointer = startOnceWork(ctx);
  reconcileInBackground(ctx);
  announce(ctx, url, { workers: config.workers });

  /** `colony migrate` of the program on disk, holding this process's lock through an inherited descriptor. */
  const migrateWithProgramOnDisk = async (): Promise<number> => {
    const proc = Bun.spawn(programCommand("migrate"), {
      env: { ...process.env, COLONY_DATA_DIR: config.dataDir, COLONY_BACKUP_DIR: config.backupDir, COLONY_UPGRADE_BACKUPS_KEEP: String(config.upgradeBackupsKeep), COLONY_LOG_LEVEL: config.logLevel, [INHERITED_LOCK_FD_ENV]: "3" },
      stdio: ["ignore", "inherit", "inherit", lock.fd],
    });
    return await proc.exited;
  };

  let reloading: Promise<boolean> | null = null;
  /**
   * Replaces the workers one at a time with the program on disk, after applying its migrations:
   * each new worker listens beside the one it replaces, then the old one retires (its streams are
   * told to reconnect, its connections close after their next answers). A migration that fails
   * or a new worker that does not start leaves the old workers serving. The supervisor itself
   * keeps running the code it started with.
   */
  const reload = (reason: string): Promise<boolean> =>
    (reloading ??= (async () => {
      const started = performance.now();
      ctx.log.info("reloading", { reason, workers: config.workers });
      const status = await migrateWithProgramOnDisk();
      if (status !== 0) {
        ctx.log.error("reload abandoned: the migrations of the program on disk failed; the workers keep serving", { status });
        return false;
      }
      for (const slot of slots) {
        if (stopping) return false;
        const old = slot.proc;
        if (slot.timer) clearTimeout(slot.timer);
        slot.timer = null;
        slot.old = old;
        slot.failures = 0;
        start(slot);
        try {
          await slot.listening;
        } catch (err) {
          ctx.log.error("reload abandoned: a new worker did not start; the old ones keep serving", { worker: slot.n, error: String(err) });
          if (slot.proc && slot.proc !== old) slot.proc.kill("SIGKILL");
          return false;
        }
        slot.old = null;
        if (old) {
          old.send({ t: "retire" } satisfies SupervisorMessage);
          const gone = await Promise.race([old.exited.then(() => true), Bun.sleep(config.shutdownTimeoutMs + 5_000).then(() => false)]);
          if (!gone) old.kill("SIGKILL");
        }
      }
      ctx.log.info("reloaded", { workers: config.workers, ms: Math.round(performance.now() - started) });
      return true;
    })().finally(() => {
      reloading = null;
    }));

  let shutting: Promise<void> | null = null;
  const shutdown = (reason: string) =>
    (shutting ??= (async () => {
      stopping = true;
      clearInterval(telling);
      ctx.log.info("shutting down", { reason, workers: slots.filter((s) => s.proc).length });
      // The writer delivers what its outbox still holds before it exits; the rest is delivered here.
      await stopWorkers("SIGTERM");
      await assigning;
      const jobsIdle = ctx.jobs.stop();
      await jobsIdle;
      ctx.events.stop();
      ctx.events.unfollow();
      const delivered = await ctx.events.drain().catch(() => 0);
      await stopVaultIndex(ctx);
      await closeDatabase(ctx, checkpointer);
      rmSync(socketDir, { recursive: true, force: true });
      lock.release();
      ctx.log.info("stopped", { events_delivered: delivered });
      ctx.log.flush();
    })());

  return {
    ctx,
    url,
    restarts: () => restarts,
    pids: () => slots.map((s) => s.proc?.pid ?? 0),
    reload,
    shutdown,
  };
}

/**
 * `colony serve`: one process, or a supervisor and its workers (config.workers > 1 where the
 * platform can share the port), or — started by a supervisor — one of its workers. Runs until
 * SIGTERM or SIGINT.
 */
export async function serve(config: Config): Promise<void> {
  const worker = process.env[WORKER_ENV];
  if (worker) return serveAsWorker(Number(worker), JSON.parse(process.env[WORKER_CONFIG_ENV] ?? "null") as Config);
  if (config.workers > 1 && portSharing()) {
    // Signals are handled from the start: a stop asked for while the workers start waits for them.
    const starting = startSupervisor(config);
    starting.catch(() => {});
    untilSignal(createLogger(config.logLevel, undefined, undefined, { worker: 0 }), (reason) => starting.then((s) => s.shutdown(reason)));
    process.on("SIGHUP", () => void starting.then((s) => s.reload("SIGHUP")));
    await starting;
    return;
  }
  const running = await startServer(config);
  if (config.workers > 1)
    running.ctx.log.warn("serving from one process: this platform cannot share a port between processes (SO_REUSEPORT spreads connections only on Linux)", { workers_asked: config.workers, platform: process.platform });
  untilSignal(running.ctx.log, running.shutdown);
  // One process cannot be replaced without closing its connections: a reload is refused, not fatal.
  process.on("SIGHUP", () => running.ctx.log.warn("SIGHUP: one process cannot reload without dropping connections; run several workers (--workers 2 or more), or restart it"));
}

/** A worker: serves with its supervisor's configuration, tells it where, and stops when told or when the supervisor is gone. */
async function serveAsWorker(n: number, config: Config): Promise<void> {
  const running = await startServer(config, { worker: n, writerSocket: process.env[WRITER_SOCKET_ENV] || undefined });
  const port = Number(new URL(running.url).port);
  // Its /metrics answers for the whole instance; set up before the supervisor hears it listens.
  shareMetrics(running.ctx);
  process.on("message", (message: SupervisorMessage) => {
    if (message?.t === "cluster") running.ctx.cluster = { workers: message.workers, restarts: message.restarts, failingJobs: message.failingJobs, writer: message.writer };
    if (message?.t === "retire") void retire(running);
    if (message?.t === "outbox") {
      // The writer delivers the outbox; live handlers run from follow() in every worker.
      running.ctx.events.liveInDrain = false;
      running.ctx.events.start();
    }
  });
  // A hangup reaches the supervisor's whole process group; reloads are the supervisor's to run.
  process.on("SIGHUP", () => {});
  // The IPC channel closes when the supervisor exits, however it exits (kill -9 included).
  process.on("disconnect", () => void running.shutdown("supervisor gone").finally(() => process.exit(0)));
  untilSignal(running.ctx.log, running.shutdown);
  process.send?.({ t: "listening", port } satisfies WorkerMessage);
}

/**
 * A worker being replaced (a reload): its event streams are told to reconnect (they will reach
 * another worker), its connections are closed after their next answers, then it shuts down as
 * on SIGTERM and exits 0.
 */
async function retire(running: RunningServer): Promise<void> {
  running.ctx.log.info("retiring", { open_streams: running.ctx.realtime.streams });
  running.ctx.realtime.closeAll();
  await drainConnections(running.ctx);
  await running.shutdown("reload");
  process.exit(0);
}
