// `colony reload`: asks the supervisor serving a data folder to replace its workers (SIGHUP).
import { hostname } from "node:os";
import type { Config } from "../config";
import { describeHolder, lockState } from "../core/lock";

/** Sends SIGHUP to the supervisor holding the data folder; throws (exit 1) when there is none to ask. */
export function reloadServer(config: Config, print: (line: string) => void): void {
  const state = lockState(config.dataDir);
  if (!state.held) throw new Error(`no server is running on ${config.dataDir}`);
  const holder = state.holder;
  if (!holder || holder.command !== "serve") throw new Error(`${config.dataDir} is in use by ${describeHolder(holder)}, not a server`);
  if (holder.host !== hostname()) throw new Error(`the server runs on another machine (${holder.host}); run colony reload there`);
  if (!holder.workers || holder.workers < 2)
    throw new Error(`${describeHolder(holder)} runs as one process, which cannot reload without dropping connections; restart it, or serve with --workers 2 or more`);
  process.kill(holder.pid, "SIGHUP");
  print(`asked colony serve (pid ${holder.pid}) to replace its ${holder.workers} workers; its log says when they are`);
}
