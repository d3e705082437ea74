// The settings pages of a signed-in person: the account (password, email, sessions) and security
// (two-factor through the API's own service).
import { describe, expect, test } from "bun:test";
import { Browser, hiddenField } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type Harness } from "../../test/harness";
import { mailedToken } from "../features/auth/fixtures";
import { PASSWORD, human, totp } from "../features/sessions/fixtures";
import { verifyPassword } from "../features/sessions/passwords";

// One harness for the file; each test signs in its own people.
const h = setup();

/** A browser signed in (through the form) as a new human, with a user agent of its own. */
async function signedIn(h: Harness, opts: { userAgent?: string; username?: string } = {}) {
  const u = opts.username ? { ...(await h.user({ human: true })), username: opts.username } : await human(h);
  const b = new Browser(h, { "user-agent": opts.userAgent ?? "Test Browser/1.0" });
  await b.get("/login");
  expect((await b.post("/login", { login: u.username, password: PASSWORD })).status).toBe(303);
  return { b, u };
}

const sessionIds = (h: Harness, userId: string) => (h.ctx.db.$client.query("select id from web_sessions where user_id = ? order by id").all(userId) as { id: string }[]).map((r) => r.id);

describe("anonymous visitors", () => {
  test.each(["/settings/account", "/settings/security"])("%s sends them to sign in and back", async (path) => {
    const r = await new Browser(h).get(path);
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(path)}`);
  });

  test("a form post with the anonymous page's token is sent to sign in and changes nothing", async () => {
    const b = new Browser(h);
    await b.get("/login");
    const before = dbState(h);
    const r = await b.post("/settings/account/password", { current: PASSWORD, password: "a brand new passphrase" });
    expect(r.status).toBe(303);
    expect(r.location).toBe("/login?next=%2Fsettings%2Faccount");
    expect(dbState(h)).toEqual(before);
  });
});

describe("/settings/account", () => {
  test("shows who is signed in and where, this browser marked, every value escaped", async () => {
    const { b, u } = await signedIn(h, { userAgent: "<script>alert('ua')</script>" });
    await signedIn(h, { userAgent: "Other Browser" }).then(async ({ u: other }) => expect(other.id).not.toBe(u.id));
    h.ctx.db.$client.query("update users set display_name = ? where id = ?").run(`<img src=x onerror="alert(1)">`, u.id);
    const page = await b.get("/settings/account");
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<dd>${u.username}</dd>`);
    expect(page.text).toContain("&#60;img src=x onerror=&#34;alert(1)&#34;&#62;");
    expect(page.text).toContain("&#60;script&#62;alert(&#39;ua&#39;)&#60;/script&#62; <strong>(this browser)</strong>");
    expect(page.text).not.toContain("<script>");
    expect(page.text).not.toContain("Other Browser");
    expect(page.text).toContain('action="/settings/account/sessions/revoke-all"');
  });

  test("changing the password needs the current one (403 otherwise); it signs out the other browsers, not this one", async () => {
    const { b, u } = await signedIn(h);
    const other = new Browser(h);
    await other.get("/login");
    await other.post("/login", { login: u.username, password: PASSWORD });
    await b.get("/settings/account");
    const before = dbState(h);
    const wrong = await b.post("/settings/account/password", { current: "not my password", password: "a brand new passphrase" });
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain("Your current password is not correct");
    const weak = await b.post("/settings/account/password", { current: PASSWORD, password: "weak" });
    expect(weak.status).toBe(422);
    expect(dbState(h)).toEqual(before);
    const ok = await b.post("/settings/account/password", { current: PASSWORD, password: "a brand new passphrase" });
    expect(ok.location).toBe("/settings/account?notice=password-changed");
    expect((await b.get(ok.location!)).text).toContain("Your password is changed.");
    expect((await other.get("/settings/account")).status).toBe(303);
    expect(await verifyPassword(h.ctx, u.id, "a brand new passphrase")).toBe(true);
  });

  test("an email address is set and mailed a link, which the existing verification page confirms", async () => {
    const { b, u } = await signedIn(h);
    await b.get("/settings/account");
    expect((await b.post("/settings/account/email", { email: "nope" })).status).toBe(422);
    const r = await b.post("/settings/account/email", { email: "person@example.com" });
    expect(r.location).toBe("/settings/account?notice=email-sent");
    expect((await b.get("/settings/account")).text).toContain("<strong>person@example.com</strong> is not confirmed yet");
    const token = await mailedToken(h, "person@example.com");
    expect((await h.req("POST", "/verify-email", { raw: `token=${token}`, headers: { "content-type": "application/x-www-form-urlencoded" } })).status).toBe(200);
    expect((await b.get("/settings/account")).text).toContain("<strong>person@example.com</strong> is confirmed.");
    expect(u.id).toBeDefined();
  });

  test("email changes are limited as on the API (email_set: 5 an hour), refused ones free", async () => {
    const { b } = await signedIn(h);
    await b.get("/settings/account");
    await b.post("/settings/account/email", { email: "bad" });
    for (let i = 0; i < 5; i++) expect((await b.post("/settings/account/email", { email: `p${i}@example.com` })).status).toBe(303);
    const r = await b.post("/settings/account/email", { email: "p9@example.com" });
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBeTruthy();
  });

  test("signing out another browser, this one, or everywhere", async () => {
    const { b, u } = await signedIn(h);
    const { b: other } = await (async () => {
      const o = new Browser(h);
      await o.get("/login");
      await o.post("/login", { login: u.username, password: PASSWORD });
      return { b: o };
    })();
    const third = new Browser(h);
    await third.get("/login");
    await third.post("/login", { login: u.username, password: PASSWORD });
    const [mine, theirs] = await (async () => {
      const page = await b.get("/settings/account");
      const ids = [...page.text.matchAll(/\/settings\/account\/sessions\/([0-9a-f-]{36})\/revoke/g)].map((m) => m[1]);
      const current = /sessions\/([0-9a-f-]{36})\/revoke"><input type="hidden" name="csrf" value="[0-9a-f]+"\/><p><button type="submit">Sign out<\/button>/.exec(page.text)![1];
      return [current, ids.filter((id) => id !== current)];
    })();
    expect(theirs).toHaveLength(2);
    // Another account's session is 404 to this one and stays.
    const stranger = await signedIn(h);
    const strangers = sessionIds(h, stranger.u.id)[0];
    const nope = await b.post(`/settings/account/sessions/${strangers}/revoke`);
    expect(nope.status).toBe(404);
    expect(sessionIds(h, stranger.u.id)).toEqual([strangers]);
    const one = await b.post(`/settings/account/sessions/${theirs[0]}/revoke`);
    expect(one.location).toBe("/settings/account?notice=session-ended");
    expect(sessionIds(h, u.id)).toHaveLength(2);
    const everywhere = await b.post("/settings/account/sessions/revoke-all");
    expect(everywhere.location).toBe("/login?notice=signed-out-everywhere");
    expect(everywhere.setCookies).toContain("colony_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
    expect(sessionIds(h, u.id)).toEqual([]);
    for (const x of [b, other, third]) expect((await x.get("/settings/account")).status).toBe(303);
    expect(mine).toBeDefined();
  });

  test("signing out this browser from the list clears its cookie", async () => {
    const { b, u } = await signedIn(h);
    const [id] = sessionIds(h, u.id);
    await b.get("/settings/account");
    const r = await b.post(`/settings/account/sessions/${id}/revoke`);
    expect(r.location).toBe("/login?notice=signed-out");
    expect(b.jar.has("colony_session")).toBe(false);
  });
});

describe("/settings/security", () => {
  test("turning two-factor on: the key and its otpauth address as text, a wrong code shows them again, the right one shows recovery codes once", async () => {
    const { b, u } = await signedIn(h);
    const off = await b.get("/settings/security");
    expect(off.text).toContain("Two-factor authentication is off");
    const enrol = await b.post("/settings/security/2fa/enroll");
    expect(enrol.status).toBe(200);
    const secret = hiddenField(enrol.text, "secret")!;
    expect(enrol.text).toContain(`<code>${secret}</code>`);
    expect(enrol.text).toContain(`<code>otpauth://totp/Colony:${u.username}?secret=${secret}&#38;issuer=Colony</code>`);
    expect(enrol.text).not.toMatch(/<img|\bqr\b|qr-?code/i);
    const ticket = hiddenField(enrol.text, "ticket")!;
    const uri = hiddenField(enrol.text, "otpauth_uri")!;
    const wrong = await b.post("/settings/security/2fa/confirm", { secret, ticket, otpauth_uri: uri, code: "000000" });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("That code did not work");
    expect(hiddenField(wrong.text, "secret")).toBe(secret);
    const on = await b.post("/settings/security/2fa/confirm", { secret, ticket, otpauth_uri: uri, code: totp(h, secret) });
    expect(on.status).toBe(200);
    const codes = [...on.text.matchAll(/<li><code>([0-9a-z]{5}-[0-9a-z]{5})<\/code><\/li>/g)].map((m) => m[1]);
    expect(codes).toHaveLength(10);
    expect(on.headers.get("cache-control")).toBe("no-store");
    const later = await b.get("/settings/security");
    expect(later.text).toContain("Recovery codes left: 10.");
    for (const c of codes) expect(later.text).not.toContain(c);
    // The next sign-in asks for a code.
    const fresh = new Browser(h);
    await fresh.get("/login");
    expect((await fresh.post("/login", { login: u.username, password: PASSWORD })).text).toContain('action="/login/second-factor"');
    // Enrolling again while on is refused (409) on the page.
    expect((await b.post("/settings/security/2fa/enroll")).status).toBe(409);
  });

  test("new recovery codes and turning off both need a code; a wrong one is 400 and changes nothing", async () => {
    const { b } = await signedIn(h);
    await b.get("/settings/security");
    const enrol = await b.post("/settings/security/2fa/enroll");
    const secret = hiddenField(enrol.text, "secret")!;
    const on = await b.post("/settings/security/2fa/confirm", { secret, ticket: hiddenField(enrol.text, "ticket")!, otpauth_uri: "", code: totp(h, secret) });
    const [first] = [...on.text.matchAll(/<li><code>([0-9a-z-]{11})<\/code><\/li>/g)].map((m) => m[1]);
    h.clock.advance(30_000);
    await b.get("/settings/security");
    const before = dbState(h);
    expect((await b.post("/settings/security/2fa/recovery-codes", { code: "000000" })).status).toBe(400);
    expect((await b.post("/settings/security/2fa/disable", { code: "000000" })).status).toBe(400);
    expect(dbState(h)).toEqual(before);
    const regen = await b.post("/settings/security/2fa/recovery-codes", { code: first });
    expect(regen.status).toBe(200);
    expect(regen.text).toContain("New recovery codes made");
    const off = await b.post("/settings/security/2fa/disable", { code: totp(h, secret) });
    expect(off.location).toBe("/settings/security?notice=2fa-off");
    expect((await b.get(off.location!)).text).toContain("Two-factor authentication is off.");
  });
});
