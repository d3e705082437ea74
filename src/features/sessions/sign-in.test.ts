// The sign-in rules: password (by username or verified address), the second factor against a
// pending ticket, the limits on failed attempts, and who can never sign in with a password.
import { beforeEach, describe, expect, test } from "bun:test";
import { MINUTE } from "../../core/clock";
import { limitRule } from "../../core/limits";
import { setup } from "../../../test/harness";
import { verifyEmail } from "../auth/fixtures";
import { CLIENT, PASSWORD, enableTwoFactor, human, refusal, totp } from "./fixtures";
import { resolveSession } from "./service";
import { signInSecondFactor, signInWithPassword, type Client, type SignIn } from "./sign-in";

// One instance for the file: each test signs its own accounts in, from an address of its own
// (the limits on failed attempts are per account and per address).
const h = setup();
let seq = 0;
let client: Client;
beforeEach(() => {
  client = { ...CLIENT, ip: `198.51.100.${++seq}` };
});

const signIn = (login: string, password = PASSWORD, from = client) => signInWithPassword(h.ctx, { login, password }, from);
const FAILED = { status: 401, code: "SIGN_IN_FAILED" };
/** The sessions of the given accounts. */
const sessionCount = (...userIds: string[]) =>
  (h.ctx.db.$client.query(`select count(*) n from web_sessions where user_id in (${userIds.map(() => "?").join(", ")})`).get(...userIds) as { n: number }).n;

function signedIn(r: SignIn) {
  if (r.kind !== "signed_in") throw new Error(`expected a session, got ${r.kind}`);
  return r;
}

describe("the password step", () => {
  test("the right password signs in: a session whose cookie token is not stored, with the address and browser", async () => {
    const u = await human(h);
    const r = signedIn(await signIn(u.username));
    expect(r.user.id).toBe(u.id);
    expect(r.token).toMatch(/^[0-9A-Za-z]{43}$/);
    const rows = h.ctx.db.$client.query("select * from web_sessions where user_id = ?").all(u.id) as Record<string, unknown>[];
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(r.token);
    expect(rows[0]).toMatchObject({ user_id: u.id, ip: client.ip, user_agent: client.userAgent });
    expect(resolveSession(h.ctx, r.token, client)?.user.id).toBe(u.id);
  });

  test("usernames are matched without case or surrounding space", async () => {
    const u = await human(h);
    expect(signedIn(await signIn(`  ${u.username.toUpperCase()} `)).user.id).toBe(u.id);
  });

  test("a wrong password, an unknown name, an agent and a human without a password all fail alike, and sign nobody in", async () => {
    const u = await human(h);
    const agent = await h.user();
    const bare = await h.user({ human: true });
    expect(await refusal(() => signIn(u.username, "not the password at all"))).toEqual(FAILED);
    expect(await refusal(() => signIn("nobody-of-that-name"))).toEqual(FAILED);
    expect(await refusal(() => signIn(agent.username))).toEqual(FAILED);
    expect(await refusal(() => signIn(bare.username))).toEqual(FAILED);
    expect(await refusal(() => signIn(agent.username, agent.apiKey))).toEqual(FAILED);
    expect(sessionCount(u.id, agent.id, bare.id)).toBe(0);
  });

  test("an empty name or password is 400 and charges nothing", async () => {
    const u = await human(h);
    expect(await refusal(() => signIn("  ", PASSWORD))).toEqual({ status: 400, code: "INVALID_INPUT" });
    expect(await refusal(() => signIn(u.username, ""))).toEqual({ status: 400, code: "INVALID_INPUT" });
    expect(h.ctx.limits.status(limitRule("sign_in_account"), { userId: u.id }).current).toBe(0);
  });

  test("a verified address signs in like the username; an unverified one does not", async () => {
    const u = await human(h);
    await verifyEmail(h, u, "Person@Example.com");
    expect(signedIn(await signIn("person@example.COM")).user.id).toBe(u.id);
    const other = await human(h);
    expect((await h.req("POST", "/api/v1/auth/email", { token: other.token, body: { email: "unverified@example.com" } })).status).toBe(202);
    expect(await refusal(() => signIn("unverified@example.com"))).toEqual(FAILED);
  });

  test("an account that is no longer active cannot sign in", async () => {
    const u = await human(h);
    h.ctx.db.$client.query("update users set status = 'pending', pending_expires_at = 0 where id = ?").run(u.id);
    expect(await refusal(() => signIn(u.username))).toEqual(FAILED);
  });
});

describe("lockout", () => {
  test("ten failures in 15 minutes lock the account, even against the right password, until the window moves", async () => {
    const u = await human(h);
    for (let i = 0; i < 10; i++) expect(await refusal(() => signIn(u.username, `wrong password ${i}`))).toEqual(FAILED);
    expect(await refusal(() => signIn(u.username))).toEqual({ status: 429, code: "RATE_LIMIT_SIGN_IN_ACCOUNT" });
    // Another address does not help: the limit is the account's.
    expect(await refusal(() => signIn(u.username, PASSWORD, { ...client, ip: "203.0.113.9" }))).toEqual({ status: 429, code: "RATE_LIMIT_SIGN_IN_ACCOUNT" });
    h.clock.advance(15 * MINUTE);
    expect(signedIn(await signIn(u.username)).user.id).toBe(u.id);
  });

  test("successes do not count: after nine failures, signing in keeps working", async () => {
    const u = await human(h);
    for (let i = 0; i < 9; i++) await refusal(() => signIn(u.username, "mistyped password!"));
    for (let i = 0; i < 5; i++) expect(signedIn(await signIn(u.username)).user.id).toBe(u.id);
    expect(await refusal(() => signIn(u.username, "mistyped password!"))).toEqual(FAILED);
    expect(await refusal(() => signIn(u.username))).toEqual({ status: 429, code: "RATE_LIMIT_SIGN_IN_ACCOUNT" });
  });

  test("an unknown name locks the same way, so the limit tells nothing about who exists", async () => {
    for (let i = 0; i < 10; i++) await refusal(() => signIn("no-such-person"));
    expect(await refusal(() => signIn("no-such-person"))).toEqual({ status: 429, code: "RATE_LIMIT_SIGN_IN_ACCOUNT" });
  });

  test("fifty failures an hour from one address stop it trying any account", async () => {
    const names = await Promise.all(Array.from({ length: 6 }, () => human(h)));
    let n = 0;
    for (const u of names) for (let i = 0; i < 9 && n < 50; i++, n++) await refusal(() => signIn(u.username, "wrong password 123"));
    expect(n).toBe(50);
    const fresh = await human(h);
    expect(await refusal(() => signIn(fresh.username))).toEqual({ status: 429, code: "RATE_LIMIT_SIGN_IN_IP" });
    expect(signedIn(await signIn(fresh.username, PASSWORD, { ...client, ip: "203.0.113.10" })).user.id).toBe(fresh.id);
  });
});

describe("the second-factor step", () => {
  test("with two-factor on the password yields a pending ticket, and the code signs in", async () => {
    const u = await human(h);
    const { secret } = enableTwoFactor(h, u);
    const first = await signIn(u.username);
    if (first.kind !== "second_factor") throw new Error("expected the second-factor step");
    expect(first.ticket).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(sessionCount(u.id)).toBe(0);
    const r = signedIn(signInSecondFactor(h.ctx, { ticket: first.ticket, code: totp(h, secret) }, client));
    expect(r.user.id).toBe(u.id);
    // The ticket was single use.
    expect(await refusal(() => signInSecondFactor(h.ctx, { ticket: first.ticket, code: totp(h, secret) }, client))).toEqual({ status: 401, code: "SIGN_IN_EXPIRED" });
  });

  test("a replayed code is refused; a recovery code works once", async () => {
    const u = await human(h);
    const { secret, codes } = enableTwoFactor(h, u);
    const ticket = async () => ((await signIn(u.username)) as { ticket: string }).ticket;
    const code = totp(h, secret);
    signedIn(signInSecondFactor(h.ctx, { ticket: await ticket(), code }, client));
    expect(await refusal(async () => signInSecondFactor(h.ctx, { ticket: await ticket(), code }, client))).toEqual({ status: 401, code: "AUTH_2FA_INVALID" });
    signedIn(signInSecondFactor(h.ctx, { ticket: await ticket(), code: codes[0].toUpperCase() }, client));
    expect(await refusal(async () => signInSecondFactor(h.ctx, { ticket: await ticket(), code: codes[0] }, client))).toEqual({ status: 401, code: "AUTH_2FA_INVALID" });
  });

  test("the ticket lasts 5 minutes and 5 wrong codes", async () => {
    const u = await human(h);
    const { secret } = enableTwoFactor(h, u);
    const late = ((await signIn(u.username)) as { ticket: string }).ticket;
    h.clock.advance(5 * MINUTE);
    expect(await refusal(() => signInSecondFactor(h.ctx, { ticket: late, code: totp(h, secret) }, client))).toEqual({ status: 401, code: "SIGN_IN_EXPIRED" });
    const t = ((await signIn(u.username)) as { ticket: string }).ticket;
    for (let i = 0; i < 5; i++) expect(await refusal(() => signInSecondFactor(h.ctx, { ticket: t, code: "000000" }, client))).toEqual({ status: 401, code: "AUTH_2FA_INVALID" });
    expect(await refusal(() => signInSecondFactor(h.ctx, { ticket: t, code: totp(h, secret) }, client))).toEqual({ status: 401, code: "SIGN_IN_EXPIRED" });
  });

  test("a ticket is no password: an unknown or malformed one is refused without a session", async () => {
    const u = await human(h);
    enableTwoFactor(h, u);
    expect(await refusal(() => signInSecondFactor(h.ctx, { ticket: "x".repeat(43), code: "123456" }, client))).toEqual({ status: 401, code: "SIGN_IN_EXPIRED" });
    expect(await refusal(() => signInSecondFactor(h.ctx, { ticket: "", code: "123456" }, client))).toEqual({ status: 401, code: "SIGN_IN_EXPIRED" });
    const t = ((await signIn(u.username)) as { ticket: string }).ticket;
    expect(await refusal(() => signInSecondFactor(h.ctx, { ticket: t, code: " " }, client))).toEqual({ status: 400, code: "INVALID_INPUT" });
    expect(sessionCount(u.id)).toBe(0);
  });
});
