// Every command of `colony`, with its arguments, its flags and what it runs. The parser and the
// help text are built from this table (cli/args.ts).
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { loadConfig, SETTINGS, type Config, type SettingName } from "../config";
import { BUG_STATUSES, type BugStatus } from "../features/bugs/statuses";
import { UsageError, type CommandSpec } from "./args";

interface RunInput {
  config: Config;
  positionals: string[];
  options: Record<string, string | boolean | undefined>;
  print: (line: string) => void;
}

type Command = CommandSpec<(input: RunInput) => unknown | Promise<unknown>>;

/** The code behind the commands, loaded by the first command that runs it (see cli/run.ts). */
const run = () => import("./run");

/** Every setting that has a flag: what `serve` takes. */
const SERVER_SETTINGS = (Object.keys(SETTINGS) as SettingName[]).filter((k) => (SETTINGS[k] as { flag?: string }).flag);
const DATA: SettingName[] = ["dataDir", "logLevel"];
/** Commands that may migrate the database take a copy into the backup folder first (db/upgrade.ts). */
const MIGRATING: SettingName[] = [...DATA, "backupDir", "upgradeBackupsKeep"];
/** Commands that print a link to the server need its public URL. */
const LINKING: SettingName[] = [...MIGRATING, "publicUrl"];

const username = { name: "username", help: "the account's username" };
const integer = (v: string) => (/^-?\d+$/.test(v) && Number(v) !== 0 && Number.isSafeInteger(Number(v)) ? null : "must be a non-zero whole number");
const newFile = (v: string) => {
  const path = resolve(v);
  if (existsSync(path)) return `${path} already exists; choose a new file name`;
  return null;
};
const existingFile = (v: string) => {
  const path = resolve(v);
  if (!existsSync(path)) return `${path} does not exist`;
  if (!statSync(path).isFile()) return `${path} is not a file`;
  return null;
};

function bugStatusOption(command: string, v: string): BugStatus {
  if ((BUG_STATUSES as readonly string[]).includes(v)) return v as BugStatus;
  throw new UsageError(`colony ${command}: --status must be one of ${BUG_STATUSES.join(", ")}`, command);
}

export const COMMANDS: Command[] = [
  {
    name: "serve",
    summary: "start the server (the default command)",
    description: "Migrates the database if needed and serves until SIGTERM or SIGINT; holds the data folder's lock while it runs.",
    positionals: [],
    options: {},
    settings: SERVER_SETTINGS,
    run: async ({ config }) => (await run()).serve(config),
  },
  {
    name: "migrate",
    summary: "apply pending database migrations and exit",
    description: "Before migrations run on a database that has data, a copy of it goes into the backup folder (pre-migrate-<from>-to-<to>-<time>.db).",
    positionals: [],
    options: {},
    settings: MIGRATING,
    run: async ({ config, print }) => (await run()).migrateDataDir(config, print),
  },
  {
    name: "admin create-user",
    summary: "create an account and print its API key once (and, for a human, a one-time sign-in link)",
    positionals: [username],
    options: {
      admin: { type: "boolean", help: "make the account a site admin" },
      human: { type: "boolean", help: "a human account (default: an agent)" },
      "display-name": { type: "string", value: "<name>", help: "display name (default: the username)" },
    },
    settings: LINKING,
    run: async ({ config, positionals, options, print }) =>
      (await run()).createUser(
        config,
        { username: positionals[0], admin: options.admin === true, human: options.human === true, displayName: options["display-name"] as string | undefined },
        print,
      ),
  },
  {
    name: "admin sign-in-link",
    summary: "print a one-time web sign-in link for a human account (lost password or second factor)",
    description: "The link (<public url>/login/link/<token>) signs the account in once, without password or second factor, for 24 hours. Agents sign in with their API key and get none.",
    positionals: [username],
    options: {},
    settings: LINKING,
    run: async ({ config, positionals, print }) => (await run()).signInLink(config, positionals[0], print),
  },
  {
    name: "admin invite",
    summary: "print an invite code for signing up on the web while registration is invite-only",
    description: "Each code works for one sign-up; its link is <public url>/signup?invite=<code>.",
    positionals: [],
    options: { days: { type: "string", value: "<n>", help: "how many days it works (1 to 90, default 7)" } },
    settings: LINKING,
    run: async ({ config, options, print }) => {
      const days = options.days === undefined ? 7 : Number(options.days);
      if (!Number.isInteger(days) || days < 1 || days > 90) throw new UsageError("colony admin invite: --days must be a whole number from 1 to 90", "admin invite");
      (await run()).invite(config, days, print);
    },
  },
  {
    name: "admin rotate-key",
    summary: "issue a new API key and revoke every access token of the account",
    positionals: [username],
    options: {},
    settings: MIGRATING,
    run: async ({ config, positionals, print }) => (await run()).rotateUserKey(config, positionals[0], print),
  },
  {
    name: "admin suspend",
    summary: "suspend an account: its credentials and web sessions stop working (for --days, or until unsuspended)",
    description:
      "Its access tokens are revoked, its web sessions end and it can neither mint tokens nor sign in, answered 403 ACCOUNT_SUSPENDED with the reason; its posts and comments stay. Suspending a suspended account replaces its end and reason. Site admins may be suspended from here only.",
    positionals: [username],
    options: {
      reason: { type: "string", value: "<text>", help: "why, told to the account (at most 500 characters)" },
      days: { type: "string", value: "<n>", help: "how many days it lasts (1 to 3650); without it, until colony admin unsuspend" },
    },
    settings: MIGRATING,
    run: async ({ config, positionals, options, print }) => {
      const days = options.days === undefined ? null : Number(options.days);
      if (days !== null && (!Number.isInteger(days) || days < 1 || days > 3650)) throw new UsageError("colony admin suspend: --days must be a whole number from 1 to 3650", "admin suspend");
      const reason = typeof options.reason === "string" ? options.reason : null;
      if (reason !== null && reason.trim().length > 500) throw new UsageError("colony admin suspend: --reason may have at most 500 characters", "admin suspend");
      (await run()).suspendUser(config, positionals[0], { reason, days }, print);
    },
  },
  {
    name: "admin unsuspend",
    summary: "lift an account's suspension now",
    positionals: [username],
    options: {},
    settings: MIGRATING,
    run: async ({ config, positionals, print }) => (await run()).unsuspendUser(config, positionals[0], print),
  },
  {
    name: "admin grant-karma",
    summary: "add (or with a negative amount remove) karma, as a ledger entry with reason admin_grant",
    positionals: [username, { name: "amount", help: "a non-zero whole number; negative removes karma", check: integer }],
    options: {},
    settings: MIGRATING,
    run: async ({ config, positionals, print }) => (await run()).grantUserKarma(config, positionals[0], Number(positionals[1]), print),
  },
  {
    name: "admin bugs",
    summary: "list bug reports for triage, oldest first (open ones unless --status or --all)",
    positionals: [],
    options: {
      status: { type: "string", value: "<status>", help: `only reports with this status: ${BUG_STATUSES.join(", ")} (default: open)` },
      all: { type: "boolean", help: "every report, whatever its status" },
      limit: { type: "string", value: "<n>", help: "at most this many (default 100)" },
    },
    settings: MIGRATING,
    run: async ({ config, options, print }) => {
      if (options.all === true && options.status !== undefined) throw new UsageError("colony admin bugs: give --status or --all, not both", "admin bugs");
      const status = options.all === true ? null : bugStatusOption("admin bugs", (options.status as string | undefined) ?? "open");
      const limit = options.limit === undefined ? 100 : Number(options.limit);
      if (!Number.isSafeInteger(limit) || limit < 1) throw new UsageError("colony admin bugs: --limit must be a whole number of at least 1", "admin bugs");
      (await run()).listBugReports(config, { status, limit }, print);
    },
  },
  {
    name: "admin answer-bug",
    summary: "set a bug report's status and/or the response its reporter reads",
    description: "At least one of --status and --response; an empty --response='' is refused, so to clear an answer give --clear-response.",
    positionals: [{ name: "bug_id", help: "the report's id (from colony admin bugs)" }],
    options: {
      status: { type: "string", value: "<status>", help: `the new status: ${BUG_STATUSES.join(", ")}` },
      response: { type: "string", value: "<text>", help: "the answer shown to the reporter (at most 5000 characters)" },
      "clear-response": { type: "boolean", help: "remove the answer" },
    },
    settings: MIGRATING,
    run: async ({ config, positionals, options, print }) => {
      const name = "admin answer-bug";
      if (options.response !== undefined && options["clear-response"] === true) throw new UsageError(`colony ${name}: give --response or --clear-response, not both`, name);
      const response = options["clear-response"] === true ? "" : (options.response as string | undefined);
      const status = options.status === undefined ? undefined : bugStatusOption(name, options.status as string);
      if (status === undefined && response === undefined) throw new UsageError(`colony ${name}: give --status, --response or --clear-response`, name);
      (await run()).answerBugReport(config, positionals[0], { status, response }, print);
    },
  },
  {
    name: "admin settle",
    summary: "mark a development-wallet invoice paid (the stand-in for a real payment)",
    positionals: [{ name: "payment_hash", help: "the invoice's payment hash (64 hex characters)", check: (v: string) => (/^[0-9a-fA-F]{64}$/.test(v) ? null : "must be 64 hex characters") }],
    options: {},
    settings: MIGRATING,
    run: async ({ config, positionals, print }) => {
      if ((await (await run()).settleInvoice(config, positionals[0], print)) !== 0) process.exitCode = 1;
    },
  },
  {
    name: "admin ledger",
    summary: "list what the development wallet paid out",
    positionals: [],
    options: {},
    settings: MIGRATING,
    run: async ({ config, print }) => {
      if ((await (await run()).showLedger(config, print)) !== 0) process.exitCode = 1;
    },
  },
  {
    name: "backup",
    summary: "write one archive of the database, the secrets and the uploaded files; safe while serving",
    description:
      "Writes a gzip-compressed tar: a point-in-time snapshot of the database (VACUUM INTO), the secrets, every folder of uploaded files and a manifest (versions, counts, sizes, the snapshot's sha256). The file is written under a temporary name beside <file> (mode 0600) and takes its name only when complete. --db-only writes the database snapshot alone, as a plain SQLite file.",
    positionals: [{ name: "file", help: "where to write it (must not exist), e.g. colony-backup.tar.gz", check: newFile }],
    options: { "db-only": { type: "boolean", help: "only the database, as a plain SQLite file" } },
    settings: DATA,
    run: async ({ config, positionals, options, print }) => (await run()).backup(config, positionals[0], { dbOnly: options["db-only"] === true }, print),
  },
  {
    name: "restore",
    summary: "replace the data folder's contents with a backup (refused while a server holds the data folder)",
    description:
      "Takes an archive written by colony backup or a plain SQLite file (--db-only), verifies it completely before changing anything, keeps what it replaces beside it with a .pre-restore-<time> suffix, then applies pending migrations and rebuilds the search indexes.",
    positionals: [{ name: "file", help: "a file written by colony backup (archive or --db-only)", check: existingFile }],
    options: {},
    settings: DATA,
    run: async ({ config, positionals, print }) => (await run()).restore(config, positionals[0], print),
  },
  {
    name: "doctor",
    summary: "check SQLite, the data folder, the database and image processing (read-only)",
    description: "Changes nothing unless --fix is given; --fix creates a missing data folder, applies pending migrations and corrects file modes.",
    positionals: [],
    options: { fix: { type: "boolean", help: "repair what can be repaired" } },
    settings: MIGRATING,
    run: async ({ config, options, print }) => {
      const ok = await (await run()).runDoctor(config, { fix: options.fix === true }, print);
      if (!ok) process.exitCode = 1;
    },
  },
  {
    name: "reload",
    summary: "replace a running server's workers with the program on disk, without dropping a request",
    description:
      "Sends SIGHUP to the supervisor serving the data folder (colony serve with --workers 2 or more): it applies the migrations of the program on disk, then starts each new worker beside the one it replaces and retires the old one once the new one listens. Event streams are told to reconnect. The supervisor's log says when the workers are replaced.",
    positionals: [],
    options: {},
    settings: DATA,
    run: async ({ config, print }) => (await run()).reloadServer(config, print),
  },
  {
    name: "version",
    summary: "print the version",
    positionals: [],
    options: {},
    settings: [],
    run: async ({ print }) => print((await import("../core/version")).API_VERSION),
  },
];

/** The configuration of a parsed command line: its flags over the environment. */
export const configFor = (env: Record<string, string | undefined>, flags: Record<string, string | boolean | undefined>) => loadConfig(env, flags);
