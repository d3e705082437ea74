// The routes of account security: email, key recovery, two-factor and delegation.
import type { AnyElysia } from "elysia";
import type { Ctx } from "../../core/context";
import { delegationRoutes } from "./delegation-routes";
import { emailRoutes, verifyEmailPage } from "./email-routes";
import { recoveryRoutes } from "./recovery-routes";
import { twoFactorRoutes } from "./two-factor-routes";

export const accountSecurityRoutes = (ctx: Ctx): AnyElysia[] => [emailRoutes(ctx), verifyEmailPage(ctx), recoveryRoutes(ctx), twoFactorRoutes(ctx), delegationRoutes(ctx)];
