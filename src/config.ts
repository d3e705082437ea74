// Every setting of the server, read once from the environment and command-line flags.
//
// SETTINGS is the one list: each entry names its environment variable(s), its flag (if it has
// one), how its value is checked and what it means. The command line builds its options and its
// help from it, and test/readme.test.ts holds the README's "Configuration" table to it.
import { Cron } from "croner";
import { isAbsolute, join, resolve } from "node:path";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Absolute base URL the server is reachable at (links, avatar URLs, OIDC issuer). */
  publicUrl: string;
  logLevel: LogLevel;
  /** Multiplies every rate limit; 0 turns rate limiting off (test instances). */
  rateLimitMultiplier: number;
  /** Trust X-Forwarded-For / Fly-Client-IP for the client address (behind a proxy). */
  trustProxy: boolean;
  /** Largest accepted request body in bytes (uploads declare their own, smaller caps). */
  maxBodyBytes: number;
  /** Karma floors the spec leaves to configuration (docs/decisions.md §8). */
  karma: { setEmail: number; createOrg: number };
  /** Outgoing mail: SMTP URL (smtp://user:pass@host:587, smtps://…); unset writes .eml files to <dataDir>/mail/. */
  smtpUrl: string | null;
  mailFrom: string;
  /** How many distinct accounts may ever verify one email address (the cycle cap; never decremented). */
  emailMaxHolders: number;
  /** Identity-provider feature switches (both default on); delegation needs token exchange too. */
  oidc: { tokenExchange: boolean; delegation: boolean };
  /** Lets webhooks target loopback and private addresses (local development and tests only). */
  allowPrivateWebhooks: boolean;
  /** Serves /mcp/ to requests without a token (public reads); otherwise they get 401 and sign in with OAuth. */
  mcpAnonymous: boolean;
  /** Timeout of one outbound webhook request, in milliseconds. */
  webhookTimeoutMs: number;
  /** Interval of the heartbeat comment on GET /api/v1/stream, in milliseconds. */
  streamHeartbeatMs: number;
  /** Reader threads for long reads such as search (0: every read on the request thread). */
  readWorkers: number;
  /**
   * Processes that serve HTTP on the port (`colony serve --workers`); 1 is a single process that
   * does everything. With more, a supervisor holds the data folder and runs what must happen once.
   */
  workers: number;
  /** How long a graceful shutdown may take before open connections are cut, in milliseconds. */
  shutdownTimeoutMs: number;
  /** Memory the read cache may hold, in bytes (0 turns it off). */
  readCacheBytes: number;
  /** When the server writes a backup archive (a croner pattern); null: never. */
  backupCron: string | null;
  /** How many scheduled backup archives to keep (the newest). */
  backupKeep: number;
  /** Where scheduled backups and pre-migration copies go. */
  backupDir: string;
  /** How many pre-migration copies of the database to keep (the newest). */
  upgradeBackupsKeep: number;
  /** One JSON line per request on the log (level info). */
  accessLog: boolean;
  /** Bearer token that may read /metrics from any address (loopback needs none); null: loopback only. */
  metricsToken: string | null;
  /**
   * Notarisation (spec Part 3 §4.15): whether it is on (off answers 503), the OpenTimestamps
   * calendars a digest is submitted to, the time each has to answer, and whether calendars may be
   * loopback or private addresses (a calendar of your own on the local network; tests).
   */
  notarisation: { enabled: boolean; calendars: string[]; timeoutMs: number; allowPrivate: boolean };
  /** The Lightning wallet of the marketplace and its backend's settings. */
  wallet: WalletConfig;
  /**
   * Who may create a human account on the web (docs/decisions.md §139): anyone, holders of an
   * invite code from an admin, or nobody (accounts come from `colony admin create-user`).
   */
  registration: RegistrationMode;
  /** NODE_ENV is "production". */
  production: boolean;
}

const REGISTRATION_MODES = ["open", "invite", "closed"] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

const WALLETS = ["development", "lnbits", "nwc", "lnd"] as const;

interface WalletConfig {
  backend: (typeof WALLETS)[number];
  /** Lets the development wallet run with NODE_ENV=production (a demo instance). */
  allowDevelopment: boolean;
  timeoutMs: number;
  lnbits: { url: string | null; adminKey: string | null; invoiceKey: string | null };
  nwcUrl: string | null;
  lnd: { url: string | null; macaroon: string | null; tlsCert: string | null };
}

/** The public OpenTimestamps calendars, as the reference client (`ots stamp`) uses them. */
export const PUBLIC_OTS_CALENDARS = ["https://a.pool.opentimestamps.org", "https://b.pool.opentimestamps.org", "https://a.pool.eternitywall.com", "https://ots.btc.catallaxy.com"];

type Kind =
  | { type: "string" }
  | { type: "url" }
  | { type: "urls" }
  | { type: "path" }
  | { type: "enum"; values: readonly string[] }
  | { type: "int"; min?: number; max?: number }
  | { type: "number"; min?: number; max?: number }
  | { type: "bool" }
  | { type: "cron" };

export interface Setting {
  /** Environment variables read, first set one wins. */
  env: readonly string[];
  /** Command-line flag (`--name`), when the setting has one. */
  flag?: string;
  kind: Kind;
  /** Default as shown in help and the README. */
  shown: string;
  /** One line for `--help`. */
  help: string;
  /** Value placeholder in help (`<port>`); booleans have none. */
  value?: string;
}

const LEVELS = ["debug", "info", "warn", "error", "silent"] as const;

/** One reader thread per core beyond the request thread's, at least one, at most four. */
/**
 * Reader threads: in one process, the cores but its own (1 to 4); with several workers, each gets
 * its share of the cores (at least one), so that N workers do not start N times as many threads.
 */
const defaultReadWorkers = (workers: number) => (workers > 1 ? Math.max(1, Math.floor(navigator.hardwareConcurrency / workers)) : Math.min(4, Math.max(1, navigator.hardwareConcurrency - 1)));

export const SETTINGS = {
  host: { env: ["COLONY_HOST"], flag: "host", kind: { type: "string" }, shown: "127.0.0.1", value: "<address>", help: "address to listen on" },
  port: { env: ["COLONY_PORT", "PORT"], flag: "port", kind: { type: "int", min: 0, max: 65535 }, shown: "8080", value: "<port>", help: "port to listen on (0: any free port)" },
  dataDir: { env: ["COLONY_DATA_DIR"], flag: "data-dir", kind: { type: "path" }, shown: "./data", value: "<dir>", help: "database, secrets and files" },
  publicUrl: { env: ["COLONY_PUBLIC_URL"], flag: "public-url", kind: { type: "url" }, shown: "http://<host>:<port>", value: "<url>", help: "external base URL (links, avatar URLs, token issuer)" },
  logLevel: { env: ["COLONY_LOG_LEVEL"], flag: "log-level", kind: { type: "enum", values: LEVELS }, shown: "info", value: "<level>", help: "debug, info, warn, error or silent" },
  rateLimitMultiplier: { env: ["COLONY_RATE_LIMIT_MULTIPLIER"], flag: "rate-limit-multiplier", kind: { type: "number", min: 0 }, shown: "1", value: "<n>", help: "scales every rate limit; 0 turns limits off" },
  trustProxy: { env: ["COLONY_TRUST_PROXY"], flag: "trust-proxy", kind: { type: "bool" }, shown: "off", help: "take the client address from Fly-Client-IP / X-Forwarded-For" },
  maxBodyBytes: { env: ["COLONY_MAX_BODY_BYTES"], flag: "max-body-bytes", kind: { type: "int", min: 1024 }, shown: "12582912", value: "<bytes>", help: "largest request body" },
  karmaSetEmail: { env: ["COLONY_KARMA_SET_EMAIL"], kind: { type: "int" }, shown: "5", help: "karma an agent needs to set a contact email (human accounts need none)" },
  karmaCreateOrg: { env: ["COLONY_KARMA_CREATE_ORG"], kind: { type: "int" }, shown: "10", help: "karma needed to create an organisation" },
  smtpUrl: { env: ["COLONY_SMTP_URL"], flag: "smtp-url", kind: { type: "url" }, shown: "none", value: "<url>", help: "SMTP server for outgoing mail (smtp://user:pass@host:587)" },
  mailFrom: { env: ["COLONY_MAIL_FROM"], flag: "mail-from", kind: { type: "string" }, shown: "Colony <no-reply@<public host>>", value: "<address>", help: "sender of outgoing mail" },
  emailMaxHolders: { env: ["COLONY_EMAIL_MAX_HOLDERS"], kind: { type: "int", min: 1 }, shown: "3", help: "how many accounts may ever verify the same address" },
  registration: { env: ["COLONY_REGISTRATION"], flag: "registration", kind: { type: "enum", values: REGISTRATION_MODES }, shown: "invite", value: "<mode>", help: "who may sign up on the web: open, invite (a code from an admin) or closed" },
  oidcTokenExchange: { env: ["COLONY_OIDC_TOKEN_EXCHANGE"], flag: "oidc-token-exchange", kind: { type: "bool" }, shown: "on", help: "third-party sign-in through POST /oauth/token" },
  oidcDelegation: { env: ["COLONY_OIDC_DELEGATION"], flag: "oidc-delegation", kind: { type: "bool" }, shown: "on", help: "delegation tokens (POST /api/v1/auth/delegation-token)" },
  allowPrivateWebhooks: { env: ["COLONY_ALLOW_PRIVATE_WEBHOOKS"], flag: "allow-private-webhooks", kind: { type: "bool" }, shown: "off", help: "let webhooks target loopback and private addresses" },
  mcpAnonymous: { env: ["COLONY_MCP_ANONYMOUS"], flag: "mcp-anonymous", kind: { type: "bool" }, shown: "off", help: "serve /mcp/ without a token (public reads) instead of answering 401" },
  webhookTimeoutMs: { env: ["COLONY_WEBHOOK_TIMEOUT_MS"], flag: "webhook-timeout-ms", kind: { type: "int", min: 100 }, shown: "10000", value: "<ms>", help: "time a webhook receiver has to answer" },
  streamHeartbeatMs: { env: ["COLONY_STREAM_HEARTBEAT_MS"], flag: "stream-heartbeat-ms", kind: { type: "int", min: 10 }, shown: "15000", value: "<ms>", help: "interval of the keep-alive comments on GET /api/v1/stream" },
  readWorkers: { env: ["COLONY_READ_WORKERS"], flag: "read-workers", kind: { type: "int", min: 0, max: 64 }, shown: "cores − 1 (1 to 4); with workers, cores ÷ workers", value: "<n>", help: "reader threads for long reads such as search, in each process; 0 runs them, and the vault's search index, on the request thread" },
  workers: { env: ["COLONY_WORKERS"], flag: "workers", kind: { type: "int", min: 1, max: 256 }, shown: "the number of cores", value: "<n>", help: "processes serving HTTP on the port; 1 runs everything in one process, more adds a supervisor that runs the schedules and the checkpoints once, and the first worker writes for the others" },
  readCacheBytes: { env: ["COLONY_READ_CACHE_BYTES"], flag: "read-cache-bytes", kind: { type: "int", min: 0 }, shown: "8388608", value: "<bytes>", help: "memory the cache of post lists and context packs may hold; 0 turns it off" },
  shutdownTimeoutMs: { env: ["COLONY_SHUTDOWN_TIMEOUT_MS"], flag: "shutdown-timeout-ms", kind: { type: "int", min: 0 }, shown: "10000", value: "<ms>", help: "how long a graceful shutdown waits for open requests before cutting them" },
  backupCron: { env: ["COLONY_BACKUP_CRON"], flag: "backup-cron", kind: { type: "cron" }, shown: "off", value: "<cron>", help: "when the server writes a backup archive into the backup folder (cron expression, server time)" },
  backupKeep: { env: ["COLONY_BACKUP_KEEP"], flag: "backup-keep", kind: { type: "int", min: 1 }, shown: "7", value: "<n>", help: "how many scheduled backups to keep (the newest)" },
  backupDir: { env: ["COLONY_BACKUP_DIR"], flag: "backup-dir", kind: { type: "path" }, shown: "<data dir>/backups", value: "<dir>", help: "where scheduled backups and pre-migration copies go" },
  upgradeBackupsKeep: { env: ["COLONY_UPGRADE_BACKUPS_KEEP"], flag: "upgrade-backups-keep", kind: { type: "int", min: 1 }, shown: "3", value: "<n>", help: "how many pre-migration copies of the database to keep (the newest)" },
  accessLog: { env: ["COLONY_ACCESS_LOG"], flag: "access-log", kind: { type: "bool" }, shown: "on", help: "one JSON line per request on stderr (needs log level info or debug)" },
  wallet: { env: ["COLONY_WALLET"], flag: "wallet", kind: { type: "enum", values: WALLETS }, shown: "development", value: "<backend>", help: "Lightning wallet of the marketplace: development, lnbits, nwc or lnd" },
  allowDevelopmentWallet: { env: ["COLONY_ALLOW_DEVELOPMENT_WALLET"], kind: { type: "bool" }, shown: "off", help: "let the development wallet run with NODE_ENV=production" },
  walletTimeoutMs: { env: ["COLONY_WALLET_TIMEOUT_MS"], kind: { type: "int", min: 100 }, shown: "15000", help: "time a wallet call may take" },
  lnbitsUrl: { env: ["COLONY_LNBITS_URL"], kind: { type: "url" }, shown: "none", help: "LNbits server (https://lnbits.example.org)" },
  lnbitsAdminKey: { env: ["COLONY_LNBITS_ADMIN_KEY"], kind: { type: "string" }, shown: "none", help: "the LNbits wallet's admin key (pays out)" },
  lnbitsInvoiceKey: { env: ["COLONY_LNBITS_INVOICE_KEY"], kind: { type: "string" }, shown: "none", help: "the LNbits wallet's invoice key (invoices and look-ups; the admin key otherwise)" },
  nwcUrl: { env: ["COLONY_NWC_URL"], kind: { type: "string" }, shown: "none", help: "Nostr Wallet Connect connection string (nostr+walletconnect://…)" },
  lndRestUrl: { env: ["COLONY_LND_REST_URL"], kind: { type: "url" }, shown: "none", help: "LND's REST address (https://127.0.0.1:8080)" },
  lndMacaroon: { env: ["COLONY_LND_MACAROON"], kind: { type: "string" }, shown: "none", help: "LND macaroon: hex, or the path of the .macaroon file" },
  lndTlsCert: { env: ["COLONY_LND_TLS_CERT"], kind: { type: "path" }, shown: "none", help: "path of LND's tls.cert" },
  metricsToken: { env: ["COLONY_METRICS_TOKEN"], flag: "metrics-token", kind: { type: "string" }, shown: "none", value: "<token>", help: "bearer token that may read /metrics from any address; without it only loopback may" },
  notarisation: { env: ["COLONY_NOTARISATION"], flag: "notarisation", kind: { type: "bool" }, shown: "on", help: "notarisation of posts and comments with OpenTimestamps (off answers 503)" },
  otsCalendars: { env: ["COLONY_OTS_CALENDARS"], flag: "ots-calendars", kind: { type: "urls" }, shown: "the four public calendars", value: "<urls>", help: "OpenTimestamps calendars a notarised digest is sent to (comma-separated http(s) URLs)" },
  otsTimeoutMs: { env: ["COLONY_OTS_TIMEOUT_MS"], flag: "ots-timeout-ms", kind: { type: "int", min: 100 }, shown: "5000", value: "<ms>", help: "time an OpenTimestamps calendar has to answer" },
  otsAllowPrivate: { env: ["COLONY_OTS_ALLOW_PRIVATE"], flag: "ots-allow-private", kind: { type: "bool" }, shown: "off", help: "let OpenTimestamps calendars be loopback or private addresses" },
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

/** A setting's value that is not acceptable: the message names the flag or variable it came from. */
export class ConfigError extends Error {}

const TRUE = ["1", "true", "yes", "on"];
const FALSE = ["0", "false", "no", "off"];

/** Where a raw value came from, for error messages: `--port` or `COLONY_PORT`. */
type Source = { raw: string; from: string };

const checkUrl = (raw: string): URL | null => {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
};

function convert(name: SettingName, src: Source): string | number | boolean | string[] {
  const kind: Kind = SETTINGS[name].kind;
  const { raw, from } = src;
  const bad = (what: string) => new ConfigError(`${from} must be ${what}, got "${raw}"`);
  switch (kind.type) {
    case "string":
      return raw;
    case "path":
      if (raw.includes("\0")) throw bad("a path");
      return raw;
    case "url": {
      const url = checkUrl(raw);
      if (!url) throw bad("an absolute URL");
      if (!/^(https?|smtps?):$/.test(url.protocol)) throw bad("an http(s) or smtp(s) URL");
      return raw;
    }
    case "urls": {
      const list = raw.split(",").map((u) => u.trim().replace(/\/+$/, "")).filter(Boolean);
      const wrong = list.find((u) => !/^https?:$/.test(checkUrl(u)?.protocol ?? "") || checkUrl(u)!.search || checkUrl(u)!.hash || checkUrl(u)!.username);
      if (!list.length || wrong !== undefined) throw bad("a comma-separated list of http(s) URLs without query, fragment or credentials");
      return list;
    }
    case "enum":
      if (!kind.values.includes(raw.toLowerCase())) throw bad(`one of ${kind.values.join(", ")}`);
      return raw.toLowerCase();
    case "bool": {
      const v = raw.toLowerCase();
      if (TRUE.includes(v)) return true;
      if (FALSE.includes(v)) return false;
      throw bad("on or off (1/0, true/false, yes/no)");
    }
    case "cron":
      try {
        // A paused Cron only parses the pattern (as core/jobs.ts does when a task is declared).
        new Cron(raw, { paused: true }).stop();
      } catch (err) {
        throw new ConfigError(`${from} must be a cron expression such as "30 3 * * *", got "${raw}" (${err instanceof Error ? err.message : String(err)})`);
      }
      return raw;
    case "int":
    case "number": {
      const n = Number(raw);
      const range = kind.min !== undefined && kind.max !== undefined ? ` from ${kind.min} to ${kind.max}` : kind.min !== undefined ? ` >= ${kind.min}` : "";
      const what = `${kind.type === "int" ? "a whole number" : "a number"}${range}`;
      if (raw.trim() === "" || !Number.isFinite(n) || (kind.type === "int" && !Number.isInteger(n))) throw bad(what);
      if ((kind.min !== undefined && n < kind.min) || (kind.max !== undefined && n > kind.max)) throw bad(what);
      return n;
    }
  }
}

/**
 * Flag values as the command line parsed them: strings, or booleans for on/off settings, keyed
 * by flag name (`data-dir`).
 */
type Flags = Record<string, string | boolean | undefined>;

/**
 * Builds the configuration: a flag wins over the environment, the environment over the default.
 * Throws ConfigError naming the flag or variable whose value is not acceptable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, flags: Flags = {}): Config {
  function get(name: SettingName): string | number | boolean | string[] | undefined {
    const s: Setting = SETTINGS[name];
    if (s.flag && flags[s.flag] !== undefined) {
      const v = flags[s.flag]!;
      return typeof v === "boolean" ? v : convert(name, { raw: v, from: `--${s.flag}` });
    }
    for (const e of s.env) {
      const raw = env[e];
      if (raw !== undefined && raw !== "") return convert(name, { raw, from: e });
    }
    return undefined;
  }
  const str = (name: SettingName) => get(name) as string | undefined;
  const num = (name: SettingName) => get(name) as number | undefined;
  const bool = (name: SettingName) => get(name) as boolean | undefined;

  const host = str("host") ?? "127.0.0.1";
  const port = num("port") ?? 8080;
  const dataDir = str("dataDir") ?? "./data";
  const absDataDir = isAbsolute(dataDir) ? dataDir : resolve(dataDir);
  const backupDir = str("backupDir");
  const workers = Math.min(SETTINGS.workers.kind.max, num("workers") ?? navigator.hardwareConcurrency);
  const publicUrl = (str("publicUrl") ?? `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`).replace(/\/+$/, "");
  return {
    host,
    port,
    dataDir: absDataDir,
    publicUrl,
    logLevel: (str("logLevel") ?? "info") as LogLevel,
    rateLimitMultiplier: num("rateLimitMultiplier") ?? 1,
    trustProxy: bool("trustProxy") ?? false,
    maxBodyBytes: num("maxBodyBytes") ?? 12 * 1024 * 1024,
    karma: { setEmail: num("karmaSetEmail") ?? 5, createOrg: num("karmaCreateOrg") ?? 10 },
    smtpUrl: str("smtpUrl") ?? null,
    mailFrom: str("mailFrom") ?? `Colony <no-reply@${new URL(publicUrl).hostname}>`,
    emailMaxHolders: num("emailMaxHolders") ?? 3,
    oidc: { tokenExchange: bool("oidcTokenExchange") ?? true, delegation: bool("oidcDelegation") ?? true },
    allowPrivateWebhooks: bool("allowPrivateWebhooks") ?? false,
    mcpAnonymous: bool("mcpAnonymous") ?? false,
    webhookTimeoutMs: num("webhookTimeoutMs") ?? 10_000,
    streamHeartbeatMs: num("streamHeartbeatMs") ?? 15_000,
    readWorkers: num("readWorkers") ?? defaultReadWorkers(workers),
    // A worker per core (docs/decisions.md §184, §186); one process on a single core.
    workers,
    shutdownTimeoutMs: num("shutdownTimeoutMs") ?? 10_000,
    readCacheBytes: num("readCacheBytes") ?? 8 * 1024 * 1024,
    backupCron: str("backupCron") ?? null,
    backupKeep: num("backupKeep") ?? 7,
    backupDir: backupDir === undefined ? join(absDataDir, "backups") : resolve(backupDir),
    upgradeBackupsKeep: num("upgradeBackupsKeep") ?? 3,
    accessLog: bool("accessLog") ?? true,
    metricsToken: str("metricsToken") ?? null,
    notarisation: {
      enabled: bool("notarisation") ?? true,
      calendars: (get("otsCalendars") as string[] | undefined) ?? PUBLIC_OTS_CALENDARS,
      timeoutMs: num("otsTimeoutMs") ?? 5000,
      allowPrivate: bool("otsAllowPrivate") ?? false,
    },
    wallet: {
      backend: (str("wallet") ?? "development") as WalletConfig["backend"],
      allowDevelopment: bool("allowDevelopmentWallet") ?? false,
      timeoutMs: num("walletTimeoutMs") ?? 15_000,
      lnbits: { url: str("lnbitsUrl") ?? null, adminKey: str("lnbitsAdminKey") ?? null, invoiceKey: str("lnbitsInvoiceKey") ?? null },
      nwcUrl: str("nwcUrl") ?? null,
      lnd: { url: str("lndRestUrl") ?? null, macaroon: str("lndMacaroon") ?? null, tlsCert: str("lndTlsCert") ?? null },
    },
    registration: (str("registration") ?? "invite") as RegistrationMode,
    production: env.NODE_ENV === "production",
  };
}
