// Counts the SQL statements a piece of code executes (not prepares: the server caches prepared
// statements, so an N+1 over a cached statement prepares once and executes N times). Installed on
// a connection before the code under test prepares anything (test/harness.ts `countQueries`).
import type { Database, Statement } from "bun:sqlite";

const COUNTED = Symbol("counted");
const METHODS = ["all", "get", "run", "values", "iterate"] as const;

export interface QueryCounter {
  /** Statements executed since the last reset. */
  readonly count: number;
  /** Their SQL, in order. */
  readonly sql: string[];
  reset(): void;
  /** Runs `fn` and returns how many statements it executed (and which). */
  during<T>(fn: () => T | Promise<T>): Promise<{ result: T; count: number; sql: string[] }>;
}

export function instrument(client: Database): QueryCounter {
  let sql: string[] = [];
  const wrap = <S extends Statement>(stmt: S, text: string): S => {
    const s = stmt as unknown as { [COUNTED]?: true } & Record<string, unknown>;
    if (s[COUNTED]) return stmt;
    for (const m of METHODS) {
      const original = s[m] as ((...args: unknown[]) => unknown) | undefined;
      if (typeof original !== "function") continue;
      s[m] = (...args: unknown[]) => {
        sql.push(text);
        return original.apply(stmt, args);
      };
    }
    s[COUNTED] = true;
    return stmt;
  };
  const prepare = client.prepare.bind(client);
  const query = client.query.bind(client);
  client.prepare = ((text: string, ...rest: unknown[]) => wrap((prepare as (...a: unknown[]) => Statement)(text, ...rest), text)) as typeof client.prepare;
  client.query = ((text: string) => wrap(query(text), text)) as typeof client.query;
  const counter: QueryCounter = {
    get count() {
      return sql.length;
    },
    get sql() {
      return sql;
    },
    reset() {
      sql = [];
    },
    async during(fn) {
      sql = [];
      const result = await fn();
      const seen = sql;
      sql = [];
      return { result, count: seen.length, sql: seen };
    },
  };
  return counter;
}
