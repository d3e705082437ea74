// TOTP two-factor authentication (spec Part 1 §3 "Two-factor" rows, §4.1; otplib v13, RFC 6238).
// Enrolment persists nothing: it hands out a secret and a short-lived ticket (an HMAC binding
// secret, user and expiry) that confirm checks before storing the secret, sealed with the data key.
// A TOTP code is accepted at most once (the last accepted time step is kept); recovery codes are
// stored as keyed hashes and consumed on use. Once on, /auth/token needs a code too.
import { createHmac, randomBytes } from "node:crypto";
import { and, count, eq, lt } from "drizzle-orm";
import { generateSecret, generateURI, verifySync } from "otplib";
import { MINUTE } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { safeEqual } from "../../core/ids";
import { keyedHash, seal, unseal } from "../../core/secrets";
import { changes, isUniqueViolation, type Db } from "../../db/client";
import { prepared } from "../../db/statements";
import { twoFactor, twoFactorRecoveryCodes } from "./security-tables";
import type { Caller } from "./caller";
import { settingsOf } from "../instance/service";

const TICKET_TTL_MS = 10 * MINUTE;
const RECOVERY_CODE_COUNT = 10;
const PERIOD_S = 30;
/** One time step either side of now, for clock drift between the agent and the server. */
const TOLERANCE_S = PERIOD_S;

const invalid = (message = "Invalid two-factor code") => new ApiError(400, "AUTH_2FA_INVALID", message);
const notEnabled = () => new ApiError(409, "AUTH_2FA_NOT_ENABLED", "Two-factor authentication is not enabled");
const alreadyEnabled = () => new ApiError(409, "AUTH_2FA_ALREADY_ENABLED", "Two-factor authentication is already enabled: disable it first");

const secretAad = (userId: string) => `totp:${userId}`;

function row(ctx: Ctx, userId: string) {
  return ctx.db.select().from(twoFactor).where(eq(twoFactor.userId, userId)).get() ?? null;
}

/** Whether two-factor is on: asked by every token exchange, so through a statement prepared once. */
export const isEnabled = (ctx: Ctx, userId: string) =>
  !!prepared(ctx.db, "twoFactor.enabled", () => ctx.db.$client.prepare("select 1 from two_factor where user_id = ?")).get(userId);

function remaining(ctx: Ctx, userId: string): number {
  return ctx.db.select({ n: count() }).from(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId)).get()?.n ?? 0;
}

export function status(ctx: Ctx, userId: string) {
  const enabled = isEnabled(ctx, userId);
  return { enabled, recovery_codes_remaining: enabled ? remaining(ctx, userId) : 0 };
}

// ---- enrolment tickets: "<expiry seconds, base36>.<HMAC-SHA256, base64url>" (under 128 chars)

function ticketMac(ctx: Ctx, userId: string, secret: string, exp: string): string {
  return createHmac("sha256", ctx.secrets.dataKey).update(`2fa-enroll\0${userId}\0${secret}\0${exp}`).digest("base64url");
}

function makeTicket(ctx: Ctx, userId: string, secret: string): string {
  const exp = Math.floor((ctx.clock.now() + TICKET_TTL_MS) / 1000).toString(36);
  return `${exp}.${ticketMac(ctx, userId, secret, exp)}`;
}

function ticketValid(ctx: Ctx, userId: string, secret: string, ticket: string): boolean {
  const [exp, mac] = ticket.split(".");
  if (!exp || !mac || !/^[0-9a-z]{1,12}$/.test(exp)) return false;
  if (!safeEqual(ticketMac(ctx, userId, secret, exp), mac)) return false;
  return parseInt(exp, 36) * 1000 > ctx.clock.now();
}

// ---- codes

/** The time step of a valid TOTP code newer than `after`, or null. */
function totpStep(ctx: Ctx, secret: string, code: string, after: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  try {
    const r = verifySync({ secret, token: code, epoch: Math.floor(ctx.clock.now() / 1000), period: PERIOD_S, epochTolerance: TOLERANCE_S, afterTimeStep: after });
    return r.valid && "timeStep" in r ? r.timeStep : null;
  } catch {
    return null; // a malformed secret
  }
}

/** Crockford's base32 alphabet (no i, l, o, u): 5 uniform bits per character. */
const CODE_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** Recovery codes: "xxxxx-xxxxx", 50 random bits each. */
function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const s = [...randomBytes(10)].map((b) => CODE_ALPHABET[b & 31]).join("");
    return `${s.slice(0, 5)}-${s.slice(5)}`;
  });
}

const normaliseRecovery = (code: string) => code.trim().toLowerCase().replace(/[\s-]/g, "");
const recoveryHash = (ctx: Ctx, code: string) => keyedHash(ctx.secrets.dataKey, "2fa-recovery", normaliseRecovery(code));

function storeRecoveryCodes(ctx: Ctx, tx: Pick<Db, "insert" | "delete">, userId: string): string[] {
  const codes = newRecoveryCodes();
  const now = ctx.clock.now();
  tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId)).run();
  for (const code of codes) tx.insert(twoFactorRecoveryCodes).values({ userId, codeHash: recoveryHash(ctx, code), createdAt: now }).onConflictDoNothing().run();
  return codes;
}

/**
 * Checks (and consumes) a TOTP or recovery code of an account with two-factor on. Every attempt
 * counts against a per-account limit (429 once exhausted); a successful one is given back.
 */
export function checkCode(ctx: Ctx, userId: string, code: string): "totp" | "recovery" | null {
  const tf = row(ctx, userId);
  if (!tf) return null;
  const charges = ctx.limits.consume(["two_factor_verify"], { userId });
  const secret = unseal(ctx.secrets.dataKey, tf.secretSealed, secretAad(userId));
  const step = totpStep(ctx, secret, code.trim(), tf.lastTimeStep);
  let used: "totp" | "recovery" | null = null;
  if (step !== null) {
    // Conditional on the stored step, so two concurrent uses of one code cannot both pass.
    const res = ctx.db.update(twoFactor).set({ lastTimeStep: step }).where(and(eq(twoFactor.userId, userId), lt(twoFactor.lastTimeStep, step))).run();
    if (changes(res) === 1) used = "totp";
  } else if (normaliseRecovery(code).length >= 8) {
    const res = ctx.db.delete(twoFactorRecoveryCodes).where(and(eq(twoFactorRecoveryCodes.userId, userId), eq(twoFactorRecoveryCodes.codeHash, recoveryHash(ctx, code)))).run();
    if (changes(res) === 1) used = "recovery";
  }
  if (used) ctx.limits.refund(charges);
  return used;
}

// ---- operations

export function enroll(ctx: Ctx, caller: Caller) {
  if (isEnabled(ctx, caller.id)) throw alreadyEnabled();
  const secret = generateSecret();
  // The name an authenticator app shows beside the code: this instance's.
  const issuer = settingsOf(ctx).name;
  return {
    secret,
    otpauth_uri: generateURI({ issuer, label: caller.username, secret, period: PERIOD_S }),
    ticket: makeTicket(ctx, caller.id, secret),
  };
}

export function confirm(ctx: Ctx, caller: Caller, input: { secret: string; ticket: string; code: string }) {
  if (isEnabled(ctx, caller.id)) throw alreadyEnabled();
  const secret = input.secret.trim().toUpperCase();
  if (!ticketValid(ctx, caller.id, secret, input.ticket.trim())) throw invalid("Invalid or expired enrolment ticket: call /auth/2fa/enroll again");
  const step = totpStep(ctx, secret, input.code.trim(), 0);
  if (step === null) throw invalid();
  const now = ctx.clock.now();
  let codes: string[] = [];
  try {
    ctx.db.transaction((tx) => {
      tx.insert(twoFactor).values({ userId: caller.id, secretSealed: seal(ctx.secrets.dataKey, secret, secretAad(caller.id)), lastTimeStep: step, enabledAt: now }).run();
      codes = storeRecoveryCodes(ctx, tx, caller.id);
      ctx.events.emit(tx, { type: "security_2fa_enabled", actorId: caller.id, subject: { type: "user", id: caller.id }, payload: { recipient_ids: [caller.id], actor: caller.username, actor_id: caller.id, by: "you" } });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw alreadyEnabled();
    throw err;
  }
  ctx.log.info("two-factor enabled", { user_id: caller.id });
  return { enabled: true as const, recovery_codes: codes, recovery_codes_remaining: codes.length };
}

/** The guard of disable and regenerate: two-factor is on and `code` is a valid (now used) code. */
function requireCode(ctx: Ctx, userId: string, code: string): void {
  if (!isEnabled(ctx, userId)) throw notEnabled();
  if (!checkCode(ctx, userId, code)) throw invalid();
}

export function disable(ctx: Ctx, caller: Caller, code: string) {
  requireCode(ctx, caller.id, code);
  ctx.db.transaction((tx) => {
    purgeTwoFactor(tx, caller.id);
    ctx.events.emit(tx, {
      type: "security_2fa_disabled",
      actorId: caller.id,
      subject: { type: "user", id: caller.id },
      payload: { recipient_ids: [caller.id], actor: caller.username, actor_id: caller.id, by: "you" },
    });
  });
  ctx.log.info("two-factor disabled", { user_id: caller.id });
  return { enabled: false, recovery_codes_remaining: 0 };
}

export function regenerate(ctx: Ctx, caller: Caller, code: string) {
  requireCode(ctx, caller.id, code);
  const codes = ctx.db.transaction((tx) => storeRecoveryCodes(ctx, tx, caller.id));
  return { recovery_codes: codes, recovery_codes_remaining: codes.length };
}

/** Removes everything two-factor holds about an account (disable, self-deleted accounts). */
export function purgeTwoFactor(tx: Pick<Db, "delete">, userId: string): void {
  tx.delete(twoFactor).where(eq(twoFactor.userId, userId)).run();
  tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId)).run();
}
