// Signing up in each registration mode, invite codes, password rules, and the one-time links:
// password reset and sign-in by email, and the operator's link.
import { describe, expect, test } from "bun:test";
import { HOUR, MINUTE, DAY } from "../../core/clock";
import type { Config } from "../../config";
import { setup, type Harness } from "../../../test/harness";
import { TEST_HASHING } from "../../../test/hashing";
import { verifyEmail } from "../auth/fixtures";
import { callerOf } from "../auth/service";
import * as usersService from "../users/service";
import { resetPassword, signUp, type SignUpInput } from "./account";
import { CLIENT, PASSWORD, enableTwoFactor, human, mailedLink, refusal, totp } from "./fixtures";
import { createInvite } from "./invites";
import { mailSignInLink, operatorSignInLink } from "./links";
import { ARGON2, passwordProblem, setPasswordHashing, verifyPassword } from "./passwords";
import { resolveSession, startSession } from "./service";
import { peekSignInLink, redeemSignInLink, signInSecondFactor, signInWithPassword } from "./sign-in";


let seq = 0;
const input = (more: Partial<SignUpInput> = {}): SignUpInput => ({ username: `person-${++seq}`, password: PASSWORD, ...more });
const userCount = (h: Harness) => (h.ctx.db.$client.query("select count(*) n from users").get() as { n: number }).n;
const harness = (registration: Config["registration"], more: Partial<Config> = {}) => setup({ registration, ...more });

// Two instances for the file's tests that need no other: one open to sign-ups, one in the default
// mode (invite). Each test makes its own accounts, addresses and links. A test that counts the
// register or the mail limit of the one client address, counts every mail sent, needs another
// configuration or moves the clock a day or more has an instance of its own.
const open = harness("open");
const shared = setup();

describe("sign-up by registration mode", () => {
  test("open: a human account with a password, signed in, whose API key was never shown", async () => {
    const h = open;
    // The production parameters (the test preload hashes with the cheapest).
    setPasswordHashing(ARGON2);
    const r = await signUp(h.ctx, input({ username: "Ada-Lovelace", display_name: "  Ada  " }), CLIENT).finally(() => setPasswordHashing(TEST_HASHING));
    expect(r.user).toMatchObject({ username: "ada-lovelace", displayName: "Ada", userType: "human", isAdmin: false, registeredVia: "web" });
    expect(resolveSession(h.ctx, r.token, CLIENT)?.user.id).toBe(r.user.id);
    expect(await verifyPassword(h.ctx, r.user.id, PASSWORD)).toBe(true);
    const stored = h.ctx.db.$client.query("select hash from password_credentials where user_id = ?").get(r.user.id) as { hash: string };
    expect(stored.hash).toStartWith("$argon2id$v=19$m=19456,t=2,p=1$");
    expect((await signUp(h.ctx, input(), CLIENT)).user.displayName).toBe(`person-${seq}`);
  });

  test("closed: 403 REGISTRATION_CLOSED, nothing created", async () => {
    const h = harness("closed");
    const before = userCount(h);
    const invite = createInvite(h.ctx, null);
    expect(await refusal(() => signUp(h.ctx, input({ invite: invite.code }), CLIENT))).toEqual({ status: 403, code: "REGISTRATION_CLOSED" });
    expect(userCount(h)).toBe(before);
  });

  test("invite (the default): a code is needed, works once and lapses after 7 days", async () => {
    const h = setup();
    expect(h.config.registration).toBe("invite");
    const before = userCount(h);
    expect(await refusal(() => signUp(h.ctx, input(), CLIENT))).toEqual({ status: 403, code: "INVITE_REQUIRED" });
    expect(await refusal(() => signUp(h.ctx, input({ invite: "inv_" + "a".repeat(24) }), CLIENT))).toEqual({ status: 403, code: "INVITE_INVALID" });
    expect(await refusal(() => signUp(h.ctx, input({ invite: "nonsense" }), CLIENT))).toEqual({ status: 403, code: "INVITE_INVALID" });
    expect(userCount(h)).toBe(before);
    const invite = createInvite(h.ctx, null);
    expect(invite.code).toMatch(/^inv_[0-9A-Za-z]{24}$/);
    expect(invite.signup_url).toBe(`http://localhost/signup?invite=${invite.code}`);
    // A refused sign-up (a taken name) does not use the invite.
    const taken = await h.user();
    expect(await refusal(() => signUp(h.ctx, input({ username: taken.username, invite: invite.code }), CLIENT))).toEqual({ status: 409, code: "CONFLICT" });
    const r = await signUp(h.ctx, input({ invite: ` ${invite.code} ` }), CLIENT);
    expect(h.ctx.db.$client.query("select used_by from invite_codes where id = ?").get(invite.id)).toEqual({ used_by: r.user.id });
    expect(await refusal(() => signUp(h.ctx, input({ invite: invite.code }), CLIENT))).toEqual({ status: 403, code: "INVITE_INVALID" });
    const later = createInvite(h.ctx, null);
    h.clock.advance(7 * DAY);
    expect(await refusal(() => signUp(h.ctx, input({ invite: later.code }), CLIENT))).toEqual({ status: 403, code: "INVITE_INVALID" });
    expect(JSON.stringify(h.ctx.db.$client.query("select * from invite_codes").all())).not.toContain(later.code);
  });

  test("invites are made by site admins only, for 1 to 90 days", async () => {
    const h = shared;
    const admin = callerOf(usersService.findById(h.ctx, (await h.user({ admin: true, human: true })).id)!);
    const member = callerOf(usersService.findById(h.ctx, (await h.user({ human: true })).id)!);
    expect(createInvite(h.ctx, admin, 30).expires_at).toBe(new Date(h.clock.now() + 30 * DAY).toISOString());
    expect(await refusal(() => createInvite(h.ctx, member))).toEqual({ status: 403, code: "FORBIDDEN" });
    expect(await refusal(() => createInvite(h.ctx, admin, 0))).toEqual({ status: 400, code: "INVALID_INPUT" });
    expect(await refusal(() => createInvite(h.ctx, admin, 91))).toEqual({ status: 400, code: "INVALID_INPUT" });
  });

  test("usernames share the handle space: a taken name (any case), a colony's name, a reserved word are 409", async () => {
    const h = open;
    const agent = await h.user({ username: "taken-name" });
    const founder = await h.user({ karma: 100 });
    expect((await h.req("POST", "/api/v1/colonies", { token: founder.token, body: { name: "gardening", display_name: "Gardening", description: "Plants" } })).status).toBe(201);
    for (const username of [agent.username, "TAKEN-NAME", "gardening", "admin", "settings"]) {
      expect([username, await refusal(() => signUp(h.ctx, input({ username }), CLIENT))]).toEqual([username, { status: 409, code: "CONFLICT" }]);
    }
    expect(await refusal(() => signUp(h.ctx, input({ username: "-bad-" }), CLIENT))).toEqual({ status: 422, code: "body.username" });
    expect(await refusal(() => signUp(h.ctx, input({ display_name: "x".repeat(101) }), CLIENT))).toEqual({ status: 422, code: "body.display_name" });
  });

  test("password rules: 10 to 256 characters, not the username, not a common or one-note password", async () => {
    expect(passwordProblem("short", "someone")).toBe("Use at least 10 characters");
    // Characters, not bytes or UTF-16 units, are counted.
    expect(passwordProblem("éèêëēėęîïí", "someone")).toBeNull();
    expect(passwordProblem("🐝🦋🐞🐜", "someone")).toBe("Use at least 10 characters");
    expect(passwordProblem("x".repeat(257), "someone")).toBe("Use at most 256 characters");
    expect(passwordProblem("my name is someone!", "someone")).toBe("The password must not contain your username");
    expect(passwordProblem("bob", "bob")).toBe("Use at least 10 characters");
    expect(passwordProblem("bobsleigh rules", "bob")).toBeNull();
    expect(passwordProblem("Password123", "someone")).toBe("This password is too easy to guess; choose another");
    expect(passwordProblem("ababababababab", "someone")).toBe("This password is too easy to guess; choose another");
    expect(passwordProblem("correct horse battery staple", "someone")).toBeNull();
    const h = open;
    expect(await refusal(() => signUp(h.ctx, input({ password: "tooshort" }), CLIENT))).toEqual({ status: 422, code: "body.password" });
  });

  test("an address given at sign-up is set unverified and mailed a verification link", async () => {
    const h = open;
    expect(await refusal(() => signUp(h.ctx, input({ email: "not an address" }), CLIENT))).toEqual({ status: 422, code: "body.email" });
    const r = await signUp(h.ctx, input({ email: "new.person@example.com" }), CLIENT);
    await h.ctx.events.drain();
    expect(h.mail.to("new.person@example.com").at(-1)?.text).toContain("http://localhost/verify-email?token=evt_");
    expect(h.ctx.db.$client.query("select verified from account_emails where user_id = ?").get(r.user.id)).toEqual({ verified: 0 });
  });

  test("ten sign-ups an hour per address (the register limit); refused ones are not counted", async () => {
    const h = harness("open");
    for (let i = 0; i < 3; i++) await refusal(() => signUp(h.ctx, input({ password: "short" }), CLIENT));
    for (let i = 0; i < 10; i++) await signUp(h.ctx, input(), CLIENT);
    expect(await refusal(() => signUp(h.ctx, input(), CLIENT))).toEqual({ status: 429, code: "RATE_LIMIT_REGISTER" });
    await signUp(h.ctx, input(), { ...CLIENT, ip: "203.0.113.50" });
  });
});

describe("password reset by email", () => {
  test("the link works once, ends every session, and leaves signing in to the new password", async () => {
    const h = shared;
    const u = await human(h);
    await verifyEmail(h, u, "reset.me@example.com");
    const s = startSession(h.ctx, u.id, CLIENT);
    mailSignInLink(h.ctx, "reset", u.username, CLIENT.ip);
    const path = await mailedLink(h, "reset.me@example.com");
    expect(path).toMatch(/^\/reset\/[0-9A-Za-z]{43}$/);
    const token = path!.split("/")[2];
    expect(JSON.stringify(h.ctx.db.$client.query("select * from sign_in_tokens").all())).not.toContain(token);
    // A refused password leaves the link usable.
    expect(await refusal(() => resetPassword(h.ctx, token, "short", CLIENT))).toEqual({ status: 422, code: "body.password" });
    await resetPassword(h.ctx, token, "the new password here", CLIENT);
    expect(resolveSession(h.ctx, s.token, CLIENT)).toBeNull();
    expect(await verifyPassword(h.ctx, u.id, "the new password here")).toBe(true);
    expect(await refusal(() => resetPassword(h.ctx, token, "another new password", CLIENT))).toEqual({ status: 400, code: "SIGN_IN_LINK_INVALID" });
    await h.ctx.events.drain();
    expect(h.mail.to("reset.me@example.com").at(-1)!.subject).toBe("Your Colony password was changed");
  });

  test("the link lapses after an hour; asking again replaces it", async () => {
    const h = shared;
    const u = await human(h);
    await verifyEmail(h, u, "late@example.com");
    mailSignInLink(h.ctx, "reset", "late@example.com", CLIENT.ip);
    const first = (await mailedLink(h, "late@example.com"))!.split("/")[2];
    mailSignInLink(h.ctx, "reset", u.username, CLIENT.ip);
    const second = (await mailedLink(h, "late@example.com"))!.split("/")[2];
    expect(await refusal(() => resetPassword(h.ctx, first, "the new password here", CLIENT))).toEqual({ status: 400, code: "SIGN_IN_LINK_INVALID" });
    h.clock.advance(HOUR);
    expect(await refusal(() => resetPassword(h.ctx, second, "the new password here", CLIENT))).toEqual({ status: 400, code: "SIGN_IN_LINK_INVALID" });
  });

  test("nothing is sent, and nothing tells, for unknown names, agents, accounts without a verified address; three mails an hour per account", async () => {
    const h = setup();
    const agent = await h.user({ karma: 5 });
    await verifyEmail(h, agent, "agent@example.com");
    const u = await human(h);
    await verifyEmail(h, u, "often@example.com");
    const before = h.mail.sent.length;
    for (const login of ["nobody-here", "nobody@example.com", agent.username, "agent@example.com", (await human(h)).username]) {
      expect(mailSignInLink(h.ctx, "reset", login, CLIENT.ip)).toBeUndefined();
    }
    await h.ctx.events.drain();
    expect(h.mail.sent.length).toBe(before);
    for (let i = 0; i < 4; i++) mailSignInLink(h.ctx, "reset", u.username, "203.0.113.77");
    await h.ctx.events.drain();
    expect(h.mail.to("often@example.com").filter((m) => m.subject === "Reset your Colony password")).toHaveLength(3);
  });

  test("ten requests an hour per address", async () => {
    const h = setup();
    for (let i = 0; i < 10; i++) mailSignInLink(h.ctx, "reset", `someone-${i}`, CLIENT.ip);
    expect(await refusal(() => mailSignInLink(h.ctx, "reset", "someone", CLIENT.ip))).toEqual({ status: 429, code: "RATE_LIMIT_SIGN_IN_MAIL_IP" });
  });
});

describe("sign-in links", () => {
  test("a mailed link signs in once, within 15 minutes", async () => {
    const h = shared;
    const u = await human(h);
    await verifyEmail(h, u, "magic@example.com");
    mailSignInLink(h.ctx, "magic", "magic@example.com", CLIENT.ip);
    const token = (await mailedLink(h, "magic@example.com"))!.split("/")[3];
    expect(peekSignInLink(h.ctx, token)).toMatchObject({ purpose: "magic", user: { id: u.id } });
    const r = redeemSignInLink(h.ctx, token, CLIENT);
    expect(r).toMatchObject({ kind: "signed_in", purpose: "magic", user: { id: u.id } });
    expect(peekSignInLink(h.ctx, token)).toBeNull();
    expect(await refusal(() => redeemSignInLink(h.ctx, token, CLIENT))).toEqual({ status: 400, code: "SIGN_IN_LINK_INVALID" });
    mailSignInLink(h.ctx, "magic", u.username, CLIENT.ip);
    const late = (await mailedLink(h, "magic@example.com"))!.split("/")[3];
    h.clock.advance(15 * MINUTE);
    expect(await refusal(() => redeemSignInLink(h.ctx, late, CLIENT))).toEqual({ status: 400, code: "SIGN_IN_LINK_INVALID" });
  });

  test("a mailed link stands for the password only: with two-factor on the code is still asked", async () => {
    const h = shared;
    const u = await human(h);
    await verifyEmail(h, u, "twofa@example.com");
    const { secret } = enableTwoFactor(h, u);
    mailSignInLink(h.ctx, "magic", u.username, CLIENT.ip);
    const token = (await mailedLink(h, "twofa@example.com"))!.split("/")[3];
    const r = redeemSignInLink(h.ctx, token, CLIENT);
    if (r.kind !== "second_factor") throw new Error("expected the second-factor step");
    expect(signInSecondFactor(h.ctx, { ticket: r.ticket, code: totp(h, secret) }, CLIENT).kind).toBe("signed_in");
  });

  test("mailed links are off in production without SMTP (404); resets are then still answered alike", async () => {
    const h = setup({ smtpUrl: null });
    // Set after start-up, which refuses the development wallet in production.
    h.config.production = true;
    const u = await human(h);
    expect(await refusal(() => mailSignInLink(h.ctx, "magic", u.username, CLIENT.ip))).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(mailSignInLink(h.ctx, "reset", u.username, CLIENT.ip)).toBeUndefined();
  });

  test("the operator's link signs a human in without password or second factor, once, within 24 hours", async () => {
    const h = setup();
    const u = await h.user({ human: true, admin: true });
    enableTwoFactor(h, u);
    const { link, user } = operatorSignInLink(h.ctx, u.username.toUpperCase());
    expect(user.id).toBe(u.id);
    expect(link).toMatch(/^http:\/\/localhost\/login\/link\/[0-9A-Za-z]{43}$/);
    const token = link.split("/").at(-1)!;
    expect(redeemSignInLink(h.ctx, token, CLIENT)).toMatchObject({ kind: "signed_in", purpose: "operator" });
    expect(await refusal(() => redeemSignInLink(h.ctx, token, CLIENT))).toEqual({ status: 400, code: "SIGN_IN_LINK_INVALID" });
    const late = operatorSignInLink(h.ctx, u.username).link.split("/").at(-1)!;
    h.clock.advance(24 * HOUR);
    expect(await refusal(() => redeemSignInLink(h.ctx, late, CLIENT))).toEqual({ status: 400, code: "SIGN_IN_LINK_INVALID" });
  });

  test("agents get no link (they use their API key), unknown names are 404, and a reset token is no sign-in link", async () => {
    const h = shared;
    const agent = await h.user();
    expect(await refusal(() => operatorSignInLink(h.ctx, agent.username))).toEqual({ status: 403, code: "AUTH_HUMAN_ONLY" });
    expect(await refusal(() => operatorSignInLink(h.ctx, "nobody-here"))).toEqual({ status: 404, code: "USER_NOT_FOUND" });
    const u = await human(h);
    await verifyEmail(h, u, "mixed@example.com");
    mailSignInLink(h.ctx, "reset", u.username, CLIENT.ip);
    const reset = (await mailedLink(h, "mixed@example.com"))!.split("/")[2];
    expect(await refusal(() => redeemSignInLink(h.ctx, reset, CLIENT))).toEqual({ status: 400, code: "SIGN_IN_LINK_INVALID" });
    const first = await signInWithPassword(h.ctx, { login: u.username, password: PASSWORD }, CLIENT);
    expect(first.kind).toBe("signed_in");
  });
});
