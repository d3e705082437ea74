// The WAL checkpointer thread (see checkpointer.ts): its own connection to the database file,
// copying committed WAL frames into the database with PASSIVE checkpoints (which never wait for
// or block the writer) on a timer, so the fsync of the database file happens off the thread that
// serves requests.
import { Database } from "bun:sqlite";
import { normalJitPolicy } from "./workers";

declare const self: Worker;

normalJitPolicy();

let db: Database | null = null;
let timer: ReturnType<typeof setInterval> | null = null;

self.onmessage = (e: MessageEvent<{ path: string; intervalMs: number } | "stop">) => {
  if (e.data === "stop") {
    if (timer) clearInterval(timer);
    db?.close();
    db = null;
    postMessage("stopped");
    return;
  }
  db = new Database(e.data.path);
  db.run("PRAGMA busy_timeout = 1000");
  timer = setInterval(() => {
    try {
      db?.run("PRAGMA wal_checkpoint(PASSIVE)");
    } catch {
      // Busy or locked: the next tick tries again; the writer's own fallback checkpoint remains.
    }
  }, e.data.intervalMs);
  postMessage("started");
};
