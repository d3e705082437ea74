// The vault's full-text index, in a database file of its own (docs/decisions.md §177):
// vault-index.sqlite in the data folder, opened by the index thread (index-worker.ts) or, without
// one (an in-memory database, tests, COLONY_READ_WORKERS=0), on the main thread (index-channel.ts).
// Nothing here touches the main database: the thread is told which files to index (owner, content
// hash, name, file id) and reads their content from the data folder itself, so tokenising never
// runs on the request thread and the index's writes never take the main database's write lock.
//
// vault_fts is contentless (the text stays in the content files) and keyed by a docid of its own;
// vault_entries maps each file id to its docid with the content hash and name it was made from
// (what start-up reconciliation compares with the rows, and the ranking's tie-break). `scope`
// holds the owner as the token zu<user id hex>, which no search text reaches (queries name
// {filename body}), so one MATCH expresses the text and the owner. A filename hit weighs 4 times
// a content hit. The file is derived data: backups leave it out, and a missing, unreadable or
// older-schema file is made anew and refilled from the files.
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, rmSync } from "node:fs";
import { sqliteFiles } from "../../core/data-folders";
import { readContent } from "./store";

/** The index's file name in the data folder. */
export const INDEX_FILE = "vault-index.sqlite";
/** The schema of the index file (PRAGMA user_version); a file of another version is made anew. */
const INDEX_SCHEMA_VERSION = 1;

/** The owner's token in the index's `scope` column (no search text reaches that column). */
export const scopeToken = (userId: string): string => `zu${userId.replace(/-/g, "").toLowerCase()}`;

/** A file to bring in step: indexed from its content (`sha256` and `filename` set) or removed (both null). */
export interface IndexItem {
  seq: number;
  fileId: string;
  userId: string;
  sha256: string | null;
  filename: string | null;
}

export interface IndexEntry {
  file_id: string;
  user_id: string;
  sha256: string;
  filename: string;
}

export type IndexRequest =
  | { op: "index"; items: IndexItem[] }
  | { op: "search"; match: string; limit: number; offset: number }
  | { op: "entries"; after: string; limit: number }
  | { op: "compact"; pagesPerStep: number; maxSteps: number }
  | { op: "check" };

export interface IndexReplies {
  index: { indexed: number; removed: number; missing: string[] };
  search: { total: number; hits: { file_id: string; sha256: string }[] };
  entries: { rows: IndexEntry[] };
  compact: { steps: number };
  check: { entries: number; ok: boolean };
}

export type ReplyOf<R extends IndexRequest> = IndexReplies[R["op"]];

const SCHEMA = [
  "CREATE VIRTUAL TABLE vault_fts USING fts5(filename, body, scope, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')",
  "INSERT INTO vault_fts(vault_fts, rank) VALUES ('rank', 'bm25(4.0, 1.0, 0.0)')",
  "CREATE TABLE vault_entries (docid INTEGER PRIMARY KEY, file_id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL, sha256 TEXT NOT NULL, filename TEXT NOT NULL)",
  `PRAGMA user_version = ${INDEX_SCHEMA_VERSION}`,
];

function removeFiles(path: string): void {
  for (const f of sqliteFiles(path)) rmSync(f, { force: true });
}

/**
 * The index holds words of private files: owner-only, as the database is, whatever the umask (an
 * index made before this rule included). SQLite gives its -wal and -shm files the mode of the
 * database file when it creates them.
 */
function ownerOnly(path: string): void {
  for (const f of sqliteFiles(path)) if (existsSync(f)) chmodSync(f, 0o600);
}

/** Opens the index at `path` (":memory:" for an index of this process only); `created`: it was made empty now. */
function openIndexDb(path: string): { db: Database; created: boolean } {
  const memory = path === ":memory:";
  const existed = !memory && existsSync(path);
  if (existed) {
    let db: Database | null = null;
    try {
      db = new Database(path, { strict: true });
      ownerOnly(path);
      db.run("PRAGMA busy_timeout = 5000");
      const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
      db.query("select count(*) from vault_entries").get();
      db.query("select count(*) from vault_fts where vault_fts match 'x'").get();
      if (version === INDEX_SCHEMA_VERSION) {
        tune(db, memory);
        return { db, created: false };
      }
    } catch {
      // Unreadable, not a database, or without our tables: made anew below.
    }
    db?.close();
    removeFiles(path);
  }
  const db = new Database(path, { create: true, strict: true });
  if (!memory) ownerOnly(path);
  tune(db, memory);
  db.transaction(() => {
    for (const s of SCHEMA) db.run(s);
  })();
  return { db, created: true };
}

function tune(db: Database, memory: boolean): void {
  db.run("PRAGMA busy_timeout = 5000");
  db.run("PRAGMA temp_store = MEMORY");
  if (!memory) {
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = NORMAL");
  }
}

function statementsOf(db: Database) {
  return {
    docOf: db.prepare<{ docid: number }, [string]>("select docid from vault_entries where file_id = ?"),
    dropText: db.prepare<unknown, [number]>("delete from vault_fts where rowid = ?"),
    dropEntry: db.prepare<unknown, [number]>("delete from vault_entries where docid = ?"),
    setEntry: db.prepare<unknown, [string, string, string, number]>("update vault_entries set user_id = ?, sha256 = ?, filename = ? where docid = ?"),
    newEntry: db.prepare<{ docid: number }, [string, string, string, string]>("insert into vault_entries (file_id, user_id, sha256, filename) values (?, ?, ?, ?) returning docid"),
    addText: db.prepare<unknown, [number, string, string, string]>("insert into vault_fts (rowid, filename, body, scope) values (?, ?, ?, ?)"),
    total: db.prepare<{ n: number }, [string]>("select count(*) as n from vault_fts where vault_fts match ?"),
    page: db.prepare<{ file_id: string; sha256: string }, [string, number, number]>(
      `select e.file_id, e.sha256 from vault_fts join vault_entries e on e.docid = vault_fts.rowid
       where vault_fts match ?1 order by vault_fts.rank, e.filename limit ?2 offset ?3`,
    ),
    entries: db.prepare<IndexEntry, [string, number]>("select file_id, user_id, sha256, filename from vault_entries where file_id > ? order by file_id limit ?"),
    count: db.prepare<{ n: number }, []>("select count(*) as n from vault_entries"),
    changes: db.prepare<{ c: number }, []>("select total_changes() as c"),
    merge: db.prepare<unknown, [number]>("insert into vault_fts(vault_fts, rank) values ('merge', ?)"),
  };
}

/** The index database and what the index thread does with it (the same code inline). */
export class IndexStore {
  readonly db: Database;
  /** The file did not exist, could not be read or was of another schema, and was made empty. */
  readonly created: boolean;
  private readonly s: ReturnType<typeof statementsOf>;

  constructor(
    path: string,
    private readonly dataDir: string,
  ) {
    const { db, created } = openIndexDb(path);
    this.db = db;
    this.created = created;
    this.s = statementsOf(db);
  }

  /**
   * Brings the given files in step, in one transaction: each entry is made again from the file's
   * content as named (read first, outside the transaction), or removed. A file whose content is
   * gone (replaced and removed since it was queued) loses its entry; its newer version is queued.
   */
  index(items: IndexItem[]): IndexReplies["index"] {
    const texts = items.map((it) => {
      if (it.sha256 === null) return null;
      try {
        return readContent(this.dataDir, it.userId, it.sha256).toString("utf8");
      } catch {
        return null;
      }
    });
    const out: IndexReplies["index"] = { indexed: 0, removed: 0, missing: [] };
    const s = this.s;
    this.db.transaction(() => {
      items.forEach((it, i) => {
        const text = texts[i];
        const doc = s.docOf.get(it.fileId)?.docid ?? null;
        if (doc !== null) s.dropText.run(doc);
        if (text === null || it.sha256 === null || it.filename === null) {
          if (doc !== null) s.dropEntry.run(doc);
          if (it.sha256 !== null) out.missing.push(it.fileId);
          else out.removed++;
          return;
        }
        let docid = doc;
        if (docid === null) docid = s.newEntry.get(it.fileId, it.userId, it.sha256, it.filename)!.docid;
        else s.setEntry.run(it.userId, it.sha256, it.filename, docid);
        s.addText.run(docid, it.filename, text, scopeToken(it.userId));
        out.indexed++;
      });
    })();
    return out;
  }

  search(match: string, limit: number, offset: number): IndexReplies["search"] {
    const total = this.s.total.get(match)?.n ?? 0;
    return { total, hits: total > offset ? this.s.page.all(match, limit, offset) : [] };
  }

  /** Entries by file id, after `after` (start-up reconciliation walks them beside the rows). */
  entries(after: string, limit: number): IndexReplies["entries"] {
    return { rows: this.s.entries.all(after, limit) };
  }

  /** Compacts the index in steps of about `pagesPerStep` pages (as db/fts.ts does for the main database's indexes). */
  compact(pagesPerStep: number, maxSteps: number): IndexReplies["compact"] {
    let steps = 0;
    while (steps < maxSteps) {
      const before = this.s.changes.get()!.c;
      this.s.merge.run(-Math.max(1, Math.floor(pagesPerStep)));
      if (this.s.changes.get()!.c - before < 2) break;
      steps++;
    }
    return { steps };
  }

  /** The entries' count and FTS5's own integrity check of the index. */
  check(): IndexReplies["check"] {
    let ok = true;
    try {
      this.db.run("insert into vault_fts(vault_fts, rank) values ('integrity-check', 0)");
    } catch {
      ok = false;
    }
    return { entries: this.s.count.get()!.n, ok };
  }

  handle<R extends IndexRequest>(req: R): ReplyOf<R> {
    const r = req as IndexRequest;
    switch (r.op) {
      case "index":
        return this.index(r.items) as ReplyOf<R>;
      case "search":
        return this.search(r.match, r.limit, r.offset) as ReplyOf<R>;
      case "entries":
        return this.entries(r.after, r.limit) as ReplyOf<R>;
      case "compact":
        return this.compact(r.pagesPerStep, r.maxSteps) as ReplyOf<R>;
      case "check":
        return this.check() as ReplyOf<R>;
    }
  }

  /** Closes the index (its statements first: a connection with statements left open stays open until they are collected). */
  close(): void {
    for (const st of Object.values(this.s)) st.finalize();
    this.db.close();
  }
}
