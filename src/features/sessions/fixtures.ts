// Test fixtures of web accounts: a human with a password (made directly, not through the
// sign-up limit), two-factor turned on through its service, and the links the outbox delivered.
import { generateSync } from "otplib";
import type { Harness, TestUser } from "../../../test/harness";
import { ApiError, FieldError } from "../../core/errors";
import { callerOf } from "../auth/caller";
import * as twoFactor from "../auth/two-factor";
import * as usersService from "../users/service";
import { hashPassword, storePassword } from "./passwords";
import type { Client } from "./sign-in";

export const CLIENT: Client = { ip: "198.51.100.7", userAgent: "Test Browser/1.0" };
export const PASSWORD = "a long enough secret";

/** A human account with `password`, as well as the harness's API key and token. */
export async function human(h: Harness, opts: { username?: string; admin?: boolean; password?: string } = {}): Promise<TestUser> {
  const u = await h.user({ human: true, username: opts.username, admin: opts.admin });
  const hash = await hashPassword(opts.password ?? PASSWORD);
  storePassword(h.ctx, h.ctx.db, u.id, hash);
  return u;
}

/** The TOTP code of `secret` at the TestClock's time. */
export const totp = (h: Harness, secret: string) => generateSync({ secret, epoch: Math.floor(h.clock.now() / 1000) });

/** Turns two-factor on through its service; the enabling code's time step is then behind the clock. */
export function enableTwoFactor(h: Harness, u: TestUser): { secret: string; codes: string[] } {
  const caller = callerOf(usersService.findById(h.ctx, u.id)!);
  const en = twoFactor.enroll(h.ctx, caller);
  const out = twoFactor.confirm(h.ctx, caller, { secret: en.secret, ticket: en.ticket, code: totp(h, en.secret) });
  h.clock.advance(30_000);
  return { secret: en.secret, codes: out.recovery_codes };
}

/** Delivers queued mail and returns the path (`/reset/…`, `/login/link/…`) of the last link mailed to `to`, or null. */
export async function mailedLink(h: Harness, to: string): Promise<string | null> {
  await h.ctx.events.drain();
  const m = h.mail.to(to).at(-1);
  const path = m && /http:\/\/localhost(\/(?:reset|login\/link)\/[0-9A-Za-z]{43})/.exec(m.text);
  return path ? path[1] : null;
}

/** What a call refuses with (thrown or rejected): an ApiError's status and code, or 422 and the field of a FieldError. */
export async function refusal(fn: () => unknown): Promise<{ status: number; code: string }> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, code: err.code };
    if (err instanceof FieldError) return { status: 422, code: err.loc.join(".") };
    throw err;
  }
  throw new Error("expected a refusal");
}
