// How the main thread talks to the vault's index (index-db.ts): requests answered in the order
// they were sent, by the index thread (index-worker.ts) or, without one, inline on the main thread
// by the same code, so callers have one code path (as db/read-pool.ts does for reads). Inline is
// used for an in-memory database (tests), with COLONY_READ_WORKERS=0, and when the thread cannot
// start or fails (its requests still unanswered are then answered inline, in order, on the same
// file).
import type { Logger } from "../../core/log";
import { READER_NICENESS } from "../../db/read-pool";
import { stopWorker, workerScript } from "../../db/workers";
import { IndexStore, type IndexRequest, type ReplyOf } from "./index-db";
import type { IndexAnswer, IndexCall, IndexOpen, IndexOpened } from "./index-worker";

export interface IndexChannel {
  /** Sends a request; requests are answered in the order they were sent. */
  request<R extends IndexRequest>(req: R): Promise<ReplyOf<R>>;
  /** Whether the index runs on a thread of its own (false: inline on the main thread). */
  readonly thread: boolean;
  /** Whether the index was made empty when it was opened (missing, unreadable or of an older schema). */
  readonly created: boolean;
  stop(): Promise<void>;
}

/** The index on the main thread: `path` is the index file, or ":memory:". */
export function inlineChannel(path: string, dataDir: string): IndexChannel {
  const store = new IndexStore(path, dataDir);
  let open = true;
  return {
    thread: false,
    created: store.created,
    request: async (req) => {
      if (!open) throw new Error("the vault's index is closed");
      return store.handle(req);
    },
    stop: async () => {
      if (open) store.close();
      open = false;
    },
  };
}

/** The index inline, or, if even that cannot open the file, a channel refusing every request (logged). */
function inlineOrBroken(path: string, dataDir: string, log: Logger): IndexChannel {
  try {
    return inlineChannel(path, dataDir);
  } catch (err) {
    log.error("vault: the search index cannot be opened; vault search fails until it can", { path, error: String(err) });
    const refused = () => Promise.reject(new Error(`the vault's index cannot be opened: ${String(err)}`));
    return { thread: false, created: false, request: refused, stop: async () => {} };
  }
}

interface Pending {
  req: IndexRequest;
  resolve: (reply: never) => void;
  reject: (err: Error) => void;
}

/**
 * Starts the index thread on the index file at `path`; resolves once it has opened the file. If
 * the thread cannot start or open it, the index runs inline instead.
 */
export function startIndexThread(path: string, dataDir: string, log: Logger): Promise<IndexChannel> {
  let worker: Worker;
  try {
    worker = new Worker(workerScript("index-worker", "features/vault"));
  } catch (err) {
    log.warn("vault index thread not started; the index runs on the main thread", { error: String(err) });
    return Promise.resolve(inlineOrBroken(path, dataDir, log));
  }
  return new Promise<IndexChannel>((resolveOpen) => {
    const pending = new Map<number, Pending>();
    let nextId = 1;
    let inline: IndexChannel | null = null;
    let opened = false;

    const fallBack = (why: string) => {
      if (inline) return;
      log.warn("vault index thread stopped; the index runs on the main thread", { error: why, requests_in_flight: pending.size });
      worker.terminate();
      inline = inlineOrBroken(path, dataDir, log);
      const left = [...pending.values()];
      pending.clear();
      for (const p of left) inline.request(p.req).then(p.resolve as (r: unknown) => void, p.reject);
      if (!opened) {
        opened = true;
        resolveOpen(inline);
      }
    };

    worker.addEventListener("error", (e) => fallBack(String((e as ErrorEvent).message ?? e)));
    worker.addEventListener("message", (e: MessageEvent<IndexAnswer | IndexOpened | "stopped" | "released">) => {
      const msg = e.data;
      if (msg === "stopped" || msg === "released") return;
      if ("opened" in msg) {
        if (!msg.opened) {
          fallBack(msg.error);
          return;
        }
        opened = true;
        resolveOpen(channel(msg.created));
        return;
      }
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      if (msg.error) p.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code }));
      else p.resolve(msg.reply as never);
    });
    worker.postMessage({ open: path, dataDir, niceness: READER_NICENESS } satisfies IndexOpen);

    const channel = (created: boolean): IndexChannel => ({
      get thread() {
        return inline === null;
      },
      created,
      request<R extends IndexRequest>(req: R): Promise<ReplyOf<R>> {
        if (inline) return inline.request(req);
        const id = nextId++;
        return new Promise<ReplyOf<R>>((resolve, reject) => {
          pending.set(id, { req, resolve: resolve as (r: never) => void, reject });
          worker.postMessage({ id, req } satisfies IndexCall);
        });
      },
      async stop() {
        if (inline) return inline.stop();
        await stopWorker(worker);
        for (const p of pending.values()) p.reject(new Error("the vault's index thread stopped"));
        pending.clear();
      },
    });
  });
}
