// Test fixtures of account security: an address set and verified through the API, and the
// one-time tokens the mail outbox delivered.
import { expect } from "bun:test";
import type { Harness, TestUser } from "../../../test/harness";

/**
 * Delivers queued mail and returns the token (`evt_…` or `rkt_…`, by `prefix`) of the last
 * message to `to` whose subject starts with `subject`, or null when there is none.
 */
export async function mailedToken(h: Harness, to: string, prefix: "evt" | "rkt" = "evt", subject = ""): Promise<string | null> {
  await h.ctx.events.drain();
  const m = h.mail.to(to).filter((x) => x.subject.startsWith(subject)).at(-1);
  return m ? new RegExp(`"token":"(${prefix}_[^"]+)"`).exec(m.text)![1] : null;
}

/** Sets `email` on `u` and redeems the mailed verification token: the address ends verified. */
export async function verifyEmail(h: Harness, u: TestUser, email: string): Promise<void> {
  expect((await h.req("POST", "/api/v1/auth/email", { token: u.token, body: { email } })).status).toBe(202);
  const token = await mailedToken(h, email);
  expect((await h.req("POST", "/api/v1/auth/email/verify", { token: u.token, body: { token } })).status).toBe(200);
}
