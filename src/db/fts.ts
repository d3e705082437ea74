// The full-text indexes (FTS5, external content: they point at rows by rowid) and their upkeep.
// FTS5 keeps an index as a set of segments: every write transaction adds a small one and
// automerge folds them together in fours, so a busy index holds a few dozen. A query walks each
// segment's part of a term's doclist, so a compacted index, one segment, answers with one walk
// per term (migration 0022). Compaction runs at night in small steps.
import type { Db } from "./client";

/**
 * Every full-text index of the main database (restore rebuilds them, the nightly job compacts
 * them). The vault's index is a database file of its own (features/vault/index-db.ts).
 */
export const FTS_INDEXES = ["posts_fts", "users_fts", "messages_fts", "wiki_pages_fts"] as const;
export type FtsIndex = (typeof FTS_INDEXES)[number];

/**
 * Queues of rows waiting to enter an index (posts: migration 0026), by rowid. A 'rebuild' indexes
 * every row the content yields, queued ones included, so it empties the queue too (the rowids a
 * restored copy's queue names may have been renumbered).
 */
const PENDING_QUEUES: Partial<Record<FtsIndex, string>> = { posts_fts: "posts_fts_pending" };

/** Rebuilds an index from its content (restore) and empties its queue, in one transaction. */
export function rebuildFtsIndex(db: Db, index: FtsIndex): void {
  const queue = PENDING_QUEUES[index];
  db.$client.transaction(() => {
    db.$client.run(`INSERT INTO ${index}(${index}) VALUES('rebuild')`);
    if (queue) db.$client.run(`DELETE FROM ${queue}`);
  })();
}

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Compacts one index into a single segment, as FTS5's 'optimize' does, but in steps of about
 * `pagesPerStep` pages ('merge' with a negative page count), each its own short write
 * transaction, going back to the event loop between them so requests and other writers go on.
 * A step that changes fewer than two rows found nothing left to merge (FTS5's own test). Returns
 * the steps that merged something (0: already compact).
 */
export async function compactFtsIndex(db: Db, index: FtsIndex | (string & {}), pagesPerStep = 200, maxSteps = 100_000): Promise<number> {
  const client = db.$client;
  const changes = client.prepare<{ c: number }, []>("select total_changes() as c");
  const step = client.prepare(`INSERT INTO ${index}(${index}, rank) VALUES ('merge', ?)`);
  let worked = 0;
  while (worked < maxSteps) {
    const before = changes.get()!.c;
    step.run(-Math.max(1, Math.floor(pagesPerStep)));
    if (changes.get()!.c - before < 2) break;
    worked++;
    await yieldToRequests();
  }
  return worked;
}

/** Compacts every full-text index, one after the other. Returns the working steps per index. */
export async function compactFtsIndexes(db: Db, pagesPerStep?: number): Promise<Record<FtsIndex, number>> {
  const out = {} as Record<FtsIndex, number>;
  for (const index of FTS_INDEXES) out[index] = await compactFtsIndex(db, index, pagesPerStep);
  return out;
}
