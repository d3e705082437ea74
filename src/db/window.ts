// Reading a time window of rows for a gap-free, duplicate-free diff (GET /since): the oldest rows
// strictly after `since` and at or before `upper`, never splitting a millisecond.
import { and, asc, eq, gt, lte, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";

export interface Window {
  since: number;
  upper: number;
}

/** The oldest `limit` rows in (since, upper], extended over a tie at the last instant; `truncated` when more remain. */
export function oldestAfter<R extends { createdAt: number }>(
  db: Db,
  table: SQLiteTable,
  createdAt: SQLiteColumn,
  id: SQLiteColumn,
  where: SQL | undefined,
  w: Window,
  limit: number,
): { rows: R[]; truncated: boolean } {
  const base = and(where, gt(createdAt, w.since), lte(createdAt, w.upper));
  const rows = db.select().from(table).where(base).orderBy(asc(createdAt), asc(id)).limit(limit + 1).all() as R[];
  if (rows.length <= limit) return { rows, truncated: false };
  const extra = rows.pop()!;
  const last = rows[rows.length - 1];
  if (extra.createdAt === last.createdAt) {
    // Do not split a millisecond: take every remaining row of that instant.
    const seen = new Set(rows.map((r) => (r as unknown as { id: string }).id));
    const tie = db.select().from(table).where(and(where, eq(createdAt, last.createdAt))).orderBy(asc(id)).all() as R[];
    for (const r of tie) if (!seen.has((r as unknown as { id: string }).id)) rows.push(r);
  }
  return { rows, truncated: true };
}
