// The context every service receives: the database, the clock, configuration and the shared
// machinery. Built once per process (or per test file) by createContext.
import type { Config } from "../config";
import { domainProbe, type DomainProbe } from "../adapters/domain-probe";
import { CapturingMailer, createMailer, type Mailer } from "../adapters/mail";
import { createWallet, devKeyPath, type LazyWallet } from "../adapters/lightning";
import { commitAlone, openDatabase, type Db } from "../db/client";
import { migrate, migrationStatus } from "../db/migrate";
import { migrateGuarded } from "../db/upgrade";
import { inlineReads, type Reads } from "../db/read-pool";
import { systemClock, type Clock } from "./clock";
import { READ_SCOPES } from "./domain-events";
import { EventBus } from "./events";
import { Jobs } from "./jobs";
import { RateLimiter } from "./limits";
import { LIMITS_FILE, MemoryLimitStore, SqliteLimitStore } from "./limit-store";
import { createLogger, type Logger } from "./log";
import { Metrics } from "./metrics";
import { RealtimeHub } from "./realtime";
import { ephemeralSecrets, loadSecrets, type Secrets } from "./secrets";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export interface Ctx {
  db: Db;
  /** Read-only statements off the request thread (the server's read pool; inline elsewhere). */
  reads: Reads;
  clock: Clock;
  config: Config;
  events: EventBus;
  jobs: Jobs;
  limits: RateLimiter;
  realtime: RealtimeHub;
  secrets: Secrets;
  log: Logger;
  mail: Mailer;
  /** DNS TXT lookups and well-known fetches for domain verification (a stub in tests). */
  domains: DomainProbe;
  /** This context's Prometheus registry (GET /metrics). */
  metrics: Metrics;
  /** The Lightning wallet of the marketplace (COLONY_WALLET; the development wallet by default). */
  wallet: LazyWallet;
  /**
   * The HTTP server answering for this context once it listens (http/serve-options.ts), which
   * knows each request's socket peer; null in process. Read through http/client-ip.ts.
   */
  server: SocketPeers | null;
  /**
   * Which process this is: "single" serves and runs everything; with several processes on one
   * data folder, a "worker" serves HTTP and a "supervisor" runs what must happen once (server.ts,
   * supervisor.ts). Other processes' commits must be looked for on every read unless single.
   */
  role: ProcessRole;
  /** This worker's number, from 1 (0: a single process or the supervisor). */
  worker: number;
  /** Several processes (a supervisor's, or a worker's as its supervisor last told it): how many workers, how many restarts; null in one process. */
  cluster: ClusterState | null;
  /**
   * The Unix socket on which this worker takes the other workers' writes when it is the
   * instance's writer (http/writer.ts); null in every other process.
   */
  writerSocket: string | null;
}

export type ProcessRole = "single" | "worker" | "supervisor";

/** What the supervisor knows and its workers report (/health, /metrics). */
export interface ClusterState {
  workers: number;
  restarts: number;
  /** Scheduled tasks and job kinds failing run after run (they run in the supervisor only). */
  failingJobs: { job: string; consecutive_failures: number }[];
  /** The Unix socket of the worker that writes for the others (http/writer.ts), while it listens; null when none does. */
  writer: string | null;
}

/** What a server knows of a request's socket: the peer's address (Bun.serve's requestIP). */
export interface SocketPeers {
  requestIP(req: Request): { address: string } | null;
}

interface ContextOptions {
  config: Config;
  clock?: Clock;
  /** ":memory:" for tests; defaults to <dataDir>/colony.db. */
  dbPath?: string;
  /**
   * With ":memory:": a serialized database that is already migrated, to start from instead of
   * migrating an empty one (the test harness clones one per test process).
   */
  image?: Uint8Array;
  secrets?: Secrets;
  log?: Logger;
  /** Defaults to SMTP or the .eml folder per config; an in-memory database captures mail instead. */
  mail?: Mailer;
  /** Defaults to the real, guarded probe. */
  domainProbe?: DomainProbe;
  /** Defaults to the configured wallet (an in-memory database: a development wallet with a key in memory). */
  wallet?: LazyWallet;
  /** Defaults to "single". A worker never migrates: it refuses a database its supervisor has not brought up to date. */
  role?: ProcessRole;
  /** A worker's number (from 1; its supervisor is 0), on its log lines and answers. */
  worker?: number;
  /** A worker that writes for the others: the Unix socket it takes their writes on. Its grouped writes commit together. */
  writerSocket?: string;
}

export const databasePath = (config: Config) => join(config.dataDir, "colony.db");

export function createContext(opts: ContextOptions): Ctx {
  const { config } = opts;
  const clock = opts.clock ?? systemClock;
  const memory = (opts.dbPath ?? databasePath(config)) === ":memory:";
  const role = opts.role ?? "single";
  const worker = opts.worker ?? 0;
  const log = opts.log ?? createLogger(config.logLevel, () => clock.now(), undefined, role === "single" ? undefined : { worker });
  const dbPath = opts.dbPath ?? databasePath(config);
  if (dbPath !== ":memory:") mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(dbPath, opts.image);
  // Grouped writes commit together in one process, and in the worker that writes for the others;
  // any other process that shares the database commits each write on its own.
  if (role !== "single" && !opts.writerSocket) commitAlone(db);
  if (dbPath === ":memory:") {
    if (!opts.image) migrate(db);
  } else if (role === "worker") {
    const pending = migrationStatus(db.$client).pending;
    if (pending.length) {
      db.$client.close();
      throw new Error(`the database has migrations to apply (${pending.join(", ")}); the supervisor applies them before it starts workers`);
    }
  } else {
    // Refuses a database from a newer colony; copies one with data before migrating it.
    try {
      const { copy } = migrateGuarded(db, { label: dbPath, backupDir: config.backupDir, keep: config.upgradeBackupsKeep, now: clock.now() });
      if (copy) log.info("copied the database before migrating it", { copy });
    } catch (err) {
      db.$client.close();
      throw err;
    }
  }
  const secrets = opts.secrets ?? (dbPath === ":memory:" ? ephemeralSecrets() : loadSecrets(config.dataDir));
  let wallet: LazyWallet;
  try {
    wallet = opts.wallet ?? createWallet(config, { db, clock, devKeyPath: memory ? null : devKeyPath(config.dataDir) });
  } catch (err) {
    db.$client.close();
    throw err;
  }
  const ctx: Omit<Ctx, "metrics"> = {
    db,
    wallet,
    reads: inlineReads(db),
    clock,
    config,
    log,
    secrets,
    mail: opts.mail ?? (dbPath === ":memory:" ? new CapturingMailer() : createMailer(config, log, () => clock.now())),
    domains: opts.domainProbe ?? domainProbe(),
    events: new EventBus(db, clock, log, (type, payload) => (READ_SCOPES[type] as (p: object) => readonly string[])(payload)),
    jobs: new Jobs(db, clock, log),
    // Several processes share their rate-limit windows through <dataDir>/limits.db; one keeps them in memory.
    limits: new RateLimiter(clock, config.rateLimitMultiplier, role !== "single" && !memory ? new SqliteLimitStore(join(config.dataDir, LIMITS_FILE)) : new MemoryLimitStore()),
    realtime: new RealtimeHub(clock),
    server: null,
    role,
    worker,
    cluster: null,
    writerSocket: opts.writerSocket ?? null,
  };
  return Object.assign(ctx, { metrics: new Metrics(ctx, dbPath === ":memory:" ? null : `${dbPath}-wal`) });
}
