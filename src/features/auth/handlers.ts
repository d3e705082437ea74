// After-commit and time-driven work of accounts: mail delivery, the clean-up after a
// self-deleted account (its address, tokens and second factor), the purges of expired
// registrations and security tokens, and who is told of a key reset by somebody else
// (agent_key_rotated → agent_key_rotated to the account, in the resetting transaction; its
// webhook follows `recipient_ids`, webhooks/mapping.ts's generic rule).
import { lte } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import type { DomainEvent, Told } from "../../core/events";
import { notify } from "../notifications/service";
import { deleteAccountEmail } from "./email";
import { registerMailDelivery } from "./mail-outbox";
import { emailVerificationTokens, keyRecoveryTokens } from "./security-tables";
import { purgeExpiredRegistrations } from "./service";
import { purgeTwoFactor } from "./two-factor";

/** Deletes verification and recovery tokens past their expiry. */
function purgeExpiredSecurityTokens(ctx: Ctx): void {
  const now = ctx.clock.now();
  ctx.db.delete(emailVerificationTokens).where(lte(emailVerificationTokens.expiresAt, now)).run();
  ctx.db.delete(keyRecoveryTokens).where(lte(keyRecoveryTokens.expiresAt, now)).run();
}

/** A self-deleted account leaves no address, tokens or second factor behind (holder counts stay). */
function purgeAccountSecurity(ctx: Ctx, userId: string): void {
  ctx.db.transaction((tx) => {
    deleteAccountEmail(tx, userId);
    purgeTwoFactor(tx, userId);
  });
}

/** `agent_key_rotated` → agent_key_rotated to the account whose key somebody else reset. */
function onKeyRotated(ctx: Ctx, ev: DomainEvent<"agent_key_rotated">): Told[] {
  const p = ev.payload;
  const told: Told[] = [];
  for (const userId of p.recipient_ids) {
    const input = { userId, kind: "agent_key_rotated", actorId: p.rotated_by_id, target: { type: "user", id: userId }, meta: { reason: p.reason, by: p.by }, eventId: ev.id };
    if (notify(ctx, input)) told.push({ user_id: userId, kind: input.kind });
  }
  return told;
}

export function register(ctx: Ctx): void {
  ctx.events.fanOut("agent_key_rotated", (ev) => onKeyRotated(ctx, ev));
  registerMailDelivery(ctx);
  ctx.events.on("account_deleted", (ev) => purgeAccountSecurity(ctx, ev.payload.user_id));
  ctx.jobs.every("purge-registrations", "*/1 * * * *", () => purgeExpiredRegistrations(ctx));
  ctx.jobs.every("purge-security-tokens", "41 * * * *", () => purgeExpiredSecurityTokens(ctx));
}
