// Upkeep of the vault's full-text index, vault_fts (migrations/0050_vault_search.sql,
// 0053_vault_index_queue.sql; docs/decisions.md §119, §129). The index is contentless and keyed by
// vault_files' rowid. A file's content is not in its row, so no trigger can index it, and indexing
// 100 KiB of text takes milliseconds, so a write does not index: it queues the file's rowid in
// vault_fts_pending in its own transaction (queueIndex), and the queue is indexed from the files
// as they stand — in small batches after writes (scheduleIndexing), for the searcher's own files
// before a search reads the index, and at start-up. The delete trigger drops an entry and its
// queue row with the file's row, whoever deletes it; start-up reconciliation (reconcile.ts)
// re-indexes whatever disagrees.
import type { Ctx } from "../../core/context";
import { inTransaction, type Db } from "../../db/client";
import { prepared } from "../../db/statements";
import { readContent } from "./store";

/** The owner's token in the index's `scope` column (no search text reaches that column). */
export const scopeToken = (userId: string): string => `zu${userId.replace(/-/g, "").toLowerCase()}`;

/** Content indexed per background batch: a batch holds the request thread for about this much tokenising (~5 ms per 100 KiB). */
export const BATCH_BYTES = 256 * 1024;
/** How long after a write the background batch starts, so that writes arriving together share it. */
export const BATCH_DELAY_MS = 25;
/**
 * Background indexing takes at most about 1 / (1 + IDLE_FACTOR) (a seventh) of the request thread: after a
 * batch of T ms the next waits IDLE_FACTOR × T. Under a burst of writes the queue grows and the
 * requests stay served; it drains when the burst ends (and a search indexes its caller's files).
 */
export const IDLE_FACTOR = 6;

interface Queued {
  rid: number;
  id: string;
  user_id: string;
  sha256: string;
  size: number;
}

function statements(db: Db) {
  return prepared(db, "vault:fts-upkeep", () => ({
    insert: db.$client.prepare<unknown, [number, string]>(
      "insert into vault_fts(rowid, filename, body, scope, file_id, sha256) select rowid, filename, ?2, 'zu' || lower(replace(user_id, '-', '')), id, sha256 from vault_files where rowid = ?1",
    ),
    remove: db.$client.prepare<unknown, [number]>("delete from vault_fts where rowid = ?"),
    queue: db.$client.prepare<unknown, [string]>("insert or ignore into vault_fts_pending(rid) select rowid from vault_files where id = ?"),
    done: db.$client.prepare<unknown, [number]>("delete from vault_fts_pending where rid = ?"),
    any: db.$client.prepare<{ rid: number }, []>("select rid from vault_fts_pending limit 1"),
    next: db.$client.prepare<Queued, [number]>(
      "select q.rid, v.id, v.user_id, v.sha256, v.size from vault_fts_pending q join vault_files v on v.rowid = q.rid order by q.rid limit ?",
    ),
    ofUser: db.$client.prepare<Queued, [string]>(
      "select q.rid, v.id, v.user_id, v.sha256, v.size from vault_files v join vault_fts_pending q on q.rid = v.rowid where v.user_id = ?",
    ),
  }));
}

/** Indexes a file (by its row's rowid) with `content` now, replacing its entry; inside a transaction (start-up reconciliation). */
export function indexNow(db: Db, rid: number, content: string): void {
  const s = statements(db);
  s.remove.run(rid);
  s.insert.run(rid, content);
}

/** Queues a file for indexing as its row will stand (name, owner, content). Call inside the transaction that wrote the row. */
export function queueIndex(db: Db, fileId: string): void {
  statements(db).queue.run(fileId);
}

/**
 * Indexes the given queued files from their content files, in one transaction; the content is
 * read first (outside it). A file whose content is missing leaves the queue unindexed (start-up
 * reconciliation removes such rows). Returns how many entered the index.
 */
function indexQueued(ctx: Ctx, files: Queued[]): number {
  if (!files.length) return 0;
  const s = statements(ctx.db);
  const texts = files.map((f) => {
    try {
      return readContent(ctx.config.dataDir, f.user_id, f.sha256).toString("utf8");
    } catch {
      return null;
    }
  });
  return inTransaction(ctx.db, () => {
    let n = 0;
    files.forEach((f, i) => {
      s.remove.run(f.rid);
      const text = texts[i];
      if (text !== null) {
        s.insert.run(f.rid, text);
        n++;
      }
      s.done.run(f.rid);
    });
    return n;
  });
}

/** Indexes every queued file of one agent (before a search of that agent's files reads the index). */
export function indexQueuedOf(ctx: Ctx, userId: string): number {
  return indexQueued(ctx, statements(ctx.db).ofUser.all(userId));
}

/** Indexes queued files, oldest first, up to about `maxBytes` of content (at least one file); returns how many were taken from the queue. */
export function indexQueuedBatch(ctx: Ctx, maxBytes = BATCH_BYTES): number {
  const candidates = statements(ctx.db).next.all(64);
  let bytes = 0;
  let take = 0;
  while (take < candidates.length && (take === 0 || bytes + candidates[take]!.size <= maxBytes)) bytes += candidates[take++]!.size;
  const batch = candidates.slice(0, take);
  indexQueued(ctx, batch);
  return batch.length;
}

/** Indexes the whole queue (start-up). */
export function indexAllQueued(ctx: Ctx): number {
  let n = 0;
  for (let taken; (taken = indexQueuedBatch(ctx, 8 * BATCH_BYTES)); ) n += taken;
  return n;
}

const scheduled = new WeakSet<Ctx>();

/**
 * Indexes the queue in the background: one batch BATCH_DELAY_MS after a write, then batch after
 * batch, each followed by IDLE_FACTOR times its own duration of serving requests, until the queue
 * is empty. Only once the server runs its background work (ctx.events started); tests and
 * commands index through searches and start-up instead.
 */
export function scheduleIndexing(ctx: Ctx): void {
  if (scheduled.has(ctx) || !ctx.events.running) return;
  scheduled.add(ctx);
  const step = () => {
    try {
      const started = performance.now();
      if (ctx.events.running && indexQueuedBatch(ctx) > 0 && statements(ctx.db).any.get()) {
        setTimeout(step, IDLE_FACTOR * (performance.now() - started));
        return;
      }
    } catch (err) {
      ctx.log.warn("vault: background indexing failed; the queue is indexed at the next write, search or start", { error: String(err) });
    }
    scheduled.delete(ctx);
  };
  setTimeout(step, BATCH_DELAY_MS);
}
