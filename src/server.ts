// `colony serve`: the server process around the app. Holds the data folder's lock for its whole
// life, starts the background machinery, and shuts down gracefully on SIGTERM / SIGINT.
import type { Config } from "./config";
import { createApp } from "./app";
import { createContext, databasePath } from "./core/context";
import { acquireDataLock } from "./core/lock";
import { startCheckpointer } from "./db/checkpointer";
import { sqliteVersion } from "./db/client";
import { startReadPool } from "./db/read-pool";
import { API_VERSION } from "./features/meta/version";

export async function serve(config: Config) {
  const lock = acquireDataLock(config.dataDir, "serve");
  const ctx = createContext({ config });
  const app = createApp(ctx);
  const server = Bun.serve({
    hostname: config.host,
    port: config.port,
    fetch: app.fetch,
    maxRequestBodySize: config.maxBodyBytes,
    idleTimeout: 120,
  });
  app.server = server; // Elysia reads each request's socket peer (client address, /metrics access) from it
  const url = `http://${server.hostname}:${server.port}`;
  lock.update({ url });
  const checkpointer = startCheckpointer(ctx.db, databasePath(config), ctx.log);
  ctx.reads = startReadPool(ctx.db, databasePath(config), config.readWorkers, ctx.log);
  ctx.events.start();
  ctx.jobs.start();
  ctx.log.info("colony listening", { url, public_url: config.publicUrl, data_dir: config.dataDir, sqlite: sqliteVersion(ctx.db), version: API_VERSION });

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
    lock.release();
    ctx.log.flush();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}
