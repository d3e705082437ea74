// One-time sign-in tokens (docs/decisions.md §142): a password reset or a sign-in link mailed to the
// account's verified address, the operator's sign-in link from the command line, and the pending
// ticket between the password and the second-factor step. Each is 256 random bits stored as its
// SHA-256, works once (redeeming deletes the row, conditionally, so two redemptions cannot both
// pass) and expires: a reset after an hour, a mailed link after 15 minutes, an operator's link
// after 24 hours, a pending ticket after 5 minutes.
import { and, eq, gt, lte } from "drizzle-orm";
import { HOUR, MINUTE, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { hashSecret, randomBase62 } from "../../core/ids";
import { changes, type Tx } from "../../db/client";
import { verifiedEmailOf, verifiedHolderOf } from "../auth/email";
import { queueMail } from "../auth/mail-outbox";
import * as usersService from "../users/service";
import type { UserRow } from "../users/service";
import { signInTokens, type SignInPurpose } from "./tables";

const LINK_TTL_MS: Record<SignInPurpose, number> = { reset: HOUR, magic: 15 * MINUTE, operator: 24 * HOUR, pending_2fa: 5 * MINUTE };

const TOKEN_RE = /^[0-9A-Za-z]{43}$/;

export const linkInvalid = () => new ApiError(400, "SIGN_IN_LINK_INVALID", "This link is invalid, has expired or was already used");

/** A new token of `purpose` for `userId`, written inside `tx`. */
export function issueSignInToken(ctx: Ctx, tx: Tx, userId: string, purpose: SignInPurpose): { token: string; expiresAt: number } {
  const now = ctx.clock.now();
  const token = randomBase62(43);
  const expiresAt = now + LINK_TTL_MS[purpose];
  tx.insert(signInTokens).values({ tokenHash: hashSecret(token), userId, purpose, expiresAt, createdAt: now }).run();
  return { token, expiresAt };
}

/** A human account in good standing, the only kind that signs in on the web. */
const isWebAccount = (u: UserRow | null | undefined): u is UserRow => usersService.isActive(u) && u.userType === "human";

interface LiveToken {
  tokenHash: string;
  purpose: SignInPurpose;
  user: UserRow;
  expiresAt: number;
  attempts: number;
}

/** The unexpired token of one of `purposes` and its (active, human) account, without using it; else null. */
export function peekSignInToken(ctx: Ctx, token: string, purposes: readonly SignInPurpose[]): LiveToken | null {
  if (!TOKEN_RE.test(token)) return null;
  const row = ctx.db.select().from(signInTokens).where(eq(signInTokens.tokenHash, hashSecret(token))).get();
  if (!row || !purposes.includes(row.purpose) || ctx.clock.now() >= row.expiresAt) return null;
  const user = usersService.findById(ctx, row.userId);
  if (!isWebAccount(user)) return null;
  return { tokenHash: row.tokenHash, purpose: row.purpose, user, expiresAt: row.expiresAt, attempts: row.attempts };
}

/** Uses a token found by peekSignInToken: false when it was used (or lapsed) in the meantime. */
export function consumeSignInToken(ctx: Ctx, tx: Tx, live: LiveToken): boolean {
  return changes(tx.delete(signInTokens).where(and(eq(signInTokens.tokenHash, live.tokenHash), gt(signInTokens.expiresAt, ctx.clock.now()))).run()) === 1;
}

/** Counts a wrong code against a pending ticket; the fifth ends it. */
export function countFailedAttempt(ctx: Ctx, live: LiveToken, max: number): void {
  if (live.attempts + 1 >= max) ctx.db.delete(signInTokens).where(eq(signInTokens.tokenHash, live.tokenHash)).run();
  else ctx.db.update(signInTokens).set({ attempts: live.attempts + 1 }).where(eq(signInTokens.tokenHash, live.tokenHash)).run();
}

/** Drops every token of the account of the given purposes (a new password makes older resets moot). */
export function dropSignInTokens(tx: Tx, userId: string, purposes?: readonly SignInPurpose[]): void {
  if (!purposes) {
    tx.delete(signInTokens).where(eq(signInTokens.userId, userId)).run();
    return;
  }
  for (const purpose of purposes) tx.delete(signInTokens).where(and(eq(signInTokens.userId, userId), eq(signInTokens.purpose, purpose))).run();
}

export function purgeExpiredSignInTokens(ctx: Ctx): number {
  return changes(ctx.db.delete(signInTokens).where(lte(signInTokens.expiresAt, ctx.clock.now())).run());
}

// ---- the operator's link

/**
 * A sign-in link for a human account, printed by `colony admin create-user --human` and
 * `colony admin sign-in-link`: it signs in without the password or the second factor, because
 * the operator, who holds the data folder, vouches for whoever they hand it to (§142).
 */
export function operatorSignInLink(ctx: Ctx, username: string): { link: string; expiresAt: string; user: UserRow } {
  const user = usersService.getActiveUser(ctx, username);
  if (user.userType !== "human") throw new ApiError(403, "AUTH_HUMAN_ONLY", `${user.username} is an agent: agents sign in with their API key, not on the web`);
  const { token, expiresAt } = ctx.db.transaction((tx) => issueSignInToken(ctx, tx, user.id, "operator"));
  return { link: `${ctx.config.publicUrl}/login/link/${token}`, expiresAt: iso(expiresAt), user };
}

// ---- mailed links

/**
 * Whether mail can reach people: an SMTP server is configured, or the instance is not in
 * production and writes mail to the data folder's outbox, which its developer reads (§143).
 */
export const mailReachesPeople = (ctx: Ctx): boolean => ctx.config.smtpUrl !== null || !ctx.config.production;

/** The human account a sign-in form names: a username, or an address verified on the account. */
export function accountByLogin(ctx: Ctx, login: string): UserRow | null {
  const value = login.trim();
  if (!value || value.length > 255) return null;
  // Usernames never hold an @.
  const holder = value.includes("@") ? verifiedHolderOf(ctx, value) : null;
  const user = value.includes("@") ? (holder ? usersService.findById(ctx, holder) : null) : usersService.findByUsername(ctx, value);
  return isWebAccount(user) ? user : null;
}

const RESET_SUBJECT = "Reset your Colony password";
const MAGIC_SUBJECT = "Your Colony sign-in link";

/**
 * Mails a password reset (or, for `magic`, a sign-in link) to the verified address of the account
 * `login` names. The caller learns nothing: whether or not there is such an account or address,
 * nothing is thrown and nothing is returned, apart from the per-address limit's 429.
 */
export function mailSignInLink(ctx: Ctx, purpose: "reset" | "magic", login: string, ip: string): void {
  if (purpose === "magic" && !mailReachesPeople(ctx)) throw new ApiError(404, "NOT_FOUND", "Sign-in links by email are off on this server");
  ctx.limits.consume(["sign_in_mail_ip"], { ip });
  const user = accountByLogin(ctx, login);
  const email = user ? verifiedEmailOf(ctx, user.id) : null;
  // A few mails an hour per account at most; further requests are answered alike and send nothing.
  if (!user || !email || !ctx.limits.tryConsume(["sign_in_mail_account"], { userId: user.id })) return;
  ctx.db.transaction((tx) => {
    // One live link of a kind at a time: asking again replaces the earlier one.
    dropSignInTokens(tx, user.id, [purpose]);
    const { token } = issueSignInToken(ctx, tx, user.id, purpose);
    const base = ctx.config.publicUrl;
    const text =
      purpose === "reset"
        ? [
            `Someone asked to reset the password of "${user.username}" on ${base}.`,
            "",
            "To choose a new password, open this link within an hour:",
            `${base}/reset/${token}`,
            "",
            "It works once. If you did not ask for this, ignore this message: your password stays as it is.",
          ]
        : [
            `Someone asked for a sign-in link for "${user.username}" on ${base}.`,
            "",
            "To sign in, open this link within 15 minutes and confirm:",
            `${base}/login/link/${token}`,
            "",
            "It works once. If you did not ask for it, ignore this message.",
          ];
    queueMail(ctx, tx, { to: email, subject: purpose === "reset" ? RESET_SUBJECT : MAGIC_SUBJECT, text: text.join("\n") }, user.id);
  });
  ctx.log.info(purpose === "reset" ? "password reset mailed" : "sign-in link mailed", { user_id: user.id });
}
