import { describe, expect, test } from "bun:test";
import { HOUR } from "../../core/clock";
import { hashSecret } from "../../core/ids";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { grantKarma } from "../votes/service";
import { distinctHolders } from "./email";
import { mailedToken, verifyEmail } from "./fixtures";

const h = setup();
let seq = 0;
const addr = () => `agent${++seq}@example.com`;
const setEmail = (hh: Harness, u: TestUser | null, email: unknown) => hh.req("POST", "/api/v1/auth/email", { token: u?.token ?? null, body: { email } });
const getEmail = (hh: Harness, u: TestUser | null) => hh.req("GET", "/api/v1/auth/email", { token: u?.token ?? null });
const verify = (hh: Harness, u: TestUser | null, token: unknown) => hh.req("POST", "/api/v1/auth/email/verify", { token: u?.token ?? null, body: { token } });

async function verifiedUser(hh: Harness, email: string): Promise<TestUser> {
  const u = await hh.user({ karma: 5 });
  await verifyEmail(hh, u, email);
  return u;
}

const INVALID = { detail: { code: "EMAIL_TOKEN_INVALID", message: "Invalid email verification token" } };

describe("GET /api/v1/auth/email", () => {
  test("401 anonymous; null and unverified before an address is set", async () => {
    expect((await getEmail(h, null)).status).toBe(401);
    const u = await h.user();
    const r = await getEmail(h, u);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ email: null, email_verified: false });
  });
});

describe("POST /api/v1/auth/email", () => {
  test("202 with the reference body; stored unverified; the link is mailed after commit, token stored hashed", async () => {
    const u = await h.user({ karma: 5 });
    const email = addr();
    const before = h.mail.sent.length;
    const r = await setEmail(h, u, `  ${email.toUpperCase()} `);
    expect(r.status).toBe(202);
    expect(r.body).toEqual({
      status: "verification_pending",
      email: email.toUpperCase(),
      message: "If that address is available, a verification link has been sent to it. Open the link to confirm the address before relying on it for API-key recovery.",
    });
    expect((await getEmail(h, u)).body).toEqual({ email: email.toUpperCase(), email_verified: false });
    // Nothing leaves inside the request: the outbox worker sends it.
    expect(h.mail.sent.length).toBe(before);
    const token = await mailedToken(h, email);
    expect(token).toMatch(/^evt_[0-9A-Za-z]{43}$/);
    const m = h.mail.to(email).at(-1)!;
    expect(m.text).toContain(`http://localhost/verify-email?token=${token}`);
    const rows = h.ctx.db.$client.query("select token_hash from email_verification_tokens where user_id = ?").all(u.id) as { token_hash: string }[];
    expect(rows).toEqual([{ token_hash: hashSecret(token!) }]);
  });

  test("401 anonymous; 403 KARMA_TOO_LOW under the floor (default 5), nothing stored or mailed", async () => {
    expect((await setEmail(h, null, addr())).status).toBe(401);
    const u = await h.user({ karma: 4 });
    const email = addr();
    const r = await setEmail(h, u, email);
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("KARMA_TOO_LOW");
    expect((await getEmail(h, u)).body.email).toBeNull();
    expect(await mailedToken(h, email)).toBeNull();
  });

  test("an admin karma grant reaches the floor", async () => {
    const u = await h.user();
    expect((await setEmail(h, u, addr())).status).toBe(403);
    grantKarma(h.ctx, u.id, 5);
    expect((await setEmail(h, u, addr())).status).toBe(202);
  });

  test("the floor is configuration", async () => {
    const h2 = setup({ karma: { setEmail: 0, createOrg: 10 } });
    expect((await setEmail(h2, await h2.user(), "zero@example.com")).status).toBe(202);
    const h3 = setup({ karma: { setEmail: 50, createOrg: 10 } });
    expect((await setEmail(h3, await h3.user({ karma: 49 }), "x@example.com")).status).toBe(403);
  });

  test("422 for an invalid address or a missing field; nothing changes", async () => {
    const u = await h.user({ karma: 5 });
    for (const bad of ["not-an-email", "a@b", "two@@example.com", "sp ace@example.com", `${"a".repeat(250)}@example.com`, 42]) {
      const r = await setEmail(h, u, bad);
      expect(r.status).toBe(422);
    }
    expect((await h.req("POST", "/api/v1/auth/email", { token: u.token, body: {} })).status).toBe(422);
    expect((await getEmail(h, u)).body.email).toBeNull();
  });

  test("changing the address marks it unverified until the new link is redeemed; the old link is void", async () => {
    const u = await h.user({ karma: 5 });
    const first = addr();
    await setEmail(h, u, first);
    const t1 = await mailedToken(h, first);
    expect((await verify(h, u, t1)).status).toBe(200);
    const second = addr();
    expect((await setEmail(h, u, second)).status).toBe(202);
    expect((await getEmail(h, u)).body).toEqual({ email: second, email_verified: false });
    const t2 = await mailedToken(h, second);
    const third = addr();
    await setEmail(h, u, third);
    const t3 = await mailedToken(h, third);
    expect((await verify(h, u, t2)).status).toBe(400);
    expect((await verify(h, u, t3)).status).toBe(200);
    expect((await getEmail(h, u)).body).toEqual({ email: third, email_verified: true });
  });

  test("naming the address already verified here changes nothing and sends nothing", async () => {
    const email = addr();
    const u = await verifiedUser(h, email);
    const count = h.mail.to(email).length;
    expect((await setEmail(h, u, email)).status).toBe(202);
    await h.ctx.events.drain();
    expect(h.mail.to(email).length).toBe(count);
    expect((await getEmail(h, u)).body.email_verified).toBe(true);
  });

  test("an address verified on another account: the same 202, but no mail and no way to verify", async () => {
    const email = addr();
    await verifiedUser(h, email);
    const b = await h.user({ karma: 5 });
    const count = h.mail.to(email).length;
    const r = await setEmail(h, b, email);
    expect(r.status).toBe(202);
    expect(r.body.message).toContain("If that address is available");
    await h.ctx.events.drain();
    expect(h.mail.to(email).length).toBe(count);
    expect((await getEmail(h, b)).body).toEqual({ email, email_verified: false });
  });

  test("two accounts pending on one address: the first to verify wins; the other's token is refused", async () => {
    const email = addr();
    const a = await h.user({ karma: 5 });
    const b = await h.user({ karma: 5 });
    await setEmail(h, a, email);
    const ta = await mailedToken(h, email);
    await setEmail(h, b, email);
    const tb = await mailedToken(h, email);
    expect(ta).not.toBe(tb);
    expect((await verify(h, b, tb)).status).toBe(200);
    const r = await verify(h, a, ta);
    expect(r.status).toBe(400);
    expect(r.body).toEqual(INVALID);
  });

  test("429 RATE_LIMIT_EMAIL_SET after 5 an hour", async () => {
    const u = await h.user({ karma: 5 });
    for (let i = 0; i < 5; i++) expect((await setEmail(h, u, addr())).status).toBe(202);
    const r = await setEmail(h, u, addr());
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_EMAIL_SET");
    h.clock.advance(HOUR);
    expect((await setEmail(h, u, addr())).status).toBe(202);
  });
});

describe("POST /api/v1/auth/email/verify", () => {
  test("200 {email, email_verified:true}; single use", async () => {
    const u = await h.user({ karma: 5 });
    const email = addr();
    await setEmail(h, u, email);
    const token = await mailedToken(h, email);
    const r = await verify(h, u, token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ email, email_verified: true });
    expect((await getEmail(h, u)).body).toEqual({ email, email_verified: true });
    expect(await verify(h, u, token)).toMatchObject({ status: 400, body: INVALID });
  });

  test("every failure is the same 400 EMAIL_TOKEN_INVALID: unknown, another account's, expired, superseded", async () => {
    const u = await h.user({ karma: 5 });
    const other = await h.user({ karma: 5 });
    const email = addr();
    await setEmail(h, u, email);
    const token = await mailedToken(h, email);
    const failures = [await verify(h, u, "evt_unknown"), await verify(h, u, ""), await verify(h, other, token)];
    for (const r of failures) expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: INVALID });
    // Another account's attempt did not consume it.
    expect((await verify(h, u, token)).status).toBe(200);

    const late = await h.user({ karma: 5 });
    const lateEmail = addr();
    await setEmail(h, late, lateEmail);
    const lateToken = await mailedToken(h, lateEmail);
    h.clock.advance(24 * HOUR);
    late.token = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: late.apiKey } })).body.access_token;
    expect(await verify(h, late, lateToken)).toMatchObject({ status: 400, body: INVALID });

    const changer = await h.user({ karma: 5 });
    const old = addr();
    await setEmail(h, changer, old);
    const oldToken = await mailedToken(h, old);
    await setEmail(h, changer, addr());
    expect(await verify(h, changer, oldToken)).toMatchObject({ status: 400, body: INVALID });
  });

  test("429 RATE_LIMIT_EMAIL_VERIFY_IP past 30 an hour per IP", async () => {
    const hh = setup();
    const u = await hh.user({ karma: 5 });
    for (let i = 0; i < 30; i++) hh.ctx.limits.consume(["email_verify_ip"], { ip: "local" });
    const r = await verify(hh, u, "evt_x");
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_EMAIL_VERIFY_IP");
  });

  test("401 anonymous; 422 without a token", async () => {
    expect((await verify(h, null, "evt_x")).status).toBe(401);
    expect((await h.req("POST", "/api/v1/auth/email/verify", { token: (await h.user()).token, body: {} })).status).toBe(422);
  });
});

describe("DELETE /api/v1/auth/email", () => {
  const REMOVED = { status: "removed", message: "Any email address on this account has been removed." };

  test("the same 200 whether or not an address was set; clears it; 401 anonymous", async () => {
    expect((await h.req("DELETE", "/api/v1/auth/email")).status).toBe(401);
    const none = await h.user();
    const r1 = await h.req("DELETE", "/api/v1/auth/email", { token: none.token });
    expect({ status: r1.status, body: r1.body }).toEqual({ status: 200, body: REMOVED });
    const u = await verifiedUser(h, addr());
    const r2 = await h.req("DELETE", "/api/v1/auth/email", { token: u.token });
    expect({ status: r2.status, body: r2.body }).toEqual({ status: 200, body: REMOVED });
    expect((await getEmail(h, u)).body).toEqual({ email: null, email_verified: false });
  });

  test("a pending link dies with the address", async () => {
    const u = await h.user({ karma: 5 });
    const email = addr();
    await setEmail(h, u, email);
    const token = await mailedToken(h, email);
    await h.req("DELETE", "/api/v1/auth/email", { token: u.token });
    expect((await verify(h, u, token)).status).toBe(400);
  });
});

describe("the distinct-holder counter (cycle cap)", () => {
  test("clearing an address does not decrement it; past the cap the address cannot be verified again", async () => {
    const hc = setup({ emailMaxHolders: 2 });
    const email = "cycled@example.com";
    const a = await verifiedUser(hc, email);
    expect(distinctHolders(hc.ctx, email)).toBe(1);
    await hc.req("DELETE", "/api/v1/auth/email", { token: a.token });
    expect(distinctHolders(hc.ctx, email)).toBe(1);
    // The same account verifying it again is not a new holder.
    await setEmail(hc, a, email);
    expect((await verify(hc, a, await mailedToken(hc, email))).status).toBe(200);
    expect(distinctHolders(hc.ctx, email)).toBe(1);
    await hc.req("DELETE", "/api/v1/auth/email", { token: a.token });
    const b = await verifiedUser(hc, "CYCLED@example.com");
    expect(distinctHolders(hc.ctx, email)).toBe(2);
    await hc.req("DELETE", "/api/v1/auth/email", { token: b.token });
    expect(distinctHolders(hc.ctx, email)).toBe(2);
    // A third account: the uniform 202, but no mail, so nothing to verify.
    const c = await hc.user({ karma: 5 });
    const sent = hc.mail.sent.length;
    expect((await setEmail(hc, c, email)).status).toBe(202);
    await hc.ctx.events.drain();
    expect(hc.mail.sent.length).toBe(sent);
    // Earlier holders may still come back to it.
    await setEmail(hc, a, email);
    expect((await verify(hc, a, await mailedToken(hc, email))).status).toBe(200);
  });
});

describe("the web verification link", () => {
  const form = (token: string) => ({ raw: new URLSearchParams({ token }).toString(), headers: { "content-type": "application/x-www-form-urlencoded" } });

  test("GET shows a confirm page and changes nothing; the page's POST verifies", async () => {
    const u = await h.user({ karma: 5 });
    const email = addr();
    await setEmail(h, u, email);
    const token = (await mailedToken(h, email))!;
    const page = await h.req("GET", "/verify-email", { query: { token } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.text).toContain(`name="token" value="${token}"`);
    expect((await getEmail(h, u)).body.email_verified).toBe(false);
    const done = await h.req("POST", "/verify-email", form(token));
    expect(done.status).toBe(200);
    expect(done.text).toContain("confirmed");
    expect((await getEmail(h, u)).body).toEqual({ email, email_verified: true });
    const again = await h.req("POST", "/verify-email", form(token));
    expect(again.status).toBe(400);
    expect(again.text).toContain("invalid");
  });

  test("markup in the token is escaped", async () => {
    const page = await h.req("GET", "/verify-email", { query: { token: '"><script>x</script>' } });
    expect(page.text).not.toContain("<script>x");
  });
});
