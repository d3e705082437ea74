// `colony serve --workers N` (N > 1): the supervisor and its worker processes.
//
// The supervisor holds the data folder's lock, migrates the database, and is the one process that
// runs what must happen once: the outbox worker (webhooks, mail, clean-up), the schedules and the
// one-shot jobs (payouts, invoice polling, notarisation upgrades, backups), the WAL checkpointer,
// the vault index's reconciliation and the identity provider's first signing key. It serves no
// HTTP. It starts N workers — the same executable, run with the supervisor's configuration in
// COLONY_WORKER_CONFIG — which serve HTTP on one port (SO_REUSEPORT: the kernel spreads new
// connections over them), read the events table for their realtime pushes and read caches
// (core/events.ts follow()), and run nothing that must happen once.
//
// A worker that dies is started again after a pause that doubles with each quick failure (from
// RESTART_MIN_MS to RESTART_MAX_MS; a worker that ran RESTART_RESET_MS counts as healthy again),
// logged and counted (`restarts` on /health and colony_worker_restarts_total on /metrics).
// SIGTERM or SIGINT stops the workers (each shuts down gracefully, as a single process does), then
// the supervisor delivers what the outbox holds, checkpoints and exits.
import type { Subprocess } from "bun";
import type { Config } from "./config";
import { createApp } from "./app";
import { createContext, type Ctx } from "./core/context";
import { acquireDataLock, type DataLock } from "./core/lock";
import { createLogger } from "./core/log";
import { OIDC_KEY_FILE, prepareSigningKey } from "./core/secrets";
import type { Checkpointer } from "./db/checkpointer";
import { startVaultIndex, stopVaultIndex } from "./features/vault/fts";
import { announce, closeDatabase, FOLLOW_MS, reconcileInBackground, startOnceWork, startServer, untilSignal } from "./server";

/** The environment variables that make a `colony serve` process a worker (read by serve()). */
export const WORKER_ENV = "COLONY_WORKER";
export const WORKER_CONFIG_ENV = "COLONY_WORKER_CONFIG";

const RESTART_MIN_MS = 100;
const RESTART_MAX_MS = 10_000;
const RESTART_RESET_MS = 30_000;
/** A worker that does not listen within this long after it started is stopped and started again. */
const START_TIMEOUT_MS = 30_000;

/** What a worker tells its supervisor over the IPC channel. */
export type WorkerMessage = { t: "listening"; port: number };
/** What the supervisor tells its workers: the state /health and /metrics report. */
export type SupervisorMessage = { t: "cluster"; workers: number; restarts: number };

interface WorkerSlot {
  n: number;
  proc: Subprocess | null;
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
  shutdown(reason: string): Promise<void>;
}

/** Whether the platform lets several processes listen on one port with the kernel spreading connections. */
export const portSharing = (): boolean => process.platform === "linux";

/** The command line that runs this program's `serve` again: the executable itself, or bun with src/main.ts. */
function serveCommand(): string[] {
  const compiled = Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:/~BUN/");
  return compiled ? [process.execPath, "serve"] : [process.execPath, new URL("./main.ts", import.meta.url).pathname, "serve"];
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
  // The handlers of the outbox and the schedules are the features' (registered by building the app).
  createApp(ctx);
  // Made before any worker starts, so that no two processes make one at once.
  if (await prepareSigningKey(config.dataDir)) ctx.log.info("generated the identity provider's signing key", { file: `secrets/${OIDC_KEY_FILE}` });
  startVaultIndex(ctx, { thread: config.readWorkers > 0 });

  let stopping = false;
  let restarts = 0;
  let port = config.port;
  const slots: WorkerSlot[] = [];

  const tellAll = () => {
    const msg: SupervisorMessage = { t: "cluster", workers: config.workers, restarts };
    for (const s of slots) {
      try {
        s.proc?.send(msg);
      } catch {
        // A worker that is going away hears the next message, or none.
      }
    }
  };

  const start = (slot: WorkerSlot) => {
    let heard!: (port: number) => void;
    let failed!: (err: Error) => void;
    slot.listening = new Promise<number>((resolve, reject) => ((heard = resolve), (failed = reject)));
    slot.listening.catch(() => {});
    slot.startedAt = performance.now();
    const proc = Bun.spawn(serveCommand(), {
      env: { ...process.env, [WORKER_ENV]: String(slot.n), [WORKER_CONFIG_ENV]: JSON.stringify({ ...config, port }) },
      stdio: ["ignore", "inherit", "inherit"],
      serialization: "json",
      ipc(message: WorkerMessage) {
        if (message?.t === "listening") {
          heard(message.port);
          tellAll();
        }
      },
      onExit(_p, code, signal) {
        failed(new Error(`worker ${slot.n} exited before it listened (status ${code}, signal ${signal})`));
        if (slot.proc !== proc) return;
        slot.proc = null;
        if (stopping) return;
        const ranMs = performance.now() - slot.startedAt;
        slot.failures = ranMs >= RESTART_RESET_MS ? 0 : slot.failures + 1;
        const delay = slot.failures ? Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** (slot.failures - 1)) : 0;
        restarts++;
        ctx.cluster = { workers: config.workers, restarts };
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
    const exits = slots.map((s) => s.proc?.exited);
    for (const s of slots) s.proc?.kill(signal);
    // Each worker has the shutdown deadline for its requests and streams; then it is killed.
    const killAt = setTimeout(() => slots.forEach((s) => s.proc?.kill("SIGKILL")), config.shutdownTimeoutMs + 5_000);
    await Promise.all(exits);
    clearTimeout(killAt);
  };

  try {
    for (let n = 1; n <= config.workers; n++) {
      const slot: WorkerSlot = { n, proc: null, startedAt: 0, failures: 0, listening: Promise.resolve(0), timer: null };
      slots.push(slot);
      start(slot);
      // Port 0: the first worker takes a free port and the others join it there.
      if (n === 1 && port === 0) port = await slot.listening;
    }
    await Promise.all(slots.map((s) => s.listening));
  } catch (err) {
    stopping = true;
    await stopWorkers("SIGKILL");
    await stopVaultIndex(ctx).catch(() => {});
    ctx.db.$client.close();
    lock.release();
    throw err;
  }

  const url = `http://${config.host}:${port}`;
  lock.update({ url });
  ctx.cluster = { workers: config.workers, restarts };
  ctx.events.liveInDrain = false;
  ctx.events.start();
  // Workers' commits wake the outbox worker (they cannot kick it themselves).
  ctx.events.follow({ live: false, intervalMs: FOLLOW_MS });
  const checkpointer: Checkpointer = startOnceWork(ctx);
  reconcileInBackground(ctx);
  announce(ctx, url, { workers: config.workers });

  let shutting: Promise<void> | null = null;
  const shutdown = (reason: string) =>
    (shutting ??= (async () => {
      stopping = true;
      ctx.log.info("shutting down", { reason, workers: slots.filter((s) => s.proc).length });
      await stopWorkers("SIGTERM");
      const jobsIdle = ctx.jobs.stop();
      await jobsIdle;
      ctx.events.stop();
      ctx.events.unfollow();
      const delivered = await ctx.events.drain().catch(() => 0);
      await stopVaultIndex(ctx);
      await closeDatabase(ctx, checkpointer);
      lock.release();
      ctx.log.info("stopped", { events_delivered: delivered });
      ctx.log.flush();
    })());

  return {
    ctx,
    url,
    restarts: () => restarts,
    pids: () => slots.map((s) => s.proc?.pid ?? 0),
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
    await starting;
    return;
  }
  const running = await startServer(config);
  if (config.workers > 1)
    running.ctx.log.warn("serving from one process: this platform cannot share a port between processes (SO_REUSEPORT spreads connections only on Linux)", { workers_asked: config.workers, platform: process.platform });
  untilSignal(running.ctx.log, running.shutdown);
}

/** A worker: serves with its supervisor's configuration, tells it where, and stops when told or when the supervisor is gone. */
async function serveAsWorker(n: number, config: Config): Promise<void> {
  const running = await startServer(config, { worker: n });
  const port = Number(new URL(running.url).port);
  process.on("message", (message: SupervisorMessage) => {
    if (message?.t === "cluster") running.ctx.cluster = { workers: message.workers, restarts: message.restarts };
  });
  // The IPC channel closes when the supervisor exits, however it exits (kill -9 included).
  process.on("disconnect", () => void running.shutdown("supervisor gone").finally(() => process.exit(0)));
  untilSignal(running.ctx.log, running.shutdown);
  process.send?.({ t: "listening", port } satisfies WorkerMessage);
}
