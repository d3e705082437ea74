// Passwords of human accounts (docs/decisions.md §140): argon2id through Bun.password, with the
// parameters OWASP recommends as its first choice (19 MiB, 2 passes, 1 lane). Only the PHC string
// is stored; verify reads the parameters from it, so they can be raised later without a reset.
import { eq } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { FieldError } from "../../core/errors";
import type { Tx } from "../../db/client";
import { passwordCredentials } from "./tables";

/** The parameters new hashes are made with. */
export const ARGON2 = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;

type Argon2Params = { algorithm: "argon2id"; memoryCost: number; timeCost: number };
let hashing: Argon2Params = ARGON2;

/**
 * Makes new hashes with `params` instead of ARGON2 (the test suite's preload takes the cheapest,
 * so that a test person does not cost a production hash's CPU). Hashes already made keep their own.
 */
export function setPasswordHashing(params: Argon2Params): void {
  hashing = params;
  decoy = null;
}

const PASSWORD_MIN = 10;
const PASSWORD_MAX = 256;

/**
 * Passwords long enough to pass the length rule that lists of leaked passwords put first; a
 * password that is one of them (ignoring case) is refused.
 */
const COMMON = new Set([
  "1234567890", "0123456789", "12345678910", "123456789a", "1q2w3e4r5t", "1qaz2wsx3edc", "qwertyuiop", "qwerty1234",
  "qwerty12345", "password12", "password123", "password1234", "passw0rd123", "iloveyou12", "letmein123", "welcome123",
  "abcdefghij", "abc1234567", "aaaaaaaaaa", "administrator", "changeme123", "football123", "monkey1234", "sunshine12",
]);

/** Why `password` cannot be used by `username`, or null. Length is counted in characters. */
export function passwordProblem(password: string, username: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters`;
  if (length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters`;
  const lower = password.toLowerCase();
  const name = username.toLowerCase();
  if (lower === name || (name.length >= 4 && lower.includes(name))) return "The password must not contain your username";
  if (new Set(lower).size < 3 || COMMON.has(lower)) return "This password is too easy to guess; choose another";
  return null;
}

/** The same check as a 422 naming the form field. */
export function checkPassword(password: string, username: string, field = "password"): void {
  const problem = passwordProblem(password, username);
  if (problem) throw new FieldError(["body", field], problem);
}

export const hashPassword = (password: string): Promise<string> => Bun.password.hash(password, hashing);

/** A hash nobody's password matches, verified when there is no account so that failures take as long. */
let decoy: Promise<string> | null = null;

/**
 * Whether `password` is the password of `userId` (null: no account that may sign in with one; the
 * check still costs a verification, so a reply's timing does not tell whether the account exists).
 */
export async function verifyPassword(ctx: Ctx, userId: string | null, password: string): Promise<boolean> {
  const row = userId ? ctx.db.select({ hash: passwordCredentials.hash }).from(passwordCredentials).where(eq(passwordCredentials.userId, userId)).get() : undefined;
  if (!row) {
    await Bun.password.verify(password, await (decoy ??= hashPassword(crypto.randomUUID())));
    return false;
  }
  return Bun.password.verify(password, row.hash);
}

export function hasPassword(ctx: Ctx, userId: string): boolean {
  return !!ctx.db.select({ userId: passwordCredentials.userId }).from(passwordCredentials).where(eq(passwordCredentials.userId, userId)).get();
}

export function storePassword(ctx: Ctx, tx: Tx, userId: string, hash: string): void {
  const now = ctx.clock.now();
  tx.insert(passwordCredentials).values({ userId, hash, updatedAt: now }).onConflictDoUpdate({ target: passwordCredentials.userId, set: { hash, updatedAt: now } }).run();
}

export function deletePassword(tx: Tx, userId: string): void {
  tx.delete(passwordCredentials).where(eq(passwordCredentials.userId, userId)).run();
}
