#!/usr/bin/env bun
// The command line: colony [serve] | migrate | admin … | backup <file> | restore <file> | version
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createApp } from "./app";
import { loadConfig, parseFlags, type Config } from "./config";
import { createContext, databasePath } from "./core/context";
import { startCheckpointer } from "./db/checkpointer";
import { startReadPool } from "./db/read-pool";
import { hashSecret, newApiKey } from "./core/ids";
import { openDatabase, sqliteVersion } from "./db/client";
import { FTS_INDEXES } from "./db/fts";
import { migrate } from "./db/migrate";
import { rotateKey } from "./features/auth/service";
import { API_VERSION } from "./features/meta/routes";
import * as users from "./features/users/service";
import { grantKarma } from "./features/votes/service";

const USAGE = `colony ${API_VERSION}

Usage:
  colony [serve]                         start the server (default)
  colony migrate                         apply database migrations and exit
  colony admin create-user <username> [--admin] [--human] [--display-name <name>]
                                         create an account and print its API key once
  colony admin rotate-key <username>     issue a new API key and revoke the account's tokens
  colony admin grant-karma <username> <amount>
                                         add (or with a negative amount remove) karma: a ledger entry
                                         with reason admin_grant
  colony backup <file>                   write a consistent copy of the live database
  colony restore <file>                  replace the database with a backup (server stopped)
  colony doctor                          check SQLite, the data folder and image processing
  colony version                         print the version

Options (each also an environment variable, see README):
  --host, --port, --data-dir, --public-url, --log-level, --rate-limit-multiplier, --trust-proxy`;

const pidFile = (config: Config) => join(config.dataDir, "colony.pid");

function isRunning(config: Config): number | null {
  const path = pidFile(config);
  if (!existsSync(path)) return null;
  const pid = Number(readFileSync(path, "utf8").trim());
  if (!pid) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

async function serve(config: Config) {
  const ctx = createContext({ config });
  const app = createApp(ctx);
  const server = Bun.serve({
    hostname: config.host,
    port: config.port,
    fetch: app.fetch,
    maxRequestBodySize: config.maxBodyBytes,
    idleTimeout: 120,
  });
  writeFileSync(pidFile(config), String(process.pid), { mode: 0o600 });
  const checkpointer = startCheckpointer(ctx.db, databasePath(config), ctx.log);
  ctx.reads = startReadPool(ctx.db, databasePath(config), config.readWorkers, ctx.log);
  ctx.events.start();
  ctx.jobs.start();
  ctx.log.info("colony listening", { url: `http://${server.hostname}:${server.port}`, public_url: config.publicUrl, data_dir: config.dataDir, sqlite: sqliteVersion(ctx.db), version: API_VERSION });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.log.info("shutting down", { signal });
    ctx.jobs.stop();
    ctx.events.stop();
    await server.stop();
    await ctx.events.drain().catch(() => 0);
    await ctx.reads.stop();
    await checkpointer.stop();
    ctx.db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
    ctx.db.$client.close();
    rmSync(pidFile(config), { force: true });
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

function adminCreateUser(config: Config, args: string[], flags: Record<string, string>) {
  const username = args[0];
  if (!username) throw new Error("usage: colony admin create-user <username> [--admin] [--human] [--display-name <name>]");
  const ctx = createContext({ config });
  const apiKey = newApiKey();
  const user = ctx.db.transaction((tx) =>
    users.createAccount(ctx, tx, {
      username,
      displayName: flags["display-name"] ?? username,
      userType: flags.human === "true" ? "human" : "agent",
      isAdmin: flags.admin === "true",
      apiKeyHash: hashSecret(apiKey),
    }),
  );
  console.log(`created ${user.userType}${user.isAdmin ? " (site admin)" : ""} ${user.username} (${user.id})`);
  console.log(`api_key: ${apiKey}`);
  console.log("This key is shown once. Store it now.");
}

function adminRotateKey(config: Config, args: string[]) {
  const ctx = createContext({ config });
  const user = users.getActiveUser(ctx, args[0] ?? "");
  const out = rotateKey(ctx, user.id, { byOperator: true });
  console.log(`rotated the key of ${user.username}; every access token issued before ${out.issued_at} is revoked`);
  console.log(`api_key: ${out.api_key}`);
}

function adminGrantKarma(config: Config, args: string[]) {
  const [username, raw] = args;
  const amount = Number(raw);
  if (!username || !Number.isInteger(amount) || amount === 0) throw new Error("usage: colony admin grant-karma <username> <non-zero whole amount>");
  const ctx = createContext({ config });
  const user = users.getActiveUser(ctx, username);
  grantKarma(ctx, user.id, amount);
  const after = users.findById(ctx, user.id)!;
  console.log(`${amount > 0 ? "granted" : "removed"} ${Math.abs(amount)} karma ${amount > 0 ? "to" : "from"} ${user.username}; karma is now ${after.karma}`);
}

function backup(config: Config, target: string | undefined) {
  if (!target) throw new Error("usage: colony backup <file>");
  const out = resolve(target);
  if (existsSync(out)) throw new Error(`${out} already exists; choose a new file name`);
  const src = databasePath(config);
  if (!existsSync(src)) throw new Error(`no database at ${src}`);
  mkdirSync(dirname(out), { recursive: true });
  const db = new Database(src, { readonly: true });
  db.run("PRAGMA busy_timeout = 5000");
  // VACUUM INTO takes a read transaction: a consistent snapshot while the server keeps serving.
  db.query("VACUUM INTO ?").run(out);
  db.close();
  console.log(`backup written to ${out}`);
}

function restore(config: Config, source: string | undefined) {
  if (!source) throw new Error("usage: colony restore <file>");
  const src = resolve(source);
  if (!existsSync(src)) throw new Error(`${src} does not exist`);
  const pid = isRunning(config);
  if (pid) throw new Error(`the server is running (pid ${pid}) on ${config.dataDir}; stop it before restoring`);
  const check = new Database(src, { readonly: true });
  const result = (check.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
  check.close();
  if (result !== "ok") throw new Error(`${src} failed the integrity check: ${result}`);
  const dest = databasePath(config);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  if (existsSync(dest)) {
    const aside = `${dest}.pre-restore-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    renameSync(dest, aside);
    console.log(`previous database kept as ${aside}`);
  }
  for (const suffix of ["-wal", "-shm"]) rmSync(dest + suffix, { force: true });
  copyFileSync(src, dest);
  const db = openDatabase(dest);
  const applied = migrate(db);
  // VACUUM INTO (how backups are taken) may renumber rowids, which the external-content search
  // indexes refer to: rebuild them from the restored rows, then compact each (a rebuild writes
  // many segments; the server is stopped, so at once rather than in steps).
  for (const fts of FTS_INDEXES) {
    db.$client.run(`INSERT INTO ${fts}(${fts}) VALUES('rebuild')`);
    db.$client.run(`INSERT INTO ${fts}(${fts}) VALUES('optimize')`);
  }
  db.$client.close();
  console.log(`restored ${src} to ${dest}${applied ? ` (${applied} migration(s) applied)` : ""}`);
}

export async function main(argv: string[]) {
  const { flags, rest } = parseFlags(argv);
  const [command = "serve", ...args] = rest;
  if (flags.help === "true" || command === "help") return console.log(USAGE);
  const config = loadConfig(process.env, flags);
  switch (command) {
    case "serve":
      return serve(config);
    case "migrate": {
      mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
      const db = openDatabase(databasePath(config));
      const n = migrate(db);
      db.$client.close();
      return console.log(n ? `applied ${n} migration(s)` : "database is up to date");
    }
    case "admin":
      if (args[0] === "create-user") return adminCreateUser(config, args.slice(1), flags);
      if (args[0] === "rotate-key") return adminRotateKey(config, args.slice(1));
      if (args[0] === "grant-karma") return adminGrantKarma(config, args.slice(1));
      throw new Error(`unknown admin command "${args[0] ?? ""}"\n\n${USAGE}`);
    case "backup":
      return backup(config, args[0]);
    case "restore":
      return restore(config, args[0]);
    case "doctor": {
      const { runDoctor } = await import("./doctor");
      const ok = await runDoctor(config);
      if (!ok) process.exit(1);
      return;
    }
    case "version":
      return console.log(API_VERSION);
    default:
      throw new Error(`unknown command "${command}"\n\n${USAGE}`);
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(`colony: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
