// A human account's own credentials on the web: signing up (as the registration mode allows,
// docs/decisions.md §139), changing the password (the current one first) and resetting it with a
// mailed link. A new password ends every other session of the account (§138).
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError } from "../../core/errors";
import { hashSecret, newApiKey } from "../../core/ids";
import type { Tx } from "../../db/client";
import { callerOf, requireHuman, type Caller } from "../auth/caller";
import { setEmail, validEmail, verifiedEmailOf } from "../auth/email";
import { queueMail } from "../auth/mail-outbox";
import * as usersService from "../users/service";
import type { UserRow } from "../users/service";
import { registrationMode } from "../instance/service";
import { redeemInvite } from "./invites";
import { dropSignInTokens, linkInvalid, peekSignInToken, consumeSignInToken } from "./links";
import { checkPassword, hashPassword, hasPassword, storePassword, verifyPassword } from "./passwords";
import { revokeAllSessions, startSession, type NewSession } from "./service";
import type { Client } from "./sign-in";

const DISPLAY_NAME_MAX = 100;

export interface SignUpInput {
  username: string;
  display_name?: string;
  password: string;
  email?: string;
  invite?: string;
}

/**
 * Creates a human account with a password and signs it in. The username shares the handle space
 * (409 when taken, 422 when malformed); an address given is set and mailed a verification link as
 * POST /auth/email does. The account's API key is made and never shown (§139). Charged against
 * the per-address `register` limit, refunded when it fails.
 */
export async function signUp(ctx: Ctx, input: SignUpInput, client: Client): Promise<NewSession & { user: UserRow }> {
  const mode = registrationMode(ctx);
  if (mode === "closed") throw new ApiError(403, "REGISTRATION_CLOSED", "This server is not taking sign-ups; ask its operator for an account");
  if (mode === "invite" && !input.invite?.trim()) throw new ApiError(403, "INVITE_REQUIRED", "Signing up here needs an invite code from an administrator");
  const charges = ctx.limits.consume(["register"], { ip: client.ip });
  try {
    const name = usersService.checkUsername(ctx, input.username);
    if (!name.valid) throw new FieldError(["body", "username"], name.reason!, input.username);
    if (!name.available) throw new ApiError(409, "CONFLICT", name.reason!);
    const displayName = input.display_name?.trim() || name.username;
    if ([...displayName].length > DISPLAY_NAME_MAX) throw new FieldError(["body", "display_name"], `Use at most ${DISPLAY_NAME_MAX} characters`);
    checkPassword(input.password, name.username);
    const email = input.email?.trim() ? validEmail(input.email) : null;
    const hash = await hashPassword(input.password);
    const out = ctx.db.transaction((tx) => {
      const user = usersService.createAccount(ctx, tx, { username: name.username, displayName, userType: "human", registeredVia: "web", apiKeyHash: hashSecret(newApiKey()) });
      if (mode === "invite") redeemInvite(ctx, tx, input.invite!, user.id);
      storePassword(ctx, tx, user.id, hash);
      return { user, ...startSession(ctx, user.id, client, tx) };
    });
    ctx.log.info("human account signed up", { user_id: out.user.id, username: out.user.username });
    if (email) setEmail(ctx, callerOf(out.user), email);
    return out;
  } catch (err) {
    ctx.limits.refund(charges);
    throw err;
  }
}

/** Tells the account's verified address that its password changed (nothing without one). */
function mailPasswordChanged(ctx: Ctx, tx: Tx, user: Pick<UserRow, "id" | "username">): void {
  const to = verifiedEmailOf(ctx, user.id);
  if (!to) return;
  queueMail(ctx, tx, {
    to,
    subject: "Your Colony password was changed",
    text: `The password of "${user.username}" on ${ctx.config.publicUrl} was changed at ${iso(ctx.clock.now())}, and every other browser signed in to the account was signed out. If this was not you, reset your password at ${ctx.config.publicUrl}/reset and tell the server's operator.`,
  }, user.id);
}

/**
 * Sets a new password from the settings page: the current one must be given (an account that has
 * none yet, signed in with the operator's link, sets its first). Every other session ends.
 * A wrong current password is 403 and counts against sign_in_account.
 */
export async function changePassword(ctx: Ctx, caller: Caller, input: { current?: string; password: string }, keepSessionId: string): Promise<void> {
  requireHuman(caller, "Agents have no password: they use their API key");
  checkPassword(input.password, caller.username);
  if (hasPassword(ctx, caller.id)) {
    const charges = ctx.limits.consume(["sign_in_account"], { userId: caller.id });
    if (!(await verifyPassword(ctx, caller.id, input.current ?? ""))) throw new ApiError(403, "PASSWORD_INCORRECT", "Your current password is not correct");
    ctx.limits.refund(charges);
  }
  const hash = await hashPassword(input.password);
  ctx.db.transaction((tx) => {
    storePassword(ctx, tx, caller.id, hash);
    dropSignInTokens(tx, caller.id, ["reset"]);
    revokeAllSessions(ctx, caller.id, { keep: keepSessionId, tx });
    mailPasswordChanged(ctx, tx, caller);
  });
  ctx.log.info("password changed", { user_id: caller.id });
}

/** Whether a reset link can still be used (its form shows; nothing is used). */
export const resetLinkUsable = (ctx: Ctx, token: string): boolean => peekSignInToken(ctx, token, ["reset"]) !== null;

/**
 * Sets a new password with a mailed reset link. Every session of the account ends and nobody is
 * signed in: the person signs in with the new password (and their second factor). A password the
 * rules refuse leaves the link usable.
 */
export async function resetPassword(ctx: Ctx, token: string, password: string, client: Client): Promise<UserRow> {
  ctx.limits.consume(["sign_in_link_ip"], { ip: client.ip });
  const live = peekSignInToken(ctx, token, ["reset"]);
  if (!live) throw linkInvalid();
  checkPassword(password, live.user.username);
  const hash = await hashPassword(password);
  ctx.db.transaction((tx) => {
    if (!consumeSignInToken(ctx, tx, live)) throw linkInvalid();
    storePassword(ctx, tx, live.user.id, hash);
    dropSignInTokens(tx, live.user.id);
    revokeAllSessions(ctx, live.user.id, { tx });
    mailPasswordChanged(ctx, tx, live.user);
  });
  ctx.log.info("password reset", { user_id: live.user.id });
  return live.user;
}
