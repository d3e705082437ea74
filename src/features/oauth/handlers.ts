// Housekeeping of the identity provider.
import type { Ctx } from "../../core/context";
import { purgeExpiredAccessTokens } from "./exchange";

export function register(ctx: Ctx): void {
  ctx.jobs.every("purge-oauth-tokens", "43 * * * *", () => purgeExpiredAccessTokens(ctx));
}
