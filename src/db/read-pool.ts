// Reads off the request thread. bun:sqlite runs a statement synchronously on the thread that
// calls it, so a long read (a full-text ranking over a thousand matches) holds up every
// other request of the server. Statements sent through `ctx.reads` run instead on reader threads,
// each with its own read-only connection (WAL lets readers proceed beside the writer), while the
// request thread goes on with other requests; a caller awaits the rows. This is how the server
// uses more than one core for reads, as servers with a pool of read connections do.
//
// Without workers (an in-memory database, tests, COLONY_READ_WORKERS=0, or a worker that failed)
// the same statements run inline on the main connection, so callers have one code path.
// Consistency: a statement sees every transaction committed before it starts, so a request reads
// its own writes; a batch runs in one read transaction on one snapshot.
import type { SQLQueryBindings } from "bun:sqlite";
import type { Logger } from "../core/log";
import type { Db } from "./client";
import type { ReadReply, ReadRequest, ReleaseRequest } from "./read-worker";
import { stopWorker, workerScript, type ReleaseLevel } from "./workers";

export interface ReadStatement {
  sql: string;
  params: SQLQueryBindings[];
}

export type ReadRows = Record<string, unknown>[];

export interface Reads {
  /** Runs read-only statements and resolves with the rows of each, in order. */
  all(batch: readonly ReadStatement[]): Promise<ReadRows[]>;
  /** How many reader threads serve reads (0: inline on the main connection). */
  readonly threads: number;
  /** Reads sent to reader threads and not answered yet (the pool's queue; 0 inline). */
  readonly queued: number;
  /**
   * Has each reader thread collect its heap and release the pages of its SQLite cache it is not
   * using, and at level "code" drop its compiled code too (core/reclaim.ts); resolves once every
   * reader has done so. Inline: nothing to do (the caller releases the main connection's).
   */
  release(level: ReleaseLevel): Promise<void>;
  stop(): Promise<void>;
}

/** Runs reads on the main connection (statements cached by bun:sqlite per SQL text). */
export function inlineReads(db: Db): Reads {
  const client = db.$client;
  const runBatch = (batch: readonly ReadStatement[]) => batch.map((s) => client.query(s.sql).all(...s.params) as ReadRows);
  return {
    threads: 0,
    queued: 0,
    all: async (batch) => runBatch(batch),
    release: async () => {},
    stop: async () => {},
  };
}

interface Reader {
  worker: Worker;
  ready: boolean;
  /** Answers to "release" still awaited. */
  releasing: (() => void)[];
  pending: Map<number, { batch: readonly ReadStatement[]; resolve: (rows: ReadRows[]) => void; reject: (err: Error) => void }>;
}

/** Page cache of each reader connection, in KiB (the writer keeps 32 MiB). */
const READER_CACHE_KIB = 32_000;

/**
 * Scheduling niceness of the reader threads (the request thread keeps the process's, 0). A read
 * sent here is long by definition (a worst-case search ranks for half a second), and the request
 * thread serves every other request: when the cores are all busy, the kernel should run the
 * request thread first. At 10 a reader gets about a tenth of a core the request thread also
 * wants, and all of any core it does not.
 */
export const READER_NICENESS = 10;

/**
 * Starts `size` reader threads on the database file at `path`. Until a reader has opened its
 * connection, and after one fails, its share of the reads runs inline.
 */
export function startReadPool(db: Db, path: string, size: number, log: Logger): Reads {
  const inline = inlineReads(db);
  if (size <= 0) return inline;
  const readers: Reader[] = [];
  let nextId = 1;

  const fail = (r: Reader, why: string) => {
    const i = readers.indexOf(r);
    if (i < 0) return;
    readers.splice(i, 1);
    log.warn("read worker stopped; its reads run on the main connection", { error: why, readers_left: readers.length });
    r.worker.terminate();
    for (const p of r.pending.values()) inline.all(p.batch).then(p.resolve, p.reject);
    r.pending.clear();
    for (const done of r.releasing.splice(0)) done();
  };

  for (let i = 0; i < size; i++) {
    let worker: Worker;
    try {
      worker = new Worker(workerScript("read-worker"));
    } catch (err) {
      log.warn("read worker not started; reads run on the main connection", { error: String(err) });
      break;
    }
    const r: Reader = { worker, ready: false, releasing: [], pending: new Map() };
    worker.addEventListener("error", (e) => fail(r, String((e as ErrorEvent).message ?? e)));
    worker.addEventListener("message", (e: MessageEvent<ReadReply | "ready" | "released" | "stopped">) => {
      const msg = e.data;
      if (msg === "ready") {
        r.ready = true;
        return;
      }
      if (msg === "released") {
        r.releasing.shift()?.();
        return;
      }
      if (msg === "stopped") return;
      const p = r.pending.get(msg.id);
      if (!p) return;
      r.pending.delete(msg.id);
      if (msg.rows) p.resolve(msg.rows);
      else p.reject(Object.assign(new Error(msg.error?.message ?? "read failed"), { code: msg.error?.code }));
    });
    worker.postMessage({ open: path, cacheKiB: READER_CACHE_KIB, niceness: READER_NICENESS });
    readers.push(r);
  }
  log.debug("read pool started", { readers: readers.length });

  return {
    get threads() {
      return readers.filter((r) => r.ready).length;
    },
    get queued() {
      let n = 0;
      for (const r of readers) n += r.pending.size;
      return n;
    },
    all(batch) {
      // The ready reader with the fewest reads in flight.
      let best: Reader | null = null;
      for (const r of readers) if (r.ready && (!best || r.pending.size < best.pending.size)) best = r;
      if (!best) return inline.all(batch);
      const id = nextId++;
      const reader = best;
      return new Promise<ReadRows[]>((resolve, reject) => {
        reader.pending.set(id, { batch, resolve, reject });
        reader.worker.postMessage({ id, batch: batch as ReadRequest["batch"] } satisfies ReadRequest);
      });
    },
    async release(level) {
      await Promise.all(
        readers.map(
          (r) =>
            new Promise<void>((resolve) => {
              r.releasing.push(resolve);
              r.worker.postMessage({ release: level } satisfies ReleaseRequest);
            }),
        ),
      );
    },
    async stop() {
      const stopping = readers.splice(0);
      for (const r of stopping) for (const done of r.releasing.splice(0)) done();
      await Promise.all(stopping.map((r) => stopWorker(r.worker)));
    },
  };
}
