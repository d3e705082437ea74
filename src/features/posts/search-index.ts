// New posts reach the full-text index (posts_fts) in batches (migration 0026): inserting a listed
// post queues its rowid in posts_fts_pending, and indexPendingPosts indexes the whole queue in one
// statement. It runs after commit once per batch of events (handlers.ts), before anything reads
// the index (search and the `q` filter of post lists, so a search always finds what was posted
// before it), and at start-up. One FTS5 segment per batch instead of one per request: an indexed
// insert in the request's transaction would make every post's commit write a segment of its own.
import type { Database } from "bun:sqlite";
import { inTransaction, type Db } from "../../db/client";

interface Statements {
  any: ReturnType<Database["prepare"]>;
  index: ReturnType<Database["prepare"]>;
  clear: ReturnType<Database["prepare"]>;
}
const cache = new WeakMap<Database, Statements>();

function statements(client: Database): Statements {
  let s = cache.get(client);
  if (!s) {
    s = {
      any: client.prepare("select 1 from posts_fts_pending limit 1"),
      index: client.prepare("insert into posts_fts(rowid, title, body, scope) select s.rid, s.title, s.body, s.scope from posts_fts_pending q join posts_fts_src s on s.rid = q.rid"),
      clear: client.prepare("delete from posts_fts_pending"),
    };
    cache.set(client, s);
  }
  return s;
}

/** Indexes every queued post in one write (a savepoint inside an open transaction); returns how many entered the index. */
export function indexPendingPosts(db: Db): number {
  const s = statements(db.$client);
  if (!s.any.get()) return 0;
  return inTransaction(db, () => {
    const n = s.index.run().changes;
    s.clear.run();
    return n;
  });
}
