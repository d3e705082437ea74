// Signing a human in on the web (docs/decisions.md §141): a username or verified address and the
// password, then, when the account has two-factor on, a TOTP or recovery code against a pending
// ticket the password step handed out; or a one-time link (a mailed link, the operator's link).
// Every failure of the password step reads the same, whether the account exists, is an agent or
// has no password, and costs the same time. Failed attempts count against the account and the
// address (sign_in_account, sign_in_ip); a success gives its charge back.
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import type { Tx } from "../../db/client";
import * as twoFactor from "../auth/two-factor";
import type { UserRow } from "../users/service";
import { accountSuspended, isSuspended } from "../users/suspension";
import { accountByLogin, consumeSignInToken, countFailedAttempt, issueSignInToken, linkInvalid, peekSignInToken } from "./links";
import { verifyPassword } from "./passwords";
import { startSession, type ClientMeta, type SessionRow } from "./service";
import type { SignInPurpose } from "./tables";

/** Wrong codes a pending ticket takes before it ends (the per-account limit of two_factor_verify applies as well). */
const TICKET_ATTEMPTS = 5;

export type SignIn =
  | { kind: "signed_in"; user: UserRow; token: string; session: SessionRow }
  | { kind: "second_factor"; user: UserRow; ticket: string };

/** The request's address is known on every web request (http/client-ip.ts). */
export type Client = ClientMeta & { ip: string };

const signInFailed = () => new ApiError(401, "SIGN_IN_FAILED", "Incorrect username or password");
const ticketExpired = () => new ApiError(401, "SIGN_IN_EXPIRED", "This sign-in took too long: enter your password again");

/** After a first factor: the session, or the second-factor step when the account has two-factor on. */
function afterFirstFactor(ctx: Ctx, user: UserRow, client: Client, spend?: (tx: Tx) => boolean): SignIn {
  refuseSuspended(ctx, user);
  const second = twoFactor.isEnabled(ctx, user.id);
  return ctx.db.transaction((tx) => {
    if (spend && !spend(tx)) throw linkInvalid();
    if (second) return { kind: "second_factor" as const, user, ticket: issueSignInToken(ctx, tx, user.id, "pending_2fa").token };
    return signedIn(ctx, tx, user, client);
  });
}

/**
 * A suspended account signs in by no means (docs/decisions.md §174): told so only once its first
 * factor is right (the password, or a link only it was given), so the answer says nothing about
 * the account to anyone else; a link it brings is not spent.
 */
function refuseSuspended(ctx: Ctx, user: UserRow): void {
  if (isSuspended(user, ctx.clock.now())) {
    ctx.log.info("web sign-in of a suspended account refused", { user_id: user.id });
    throw accountSuspended(user);
  }
}

/** A new session for `user`, logged. */
function signedIn(ctx: Ctx, tx: Tx, user: UserRow, client: Client): SignIn {
  refuseSuspended(ctx, user);
  const s = startSession(ctx, user.id, client, tx);
  ctx.log.info("web sign-in", { user_id: user.id, session_id: s.session.id, ip: client.ip });
  return { kind: "signed_in", user, ...s };
}

/** The password step. */
export async function signInWithPassword(ctx: Ctx, input: { login: string; password: string }, client: Client): Promise<SignIn> {
  const login = input.login.trim();
  if (!login || !input.password) throw new ApiError(400, "INVALID_INPUT", "Enter your username (or email address) and your password");
  const user = accountByLogin(ctx, login);
  // Unknown names have buckets of their own, so a limit reached says nothing about existence.
  const charges = ctx.limits.consume(["sign_in_account", "sign_in_ip"], { userId: user?.id ?? `login:${login.toLowerCase().slice(0, 255)}`, ip: client.ip });
  if (!(await verifyPassword(ctx, user?.id ?? null, input.password)) || !user) {
    // For the operator's log watchers (fail2ban and the like): the address, never what was typed.
    ctx.log.info("web sign-in failed", { ip: client.ip, user_id: user?.id ?? null });
    throw signInFailed();
  }
  ctx.limits.refund(charges);
  return afterFirstFactor(ctx, user, client);
}

/** The second-factor step: the pending ticket and a TOTP or recovery code (each accepted once). */
export function signInSecondFactor(ctx: Ctx, input: { ticket: string; code: string }, client: Client): SignIn {
  const live = peekSignInToken(ctx, input.ticket.trim(), ["pending_2fa"]);
  if (!live) throw ticketExpired();
  if (!input.code.trim()) throw new ApiError(400, "INVALID_INPUT", "Enter the code from your authenticator app, or a recovery code");
  // Two-factor turned off since the password step leaves nothing to check.
  if (twoFactor.isEnabled(ctx, live.user.id) && !twoFactor.checkCode(ctx, live.user.id, input.code)) {
    countFailedAttempt(ctx, live, TICKET_ATTEMPTS);
    throw new ApiError(401, "AUTH_2FA_INVALID", "That code is not valid");
  }
  return ctx.db.transaction((tx) => {
    if (!consumeSignInToken(ctx, tx, live)) throw ticketExpired();
    return signedIn(ctx, tx, live.user, client);
  });
}

/** What a sign-in link's confirmation page shows before it is used; null when it cannot be used. */
export function peekSignInLink(ctx: Ctx, token: string): { purpose: SignInPurpose; user: UserRow } | null {
  const live = peekSignInToken(ctx, token, ["magic", "operator"]);
  return live && { purpose: live.purpose, user: live.user };
}

/**
 * Uses a mailed sign-in link or the operator's link. A mailed link stands for the password only:
 * with two-factor on, the code is still asked. The operator's link signs in outright (§142).
 */
export function redeemSignInLink(ctx: Ctx, token: string, client: Client): SignIn & { purpose: SignInPurpose } {
  ctx.limits.consume(["sign_in_link_ip"], { ip: client.ip });
  const live = peekSignInToken(ctx, token, ["magic", "operator"]);
  if (!live) throw linkInvalid();
  const spend = (tx: Tx) => consumeSignInToken(ctx, tx, live);
  if (live.purpose === "operator") {
    return ctx.db.transaction((tx) => {
      if (!spend(tx)) throw linkInvalid();
      return { ...signedIn(ctx, tx, live.user, client), purpose: live.purpose };
    });
  }
  return { ...afterFirstFactor(ctx, live.user, client, spend), purpose: live.purpose };
}
