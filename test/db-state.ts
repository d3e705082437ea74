// Every row of every table (the full-text index tables aside: their base tables are in), to
// compare before and after a request that must change nothing. `users.last_active_at` is left
// out: any authenticated request may record, at most once a minute, that its account was seen,
// refused or not. Blobs are compared as base64.
import type { Harness } from "./harness";

export function dbState(h: Harness): Record<string, unknown[]> {
  const db = h.ctx.db.$client;
  const tables = (db.query("select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all() as { name: string; sql: string }[]).filter(
    (t) => !/^create virtual table/i.test(t.sql),
  );
  const out: Record<string, unknown[]> = {};
  for (const { name } of tables) {
    const rows = (db.query(`select * from "${name}"`).all() as Record<string, unknown>[]).map((r) => {
      const row: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) if (!(name === "users" && k === "last_active_at")) row[k] = v instanceof Uint8Array ? Buffer.from(v).toString("base64") : v;
      return row;
    });
    out[name] = rows;
  }
  return out;
}
