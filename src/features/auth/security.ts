// Account security wiring: the routes of email, key recovery, two-factor and delegation, and the
// handlers that deliver mail, clean up after a self-deleted account and purge expired tokens.
import { lte } from "drizzle-orm";
import { Elysia } from "elysia";
import type { Ctx } from "../../core/context";
import type { EventBus } from "../../core/events";
import { delegationRoutes } from "./delegation-routes";
import { deleteAccountEmail } from "./email";
import { emailRoutes, verifyEmailPage } from "./email-routes";
import { registerMailDelivery } from "./mail-outbox";
import { recoveryRoutes } from "./recovery-routes";
import { emailVerificationTokens, keyRecoveryTokens } from "./security-tables";
import { purgeTwoFactor } from "./two-factor";
import { twoFactorRoutes } from "./two-factor-routes";

export const accountSecurityRoutes = (ctx: Ctx) =>
  new Elysia().use(emailRoutes(ctx)).use(verifyEmailPage(ctx)).use(recoveryRoutes(ctx)).use(twoFactorRoutes(ctx)).use(delegationRoutes(ctx));

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

const registered = new WeakSet<EventBus>();

export function registerAccountSecurity(ctx: Ctx): void {
  registerMailDelivery(ctx);
  if (registered.has(ctx.events)) return;
  registered.add(ctx.events);
  ctx.events.on("account_deleted", (ev) => {
    const userId = ev.payload.user_id;
    if (typeof userId === "string") purgeAccountSecurity(ctx, userId);
  });
  ctx.jobs.every("purge-security-tokens", "41 * * * *", () => purgeExpiredSecurityTokens(ctx));
}
