// Suspending accounts (docs/decisions.md §148, §173-§176): a site admin, or the operator's command
// line, stops an account from authenticating, for a number of days or until lifted, with a reason
// the account is told. Its public content stays. The state is four columns of the account's row,
// which every authentication path already loads (the bearer check, the key exchange, the web
// session), so the refusal costs no query; a timed suspension ends by itself (derived from the
// stored instant when the row is read). Suspending revokes the account's access tokens
// (`tokens_valid_after`) and its web sessions end (sessions/handlers.ts, after commit; a session
// is refused at once anyway, sessions/service.ts `resolveSession`).
import { eq, sql } from "drizzle-orm";
import { DAY, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError } from "../../core/errors";
import { findById, isActive, type UserRow } from "./service";
import { users } from "./tables";

const SUSPENSION_REASON_MAX = 500;
/** The longest timed suspension, in days; longer is "until lifted". */
const SUSPENSION_DAYS_MAX = 3650;

type SuspensionState = Pick<UserRow, "suspendedAt" | "suspendedUntil">;

/** Whether the account is suspended at `now`: the one test of it (one field check for an account never suspended). */
export const isSuspended = (u: SuspensionState, now: number): boolean => u.suspendedAt !== null && (u.suspendedUntil === null || now < u.suspendedUntil);

/** What a suspended account is told, in words: until when, and why. */
function suspensionMessage(u: SuspensionState & Pick<UserRow, "suspensionReason">): string {
  const until = u.suspendedUntil === null ? "until a site administrator lifts it" : `until ${iso(u.suspendedUntil)}`;
  return `This account is suspended ${until}${u.suspensionReason ? `. Reason: ${u.suspensionReason}` : ""}`;
}

/** The refusal of every credential of a suspended account: 403 ACCOUNT_SUSPENDED, with `suspended_until` (null: until lifted). */
export const accountSuspended = (u: SuspensionState & Pick<UserRow, "suspensionReason">): ApiError =>
  new ApiError(403, "ACCOUNT_SUSPENDED", suspensionMessage(u), { suspended_until: iso(u.suspendedUntil) });

/** Who suspends: a site admin's account, or null for the instance's command line (the operator). */
interface Suspender {
  id: string;
  isAdmin: boolean;
}

interface SuspendInput {
  reason?: string | null;
  /** Days until the suspension ends by itself (1 to SUSPENSION_DAYS_MAX); null or absent: until lifted. */
  days?: number | null;
}

/** The account a suspender may act on: an active one, never their own, and (for a site admin) not another site admin. */
function target(ctx: Ctx, by: Suspender | null, userId: string, verb: string): UserRow {
  if (by && !by.isAdmin) throw new ApiError(403, "FORBIDDEN", `Only site administrators ${verb} accounts`);
  const u = findById(ctx, userId);
  if (!isActive(u)) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  if (by && u.id === by.id) throw new ApiError(403, "FORBIDDEN", `You cannot ${verb} your own account`);
  if (by && u.isAdmin) throw new ApiError(403, "FORBIDDEN", `Site administrators cannot ${verb} one another; the instance's command line (colony admin) can`);
  return u;
}

/**
 * Suspends an account now, for `days` or until lifted. Suspending a suspended account replaces its
 * end and reason (and keeps when it began). Every access token issued so far is revoked, and the
 * account's web sessions end; its content stays.
 */
export function suspend(ctx: Ctx, by: Suspender | null, userId: string, input: SuspendInput = {}): UserRow {
  const u = target(ctx, by, userId, "suspend");
  const reason = input.reason?.trim() || null;
  if (reason && reason.length > SUSPENSION_REASON_MAX) throw new FieldError(["body", "reason"], `The reason may have at most ${SUSPENSION_REASON_MAX} characters`);
  const days = input.days ?? null;
  if (days !== null && (!Number.isInteger(days) || days < 1 || days > SUSPENSION_DAYS_MAX)) {
    throw new FieldError(["body", "days"], `The days of a suspension must be a whole number from 1 to ${SUSPENSION_DAYS_MAX}, or none for a suspension until lifted`);
  }
  const now = ctx.clock.now();
  const until = days === null ? null : now + days * DAY;
  const row = ctx.db.transaction((tx) => {
    const row = tx
      .update(users)
      .set({
        suspendedAt: isSuspended(u, now) ? u.suspendedAt : now,
        suspendedUntil: until,
        suspensionReason: reason,
        suspendedBy: by?.id ?? null,
        updatedAt: now,
        // As an administrator's key rotation does: tokens issued up to now are revoked (auth issueToken).
        tokensValidAfter: sql`max(${users.tokensValidAfter}, ${now}) + 1`,
      })
      .where(eq(users.id, u.id))
      .returning()
      .get();
    ctx.events.emit(tx, {
      type: "account_suspended",
      actorId: by?.id ?? null,
      subject: { type: "user", id: u.id },
      payload: { user_id: u.id, username: u.username, until: iso(until), reason, by_id: by?.id ?? null },
    });
    return row;
  });
  ctx.log.info("account suspended", { user_id: u.id, username: u.username, until: iso(until), by: by?.id ?? "command line" });
  return row;
}

/** Lifts a suspension now (409 CONFLICT when the account is not suspended); the record of it stays, ended now. */
export function unsuspend(ctx: Ctx, by: Suspender | null, userId: string): UserRow {
  const u = target(ctx, by, userId, "unsuspend");
  const now = ctx.clock.now();
  if (!isSuspended(u, now)) throw new ApiError(409, "CONFLICT", `@${u.username} is not suspended`);
  const row = ctx.db.transaction((tx) => {
    const row = tx.update(users).set({ suspendedUntil: now, updatedAt: now }).where(eq(users.id, u.id)).returning().get();
    ctx.events.emit(tx, { type: "account_unsuspended", actorId: by?.id ?? null, subject: { type: "user", id: u.id }, payload: { user_id: u.id, username: u.username, by_id: by?.id ?? null } });
    return row;
  });
  ctx.log.info("account unsuspended", { user_id: u.id, username: u.username, by: by?.id ?? "command line" });
  return row;
}
