// Upkeep of the vault's full-text index (docs/decisions.md §119, §129, §177). The index lives in a
// database file of its own, owned by the index thread (index-db.ts, index-channel.ts); this module
// is the main thread's side of it.
//
// The main database keeps the durable record of what the index must catch up with:
// vault_fts_pending (migration 0056), filled by triggers on vault_files in the transaction of every
// change of a file's row (write, move, copy, delete, whoever makes it). A queued file is sent to
// the index thread with its row as it stands (owner, content hash, name; or "removed" when the row
// is gone); the thread reads the content from the data folder, indexes a batch in one transaction
// of the index file and answers; then the queue rows sent are deleted by their seq. A file queued
// again meanwhile has a new seq, so its newer change stays queued. Requests are answered in the
// order they were sent, so a search sent after its caller's queued files finds them all
// (read-your-writes), and the main thread joins the hits with vault_files for the current rows.
//
// The queue is sent in paced batches after writes while the server runs (scheduleIndexing), a
// searcher's own queued files right before the search, and everything at start-up (reconcile.ts). Start-up also compares the index with the rows and queues what differs; a
// missing, unreadable or older index file is made anew and every file queued.
import { join } from "node:path";
import type { Ctx } from "../../core/context";
import { inTransaction, type Db } from "../../db/client";
import { prepared } from "../../db/statements";
import { inlineChannel, startIndexThread, type IndexChannel } from "./index-channel";
import { INDEX_FILE, type IndexEntry, type IndexItem, type IndexReplies } from "./index-db";

export { scopeToken } from "./index-db";

/** Content indexed per background batch inline (tokenising holds the request thread, so a batch stays small). */
export const BATCH_BYTES = 256 * 1024;
/** How long after a write the background batch starts, so that writes arriving together share it. */
export const BATCH_DELAY_MS = 25;
/**
 * Background batches are paced: after a batch that took T ms (sent to answered), the next waits
 * IDLE_FACTOR × T. Inline (no index thread) that keeps background indexing to about
 * 1 / (1 + IDLE_FACTOR) of the request thread; on the thread, THREAD_IDLE_FACTOR keeps it to about
 * a seventh of a core (the CPU a burst of writes needs), and a file written again meanwhile is indexed once, in its newer version (the
 * queue holds a file once). A search never waits for the pace: it sends its caller's files itself.
 */
export const IDLE_FACTOR = 6;
export const THREAD_IDLE_FACTOR = 6;
/** Content sent per background batch to the index thread. */
export const THREAD_BATCH_BYTES = 512 * 1024;
/** Files looked at per batch. */
const BATCH_FILES = 64;

interface Queued {
  seq: number;
  file_id: string;
  user_id: string;
  sha256: string | null;
  filename: string | null;
  size: number;
}

function statements(db: Db) {
  return prepared(db, "vault:fts-queue", () => ({
    next: db.$client.prepare<Queued, [number, number, number]>(
      `select q.seq, q.file_id, q.user_id, v.sha256, v.filename, coalesce(v.size, 0) as size
       from vault_fts_pending q left join vault_files v on v.id = q.file_id where q.seq > ? and q.seq <= ? order by q.seq limit ?`,
    ),
    ofUser: db.$client.prepare<Queued, [string]>(
      `select q.seq, q.file_id, q.user_id, v.sha256, v.filename, coalesce(v.size, 0) as size
       from vault_fts_pending q left join vault_files v on v.id = q.file_id where q.user_id = ? order by q.seq`,
    ),
    done: db.$client.prepare<unknown, [number]>("delete from vault_fts_pending where seq = ?"),
    last: db.$client.prepare<{ seq: number | null }, []>("select max(seq) as seq from vault_fts_pending"),
    size: db.$client.prepare<{ n: number }, []>("select count(*) as n from vault_fts_pending"),
    drop: db.$client.prepare<unknown, [string]>("delete from vault_fts_pending where file_id = ?"),
    add: db.$client.prepare<unknown, [string, string]>("insert into vault_fts_pending (file_id, user_id) values (?, ?)"),
  }));
}

/** The main thread's side of one server's (or test's) index. */
interface Indexer {
  /** The channel, once the index is open and, if it was made empty, every file queued. */
  ready: Promise<IndexChannel>;
  channel: IndexChannel | null;
  /** Queue rows sent and not yet answered, by seq. */
  sent: Set<number>;
  /** Requests sent and not yet answered. */
  inFlight: Set<Promise<unknown>>;
  /** The background batches' cursor: the highest seq they have taken. */
  after: number;
  scheduled: boolean;
  pumping: boolean;
  stopped: boolean;
  /** While background batches are scheduled or running: settles once they have stopped. */
  background: { done: Promise<void>; settle: () => void } | null;
}

const indexers = new WeakMap<Ctx, Indexer>();

/** Where a context's index lives: in memory beside an in-memory database, else the data folder's index file. */
export function indexPath(ctx: Ctx): string {
  return ctx.db.$client.filename === ":memory:" || ctx.db.$client.filename === "" ? ":memory:" : join(ctx.config.dataDir, INDEX_FILE);
}

function makeIndexer(ctx: Ctx, open: Promise<IndexChannel>): Indexer {
  const ix: Indexer = { ready: null as unknown as Promise<IndexChannel>, channel: null, sent: new Set(), inFlight: new Set(), after: 0, scheduled: false, pumping: false, stopped: false, background: null };
  ix.ready = open.then((channel) => {
    ix.channel = channel;
    if (channel.created) {
      const n = queueEveryFile(ctx);
      if (n) ctx.log.info("vault: the search index was made anew; every file is queued for it", { files: n, thread: channel.thread });
    }
    return channel;
  });
  indexers.set(ctx, ix);
  return ix;
}

/** The context's index: the one the server started, or (tests, commands) one opened inline now. */
function indexerOf(ctx: Ctx): Indexer {
  return indexers.get(ctx) ?? makeIndexer(ctx, Promise.resolve().then(() => inlineChannel(indexPath(ctx), ctx.config.dataDir)));
}

/**
 * Opens the context's index (the server, before it listens): on the index thread when `thread`,
 * else inline, after `delayMs` (the server starts its threads once the requests waiting for it
 * are answered). Until the index is open, requests to it wait.
 */
export function startVaultIndex(ctx: Ctx, opts: { thread: boolean; delayMs?: number }): Promise<IndexChannel> {
  const existing = indexers.get(ctx);
  if (existing) return existing.ready;
  const path = indexPath(ctx);
  const delay = new Promise<void>((resolve) => (opts.delayMs ? setTimeout(resolve, opts.delayMs) : resolve()));
  const open = delay.then(() => (opts.thread && path !== ":memory:" ? startIndexThread(path, ctx.config.dataDir, ctx.log) : inlineChannel(path, ctx.config.dataDir)));
  return makeIndexer(ctx, open).ready;
}

/** Lets the requests in flight finish (within `graceMs`), then closes the index (and ends its thread). */
export async function stopVaultIndex(ctx: Ctx, graceMs = 2000): Promise<void> {
  const ix = indexers.get(ctx);
  if (!ix) return;
  ix.stopped = true;
  const channel = await ix.ready.catch(() => null);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([Promise.allSettled([...ix.inFlight]), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
  clearTimeout(timer);
  await channel?.stop();
  indexers.delete(ctx);
}

/** Resolves once the context's index is open (and, if it was made empty, every file queued). */
export const indexReady = (ctx: Ctx): Promise<IndexChannel> => indexerOf(ctx).ready;

/** Whether the context's index runs on a thread of its own (false inline, or not open yet). */
export const indexOnThread = (ctx: Ctx): boolean => indexers.get(ctx)?.channel?.thread ?? false;

/** Queues every file (an index made empty); returns how many. */
function queueEveryFile(ctx: Ctx): number {
  return inTransaction(ctx.db, () => {
    ctx.db.$client.run("delete from vault_fts_pending");
    return ctx.db.$client.run("insert into vault_fts_pending (file_id, user_id) select id, user_id from vault_files order by rowid").changes;
  });
}

/** Queues the given files again (start-up reconciliation found their entries out of step). */
export function requeue(ctx: Ctx, files: { fileId: string; userId: string }[]): void {
  if (!files.length) return;
  const s = statements(ctx.db);
  inTransaction(ctx.db, () => {
    for (const f of files) {
      s.drop.run(f.fileId);
      s.add.run(f.fileId, f.userId);
    }
  });
}

/** How many files are queued for the index. */
export const queuedCount = (ctx: Ctx): number => statements(ctx.db).size.get()!.n;

const itemOf = (q: Queued): IndexItem => ({ seq: q.seq, fileId: q.file_id, userId: q.user_id, sha256: q.filename === null ? null : q.sha256, filename: q.filename });

/**
 * Sends queued files to the index (synchronously: a request sent after this one is answered after
 * it); once the index has committed them, their queue rows go, by seq. Resolves with the reply.
 */
function send(ctx: Ctx, ix: Indexer, channel: IndexChannel, files: Queued[]): Promise<IndexReplies["index"]> {
  for (const f of files) ix.sent.add(f.seq);
  const request = channel
    .request({ op: "index", items: files.map(itemOf) })
    .then(
      (reply) => {
        const s = statements(ctx.db);
        try {
          inTransaction(ctx.db, () => {
            for (const f of files) s.done.run(f.seq);
          });
        } catch (err) {
          // The database is closing (shutdown, the end of a test): the rows stay queued and are sent again.
          if (!ix.stopped) throw err;
        }
        return reply;
      },
      (err) => {
        // Sent again by the next batch (the cursor starts over).
        ix.after = 0;
        throw err;
      },
    )
    .finally(() => {
      for (const f of files) ix.sent.delete(f.seq);
      ix.inFlight.delete(request);
    });
  ix.inFlight.add(request);
  return request;
}

/** The next queued files not already sent, oldest first, after the cursor and up to seq `upTo`, up to about `maxBytes` of content (at least one). */
function nextBatch(ctx: Ctx, ix: Indexer, maxBytes: number, upTo = Number.MAX_SAFE_INTEGER): Queued[] {
  const candidates = statements(ctx.db).next.all(ix.after, upTo, BATCH_FILES);
  const batch: Queued[] = [];
  let bytes = 0;
  for (const c of candidates) {
    if (batch.length && bytes + c.size > maxBytes) break;
    ix.after = c.seq;
    if (ix.sent.has(c.seq)) continue;
    batch.push(c);
    bytes += c.size;
  }
  return batch;
}

/**
 * Sends the queue to the index until every file queued now (up to the current last seq) has been
 * indexed; returns how many files were sent. Throws if the index refuses a batch.
 */
export async function drainIndexQueue(ctx: Ctx): Promise<number> {
  const ix = indexerOf(ctx);
  const channel = await ix.ready;
  const upTo = statements(ctx.db).last.get()?.seq ?? 0;
  let n = 0;
  ix.after = 0;
  for (;;) {
    const batch = nextBatch(ctx, ix, 8 * BATCH_BYTES, upTo);
    if (batch.length) {
      n += batch.length;
      await send(ctx, ix, channel, batch);
      continue;
    }
    if (!ix.inFlight.size) break;
    await Promise.allSettled([...ix.inFlight]);
  }
  return n;
}

/**
 * Sends the queue in the background: one batch BATCH_DELAY_MS after a write, then batch after
 * batch until nothing is left. Only once the server runs its background work (ctx.events
 * started); tests and commands index through searches and start-up instead.
 */
export function scheduleIndexing(ctx: Ctx): void {
  if (!ctx.events.running) return;
  const ix = indexerOf(ctx);
  if (ix.scheduled || ix.pumping || ix.stopped) return;
  ix.scheduled = true;
  if (!ix.background) {
    let settle!: () => void;
    ix.background = { done: new Promise<void>((resolve) => (settle = resolve)), settle };
  }
  setTimeout(() => {
    ix.scheduled = false;
    pump(ctx, ix);
  }, BATCH_DELAY_MS);
}

async function pump(ctx: Ctx, ix: Indexer): Promise<void> {
  if (ix.pumping) return;
  ix.pumping = true;
  try {
    const channel = await ix.ready;
    while (ctx.events.running && !ix.stopped) {
      const bytes = channel.thread ? THREAD_BATCH_BYTES : BATCH_BYTES;
      let batch = nextBatch(ctx, ix, bytes);
      if (!batch.length && ix.after > 0 && !ix.sent.size && queuedCount(ctx) > 0) {
        // Rows behind the cursor (a failed batch, or the cursor past rows a search had sent): start over.
        ix.after = 0;
        batch = nextBatch(ctx, ix, bytes);
      }
      if (!batch.length) break;
      const started = performance.now();
      await send(ctx, ix, channel, batch);
      const pace = channel.thread ? THREAD_IDLE_FACTOR : IDLE_FACTOR;
      await new Promise((r) => setTimeout(r, pace * (performance.now() - started)));
    }
  } catch (err) {
    ctx.log.warn("vault: background indexing failed; the queue is sent again at the next write, search or start", { error: String(err) });
  } finally {
    ix.pumping = false;
    if (!ix.scheduled && ix.background) {
      ix.background.settle();
      ix.background = null;
    }
  }
}

/** Resolves once the background batches scheduled so far have run and stopped (at once when none are). */
export function backgroundIndexing(ctx: Ctx): Promise<void> {
  return indexers.get(ctx)?.background?.done ?? Promise.resolve();
}

/**
 * Searches the index for `match` (FTS5 syntax, the owner's scope included) after sending the
 * owner's queued files, so the search finds everything its caller wrote before it. The hits are
 * file ids with the content hash each entry was made from.
 */
export async function searchIndex(ctx: Ctx, userId: string, match: string, limit: number, offset: number): Promise<IndexReplies["search"]> {
  const ix = indexerOf(ctx);
  const channel = await ix.ready;
  const mine = statements(ctx.db).ofUser.all(userId).filter((q) => !ix.sent.has(q.seq));
  // Sent first, so answered first; a failure is the background batches' to retry (and the search's to report).
  if (mine.length) send(ctx, ix, channel, mine).catch(() => {});
  return channel.request({ op: "search", match, limit, offset });
}

/** A page of the index's entries by file id, after `after` (start-up reconciliation). */
export async function indexEntries(ctx: Ctx, after: string, limit: number): Promise<IndexEntry[]> {
  const channel = await indexerOf(ctx).ready;
  return (await channel.request({ op: "entries", after, limit })).rows;
}

/** Sends files to the index as given, leaving the queue alone (tests that put the index out of step). */
export async function indexWithoutQueue(ctx: Ctx, items: IndexItem[]): Promise<IndexReplies["index"]> {
  const channel = await indexerOf(ctx).ready;
  return channel.request({ op: "index", items });
}

/** The index's entry count and FTS5's integrity check (tests, doctor). */
export async function checkIndex(ctx: Ctx): Promise<IndexReplies["check"]> {
  const channel = await indexerOf(ctx).ready;
  return channel.request({ op: "check" });
}

/**
 * Compacts the index on its thread (the nightly job), in requests of a few merge steps each, so
 * that searches and indexing wait behind one short request at most. Returns the working steps.
 */
export async function compactIndex(ctx: Ctx, pagesPerStep = 200, stepsPerRequest = 10): Promise<number> {
  const channel = await indexerOf(ctx).ready;
  let total = 0;
  for (;;) {
    const { steps } = await channel.request({ op: "compact", pagesPerStep, maxSteps: stepsPerRequest });
    total += steps;
    if (steps < stepsPerRequest) return total;
  }
}
