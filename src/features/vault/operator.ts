// What an agent's operator may do to the agent's vault, and the agent's record of it (spec Part 3
// §4.7 "activity", §6 vault_file_deleted; docs/decisions.md §121). The operator is the human of the
// agent's confirmed claim (features/claims); the reference does this from its web interface, here
// it is served under that claim: GET /claims/{id}/vault/files lists the agent's files (metadata,
// never content) and DELETE /claims/{id}/vault/files/{filename} deletes one. Each action is a row
// of vault_activity, written in the transaction of the action; a deletion also tells the agent,
// once (vault_file_deleted, whose fan-out is in handlers.ts).
import { count, desc, eq } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { inTransaction } from "../../db/client";
import type { Caller } from "../auth/caller";
import { operatedClaim } from "../claims/service";
import * as users from "../users/service";
import { scheduleIndexing } from "./fts";
import { agent, dropIfUnused, filesOf, findFile, normaliseFilename, type VaultFileRow } from "./service";
import { vaultActivity, vaultFiles } from "./tables";

type VaultActivityRow = typeof vaultActivity.$inferSelect;

/** GET /claims/{id}/vault/files: the operated agent's files, metadata only; recorded as `list`. */
export function operatorList(ctx: Ctx, caller: Caller, claimId: string, ip: string | null, prefix?: string | null): VaultFileRow[] {
  const claim = operatedClaim(ctx, caller, claimId, "Only the human operator of an agent lists its vault");
  const now = ctx.clock.now();
  ctx.db.insert(vaultActivity).values({ id: uuidv7(now), agentId: claim.agentId, action: "list", filename: null, actorId: caller.id, actorIp: ip, createdAt: now }).run();
  return filesOf(ctx, claim.agentId, prefix);
}

/**
 * DELETE /claims/{id}/vault/files/{filename}: the operator deletes a file of the agent's vault.
 * 403 AUTH_HUMAN_ONLY for an agent; 404 NOT_FOUND for a claim that is not the caller's confirmed
 * one and for a file the agent does not have; 400 INVALID_INPUT for a malformed name. The row,
 * the activity entry and the event (the agent's notification) commit together; the content file
 * goes after, once no other file of the agent shares it.
 */
export async function operatorDelete(ctx: Ctx, caller: Caller, claimId: string, rawName: string, ip: string | null): Promise<void> {
  const claim = operatedClaim(ctx, caller, claimId, "Only the human operator of an agent deletes from its vault");
  const filename = normaliseFilename(rawName);
  const row = findFile(ctx, claim.agentId, filename);
  if (!row) throw notFound("The agent has no file of that name");
  const now = ctx.clock.now();
  inTransaction(ctx.db, (tx) => {
    tx.delete(vaultFiles).where(eq(vaultFiles.id, row.id)).run();
    const activityId = uuidv7(now);
    tx.insert(vaultActivity).values({ id: activityId, agentId: claim.agentId, action: "delete", filename, actorId: caller.id, actorIp: ip, createdAt: now }).run();
    ctx.events.emit(tx, {
      type: "vault_file_deleted",
      actorId: caller.id,
      subject: { type: "user", id: claim.agentId },
      payload: { agent_id: claim.agentId, filename, claim_id: claim.id, operator_id: caller.id, operator_username: caller.username, activity_id: activityId },
    });
  });
  scheduleIndexing(ctx);
  await dropIfUnused(ctx, claim.agentId, row.sha256);
  ctx.log.info("vault file deleted by the agent's operator", { agent_id: claim.agentId, operator_id: caller.id, claim_id: claim.id });
}

export interface ActivityItem {
  row: VaultActivityRow;
  /** The operator's username; null once that account is gone. */
  actorUsername: string | null;
}

/** GET /vault/activity: the operator actions on the caller's own vault, newest first. */
export function activity(ctx: Ctx, caller: Caller, page: Page): { items: ActivityItem[]; total: number } {
  agent(caller);
  const where = eq(vaultActivity.agentId, caller.id);
  const total = ctx.db.select({ n: count() }).from(vaultActivity).where(where).get()?.n ?? 0;
  const rows = ctx.db.select().from(vaultActivity).where(where).orderBy(desc(vaultActivity.id)).limit(page.limit).offset(page.offset).all();
  const actors = users.findManyByIds(ctx, [...new Set(rows.map((r) => r.actorId).filter((id): id is string => !!id))]);
  return { items: rows.map((row) => ({ row, actorUsername: (row.actorId && actors.get(row.actorId)?.username) || null })), total };
}
