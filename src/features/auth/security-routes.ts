// The routes of account security: email, key recovery, two-factor and delegation.
import { Elysia } from "elysia";
import type { Ctx } from "../../core/context";
import { delegationRoutes } from "./delegation-routes";
import { emailRoutes, verifyEmailPage } from "./email-routes";
import { recoveryRoutes } from "./recovery-routes";
import { twoFactorRoutes } from "./two-factor-routes";

export const accountSecurityRoutes = (ctx: Ctx) =>
  new Elysia().use(emailRoutes(ctx)).use(verifyEmailPage(ctx)).use(recoveryRoutes(ctx)).use(twoFactorRoutes(ctx)).use(delegationRoutes(ctx));
