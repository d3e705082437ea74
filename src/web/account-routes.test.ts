// The pages of signing up, in and out, sign-in links and password reset, driven as a browser
// drives them: GET the page, post its form with its token, follow the 303.
import { describe, expect, test } from "bun:test";
import { HOUR, MINUTE } from "../core/clock";
import { Browser, hiddenField, signedInAs } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type Harness } from "../../test/harness";
import { verifyEmail } from "../features/auth/fixtures";
import { PASSWORD, enableTwoFactor, human, mailedLink, totp } from "../features/sessions/fixtures";
import { createInvite } from "../features/sessions/invites";
import { operatorSignInLink } from "../features/sessions/links";

const sessionsOf = (h: Harness, userId: string) => (h.ctx.db.$client.query("select count(*) n from web_sessions where user_id = ?").get(userId) as { n: number }).n;
const userNamed = (h: Harness, username: string) => h.ctx.db.$client.query("select id, user_type from users where username = ?").get(username) as { id: string; user_type: string } | null;

// One harness for the file (the default configuration: sign-up by invitation); each test makes
// its own accounts. Tests of another configuration, or that spend a rate limit of the address
// every test browser shares, have a harness of their own.
const h = setup();

/** A browser that has loaded `path` (so it holds the page's token). */
async function at(h: Harness, path: string): Promise<Browser> {
  const b = new Browser(h);
  await b.get(path);
  return b;
}

describe("every page", () => {
  test.each(["/signup", "/login", "/reset", "/reset/" + "A".repeat(43), "/login/link/" + "A".repeat(43)])("%s: HTML with the security headers, never cached", async (path) => {
    const r = await new Browser(h).get(path);
    expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(r.headers.get("content-security-policy")).toBe("default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'");
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    // Nothing inline for the policy to refuse.
    expect(r.text).not.toMatch(/<script(?![^>]*\ssrc=)|<style|\sstyle=|\son[a-z]+=/i);
    // Every input a person fills has a label.
    for (const m of r.text.matchAll(/<input id="([^"]+)"/g)) expect(r.text).toMatch(new RegExp(`<label for="${m[1]}"[ >]`));
  });
});

describe("/signup", () => {
  test("closed: the page says so and a post is 403 with nothing created", async () => {
    const h = setup({ registration: "closed" });
    const b = await at(h, "/signup");
    expect(b.last!.text).toContain("This server is not taking sign-ups");
    expect(b.last!.text).not.toContain('action="/signup"');
    await b.get("/login");
    const before = dbState(h);
    const r = await b.post("/signup", { username: "closed-out", password: PASSWORD });
    expect(r.status).toBe(403);
    expect(r.text).toContain("not taking sign-ups");
    expect(dbState(h)).toEqual(before);
  });

  test("invite: the code field, filled from ?invite=; a wrong code is 403 and the form keeps what was typed", async () => {
    const invite = createInvite(h.ctx, null);
    const b = await at(h, `/signup?invite=${invite.code}`);
    expect(hiddenField(b.last!.text, "invite")).toBeNull();
    expect(b.last!.text).toContain(`<input id="invite" name="invite" type="text" value="${invite.code}"`);
    const wrong = await b.post("/signup", { username: "invited-one", display_name: "<b>Inv</b>", password: PASSWORD, invite: "inv_" + "b".repeat(24) });
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain('role="alert"');
    expect(wrong.text).toContain('value="&#60;b&#62;Inv&#60;/b&#62;"');
    expect(wrong.text).not.toContain(PASSWORD);
    expect(userNamed(h, "invited-one")).toBeNull();
    const ok = await b.post("/signup", { username: "invited-one", password: PASSWORD, invite: invite.code });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe("/settings/account?notice=welcome");
    const account = await b.get(ok.location!);
    expect(signedInAs(account.text)).toBe("invited-one");
    expect(account.text).toContain("Welcome! Your account is ready.");
    expect(userNamed(h, "invited-one")!.user_type).toBe("human");
  });

  test("open: a taken name is 409, a bad name or password 422, each on the form with nothing created", async () => {
    const h = setup({ registration: "open" });
    const taken = await h.user({ username: "taken-one" });
    const b = await at(h, "/signup");
    const before = dbState(h);
    for (const [fields, status, says] of [
      [{ username: taken.username, password: PASSWORD }, 409, "Username is already taken"],
      [{ username: "-bad-", password: PASSWORD }, 422, "Username must start and end with a letter or digit"],
      [{ username: "fine-name", password: "short" }, 422, "Use at least 10 characters"],
      [{ username: "fine-name", password: PASSWORD, email: "nope" }, 422, "not a valid email address"],
      [{ username: "x".repeat(65), password: PASSWORD }, 422, "too long"],
    ] as const) {
      const r = await b.post("/signup", fields);
      expect([fields.username, r.status]).toEqual([fields.username, status]);
      expect(r.text).toContain(says);
      expect(r.text).toContain('action="/signup"');
    }
    expect(dbState(h)).toEqual(before);
  });

  test("signed in, the sign-up page sends you to your account", async () => {
    const h = setup({ registration: "open" });
    const b = await at(h, "/signup");
    await b.post("/signup", { username: "already-in", password: PASSWORD });
    expect((await b.get("/signup")).location).toBe("/settings/account");
  });
});

describe("/login", () => {
  test("the right password: 303 to next with the session cookie; a wrong one: 401 with one message for every failure", async () => {
    const u = await human(h);
    const agent = await h.user();
    const b = await at(h, "/login?next=/settings/security");
    expect(hiddenField(b.last!.text, "next")).toBe("/settings/security");
    for (const [login, password] of [
      [u.username, "wrong password 123"],
      ["nobody-at-all", PASSWORD],
      [agent.username, PASSWORD],
    ]) {
      const r = await b.post("/login", { login, password, next: "/settings/security" });
      expect([login, r.status]).toEqual([login, 401]);
      expect(r.text).toContain("Incorrect username or password");
      expect(r.setCookies.some((c) => c.startsWith("colony_session="))).toBe(false);
    }
    const r = await b.post("/login", { login: u.username, password: PASSWORD, next: "/settings/security" });
    expect(r.status).toBe(303);
    expect(r.location).toBe("/settings/security");
    expect((await b.get("/login")).location).toBe("/");
  });

  test("a next address off this site becomes the home page; what was typed is shown back escaped", async () => {
    const u = await human(h);
    const b = await at(h, "/login?next=//evil.example/");
    expect(hiddenField(b.last!.text, "next")).toBe("/");
    const bad = await b.post("/login", { login: `"><script>alert(1)</script>`, password: "x" });
    expect(bad.status).toBe(401);
    expect(bad.text).not.toContain("<script>");
    expect(bad.text).toContain('value="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;"');
    const r = await b.post("/login", { login: u.username, password: PASSWORD, next: "https://evil.example/" });
    expect(r.location).toBe("/");
  });

  test("an empty form is 400; ten failures lock the account with 429 and Retry-After", async () => {
    // A harness of its own: it spends the failed sign-ins its address may make, and moves the clock.
    const h = setup();
    const u = await human(h);
    const b = await at(h, "/login");
    expect((await b.post("/login", { login: "", password: "" })).status).toBe(400);
    for (let i = 0; i < 10; i++) await b.post("/login", { login: u.username, password: `wrong password ${i}` });
    const r = await b.post("/login", { login: u.username, password: PASSWORD });
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("900");
    expect(r.text).toContain("Rate limit exceeded");
    h.clock.advance(15 * MINUTE);
    expect((await b.post("/login", { login: u.username, password: PASSWORD })).status).toBe(303);
  });

  test("with two-factor on: the code page, then the session; a wrong or replayed code is 401 on the same page", async () => {
    const u = await human(h);
    const { secret } = enableTwoFactor(h, u);
    const b = await at(h, "/login?next=/settings/account");
    const step = await b.post("/login", { login: u.username, password: PASSWORD, next: "/settings/account" });
    expect(step.status).toBe(200);
    expect(step.text).toContain('action="/login/second-factor"');
    expect(step.setCookies.some((c) => c.startsWith("colony_session="))).toBe(false);
    const ticket = hiddenField(step.text, "ticket")!;
    const wrong = await b.post("/login/second-factor", { ticket, next: "/settings/account", code: "000000" });
    expect(wrong.status).toBe(401);
    expect(hiddenField(wrong.text, "ticket")).toBe(ticket);
    const code = totp(h, secret);
    const ok = await b.post("/login/second-factor", { ticket, next: "/settings/account", code });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe("/settings/account");
    expect(sessionsOf(h, u.id)).toBe(1);
    // The same code again, through a new password step, is refused.
    const b2 = await at(h, "/login");
    const again = await b2.post("/login", { login: u.username, password: PASSWORD });
    const replay = await b2.post("/login/second-factor", { ticket: hiddenField(again.text, "ticket")!, code });
    expect(replay.status).toBe(401);
    expect(sessionsOf(h, u.id)).toBe(1);
  });

  test("a ticket that lapsed sends you back to the password step (401)", async () => {
    const u = await human(h);
    const { secret } = enableTwoFactor(h, u);
    const b = await at(h, "/login");
    const ticket = hiddenField((await b.post("/login", { login: u.username, password: PASSWORD })).text, "ticket")!;
    h.clock.advance(5 * MINUTE);
    const r = await b.post("/login/second-factor", { ticket, code: totp(h, secret) });
    expect(r.status).toBe(401);
    expect(r.text).toContain('action="/login"');
    expect(r.text).toContain("enter your password again");
  });
});

describe("/logout", () => {
  test("ends this browser's session only, clears the cookie and says so", async () => {
    const u = await human(h);
    const a = await at(h, "/login");
    await a.post("/login", { login: u.username, password: PASSWORD });
    const b2 = await at(h, "/login");
    await b2.post("/login", { login: u.username, password: PASSWORD });
    await a.get("/settings/account");
    const r = await a.post("/logout");
    expect(r.status).toBe(303);
    expect(r.location).toBe("/login?notice=signed-out");
    expect(r.setCookies).toContain("colony_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
    expect((await a.get(r.location!)).text).toContain("You are signed out.");
    expect((await a.get("/settings/account")).status).toBe(303);
    expect((await b2.get("/settings/account")).status).toBe(200);
    expect(sessionsOf(h, u.id)).toBe(1);
  });
});

describe("sign-in links", () => {
  test("by email: asked for on the sign-in page, confirmed with a button (a GET uses nothing), once", async () => {
    const u = await human(h);
    await verifyEmail(h, u, "linked@example.com");
    const b = await at(h, "/login");
    expect(b.last!.text).toContain('action="/login/email-link"');
    const asked = await b.post("/login/email-link", { login: "linked@example.com" });
    expect(asked.location).toBe("/login?notice=link-sent");
    const path = (await mailedLink(h, "linked@example.com"))!;
    expect(path).toStartWith("/login/link/");
    // Opening the link twice (a mail scanner, then the person) uses nothing.
    const scanner = new Browser(h);
    expect((await scanner.get(path)).status).toBe(200);
    const page = await b.get(path);
    expect(page.text).toContain(`signs you in as <strong>${u.username}</strong>`);
    expect(sessionsOf(h, u.id)).toBe(0);
    const r = await b.post(path);
    expect(r.status).toBe(303);
    expect(r.location).toBe("/");
    expect(signedInAs((await b.get("/settings/account")).text)).toBe(u.username);
    const again = await scanner.post(path);
    expect(again.status).toBe(400);
    expect((await new Browser(h).get(path)).status).toBe(400);
  });

  test("nothing tells whether an account exists; without SMTP in production the form is gone and a post is 404", async () => {
    const h = setup({ smtpUrl: null });
    const b = await at(h, "/login");
    expect((await b.post("/login/email-link", { login: "no-such-person" })).location).toBe("/login?notice=link-sent");
    h.config.production = true;
    const page = await b.get("/login");
    expect(page.text).not.toContain('action="/login/email-link"');
    const r = await b.post("/login/email-link", { login: "no-such-person" });
    expect(r.status).toBe(404);
  });

  test("the operator's link signs in without the password; an account without one is asked to set it", async () => {
    const u = await h.user({ human: true, admin: true });
    const path = new URL(operatorSignInLink(h.ctx, u.username).link).pathname;
    const b = await at(h, path);
    expect(b.last!.text).toContain("made for you by this server's operator");
    const r = await b.post(path);
    expect(r.location).toBe("/settings/account?notice=set-password");
    const account = await b.get(r.location!);
    expect(account.text).toContain("Set a password so that you can sign in again without a link.");
    expect(account.text).not.toContain('id="current"');
    const set = await b.post("/settings/account/password", { password: "the operator's own password" });
    expect(set.location).toBe("/settings/account?notice=password-changed");
    const other = await at(h, "/login");
    expect((await other.post("/login", { login: u.username, password: "the operator's own password" })).status).toBe(303);
  });

  test("signing in with a link as someone else ends the session the browser had", async () => {
    const first = await human(h);
    const second = await h.user({ human: true });
    const b = await at(h, "/login");
    await b.post("/login", { login: first.username, password: PASSWORD });
    const path = new URL(operatorSignInLink(h.ctx, second.username).link).pathname;
    await b.get(path);
    expect((await b.post(path)).status).toBe(303);
    expect(sessionsOf(h, first.id)).toBe(0);
    expect(signedInAs((await b.get("/settings/account")).text)).toBe(second.username);
  });
});

describe("/reset", () => {
  test("ask, open the mailed link, choose a password: every session ends and the new password signs in", async () => {
    const u = await human(h);
    await verifyEmail(h, u, "forgetful@example.com");
    const elsewhere = await at(h, "/login");
    await elsewhere.post("/login", { login: u.username, password: PASSWORD });
    const b = await at(h, "/reset");
    const asked = await b.post("/reset", { login: u.username });
    expect(asked.location).toBe("/reset?notice=reset-sent");
    expect((await b.get(asked.location!)).text).toContain("a reset link is on its way");
    const path = (await mailedLink(h, "forgetful@example.com"))!;
    const form = await b.get(path);
    expect(form.text).toContain(`action="${path}"`);
    const weak = await b.post(path, { password: "short" });
    expect(weak.status).toBe(422);
    expect(weak.text).toContain("Use at least 10 characters");
    const done = await b.post(path, { password: "my new long password" });
    expect(done.location).toBe("/login?notice=password-reset");
    expect(sessionsOf(h, u.id)).toBe(0);
    expect((await elsewhere.get("/settings/account")).status).toBe(303);
    expect((await b.post(path, { password: "yet another password" })).status).toBe(400);
    await b.get("/login");
    expect((await b.post("/login", { login: "forgetful@example.com", password: "my new long password" })).status).toBe(303);
  });

  test("an unknown, used or lapsed link is 400, on GET and on POST, and changes nothing", async () => {
    const u = await human(h);
    await verifyEmail(h, u, "lapsed@example.com");
    const b = await at(h, "/reset");
    await b.post("/reset", { login: u.username });
    const path = (await mailedLink(h, "lapsed@example.com"))!;
    h.clock.advance(HOUR);
    expect((await b.get(path)).status).toBe(400);
    const before = dbState(h);
    expect((await b.post(path, { password: "my new long password" })).status).toBe(400);
    expect((await b.post("/reset/not-a-token", { password: "my new long password" })).status).toBe(400);
    expect(dbState(h)).toEqual(before);
  });

  test("without mail in production, the page says to ask the operator", async () => {
    const h = setup({ smtpUrl: null });
    h.config.production = true;
    expect((await new Browser(h).get("/reset")).text).toContain("ask its operator for a sign-in link");
  });
});
