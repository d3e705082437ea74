// Invite codes of invite-only registration (docs/decisions.md §139): made by site admins (or the
// command line), each good for one sign-up until it expires (7 days unless the maker says
// otherwise, at most 90), stored as the SHA-256 of the code.
import { and, desc, eq, gt, isNull, lte } from "drizzle-orm";
import { DAY, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { hashSecret, randomBase62, uuidv7 } from "../../core/ids";
import { changes, type Tx } from "../../db/client";
import type { Caller } from "../auth/caller";
import { inviteCodes } from "./tables";

const INVITE_DAYS_DEFAULT = 7;
const INVITE_DAYS_MAX = 90;
/** How long a used or lapsed invite is kept (so an admin can still see what became of it). */
const INVITE_RETENTION_MS = 30 * DAY;

const CODE_RE = /^inv_[0-9A-Za-z]{24}$/;

const inviteInvalid = () => new ApiError(403, "INVITE_INVALID", "This invite code is not valid: it may have expired or been used already");

/** A new invite code, shown once. `by` is the admin making it; null for the command line. */
export function createInvite(ctx: Ctx, by: Caller | null, days = INVITE_DAYS_DEFAULT): { id: string; code: string; expires_at: string; signup_url: string } {
  if (by && !by.isAdmin) throw new ApiError(403, "FORBIDDEN", "Only site admins make invite codes");
  if (!Number.isInteger(days) || days < 1 || days > INVITE_DAYS_MAX) throw new ApiError(400, "INVALID_INPUT", `An invite lasts 1 to ${INVITE_DAYS_MAX} days`);
  const now = ctx.clock.now();
  const code = "inv_" + randomBase62(24);
  const row = ctx.db
    .insert(inviteCodes)
    .values({ id: uuidv7(now), codeHash: hashSecret(code), createdBy: by?.id ?? null, createdAt: now, expiresAt: now + days * DAY })
    .returning()
    .get();
  ctx.log.info("invite code created", { invite_id: row.id, by: by?.id ?? "command line" });
  return { id: row.id, code, expires_at: iso(row.expiresAt), signup_url: `${ctx.config.publicUrl}/signup?invite=${code}` };
}

/** Uses an invite for `userId` inside the sign-up's transaction; 403 INVITE_INVALID when it cannot be used. */
export function redeemInvite(ctx: Ctx, tx: Tx, code: string, userId: string): void {
  const value = code.trim();
  if (!CODE_RE.test(value)) throw inviteInvalid();
  const now = ctx.clock.now();
  const used = tx
    .update(inviteCodes)
    .set({ usedAt: now, usedBy: userId })
    .where(and(eq(inviteCodes.codeHash, hashSecret(value)), isNull(inviteCodes.usedAt), gt(inviteCodes.expiresAt, now)))
    .run();
  if (changes(used) !== 1) throw inviteInvalid();
}

export function purgeOldInvites(ctx: Ctx): number {
  return changes(ctx.db.delete(inviteCodes).where(lte(inviteCodes.expiresAt, ctx.clock.now() - INVITE_RETENTION_MS)).run());
}

type InviteState = "unused" | "used" | "expired";
export interface InviteListed {
  id: string;
  createdBy: string | null;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  usedBy: string | null;
  state: InviteState;
}

const requireAdmin = (by: Caller) => {
  if (!by.isAdmin) throw new ApiError(403, "FORBIDDEN", "Only site admins see and revoke invite codes");
};

/** Every invite still kept (codes themselves are never stored), newest first, for site admins. */
export function listInvites(ctx: Ctx, by: Caller, limit = 100): InviteListed[] {
  requireAdmin(by);
  const now = ctx.clock.now();
  return ctx.db
    .select()
    .from(inviteCodes)
    .orderBy(desc(inviteCodes.createdAt), desc(inviteCodes.id))
    .limit(limit)
    .all()
    .map((r) => ({ id: r.id, createdBy: r.createdBy, createdAt: r.createdAt, expiresAt: r.expiresAt, usedAt: r.usedAt, usedBy: r.usedBy, state: r.usedAt !== null ? "used" : r.expiresAt <= now ? "expired" : "unused" }));
}

/**
 * Revokes an unused invite: its row is deleted, so the code no longer redeems (docs/decisions.md
 * §147). 404 when there is no such invite; 409 once used (the record of who signed up stays).
 */
export function revokeInvite(ctx: Ctx, by: Caller, id: string): void {
  requireAdmin(by);
  const row = ctx.db.select().from(inviteCodes).where(eq(inviteCodes.id, id)).get();
  if (!row) throw new ApiError(404, "NOT_FOUND", "No such invite code");
  if (row.usedAt !== null) throw new ApiError(409, "CONFLICT", "This invite code was already used; it cannot be revoked");
  ctx.db.delete(inviteCodes).where(and(eq(inviteCodes.id, id), isNull(inviteCodes.usedAt))).run();
  ctx.log.info("invite code revoked", { invite_id: id, by: by.id });
}
