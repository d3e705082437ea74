// After-commit and time-driven work of web accounts: a deleted account leaves no password,
// sessions or sign-in tokens behind, and ended sessions, lapsed tokens and old invites are swept
// (every rule reads expiry from the stored instants, so the sweep only keeps the tables small).
import type { Ctx } from "../../core/context";
import { purgeOldInvites } from "./invites";
import { dropSignInTokens, purgeExpiredSignInTokens } from "./links";
import { deletePassword } from "./passwords";
import { purgeEndedSessions, revokeAllSessions } from "./service";

/** Everything the web holds about an account that is gone. */
function forgetAccount(ctx: Ctx, userId: string): void {
  ctx.db.transaction((tx) => {
    revokeAllSessions(ctx, userId, { tx });
    dropSignInTokens(tx, userId);
    deletePassword(tx, userId);
  });
}

export function register(ctx: Ctx): void {
  ctx.events.on("account_deleted", (ev) => forgetAccount(ctx, ev.payload.user_id));
  // A suspended person is signed out everywhere (their sessions are refused from the moment of the suspension).
  ctx.events.on("account_suspended", (ev) => revokeAllSessions(ctx, ev.payload.user_id));
  ctx.jobs.every("purge-web-sessions", "23 * * * *", () => {
    purgeEndedSessions(ctx);
    purgeExpiredSignInTokens(ctx);
    purgeOldInvites(ctx);
  });
}
