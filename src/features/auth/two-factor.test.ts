import { describe, expect, test } from "bun:test";
import { generateSync } from "otplib";
import { MINUTE } from "../../core/clock";
import { unseal } from "../../core/secrets";
import { setup, type TestUser } from "../../../test/harness";

// One instance for the file: each test turns two-factor on for accounts of its own (its limits
// are per account), and moves the clock by minutes at most.
const h = setup();

/** The TOTP code of `secret` at the TestClock's time (plus `offsetS` seconds). */
const totp = (secret: string, offsetS = 0) => generateSync({ secret, epoch: Math.floor(h.clock.now() / 1000) + offsetS });
const post = (u: TestUser | null, path: string, body?: unknown) => h.req("POST", `/api/v1/auth/2fa${path}`, { token: u?.token ?? null, body });
const status = async (u: TestUser) => (await h.req("GET", "/api/v1/auth/2fa/status", { token: u.token })).body;
const mint = (u: TestUser, totp_code?: string) => h.req("POST", "/api/v1/auth/token", { body: { api_key: u.apiKey, ...(totp_code === undefined ? {} : { totp_code }) } });

/** Turns two-factor on; returns the secret and the recovery codes. */
async function enable(u: TestUser): Promise<{ secret: string; codes: string[] }> {
  const en = (await post(u, "/enroll")).body;
  const r = await post(u, "/confirm", { secret: en.secret, ticket: en.ticket, code: totp(en.secret) });
  expect(r.status).toBe(200);
  // The enabling code's window is spent: move to the next one.
  h.clock.advance(30_000);
  return { secret: en.secret, codes: r.body.recovery_codes };
}

describe("GET /api/v1/auth/2fa/status", () => {
  test("401 anonymous; off with no codes for a new account", async () => {
    expect((await h.req("GET", "/api/v1/auth/2fa/status")).status).toBe(401);
    expect(await status(await h.user())).toEqual({ enabled: false, recovery_codes_remaining: 0 });
  });
});

describe("POST /api/v1/auth/2fa/enroll", () => {
  test("a base32 secret, its otpauth URI and a ticket under 128 chars; nothing persisted", async () => {
    const u = await h.user();
    const r = await post(u, "/enroll");
    expect(r.status).toBe(200);
    expect(r.body.secret).toMatch(/^[A-Z2-7]{16,64}$/);
    expect(r.body.otpauth_uri).toBe(`otpauth://totp/Colony:${u.username}?secret=${r.body.secret}&issuer=Colony`);
    expect(r.body.ticket.length).toBeLessThanOrEqual(128);
    expect(await status(u)).toEqual({ enabled: false, recovery_codes_remaining: 0 });
    expect(h.ctx.db.$client.query("select count(*) n from two_factor where user_id = ?").get(u.id)).toEqual({ n: 0 });
    expect((await post(null, "/enroll")).status).toBe(401);
  });

  test("409 AUTH_2FA_ALREADY_ENABLED once on", async () => {
    const u = await h.user();
    await enable(u);
    const r = await post(u, "/enroll");
    expect(r.status).toBe(409);
    expect(r.body.detail.code).toBe("AUTH_2FA_ALREADY_ENABLED");
  });
});

describe("POST /api/v1/auth/2fa/confirm", () => {
  test("turns it on: ten recovery codes once, stored hashed; the secret is encrypted at rest", async () => {
    const u = await h.user();
    const en = (await post(u, "/enroll")).body;
    const r = await post(u, "/confirm", { secret: en.secret, ticket: en.ticket, code: totp(en.secret) });
    expect(r.status).toBe(200);
    expect(r.body.enabled).toBe(true);
    expect(r.body.recovery_codes).toHaveLength(10);
    expect(new Set(r.body.recovery_codes).size).toBe(10);
    for (const c of r.body.recovery_codes) expect(c).toMatch(/^[0-9a-z]{5}-[0-9a-z]{5}$/);
    expect(r.body.recovery_codes_remaining).toBe(10);
    expect(await status(u)).toEqual({ enabled: true, recovery_codes_remaining: 10 });
    const dump = JSON.stringify(h.ctx.db.$client.query("select * from two_factor_recovery_codes").all()) + JSON.stringify(h.ctx.db.$client.query("select * from two_factor").all());
    for (const c of r.body.recovery_codes) expect(dump).not.toContain(c);
    expect(dump).not.toContain(en.secret);
    const sealed = (h.ctx.db.$client.query("select secret_sealed s from two_factor where user_id = ?").get(u.id) as { s: string }).s;
    expect(unseal(h.ctx.secrets.dataKey, sealed, `totp:${u.id}`)).toBe(en.secret);
  });

  test("a code from one step earlier or later is accepted (clock drift)", async () => {
    const u = await h.user();
    const en = (await post(u, "/enroll")).body;
    expect((await post(u, "/confirm", { secret: en.secret, ticket: en.ticket, code: totp(en.secret, -30) })).status).toBe(200);
    const v = await h.user();
    const ev = (await post(v, "/enroll")).body;
    expect((await post(v, "/confirm", { secret: ev.secret, ticket: ev.ticket, code: totp(ev.secret, 90) })).status).toBe(400);
  });

  test("400 AUTH_2FA_INVALID: wrong code, forged ticket, another account's ticket, another secret, expired ticket; nothing stored", async () => {
    const u = await h.user();
    const other = await h.user();
    const en = (await post(u, "/enroll")).body;
    const theirs = (await post(other, "/enroll")).body;
    const code = totp(en.secret);
    const wrong = code === "000000" ? "111111" : "000000";
    const cases = [
      { secret: en.secret, ticket: en.ticket, code: wrong },
      { secret: en.secret, ticket: en.ticket.slice(0, -2) + "xx", code },
      { secret: en.secret, ticket: theirs.ticket, code },
      { secret: theirs.secret, ticket: en.ticket, code: totp(theirs.secret) },
      { secret: en.secret, ticket: "garbage", code },
    ];
    for (const body of cases) {
      const r = await post(u, "/confirm", body);
      expect(r.status).toBe(400);
      expect(r.body.detail.code).toBe("AUTH_2FA_INVALID");
    }
    h.clock.advance(10 * MINUTE);
    const late = await post(u, "/confirm", { secret: en.secret, ticket: en.ticket, code: totp(en.secret) });
    expect(late.status).toBe(400);
    expect(await status(u)).toEqual({ enabled: false, recovery_codes_remaining: 0 });
  });

  test("409 AUTH_2FA_ALREADY_ENABLED; 422 for a short code; 401 anonymous", async () => {
    const u = await h.user();
    await enable(u);
    const en2 = (await post(await h.user(), "/enroll")).body;
    const r = await post(u, "/confirm", { secret: en2.secret, ticket: en2.ticket, code: totp(en2.secret) });
    expect(r.status).toBe(409);
    expect(r.body.detail.code).toBe("AUTH_2FA_ALREADY_ENABLED");
    expect((await post(await h.user(), "/confirm", { secret: en2.secret, ticket: en2.ticket, code: "123" })).status).toBe(422);
    expect((await post(null, "/confirm", { secret: en2.secret, ticket: en2.ticket, code: "123456" })).status).toBe(401);
  });
});

describe("POST /api/v1/auth/token with two-factor on", () => {
  test("401 AUTH_2FA_REQUIRED without a code, 400 AUTH_2FA_INVALID with a wrong one, 200 with a current one", async () => {
    const u = await h.user();
    const { secret } = await enable(u);
    const none = await mint(u);
    expect(none.status).toBe(401);
    expect(none.body.detail.code).toBe("AUTH_2FA_REQUIRED");
    const code = totp(secret);
    const bad = await mint(u, code === "000000" ? "111111" : "000000");
    expect(bad.status).toBe(400);
    expect(bad.body.detail.code).toBe("AUTH_2FA_INVALID");
    expect((await mint(u, code)).status).toBe(200);
  });

  test("a TOTP code is not accepted twice, even within its window; the next window's code is", async () => {
    const u = await h.user();
    const { secret } = await enable(u);
    const code = totp(secret);
    expect((await mint(u, code)).status).toBe(200);
    expect((await mint(u, code)).status).toBe(400);
    h.clock.advance(10_000);
    expect((await mint(u, code)).status).toBe(400);
    h.clock.advance(30_000);
    expect((await mint(u, totp(secret))).status).toBe(200);
  });

  test("a recovery code works once (case and hyphen insensitive)", async () => {
    const u = await h.user();
    const { codes } = await enable(u);
    expect((await mint(u, codes[0].toUpperCase().replace("-", ""))).status).toBe(200);
    expect((await mint(u, codes[0])).status).toBe(400);
    expect(await status(u)).toEqual({ enabled: true, recovery_codes_remaining: 9 });
  });

  test("429 RATE_LIMIT_TWO_FACTOR_VERIFY after 10 wrong codes in 15 minutes", async () => {
    const u = await h.user();
    const { secret } = await enable(u);
    for (let i = 0; i < 10; i++) expect((await mint(u, "abcdefgh")).status).toBe(400);
    const r = await mint(u, totp(secret));
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_TWO_FACTOR_VERIFY");
    h.clock.advance(15 * MINUTE);
    expect((await mint(u, totp(secret))).status).toBe(200);
  });
});

describe("POST /api/v1/auth/2fa/disable", () => {
  test("with a TOTP code: off, and the security_2fa_disabled event names the account as recipient", async () => {
    const u = await h.user();
    const { secret } = await enable(u);
    const r = await post(u, "/disable", { code: totp(secret) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ enabled: false, recovery_codes_remaining: 0 });
    expect(await status(u)).toEqual({ enabled: false, recovery_codes_remaining: 0 });
    const ev = h.ctx.db.$client.query("select actor_id, payload from events where type = 'security_2fa_disabled' and (actor_id = ? or subject_id = ?)").all(u.id, u.id) as { actor_id: string; payload: string }[];
    expect(ev).toHaveLength(1);
    expect(ev[0].actor_id).toBe(u.id);
    expect(JSON.parse(ev[0].payload)).toEqual({ recipient_ids: [u.id], actor: u.username, actor_id: u.id, by: "you" });
    expect(h.ctx.db.$client.query("select count(*) n from two_factor_recovery_codes where user_id = ?").get(u.id)).toEqual({ n: 0 });
    expect((await mint(u)).status).toBe(200);
  });

  test("with a recovery code", async () => {
    const u = await h.user();
    const { codes } = await enable(u);
    expect((await post(u, "/disable", { code: codes[3] })).status).toBe(200);
  });

  test("400 AUTH_2FA_INVALID for a wrong or replayed code; 409 AUTH_2FA_NOT_ENABLED; 401 anonymous; 422 short", async () => {
    const u = await h.user();
    const off = await post(u, "/disable", { code: "123456" });
    expect(off.status).toBe(409);
    expect(off.body.detail.code).toBe("AUTH_2FA_NOT_ENABLED");
    const { secret } = await enable(u);
    const code = totp(secret);
    expect((await mint(u, code)).status).toBe(200);
    const replay = await post(u, "/disable", { code });
    expect(replay.status).toBe(400);
    expect(replay.body.detail.code).toBe("AUTH_2FA_INVALID");
    expect((await post(u, "/disable", { code: "zzzzz-zzzzz" })).status).toBe(400);
    expect(await status(u)).toMatchObject({ enabled: true });
    expect((await post(null, "/disable", { code: "123456" })).status).toBe(401);
    expect((await post(u, "/disable", { code: "12" })).status).toBe(422);
  });
});

describe("POST /api/v1/auth/2fa/recovery-codes/regenerate", () => {
  test("a fresh set once; the old codes stop working", async () => {
    const u = await h.user();
    const { secret, codes } = await enable(u);
    const r = await post(u, "/recovery-codes/regenerate", { code: totp(secret) });
    expect(r.status).toBe(200);
    expect(r.body.recovery_codes).toHaveLength(10);
    expect(r.body.recovery_codes_remaining).toBe(10);
    expect(r.body.recovery_codes).not.toContain(codes[0]);
    expect((await mint(u, codes[0])).status).toBe(400);
    expect((await mint(u, r.body.recovery_codes[0])).status).toBe(200);
  });

  test("a recovery code may authorise it (and is consumed before the new set is made)", async () => {
    const u = await h.user();
    const { codes } = await enable(u);
    const r = await post(u, "/recovery-codes/regenerate", { code: codes[1] });
    expect(r.status).toBe(200);
    expect(await status(u)).toEqual({ enabled: true, recovery_codes_remaining: 10 });
  });

  test("409 AUTH_2FA_NOT_ENABLED; 400 AUTH_2FA_INVALID; 401 anonymous", async () => {
    const u = await h.user();
    expect((await post(u, "/recovery-codes/regenerate", { code: "123456" })).body.detail.code).toBe("AUTH_2FA_NOT_ENABLED");
    await enable(u);
    const bad = await post(u, "/recovery-codes/regenerate", { code: "zzzzz-zzzzz" });
    expect(bad.status).toBe(400);
    expect(bad.body.detail.code).toBe("AUTH_2FA_INVALID");
    expect((await post(null, "/recovery-codes/regenerate", { code: "123456" })).status).toBe(401);
  });
});
