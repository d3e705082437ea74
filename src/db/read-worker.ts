// A reader thread of the read pool (see read-pool.ts): its own read-only connection to the
// database file, answering batches of statements. A batch of more than one statement runs in one
// read transaction, so its statements see the same snapshot.
import { Database, type SQLQueryBindings } from "bun:sqlite";
import { setPriority } from "node:os";
import { normalJitPolicy, releaseThread, type ReleaseLevel } from "./workers";

declare const self: Worker;

normalJitPolicy();

export type ReadRequest = { id: number; batch: { sql: string; params: SQLQueryBindings[] }[] };
export type ReleaseRequest = { release: ReleaseLevel };
export type ReadReply = { id: number; rows?: Record<string, unknown>[][]; error?: { message: string; code?: string } };

let db: Database | null = null;

function run(batch: ReadRequest["batch"]): Record<string, unknown>[][] {
  if (!db) throw new Error("read worker has no database open");
  if (batch.length === 1) return [db.query(batch[0].sql).all(...batch[0].params) as Record<string, unknown>[]];
  db.run("BEGIN");
  try {
    return batch.map((s) => db!.query(s.sql).all(...s.params) as Record<string, unknown>[]);
  } finally {
    db.run("COMMIT");
  }
}

self.onmessage = (e: MessageEvent<{ open: string; cacheKiB: number; niceness: number } | ReadRequest | ReleaseRequest | "stop">) => {
  const msg = e.data;
  if (msg === "stop") {
    db?.close();
    db = null;
    postMessage("stopped");
    return;
  }
  if ("release" in msg) {
    releaseThread(msg.release, db);
    return;
  }
  if ("open" in msg) {
    // This thread only (Linux keeps a niceness per thread): see READER_NICENESS in read-pool.ts.
    try {
      setPriority(msg.niceness);
    } catch {
      // Not permitted or not supported here: the reads run at the server's priority.
    }
    db = new Database(msg.open, { readonly: true, strict: true });
    db.run("PRAGMA busy_timeout = 5000");
    db.run("PRAGMA temp_store = MEMORY");
    db.run(`PRAGMA cache_size = -${msg.cacheKiB}`);
    postMessage("ready");
    return;
  }
  try {
    postMessage({ id: msg.id, rows: run(msg.batch) } satisfies ReadReply);
  } catch (err) {
    postMessage({ id: msg.id, error: { message: String((err as Error)?.message ?? err), code: (err as { code?: string })?.code } } satisfies ReadReply);
  }
};
