// The instance's settings (/admin/settings) and the first run (/setup): who may see and use them,
// what a save changes at once (the pages' name, the About page, discovery, who may sign up), a
// save seen by another process of the instance, and the first administrator made from the setup
// link, after which the link and the page are gone.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Browser, signedInAs } from "../../test/browser";
import { setup, type Harness } from "../../test/harness";
import { loadConfig } from "../config";
import { createApp } from "../app";
import { TestClock } from "../core/clock";
import { createContext } from "../core/context";
import { groupSettling } from "../db/client";
import { DEFAULT_NAME, settingsOf } from "../features/instance/service";
import { prepareFirstRun } from "../features/instance/setup";
import { human, PASSWORD } from "../features/sessions/fixtures";
import * as users from "../features/users/service";

const OPTIONS = { rateLimitMultiplier: 0, readCacheBytes: 0 };

// The pages' layout shows the settings last read in this process (features/instance/service.ts):
// the test files that run after this one in the same process must not see a name saved here.
const untouched = setup(OPTIONS);
afterAll(() => void settingsOf(untouched.ctx));

async function signedIn(h: Harness, admin: boolean) {
  const u = await human(h, { admin });
  const b = new Browser(h);
  await b.get("/login");
  expect((await b.post("/login", { login: u.username, password: PASSWORD })).status).toBe(303);
  return { b, u };
}

const SETTINGS = { name: "Hive Nine", description: "Where the hive's agents compare notes.", rules: "1. Be kind.\n2. Cite sources.", registration: "open" };

describe("/admin/settings", () => {
  test("anonymous visitors are sent to sign in; anyone but a site admin gets the 404 page; nothing is saved", async () => {
    const h = setup(OPTIONS);
    const anon = new Browser(h);
    const r = await anon.get("/admin/settings");
    expect(r.status).toBe(303);
    expect(r.location).toStartWith("/login?next=");
    const person = await signedIn(h, false);
    expect((await person.b.get("/admin/settings")).status).toBe(404);
    await person.b.get("/");
    expect((await person.b.post("/admin/settings", SETTINGS)).status).toBe(404);
    expect(settingsOf(h.ctx).name).toBe(DEFAULT_NAME);
  });

  test("a save applies at once: the pages' titles and header, the About page, discovery, and who may sign up", async () => {
    const h = setup({ ...OPTIONS, registration: "invite" });
    const admin = await signedIn(h, true);
    const form = await admin.b.get("/admin/settings");
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="registration" value="invite" checked');
    // Invite-only, as configured: sign-up asks for a code.
    const before = new Browser(h);
    await before.get("/signup");
    expect((await before.post("/signup", { username: "early-bird", password: PASSWORD })).status).toBe(403);

    const saved = await admin.b.post("/admin/settings", SETTINGS);
    expect(saved.status).toBe(303);
    expect(saved.location).toBe("/admin/settings?notice=saved");
    expect((await admin.b.get(saved.location!)).text).toContain("Settings saved.");

    const visitor = new Browser(h);
    const home = await visitor.get("/");
    expect(home.text).toContain("<title>Hive Nine</title>");
    expect(home.text).toContain('<a class="brand" href="/">Hive Nine</a>');
    const about = await visitor.get("/about");
    expect(about.text).toContain("<title>About · Hive Nine</title>");
    expect(about.text).toContain("About Hive Nine");
    expect(about.text).toContain("Where the hive&#x27;s agents compare notes.");
    expect(about.text).toContain("1. Be kind.\n2. Cite sources.");
    const discovery = await h.req("GET", "/api/v1");
    expect(discovery.body.name).toBe("Hive Nine");
    expect(discovery.body.description).toBe(SETTINGS.description);

    // Open now: sign-up needs no code.
    await visitor.get("/signup");
    const joined = await visitor.post("/signup", { username: "late-bird", password: PASSWORD });
    expect(joined.status).toBe(303);
    expect(users.findByUsername(h.ctx, "late-bird")?.userType).toBe("human");
    // Closed: refused, whatever COLONY_REGISTRATION says.
    await admin.b.get("/admin/settings");
    expect((await admin.b.post("/admin/settings", { ...SETTINGS, registration: "closed" })).status).toBe(303);
    const late = new Browser(h);
    await late.get("/signup");
    expect((await late.post("/signup", { username: "too-late", password: PASSWORD })).status).toBe(403);
  });

  test("a refused save shows the form again with the message and what was sent, and changes nothing", async () => {
    const h = setup(OPTIONS);
    const admin = await signedIn(h, true);
    await admin.b.get("/admin/settings");
    const empty = await admin.b.post("/admin/settings", { ...SETTINGS, name: "   " });
    expect(empty.status).toBe(422);
    expect(empty.text).toContain("This cannot be empty");
    expect(empty.text).toContain("Where the hive&#x27;s agents compare notes.");
    const mode = await admin.b.post("/admin/settings", { ...SETTINGS, registration: "everyone" });
    expect(mode.status).toBe(422);
    const noToken = await admin.b.post("/admin/settings", SETTINGS, { csrf: null });
    expect(noToken.status).toBe(403);
    expect(settingsOf(h.ctx).name).toBe(DEFAULT_NAME);
    // Hostile text is escaped wherever it shows.
    await admin.b.get("/admin/settings");
    expect((await admin.b.post("/admin/settings", { ...SETTINGS, name: "<b>Bold</b>", rules: "<script>x</script>" })).status).toBe(303);
    // Outside attributes (where JSX escapes the quote, which is what matters there).
    const about = (await new Browser(h).get("/about")).text.replace(/<meta [^>]*>/g, "");
    expect(about).not.toContain("<b>Bold</b>");
    expect(about).not.toContain("<script>x</script>");
    expect(about).toContain("<h1>About &lt;b&gt;Bold&lt;/b&gt;</h1>");
    expect(about).toContain("&lt;script&gt;x&lt;/script&gt;");
  });

  test("wherever the instance names itself it says the saved name: Atom feeds, the calendar, mail subjects, an authenticator's label and an invoice's memo", async () => {
    const h = setup(OPTIONS);
    const admin = await signedIn(h, true);
    await admin.b.get("/admin/settings");
    expect((await admin.b.post("/admin/settings", SETTINGS)).status).toBe(303);

    const visitor = new Browser(h);
    expect((await visitor.get("/c/general/feed.atom")).text).toMatch(/<title type="text">[^<]+ · Hive Nine<\/title>/);
    expect((await h.req("GET", "/api/v1/events.ics")).text).toContain("X-WR-CALNAME:Hive Nine events");

    const u = await h.user({ karma: 5 });
    const enrol = await h.req("POST", "/api/v1/auth/2fa/enroll", { token: u.token });
    expect(enrol.body.otpauth_uri).toStartWith("otpauth://totp/Hive%20Nine:");
    expect(enrol.body.otpauth_uri).toEndWith("&issuer=Hive%20Nine");

    expect((await h.req("POST", "/api/v1/auth/email", { token: u.token, body: { email: "hive@example.com" } })).status).toBe(202);
    await h.ctx.events.drain();
    expect(h.mail.to("hive@example.com").at(-1)!.subject).toBe(`Confirm the email address of ${u.username} on Hive Nine`);

    h.ctx.db.$client.query("update users set lightning_address = 'tips@example.com' where id = ?").run(u.id);
    const p = await h.req("POST", "/api/v1/posts", { token: u.token, body: { colony: "general", title: "Worth a tip", body: "Hello.", post_type: "discussion" } });
    const tipper = await h.user();
    const tip = await h.req("POST", `/api/v1/tips/post/${p.body.id}`, { token: tipper.token, query: { amount_sats: 100 } });
    expect(tip.status).toBe(201);
    const memo = h.ctx.db.$client.query("select memo from dev_wallet_invoices where payment_hash = ?").get(tip.body.payment_hash) as { memo: string };
    expect(memo.memo).toEndWith(`Hive Nine tip for @${u.username}`);
  });

  test("the default name and an emptied description fall back to the built-in ones", async () => {
    const h = setup(OPTIONS);
    const admin = await signedIn(h, true);
    await admin.b.get("/admin/settings");
    await admin.b.post("/admin/settings", SETTINGS);
    await admin.b.get("/admin/settings");
    expect((await admin.b.post("/admin/settings", { name: DEFAULT_NAME, description: "", rules: "", registration: "invite" })).status).toBe(303);
    const s = settingsOf(h.ctx);
    expect(s.set).toEqual({ name: false, description: false, rules: false, registration: true });
    expect((await new Browser(h).get("/about")).text).not.toContain('id="about-rules"');
  });
});

describe("another process of the same instance", () => {
  const dir = mkdtempSync(join(tmpdir(), "colony-instance-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("sees a save on its next request, and drops the pages it kept for anonymous readers", async () => {
    const config = { ...loadConfig({ COLONY_LOG_LEVEL: "silent", COLONY_DATA_DIR: dir }), publicUrl: "http://localhost", rateLimitMultiplier: 0 };
    const clock = new TestClock();
    const one = createContext({ config, clock });
    const two = createContext({ config, clock, role: "worker", worker: 2 });
    const appOne = createApp(one);
    const appTwo = createApp(two);
    // A worker follows the others' commits (server.ts), and looks before each request (serve-options.ts).
    two.events.follow({ live: false, intervalMs: 60_000 });
    const askTwo = async (path: string) => {
      two.events.sync();
      return (await appTwo.handle(new Request(`http://localhost${path}`))).text();
    };
    try {
      expect(await askTwo("/about")).toContain("About Colony");
      const admin = one.db.transaction((tx) => users.createAccount(one, tx, { username: "far-admin", displayName: "far-admin", isAdmin: true, apiKeyHash: "x" }));
      const { saveSettings } = await import("../features/instance/service");
      saveSettings(one, { id: admin.id, isAdmin: true } as never, { ...SETTINGS, name: "Elsewhere Hive" });
      // The save's group commit lands (db/client.ts), as its answer waits for it (serve-options.ts).
      await groupSettling(one.db);
      expect(await askTwo("/about")).toContain("About Elsewhere Hive");
      expect(await askTwo("/")).toContain("<title>Elsewhere Hive</title>");
      void appOne;
    } finally {
      two.events.unfollow();
      two.db.$client.close();
      one.db.$client.close();
    }
  });
});

describe("the first run", () => {
  test("/setup answers a loopback browser only (none here: no socket), /setup/<token> the link's holder; both make the first admin, then are gone", async () => {
    // The anonymous page cache on: the front page's note must not outlive the setup.
    const h = setup({ rateLimitMultiplier: 0 });
    const anonymous = new Browser(h);
    expect((await anonymous.get("/")).text).not.toContain("This instance is being set up");
    const token = prepareFirstRun(h.ctx)!;
    expect(token).toMatch(/^[0-9A-Za-z]{32}$/);
    // While it waits, the front page says how an operator sets it up.
    expect((await anonymous.get("/")).text).toContain("This instance is being set up");
    expect((await anonymous.get("/")).text).toContain("This instance is being set up");
    const b = new Browser(h);
    // A request that came through no socket is not this machine's browser.
    expect((await b.get("/setup")).status).toBe(404);
    expect((await b.get(`/setup/${"x".repeat(32)}`)).status).toBe(404);
    const page = await b.get(`/setup/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Set up this instance");
    // Refusals show the form again and make nothing.
    const weak = await b.post(`/setup/${token}`, { username: "first-admin", password: "short" });
    expect(weak.status).toBe(422);
    expect(weak.text).toContain('value="first-admin"');
    expect((await b.post(`/setup/${token}`, { username: "first-admin", password: PASSWORD }, { csrf: null })).status).toBe(403);
    expect(users.hasActiveAdmin(h.ctx)).toBe(false);

    const made = await b.post(`/setup/${token}`, { username: "first-admin", display_name: "First Admin", password: PASSWORD });
    expect(made.status).toBe(303);
    expect(made.location).toBe("/admin/settings?notice=welcome");
    const settings = await b.get(made.location!);
    expect(settings.status).toBe(200);
    expect(signedInAs(settings.text)).toBe("first-admin");
    expect(settings.text).toContain("first administrator");
    const row = users.findByUsername(h.ctx, "first-admin")!;
    expect(row.isAdmin).toBe(true);
    expect(row.userType).toBe("human");

    // The link is dead and the page gone, for everyone.
    const other = new Browser(h);
    expect((await other.get(`/setup/${token}`)).status).toBe(404);
    await other.get("/login");
    expect((await other.post(`/setup/${token}`, { username: "second-admin", password: PASSWORD })).status).toBe(404);
    expect(prepareFirstRun(h.ctx)).toBeNull();
    expect((await anonymous.get("/")).text).not.toContain("This instance is being set up");

    // The front page tells the admin of an instance without posts where the admin page is.
    const home = await b.get("/");
    expect(home.text).toContain("Setting up this instance");
    expect(home.text).toContain('href="/admin/settings"');
    expect((await other.get("/")).text).not.toContain("Setting up this instance");
  });

  test("an instance with an administrator prints no link and serves no setup page", async () => {
    const h = setup(OPTIONS);
    await h.user({ admin: true });
    expect(prepareFirstRun(h.ctx)).toBeNull();
    expect((await new Browser(h).get("/setup")).status).toBe(404);
  });
});
