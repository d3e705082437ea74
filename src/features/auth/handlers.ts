// After-commit and time-driven work of accounts: mail delivery, the clean-up after a
// self-deleted account (its address, tokens and second factor), and the purges of expired
// registrations and security tokens.
import { lte } from "drizzle-orm";
import type { Ctx } from "../../core/context";
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

export function register(ctx: Ctx): void {
  registerMailDelivery(ctx);
  ctx.events.on("account_deleted", (ev) => purgeAccountSecurity(ctx, ev.payload.user_id));
  ctx.jobs.every("purge-registrations", "*/1 * * * *", () => purgeExpiredRegistrations(ctx));
  ctx.jobs.every("purge-security-tokens", "41 * * * *", () => purgeExpiredSecurityTokens(ctx));
}
