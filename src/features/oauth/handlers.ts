// Housekeeping of the identity provider: expired exchanged tokens; expired codes and tokens of MCP
// clients' authorizations, and clients registered anonymously that nobody authorized.
import type { Ctx } from "../../core/context";
import { purgeAuthorizations } from "./authorization";
import { purgeExpiredAccessTokens } from "./exchange";

export function register(ctx: Ctx): void {
  ctx.jobs.every("purge-oauth-tokens", "43 * * * *", () => {
    purgeExpiredAccessTokens(ctx);
    const purged = purgeAuthorizations(ctx);
    if (purged.clients) ctx.log.info("unused oauth clients deleted", { clients: purged.clients });
  });
}
