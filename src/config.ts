// Every setting of the server, read once from the environment and command-line flags.
// The README's "Configuration" table documents each one; keep the two in step.
import { resolve } from "node:path";

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
  /** Karma floors the spec leaves to configuration (DECISIONS 8). */
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
  /** Timeout of one outbound webhook request, in milliseconds. */
  webhookTimeoutMs: number;
  /** Interval of the heartbeat comment on GET /api/v1/stream, in milliseconds. */
  streamHeartbeatMs: number;
  /** Reader threads for long reads such as search (0: every read on the request thread). */
  readWorkers: number;
}

/** One reader thread per core beyond the request thread's, at least one, at most four. */
const defaultReadWorkers = () => Math.min(4, Math.max(1, navigator.hardwareConcurrency - 1));

const LEVELS: LogLevel[] = ["debug", "info", "warn", "error", "silent"];

function num(name: string, raw: string | undefined, fallback: number, min = -Infinity): number {
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return n;
}

function bool(raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === "") return fallback;
  return ["1", "true", "yes", "on"].includes(raw.toLowerCase());
}

/** Parses `--name value` and `--name=value` flags into a map. Flags win over the environment. */
export function parseFlags(argv: string[]): { flags: Record<string, string>; rest: string[] } {
  const flags: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) {
      rest.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) flags[a.slice(2)] = argv[++i];
    else flags[a.slice(2)] = "true";
  }
  return { flags, rest };
}

export function loadConfig(env: Record<string, string | undefined> = process.env, flags: Record<string, string> = {}): Config {
  const get = (flag: string, ...names: string[]) => flags[flag] ?? names.map((n) => env[n]).find((v) => v !== undefined && v !== "");
  const host = get("host", "COLONY_HOST") ?? "127.0.0.1";
  const port = num("COLONY_PORT", get("port", "COLONY_PORT", "PORT"), 8080, 0);
  const logLevel = (get("log-level", "COLONY_LOG_LEVEL") ?? "info").toLowerCase() as LogLevel;
  if (!LEVELS.includes(logLevel)) throw new Error(`COLONY_LOG_LEVEL must be one of ${LEVELS.join(", ")}`);
  const publicUrl = (get("public-url", "COLONY_PUBLIC_URL") ?? `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`).replace(/\/+$/, "");
  return {
    host,
    port,
    dataDir: resolve(get("data-dir", "COLONY_DATA_DIR") ?? "./data"),
    publicUrl,
    logLevel,
    rateLimitMultiplier: num("COLONY_RATE_LIMIT_MULTIPLIER", get("rate-limit-multiplier", "COLONY_RATE_LIMIT_MULTIPLIER"), 1, 0),
    trustProxy: bool(get("trust-proxy", "COLONY_TRUST_PROXY"), false),
    maxBodyBytes: num("COLONY_MAX_BODY_BYTES", get("max-body-bytes", "COLONY_MAX_BODY_BYTES"), 12 * 1024 * 1024, 1024),
    karma: {
      setEmail: num("COLONY_KARMA_SET_EMAIL", env.COLONY_KARMA_SET_EMAIL, 5),
      createOrg: num("COLONY_KARMA_CREATE_ORG", env.COLONY_KARMA_CREATE_ORG, 10),
    },
    smtpUrl: get("smtp-url", "COLONY_SMTP_URL") ?? null,
    mailFrom: get("mail-from", "COLONY_MAIL_FROM") ?? `Colony <no-reply@${new URL(publicUrl).hostname}>`,
    emailMaxHolders: num("COLONY_EMAIL_MAX_HOLDERS", env.COLONY_EMAIL_MAX_HOLDERS, 3, 1),
    oidc: {
      tokenExchange: bool(get("oidc-token-exchange", "COLONY_OIDC_TOKEN_EXCHANGE"), true),
      delegation: bool(get("oidc-delegation", "COLONY_OIDC_DELEGATION"), true),
    },
    allowPrivateWebhooks: bool(get("allow-private-webhooks", "COLONY_ALLOW_PRIVATE_WEBHOOKS"), false),
    webhookTimeoutMs: num("COLONY_WEBHOOK_TIMEOUT_MS", get("webhook-timeout-ms", "COLONY_WEBHOOK_TIMEOUT_MS"), 10_000, 100),
    streamHeartbeatMs: num("COLONY_STREAM_HEARTBEAT_MS", get("stream-heartbeat-ms", "COLONY_STREAM_HEARTBEAT_MS"), 15_000, 10),
    readWorkers: Math.floor(num("COLONY_READ_WORKERS", get("read-workers", "COLONY_READ_WORKERS"), defaultReadWorkers(), 0)),
  };
}
