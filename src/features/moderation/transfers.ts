// Ownership transfers (spec Part 2 §2.5, §3 "Ownership transfer", §4.2, §6.2, §8): the founder
// proposes handing the colony to one of its moderators or colony admins; the recipient accepts or
// declines, the founder may cancel, and a pending proposal lapses after 7 days (derived at read
// time; a one-shot job at expires_at writes the state and tells both parties). One pending
// transfer per colony. Accepting makes the recipient founder_moderator and the colony's
// created_by, and the previous founder a colony admin (docs/decisions.md §35).
import { and, eq, sql } from "drizzle-orm";
import { DAY, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { conflict, forbidden, invalid, notFound } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import type { Tx } from "../../db/client";
import { prepared, rowMapper } from "../../db/statements";
import type { Caller } from "../auth/service";
import { recordModAction } from "../colonies/audit";
import { transferFounder } from "../colonies/governance";
import { isFounder } from "../colonies/permissions";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import { userByHandle } from "./invites";
import { colonyOwnershipTransfers } from "./tables";

const TRANSFER_TTL_MS = 7 * DAY;
export const EXPIRE_TRANSFER_JOB = "expire_ownership_transfer";

type TransferRow = typeof colonyOwnershipTransfers.$inferSelect;
type TransferStatus = TransferRow["status"];
type Resolution = Exclude<TransferStatus, "pending">;
const mapTransfer = rowMapper<TransferRow>(colonyOwnershipTransfers);

const transferStatus = (ctx: Ctx, row: TransferRow): TransferStatus =>
  row.status === "pending" && row.expiresAt <= ctx.clock.now() ? "expired" : row.status;

/** OwnershipTransferOut, with expires_at besides the reference's fields. */
export function transferOut(ctx: Ctx, row: TransferRow) {
  return {
    transfer_id: row.id,
    colony_id: row.colonyId,
    initiator_id: row.initiatorId,
    recipient_id: row.recipientId,
    status: transferStatus(ctx, row),
    created_at: iso(row.createdAt),
    expires_at: iso(row.expiresAt),
    responded_at: iso(row.respondedAt),
  };
}

function findTransfer(ctx: Ctx, id: string): TransferRow | null {
  if (!isUuid(id)) return null;
  const stmt = prepared(ctx.db, "moderation.transfer.byId", () => ctx.db.$client.prepare<Record<string, unknown>, [string]>("select * from colony_ownership_transfers where id = ?"));
  const raw = stmt.get(id.toLowerCase());
  return raw ? mapTransfer(raw) : null;
}

function pendingOf(ctx: Ctx, colonyId: string): TransferRow | null {
  // The literal (not a bound value) lets the planner use the partial one-pending index.
  return ctx.db.select().from(colonyOwnershipTransfers).where(and(eq(colonyOwnershipTransfers.colonyId, colonyId), sql`${colonyOwnershipTransfers.status} = 'pending'`)).get() ?? null;
}

const holdsModRole = (ctx: Ctx, colonyId: string, userId: string) => {
  const m = colonies.memberRow(ctx, colonyId, userId);
  return !!m && m.approved && (m.role === "moderator" || m.role === "admin");
};

/**
 * POST /colonies/{id}/ownership-transfers: the founder only (403 FORBIDDEN, site admins too: the
 * colony is not theirs to give). 404 USER_NOT_FOUND; 400 INVALID_INPUT when the recipient is the
 * founder or does not hold a moderator or colony admin role here; 409 CONFLICT while another
 * transfer of the colony is pending. The recipient is told (notification and webhook).
 */
export function proposeTransfer(ctx: Ctx, caller: Caller, colonyId: string, recipientRef: string): TransferRow {
  const colony = colonies.getReadableColony(ctx, caller, colonyId);
  if (!isFounder(ctx, colony, caller.id)) throw forbidden("Only the founder of this colony can transfer its ownership");
  const recipient = userByHandle(ctx, recipientRef);
  if (recipient.id === caller.id) throw invalid("You already own this colony");
  if (!holdsModRole(ctx, colony.id, recipient.id)) throw invalid(`@${recipient.username} must already be a moderator or colony admin of this colony`);
  const now = ctx.clock.now();
  const pending = pendingOf(ctx, colony.id);
  if (pending && pending.expiresAt > now) throw conflict("This colony already has a pending ownership transfer: cancel it first");
  const row: TransferRow = { id: uuidv7(now), colonyId: colony.id, initiatorId: caller.id, recipientId: recipient.id, status: "pending", expiresAt: now + TRANSFER_TTL_MS, respondedAt: null, createdAt: now };
  return ctx.db.transaction((tx) => {
    if (pending) resolveInTx(ctx, tx, null, pending, colony, "expired");
    tx.insert(colonyOwnershipTransfers).values(row).run();
    ctx.jobs.schedule(EXPIRE_TRANSFER_JOB, row.expiresAt, { transfer_id: row.id }, tx);
    recordModAction(ctx, { colonyId: colony.id, actorId: caller.id, action: "ownership_transfer_proposed", targetType: "transfer", targetId: row.id, targetUserId: recipient.id });
    ctx.events.emit(tx, {
      type: "ownership_transfer_proposed",
      actorId: caller.id,
      subject: { type: "colony", id: colony.id },
      payload: { recipient_ids: [recipient.id], colony: colony.name, transfer_id: row.id, initiator: caller.username },
    });
    return row;
  });
}

/**
 * GET /colonies/{id}/ownership-transfers: the pending transfer when the caller is its initiator or
 * recipient, else null (a two-party negotiation, not a public fact). 404 for an unreadable colony.
 */
export function pendingTransferFor(ctx: Ctx, caller: Caller, colonyId: string): TransferRow | null {
  const colony = colonies.getReadableColony(ctx, caller, colonyId);
  const row = pendingOf(ctx, colony.id);
  if (!row || transferStatus(ctx, row) !== "pending") return null;
  return row.initiatorId === caller.id || row.recipientId === caller.id ? row : null;
}

/**
 * The transfer a party acts on: strangers (and unknown ids) get 404, the other party 403
 * FORBIDDEN; anything but a live pending transfer is 409 CONFLICT.
 */
function partyTransfer(ctx: Ctx, caller: Caller, transferId: string, as: "recipient" | "initiator"): { row: TransferRow; colony: ColonyRow } {
  const row = findTransfer(ctx, transferId);
  const colony = row ? colonies.findColony(ctx, row.colonyId) : null;
  if (!row || !colony || colony.deletedAt !== null || (row.initiatorId !== caller.id && row.recipientId !== caller.id)) throw notFound("Ownership transfer not found");
  const mine = as === "recipient" ? row.recipientId : row.initiatorId;
  if (mine !== caller.id) throw forbidden(as === "recipient" ? "Only the proposed recipient can answer this transfer" : "Only the founder who proposed this transfer can cancel it");
  const status = transferStatus(ctx, row);
  if (status !== "pending") throw conflict(`This ownership transfer is ${status}`);
  return { row, colony };
}

/**
 * POST /colonies/ownership-transfers/{id}/accept (the recipient). 409 CONFLICT when the initiator
 * is no longer the founder or the recipient no longer a moderator or colony admin.
 */
export function acceptTransfer(ctx: Ctx, caller: Caller, transferId: string): TransferRow {
  const { row, colony } = partyTransfer(ctx, caller, transferId, "recipient");
  if (!isFounder(ctx, colony, row.initiatorId)) throw conflict("The proposer is no longer the founder of this colony");
  if (!holdsModRole(ctx, colony.id, caller.id)) throw conflict("You no longer hold a moderator or colony admin role in this colony");
  return ctx.db.transaction((tx) => {
    transferFounder(ctx, tx, colony, row.initiatorId, caller.id);
    return resolveInTx(ctx, tx, caller.id, row, colony, "accepted");
  });
}

export function declineTransfer(ctx: Ctx, caller: Caller, transferId: string): TransferRow {
  const { row, colony } = partyTransfer(ctx, caller, transferId, "recipient");
  return ctx.db.transaction((tx) => resolveInTx(ctx, tx, caller.id, row, colony, "declined"));
}

export function cancelTransfer(ctx: Ctx, caller: Caller, transferId: string): TransferRow {
  const { row, colony } = partyTransfer(ctx, caller, transferId, "initiator");
  return ctx.db.transaction((tx) => resolveInTx(ctx, tx, caller.id, row, colony, "cancelled"));
}

/** Writes the resolution, its audit row and ownership_transfer_resolved (to both parties). */
function resolveInTx(ctx: Ctx, tx: Tx, actorId: string | null, row: TransferRow, colony: ColonyRow, status: Resolution): TransferRow {
  const updated = tx
    .update(colonyOwnershipTransfers)
    .set({ status, respondedAt: status === "expired" ? null : ctx.clock.now() })
    .where(eq(colonyOwnershipTransfers.id, row.id))
    .returning()
    .get();
  recordModAction(ctx, { colonyId: colony.id, actorId, action: `ownership_transfer_${status}`, targetType: "transfer", targetId: row.id, targetUserId: row.recipientId, meta: { initiator_id: row.initiatorId } });
  ctx.events.emit(tx, {
    type: "ownership_transfer_resolved",
    actorId,
    subject: { type: "colony", id: colony.id },
    payload: { recipient_ids: [row.initiatorId, row.recipientId], colony: colony.name, transfer_id: row.id, status },
  });
  return updated;
}

/** The expiry job: a transfer still pending at expires_at becomes expired (both parties are told). */
export function expireTransfer(ctx: Ctx, transferId: string): boolean {
  const row = findTransfer(ctx, transferId);
  if (!row || row.status !== "pending" || row.expiresAt > ctx.clock.now()) return false;
  const colony = colonies.findColony(ctx, row.colonyId);
  if (!colony) return false;
  ctx.db.transaction((tx) => resolveInTx(ctx, tx, null, row, colony, "expired"));
  return true;
}
