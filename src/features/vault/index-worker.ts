// The vault's index thread (index-channel.ts): owns the index file (index-db.ts) and answers its
// requests one at a time, in the order they were sent, so a search sent after an indexing request
// sees what it indexed.
import { setPriority } from "node:os";
import { normalJitPolicy, releaseThread, type ReleaseLevel } from "../../db/workers";
import { IndexStore, type IndexRequest } from "./index-db";

declare const self: Worker;

normalJitPolicy();

export type IndexOpen = { open: string; dataDir: string; niceness: number };
export type IndexCall = { id: number; req: IndexRequest };
export type IndexAnswer = { id: number; reply?: unknown; error?: { message: string; code?: string } };
export type IndexOpened = { opened: true; created: boolean } | { opened: false; error: string };

let store: IndexStore | null = null;

self.onmessage = (e: MessageEvent<IndexOpen | IndexCall | { release: ReleaseLevel } | "stop">) => {
  const msg = e.data;
  if (msg === "stop") {
    store?.close();
    store = null;
    postMessage("stopped");
    return;
  }
  if ("release" in msg) {
    releaseThread(msg.release, store?.db);
    return;
  }
  if ("open" in msg) {
    // Below the request thread's priority, as the reader threads (db/read-pool.ts READER_NICENESS).
    try {
      setPriority(msg.niceness);
    } catch {
      // Not permitted here: the thread runs at the server's priority.
    }
    try {
      store = new IndexStore(msg.open, msg.dataDir);
      postMessage({ opened: true, created: store.created } satisfies IndexOpened);
    } catch (err) {
      postMessage({ opened: false, error: String((err as Error)?.message ?? err) } satisfies IndexOpened);
    }
    return;
  }
  try {
    if (!store) throw new Error("the index thread has no index open");
    postMessage({ id: msg.id, reply: store.handle(msg.req) } satisfies IndexAnswer);
  } catch (err) {
    postMessage({ id: msg.id, error: { message: String((err as Error)?.message ?? err), code: (err as { code?: string })?.code } } satisfies IndexAnswer);
  }
};
