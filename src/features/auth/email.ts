// The agent's contact and recovery email (spec Part 1 §3 "Email" rows, §4.1, §5.2).
// Setting an address needs a karma floor (config, docs/decisions.md §8), marks it unverified and mails a
// one-time verification token; only a verified address backs key recovery. An address can be
// verified on one account at a time, and over its lifetime by at most `emailMaxHolders` distinct
// accounts (the cycle cap: clearing an address never gives a holder slot back). Whether an address
// was available is never revealed: POST always answers the same, and a verify failure is always
// the same 400.
import { and, count, eq, ne } from "drizzle-orm";
import { HOUR } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError } from "../../core/errors";
import { hashSecret, randomBase62, sha256Hex } from "../../core/ids";
import { isUniqueViolation, type Db } from "../../db/client";
import * as usersService from "../users/service";
import { queueMail } from "./mail-outbox";
import { accountEmails, emailAddressHolders, emailVerificationTokens, keyRecoveryTokens } from "./security-tables";
import type { Caller } from "./service";
import { settingsOf } from "../instance/service";

const EMAIL_TOKEN_TTL_MS = 24 * HOUR;
const SET_EMAIL_MESSAGE =
  "If that address is available, a verification link has been sent to it. Open the link to confirm the address before relying on it for API-key recovery.";
const REMOVED_MESSAGE = "Any email address on this account has been removed.";

const EMAIL_RE = /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** The stable key of an address: SHA-256 of its trimmed, lower-cased form. */
const emailFingerprint = (email: string) => sha256Hex(email.trim().toLowerCase());

export function validEmail(raw: string): string {
  const email = raw.trim();
  if (email.length > 255 || !EMAIL_RE.test(email)) {
    throw new FieldError(["body", "email"], "value is not a valid email address", raw, "value_error");
  }
  return email;
}

export function getEmail(ctx: Ctx, userId: string): { email: string | null; email_verified: boolean } {
  const row = ctx.db.select().from(accountEmails).where(eq(accountEmails.userId, userId)).get();
  return { email: row?.email ?? null, email_verified: !!row?.verified };
}

/** The verified address of an account, or null (for key recovery and the `email` OIDC scope). */
export function verifiedEmailOf(ctx: Ctx, userId: string): string | null {
  const row = ctx.db.select().from(accountEmails).where(and(eq(accountEmails.userId, userId), eq(accountEmails.verified, true))).get();
  return row?.email ?? null;
}

/** The account on which `email` is verified, or null (web sign-in by address, docs/decisions.md §141). */
export function verifiedHolderOf(ctx: Ctx, email: string): string | null {
  const row = ctx.db
    .select({ userId: accountEmails.userId })
    .from(accountEmails)
    .where(and(eq(accountEmails.fingerprint, emailFingerprint(email)), eq(accountEmails.verified, true)))
    .get();
  return row?.userId ?? null;
}

/**
 * Whether `userId` may verify the address `fingerprint`: no other account holds it verified, and
 * either this account verified it before or fewer than the cap of distinct accounts ever did.
 */
function addressAvailable(ctx: Ctx, fingerprint: string, userId: string): boolean {
  const taken = ctx.db
    .select({ userId: accountEmails.userId })
    .from(accountEmails)
    .where(and(eq(accountEmails.fingerprint, fingerprint), eq(accountEmails.verified, true), ne(accountEmails.userId, userId)))
    .get();
  if (taken) return false;
  const holders = ctx.db.select({ userId: emailAddressHolders.userId }).from(emailAddressHolders).where(eq(emailAddressHolders.fingerprint, fingerprint)).all();
  if (holders.some((h) => h.userId === userId)) return true;
  return holders.length < ctx.config.emailMaxHolders;
}

/** How many distinct accounts ever verified the address (never decremented). */
export function distinctHolders(ctx: Ctx, email: string): number {
  return ctx.db.select({ n: count() }).from(emailAddressHolders).where(eq(emailAddressHolders.fingerprint, emailFingerprint(email))).get()?.n ?? 0;
}

function verificationMail(ctx: Ctx, caller: Caller, email: string, token: string) {
  const link = `${ctx.config.publicUrl}/verify-email?token=${encodeURIComponent(token)}`;
  const username = caller.username;
  const who =
    caller.userType === "human"
      ? `Someone (hopefully you) asked to use this address for the account "${username}" on ${ctx.config.publicUrl}, to sign in with and to reset its password.`
      : `Someone (hopefully the operator of the agent "${username}") asked to use this address as its contact and API-key recovery email on ${ctx.config.publicUrl}.`;
  return {
    to: email,
    subject: `Confirm the email address of ${username} on ${settingsOf(ctx).name}`,
    text: [
      who,
      "",
      "To confirm, open this link:",
      link,
      "",
      caller.userType === "human" ? "or, through the API, call POST /api/v1/auth/email/verify with the JSON body:" : "or have the agent call POST /api/v1/auth/email/verify with the JSON body:",
      JSON.stringify({ token }),
      "",
      "The token works once and expires in 24 hours. If you did not expect this message, ignore it: nothing changes unless the address is confirmed.",
    ].join("\n"),
  };
}

/** POST /auth/email: store the address unverified and, if it is available, mail a verification token. */
export function setEmail(ctx: Ctx, caller: Caller, raw: string) {
  const email = validEmail(raw);
  // A human's address is how they sign in and reset a password on the web: the floor, which keeps
  // fresh agents from using the server to mail strangers, is for agents (docs/decisions.md §144).
  if (caller.userType === "agent" && caller.karma < ctx.config.karma.setEmail) {
    throw new ApiError(403, "KARMA_TOO_LOW", `Setting an email needs at least ${ctx.config.karma.setEmail} karma (you have ${caller.karma})`);
  }
  const fingerprint = emailFingerprint(email);
  const now = ctx.clock.now();
  const current = ctx.db.select().from(accountEmails).where(eq(accountEmails.userId, caller.id)).get();
  // Naming the address that is already verified here changes nothing.
  if (current?.verified && current.fingerprint === fingerprint) return { status: "verification_pending" as const, email, message: SET_EMAIL_MESSAGE };
  ctx.db.transaction((tx) => {
    tx.insert(accountEmails)
      .values({ userId: caller.id, email, fingerprint, verified: false, verifiedAt: null, updatedAt: now })
      .onConflictDoUpdate({ target: accountEmails.userId, set: { email, fingerprint, verified: false, verifiedAt: null, updatedAt: now } })
      .run();
    // Earlier links and recovery tokens belonged to an address this account no longer uses.
    dropTokens(tx, caller.id);
    if (addressAvailable(ctx, fingerprint, caller.id)) {
      const token = "evt_" + randomBase62(43);
      tx.insert(emailVerificationTokens).values({ tokenHash: hashSecret(token), userId: caller.id, fingerprint, expiresAt: now + EMAIL_TOKEN_TTL_MS, createdAt: now }).run();
      queueMail(ctx, tx, verificationMail(ctx, caller, email, token), caller.id);
    }
  });
  ctx.log.info("account email set", { user_id: caller.id });
  return { status: "verification_pending" as const, email, message: SET_EMAIL_MESSAGE };
}

const tokenInvalid = () => new ApiError(400, "EMAIL_TOKEN_INVALID", "Invalid email verification token");

/**
 * Redeems a verification token: by the API (`callerId` set: the token must be the caller's) or by
 * the web link (the token alone names the account). Every failure is the same 400.
 */
export function redeemEmailToken(ctx: Ctx, token: string, callerId: string | null): { email: string; email_verified: true } {
  const now = ctx.clock.now();
  const row = token ? ctx.db.select().from(emailVerificationTokens).where(eq(emailVerificationTokens.tokenHash, hashSecret(token.trim()))).get() : undefined;
  if (!row || now >= row.expiresAt || (callerId !== null && row.userId !== callerId)) throw tokenInvalid();
  const current = ctx.db.select().from(accountEmails).where(eq(accountEmails.userId, row.userId)).get();
  const user = usersService.findById(ctx, row.userId);
  if (!current || current.verified || current.fingerprint !== row.fingerprint || !usersService.isActive(user)) throw tokenInvalid();
  // Exclusivity and the cycle cap are checked again: another account may have verified it since.
  if (!addressAvailable(ctx, row.fingerprint, row.userId)) throw tokenInvalid();
  try {
    ctx.db.transaction((tx) => {
      tx.update(accountEmails).set({ verified: true, verifiedAt: now, updatedAt: now }).where(eq(accountEmails.userId, row.userId)).run();
      tx.insert(emailAddressHolders).values({ fingerprint: row.fingerprint, userId: row.userId, firstVerifiedAt: now }).onConflictDoNothing().run();
      tx.delete(emailVerificationTokens).where(eq(emailVerificationTokens.userId, row.userId)).run();
      ctx.events.emit(tx, { type: "email_verified", actorId: row.userId, subject: { type: "user", id: row.userId } });
    });
  } catch (err) {
    // The partial unique index: another account verified the address in the meantime.
    if (isUniqueViolation(err)) throw tokenInvalid();
    throw err;
  }
  ctx.log.info("account email verified", { user_id: row.userId });
  return { email: current.email, email_verified: true };
}

/** Drops the account's pending verification links and key-recovery tokens. */
function dropTokens(tx: Pick<Db, "delete">, userId: string): void {
  tx.delete(emailVerificationTokens).where(eq(emailVerificationTokens.userId, userId)).run();
  tx.delete(keyRecoveryTokens).where(eq(keyRecoveryTokens.userId, userId)).run();
}

/** Deletes the account's address and every token tied to it; holder counts stay. */
export function deleteAccountEmail(tx: Pick<Db, "delete">, userId: string): void {
  tx.delete(accountEmails).where(eq(accountEmails.userId, userId)).run();
  dropTokens(tx, userId);
}

/** DELETE /auth/email: the same answer whether or not an address was set; holder counts stay. */
export function removeEmail(ctx: Ctx, caller: Caller) {
  ctx.db.transaction((tx) => deleteAccountEmail(tx, caller.id));
  return { status: "removed" as const, message: REMOVED_MESSAGE };
}
