// The moderation audit trail (colony_mod_log): every moderation action of every feature is
// written here, in the action's transaction, and mod activity reads it.
import type { Ctx } from "../../core/context";
import { uuidv7 } from "../../core/ids";
import { prepared, rowMapper } from "../../db/statements";
import { colonyModLog } from "./tables";

type ModLogRow = typeof colonyModLog.$inferSelect;

interface ModAction {
  colonyId: string;
  /** Null when the service acts by itself (automod, a timed ban lifting). */
  actorId: string | null;
  action: string;
  targetType?: string | null;
  targetId?: string | null;
  targetUserId?: string | null;
  reason?: string | null;
  meta?: Record<string, unknown> | null;
  /** When the thing this action resolves was opened (a queue row, an appeal), for resolution times. */
  openedAt?: number | null;
}

/** Writes one audit row on the caller's connection (call it inside the action's transaction); returns its id. */
export function recordModAction(ctx: Ctx, a: ModAction): string {
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const stmt = prepared(ctx.db, "colonies.modlog.insert", () =>
    ctx.db.$client.prepare(
      "insert into colony_mod_log (id, colony_id, actor_id, action, target_type, target_id, target_user_id, reason, meta, opened_at, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
  );
  stmt.run(id, a.colonyId, a.actorId, a.action, a.targetType ?? null, a.targetId ?? null, a.targetUserId ?? null, a.reason ?? null, a.meta ? JSON.stringify(a.meta) : null, a.openedAt ?? null, now);
  return id;
}

const mapLog = rowMapper<ModLogRow>(colonyModLog);

/** The colony's audit rows created at or after `since`, oldest first (mod activity). */
export function modLogSince(ctx: Ctx, colonyId: string, since: number): ModLogRow[] {
  const stmt = prepared(ctx.db, "colonies.modlog.since", () =>
    ctx.db.$client.prepare<Record<string, unknown>, [string, number]>("select * from colony_mod_log where colony_id = ? and created_at >= ? order by created_at, id"),
  );
  return stmt.all(colonyId, since).map(mapLog);
}
