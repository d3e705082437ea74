// Statements prepared once per database for the forum's read paths (post lists, the context
// pack, comment threads). Building a drizzle query and preparing it again on each request would
// cost these paths more than the reads themselves. Statements are cached per database handle, so
// test instances never share them.
import { Column, fillPlaceholders, getTableColumns, type SQL, type Table } from "drizzle-orm";
import type { Db } from "./client";
import type { ReadStatement } from "./read-pool";

const caches = new WeakMap<object, Map<string, unknown>>();

/** The value `make` builds for `key` on this database, built on first use. */
export function prepared<T>(db: Pick<Db, "select">, key: string, make: () => T): T {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  let v = cache.get(key) as T | undefined;
  if (v === undefined) cache.set(key, (v = make()));
  return v;
}

/**
 * The value `compute` gives, kept per database under `key` while `version` stays the same (a
 * counter or stamp the caller reads cheaply); computed again when it moves.
 */
export function keptWhile<T>(db: Pick<Db, "select">, key: string, version: unknown, compute: () => T): T {
  const kept = prepared(db, `kept:${key}`, () => ({ version: undefined as unknown, value: undefined as T, set: false }));
  if (!kept.set || kept.version !== version) {
    kept.value = compute();
    kept.version = version;
    kept.set = true;
  }
  return kept.value;
}

type Raw = Record<string, unknown>;

/**
 * Maps raw bun:sqlite rows (column names) to the drizzle table's row type (keys, JSON and booleans
 * decoded). The mapper is one function generated per table that builds the row as an object
 * literal: every row then has the same shape from the start, which the engine handles faster than
 * an empty object filled column by column. The property
 * and column names come from the table definitions in the source, never from input.
 */
export function rowMapper<T>(table: Table): (raw: Raw) => T {
  // Columns whose driver value is the value (text, plain integers) are copied as they are; only
  // the others (JSON, booleans, timestamps) go through drizzle's decoder.
  const identity = Column.prototype.mapFromDriverValue;
  const decoders: ((v: unknown) => unknown)[] = [];
  const fields = Object.entries(getTableColumns(table)).map(([key, col]) => {
    const value = `(v = raw[${JSON.stringify(col.name)}]) == null ? null : `;
    if (col.mapFromDriverValue === identity) return `${JSON.stringify(key)}: ${value}v`;
    decoders.push((v) => col.mapFromDriverValue(v));
    return `${JSON.stringify(key)}: ${value}d[${decoders.length - 1}](v)`;
  });
  const make = new Function("d", `return (raw) => { let v; return {\n${fields.join(",\n")}\n}; };`) as (d: typeof decoders) => (raw: Raw) => T;
  return make(decoders);
}

/**
 * Rows of `table` whose `key` column is one of `keys`, through one statement cached per table and
 * key (the keys go in as a JSON array), each with its key. Same result as `inArray(column, keys)`,
 * without building a query whose text changes with the number of keys.
 */
function rowsWhereIn<T>(db: Db, table: Table, tableName: string, key: "id" | "rowid", keys: readonly unknown[]): [unknown, T][] {
  if (!keys.length) return [];
  const { stmt, map } = prepared(db, `by:${key}:${tableName}`, () => ({
    stmt: db.$client.prepare(`select ${key} as "_key", * from "${tableName}" where ${key} in (select value from json_each(?))`),
    map: rowMapper<T>(table),
  }));
  return (stmt.all(JSON.stringify(keys)) as Raw[]).map((raw) => [raw._key, map(raw)]);
}

/** Rows of `table` by primary key `id`, many at once, keyed by id. */
export function rowsByIds<T extends { id: string }>(db: Db, table: Table, tableName: string, ids: readonly string[]): Map<string, T> {
  return new Map(rowsWhereIn<T>(db, table, tableName, "id", [...new Set(ids)]) as [string, T][]);
}

/** Rows of `table` by rowid, many at once, keyed by rowid. */
export function rowsByRowids<T>(db: Db, table: Table, tableName: string, rowids: readonly number[]): Map<number, T> {
  return new Map(rowsWhereIn<T>(db, table, tableName, "rowid", rowids) as [number, T][]);
}

export interface RawStatement {
  all(values?: Record<string, unknown>): Raw[];
  get(values?: Record<string, unknown>): Raw | null;
}

/**
 * A hand-written query (a drizzle `sql` template, with `sql.placeholder("name")` for the values
 * that change per call) compiled and prepared once per database under `key`. For queries the
 * builder cannot express (FTS5 MATCH, window functions over CTEs) on hot paths.
 */
export function preparedSql(db: Db, key: string, build: () => SQL): RawStatement {
  return prepared(db, `sql:${key}`, () => {
    const q = compiled(db, key, build);
    const stmt = db.$client.prepare(q.sql);
    return {
      all: (values = {}) => stmt.all(...q.params(values)) as Raw[],
      get: (values = {}) => (stmt.get(...q.params(values)) as Raw | null) ?? null,
    };
  });
}

/**
 * The same kind of query as preparedSql, compiled once under `key`, for `ctx.reads` (the read
 * pool): a function from the placeholder values to the statement's text and parameters.
 */
export function readStatement(db: Db, key: string, build: () => SQL): (values: Record<string, unknown>) => ReadStatement {
  return prepared(db, `read:${key}`, () => {
    const q = compiled(db, key, build);
    return (values: Record<string, unknown>) => ({ sql: q.sql, params: q.params(values) });
  });
}

/** A drizzle `sql` template as SQL text and a function from placeholder values to its parameters. */
function compiled(db: Db, key: string, build: () => SQL): { sql: string; params: (values: Record<string, unknown>) => ReadStatement["params"] } {
  return prepared(db, `text:${key}`, () => {
    const q = (db as unknown as { dialect: { sqlToQuery(s: SQL): { sql: string; params: unknown[] } } }).dialect.sqlToQuery(build());
    return { sql: q.sql, params: (values: Record<string, unknown>) => fillPlaceholders(q.params, values) as ReadStatement["params"] };
  });
}
