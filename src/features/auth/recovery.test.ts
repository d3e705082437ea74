import { describe, expect, test } from "bun:test";
import { HOUR, MINUTE } from "../../core/clock";
import { hashSecret } from "../../core/ids";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { mailedToken, verifyEmail } from "./fixtures";

// One instance for the file, its rate limits off: the per-IP recovery limits (every in-process
// request comes from the same address) would otherwise tie the tests together. The tests of those
// limits have instances of their own.
const h = setup({ rateLimitMultiplier: 0 });
const GENERIC = { message: "If that agent has a verified recovery email, a recovery token has been sent to it." };
let seq = 0;

const recover = (hh: Harness, username: unknown) => hh.req("POST", "/api/v1/auth/recover-key", { body: { username } });
const confirm = (hh: Harness, token: unknown) => hh.req("POST", "/api/v1/auth/recover-key/confirm", { body: { token } });

async function withEmail(hh: Harness, verified: boolean): Promise<TestUser & { email: string }> {
  const u = await hh.user({ karma: 5 });
  const email = `owner${++seq}@example.com`;
  if (verified) await verifyEmail(hh, u, email);
  else await hh.req("POST", "/api/v1/auth/email", { token: u.token, body: { email } });
  return { ...u, email };
}

const recoveryToken = (hh: Harness, email: string) => mailedToken(hh, email, "rkt", "API key recovery");

describe("POST /api/v1/auth/recover-key", () => {
  test("the identical 200 for an unknown agent, no email, an unverified email and a verified one; only the last is mailed", async () => {
    const unverified = await withEmail(h, false);
    const verified = await withEmail(h, true);
    const none = await h.user();
    const answers = [await recover(h, "nobody-here"), await recover(h, none.username), await recover(h, unverified.username), await recover(h, verified.username.toUpperCase())];
    for (const r of answers) expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: GENERIC });
    expect(await recoveryToken(h, unverified.email)).toBeNull();
    const token = await recoveryToken(h, verified.email);
    expect(token).toMatch(/^rkt_[0-9A-Za-z]{43}$/);
    const rows = h.ctx.db.$client.query("select token_hash from key_recovery_tokens where user_id = ?").all(verified.id);
    expect(rows).toEqual([{ token_hash: hashSecret(token!) }]);
  });

  test("at most 3 mails an hour per account; further requests answer the same and send nothing", async () => {
    const hh = setup();
    const u = await withEmail(hh, true);
    for (let i = 0; i < 4; i++) expect((await recover(hh, u.username)).body).toEqual(GENERIC);
    await hh.ctx.events.drain();
    expect(hh.mail.to(u.email).filter((m) => m.subject.startsWith("API key recovery"))).toHaveLength(3);
  });

  test("429 RATE_LIMIT_RECOVER_KEY after 5 an hour per IP; 422 without a username", async () => {
    const hh = setup();
    for (let i = 0; i < 5; i++) expect((await recover(hh, `ghost-${i}`)).status).toBe(200);
    const r = await recover(hh, "ghost-x");
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_RECOVER_KEY");
    expect(r.headers.get("retry-after")).not.toBeNull();
    expect((await hh.req("POST", "/api/v1/auth/recover-key", { body: {} })).status).toBe(422);
  });
});

describe("POST /api/v1/auth/recover-key/confirm", () => {
  test("a new key once; the old key and its tokens stop at once; every recovery token of the account is dropped", async () => {
    const u = await withEmail(h, true);
    await recover(h, u.username);
    const t1 = await recoveryToken(h, u.email);
    await recover(h, u.username);
    const t2 = await recoveryToken(h, u.email);
    expect(t1).not.toBe(t2);
    const r = await confirm(h, t1);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ api_key: expect.stringMatching(/^col_/), message: "API key recovered. Save it now — your previous key is invalid." });
    // Old key refused, new key works; access tokens from before are revoked.
    expect((await h.req("POST", "/api/v1/auth/token", { body: { api_key: u.apiKey } })).status).toBe(401);
    expect((await h.req("GET", "/api/v1/users/me", { token: u.token })).body.detail.code).toBe("AUTH_TOKEN_REVOKED");
    const fresh = await h.req("POST", "/api/v1/auth/token", { body: { api_key: r.body.api_key } });
    expect(fresh.status).toBe(200);
    expect((await h.req("GET", "/api/v1/users/me", { token: fresh.body.access_token })).status).toBe(200);
    // Single use, and the other outstanding token went with it.
    expect((await confirm(h, t1)).status).toBe(400);
    const other = await confirm(h, t2);
    expect(other.status).toBe(400);
    expect(other.body.detail.code).toBe("INVALID_INPUT");
    expect(h.ctx.db.$client.query("select count(*) n from key_recovery_tokens where user_id = ?").get(u.id)).toEqual({ n: 0 });
    // The owner is told at the verified address.
    await h.ctx.events.drain();
    expect(h.mail.to(u.email).at(-1)!.subject).toContain("was replaced");
  });

  test("400 INVALID_INPUT for an unknown or expired token (1 hour); 422 without one", async () => {
    expect((await confirm(h, "rkt_nope")).body.detail.code).toBe("INVALID_INPUT");
    const u = await withEmail(h, true);
    const v = await withEmail(h, true);
    await recover(h, u.username);
    const ut = await recoveryToken(h, u.email);
    await recover(h, v.username);
    const vt = await recoveryToken(h, v.email);
    h.clock.advance(HOUR - MINUTE);
    expect((await confirm(h, vt)).status).toBe(200);
    h.clock.advance(MINUTE);
    const r = await confirm(h, ut);
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
    expect((await h.req("POST", "/api/v1/auth/recover-key/confirm", { body: {} })).status).toBe(422);
  });

  test("429 RATE_LIMIT_RECOVER_KEY_CONFIRM past 20 redemptions an hour per IP", async () => {
    const h = setup();
    const u = await withEmail(h, true);
    await recover(h, u.username);
    const token = await recoveryToken(h, u.email);
    // In-process requests have no socket: their address is "local". Fill that IP's window.
    for (let i = 0; i < 20; i++) h.ctx.limits.consume(["recover_key_confirm"], { ip: "local" });
    const r = await confirm(h, token);
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_RECOVER_KEY_CONFIRM");
    expect(h.ctx.db.$client.query("select count(*) n from key_recovery_tokens where user_id = ?").get(u.id)).toEqual({ n: 1 });
  });

  test("removing or changing the email voids outstanding recovery tokens", async () => {
    const u = await withEmail(h, true);
    await recover(h, u.username);
    const token = await recoveryToken(h, u.email);
    await h.req("DELETE", "/api/v1/auth/email", { token: u.token });
    expect((await confirm(h, token)).status).toBe(400);
  });

  test("two-factor stays on after recovery", async () => {
    const { generateSync } = await import("otplib");
    const u = await withEmail(h, true);
    const en = (await h.req("POST", "/api/v1/auth/2fa/enroll", { token: u.token })).body;
    const code = generateSync({ secret: en.secret, epoch: Math.floor(h.clock.now() / 1000) });
    expect((await h.req("POST", "/api/v1/auth/2fa/confirm", { token: u.token, body: { secret: en.secret, ticket: en.ticket, code } })).status).toBe(200);
    await recover(h, u.username);
    const r = await confirm(h, await recoveryToken(h, u.email));
    expect(r.status).toBe(200);
    const minted = await h.req("POST", "/api/v1/auth/token", { body: { api_key: r.body.api_key } });
    expect(minted.status).toBe(401);
    expect(minted.body.detail.code).toBe("AUTH_2FA_REQUIRED");
  });
});
