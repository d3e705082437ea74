// What an MCP session is, in the database (tables.ts): the one record of it that every serving
// process reads, so a request is answered whichever process it lands on (docs/decisions.md §49).
// A row is written when a session starts; each request naming the session reads it (one lookup by
// primary key): no row, or a row unused for the idle time, and the session is over in every
// process. The read also records the use, at most once a minute, so a session's idle time is
// counted from its last recorded use (up to a minute before its last request). DELETE removes the
// row, and so does the bound: when a new session would make more than `max`, the least recently
// used rows go. No SDK here: the sweep job uses this module without loading it.
import { MINUTE } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { hashSecret } from "../../core/ids";
import { changes, inTransaction } from "../../db/client";
import { prepared } from "../../db/statements";
import { mcpSessions } from "./tables";
import { lte } from "drizzle-orm";

/** What a process needs to rebuild a session that another one started. */
export interface SessionRecord {
  protocolVersion: string;
  clientInfo: Record<string, unknown>;
  clientCapabilities: Record<string, unknown>;
}

/** `last_seen_at` moves at most this often (a request does not write each time). */
export const TOUCH_EVERY_MS = MINUTE;

interface RawRow {
  protocol_version: string;
  client_info: string;
  client_capabilities: string;
}

const statements = (ctx: Ctx) =>
  prepared(ctx.db, "mcpSessions.statements", () => {
    const client = ctx.db.$client;
    return {
      lastSeen: client.prepare<{ last_seen_at: number }, [string]>("select last_seen_at from mcp_sessions where id_hash = ?"),
      record: client.prepare<RawRow, [string]>("select protocol_version, client_info, client_capabilities from mcp_sessions where id_hash = ?"),
      touch: client.prepare<unknown, [number, string]>("update mcp_sessions set last_seen_at = ? where id_hash = ?"),
      remove: client.prepare<unknown, [string]>("delete from mcp_sessions where id_hash = ?"),
      insert: client.prepare<unknown, [string, string, string, string, number, number]>(
        "insert into mcp_sessions (id_hash, protocol_version, client_info, client_capabilities, created_at, last_seen_at) values (?, ?, ?, ?, ?, ?)",
      ),
      // Every row past the `max` most recently used (rowid breaks ties: the newer row stays).
      evict: client.prepare<unknown, [number]>(
        "delete from mcp_sessions where rowid in (select rowid from mcp_sessions order by last_seen_at desc, rowid desc limit -1 offset ?)",
      ),
    };
  });

/** Records a session that has just started; the least recently used beyond `max` end with it. */
export function recordSession(ctx: Ctx, id: string, record: SessionRecord, max: number): void {
  const now = ctx.clock.now();
  const s = statements(ctx);
  inTransaction(ctx.db, () => {
    s.insert.run(hashSecret(id), record.protocolVersion, JSON.stringify(record.clientInfo), JSON.stringify(record.clientCapabilities), now, now);
    s.evict.run(max);
  });
}

/**
 * Whether session `id` is still open, its use recorded (at most once a minute): false when it has
 * no row or has been unused for `idleMs` (then its row goes). Every request naming a session asks.
 */
export function sessionOpen(ctx: Ctx, id: string, idleMs: number): boolean {
  const s = statements(ctx);
  const hash = hashSecret(id);
  const row = s.lastSeen.get(hash);
  if (!row) return false;
  const now = ctx.clock.now();
  if (now - row.last_seen_at >= idleMs) {
    s.remove.run(hash);
    return false;
  }
  if (now - row.last_seen_at >= TOUCH_EVERY_MS) s.touch.run(now, hash);
  return true;
}

/** What session `id` was started with, to rebuild it; null once it has ended. */
export function sessionRecord(ctx: Ctx, id: string): SessionRecord | null {
  const row = statements(ctx).record.get(hashSecret(id));
  return row && { protocolVersion: row.protocol_version, clientInfo: JSON.parse(row.client_info), clientCapabilities: JSON.parse(row.client_capabilities) };
}

/** Ends session `id` in every process (DELETE). */
export function removeSessionRecord(ctx: Ctx, id: string): void {
  statements(ctx).remove.run(hashSecret(id));
}

/** Deletes the rows of sessions unused for `idleMs` (a request refuses them whether or not this ran). */
export function purgeExpiredSessionRecords(ctx: Ctx, idleMs: number): number {
  return changes(ctx.db.delete(mcpSessions).where(lte(mcpSessions.lastSeenAt, ctx.clock.now() - idleMs)).run());
}
