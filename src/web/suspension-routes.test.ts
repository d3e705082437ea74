// Suspension on the web (docs/decisions.md §148, §173-§176): the dashboard's suspend and lift
// forms (site admins only, CSRF-checked, 303, the state shown), a suspended person's sessions
// ending and sign-in refused with the reason, the profile page saying so, and the timed end.
import { describe, expect, test } from "bun:test";
import { Browser, signedInAs, signedInBrowser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type Harness } from "../../test/harness";
import { DAY } from "../core/clock";
import { PASSWORD, human } from "../features/sessions/fixtures";
import { operatorSignInLink } from "../features/sessions/links";
import * as users from "../features/users/service";
import { isSuspended, suspend, unsuspend } from "../features/users/suspension";

// One harness for the file; each test makes its own accounts (after any move of the clock, so
// their tokens are good).
const h = setup();

const suspended = (h: Harness, id: string) => isSuspended(users.findById(h.ctx, id)!, h.clock.now());
const sessionsOf = (h: Harness, id: string) => (h.ctx.db.$client.query("select count(*) as n from web_sessions where user_id = ?").get(id) as { n: number }).n;

async function admin(h: Harness): Promise<Browser> {
  const a = await human(h, { admin: true });
  const b = await signedInBrowser(h, a.username);
  await b.get("/admin");
  return b;
}

describe("the dashboard's suspension forms", () => {
  test("anonymous visitors are sent to sign in and people who are not site admins get the 404 page; nothing changes", async () => {
    const target = await h.user({ username: "some-agent" });
    const anon = new Browser(h);
    await anon.get("/login");
    const plain = await signedInBrowser(h, (await human(h)).username);
    await plain.get("/settings/account");
    const before = dbState(h);
    for (const path of ["/admin/users/some-agent/suspend", "/admin/users/some-agent/unsuspend"]) {
      const a = await anon.post(path, { reason: "x" });
      expect([a.status, a.location]).toEqual([303, "/login?next=%2Fadmin"]);
      const p = await plain.post(path, { reason: "x" });
      expect(p.status).toBe(404);
      expect(p.text).toContain("Page not found");
    }
    expect(dbState(h)).toEqual(before);
    expect(suspended(h, target.id)).toBe(false);
  });

  test("without the CSRF token, or from another site: 403 and nothing changes", async () => {
    const b = await admin(h);
    const target = await h.user({ username: "csrf-target" });
    await b.get("/admin?user=csrf-target");
    const before = dbState(h);
    expect((await b.post("/admin/users/csrf-target/suspend", { reason: "x" }, { csrf: null })).status).toBe(403);
    expect((await b.post("/admin/users/csrf-target/suspend", { reason: "x" }, { csrf: "A".repeat(43) })).status).toBe(403);
    expect((await b.post("/admin/users/csrf-target/suspend", { reason: "x" }, { headers: { "sec-fetch-site": "cross-site" } })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
    expect(suspended(h, target.id)).toBe(false);
  });

  test("suspends for some days with a reason (303), shows it, refuses a lift without CSRF, then lifts it (303)", async () => {
    const b = await admin(h);
    const target = await h.user({ username: "spammy-agent" });
    const found = await b.get("/admin?user=spammy-agent");
    expect(found.text).toContain('action="/admin/users/spammy-agent/suspend"');
    expect(found.text).not.toContain("not available");

    const r = await b.post("/admin/users/spammy-agent/suspend", { reason: "Posting <b>spam</b>", days: "7" });
    expect([r.status, r.location]).toEqual([303, "/admin?user=spammy-agent&notice=suspended#ops-users"]);
    const row = users.findById(h.ctx, target.id)!;
    expect(row.suspendedUntil).toBe(h.clock.now() + 7 * DAY);
    expect(row.suspensionReason).toBe("Posting <b>spam</b>");
    const shown = await b.get(r.location!.split("#")[0]);
    expect(shown.text).toContain("The account is suspended");
    expect(shown.text).toContain("<strong>Suspended</strong>");
    expect(shown.text).toContain("Reason: Posting &lt;b&gt;spam&lt;/b&gt;");
    expect(shown.text).toContain('action="/admin/users/spammy-agent/unsuspend"');
    expect((await h.req("GET", "/api/v1/users/me", { token: target.token })).body.detail.code).toBe("ACCOUNT_SUSPENDED");

    const before = dbState(h);
    expect((await b.post("/admin/users/spammy-agent/unsuspend", {}, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);

    const lifted = await b.post("/admin/users/spammy-agent/unsuspend");
    expect([lifted.status, lifted.location]).toEqual([303, "/admin?user=spammy-agent&notice=unsuspended#ops-users"]);
    expect(suspended(h, target.id)).toBe(false);
    expect((await b.get(lifted.location!.split("#")[0])).text).toContain("The suspension is lifted.");
  });

  test("an empty days field suspends until lifted", async () => {
    const b = await admin(h);
    const target = await h.user({ username: "open-ended" });
    await b.get("/admin?user=open-ended");
    expect((await b.post("/admin/users/open-ended/suspend", { reason: "", days: "" })).status).toBe(303);
    const row = users.findById(h.ctx, target.id)!;
    expect([row.suspendedUntil, row.suspensionReason]).toEqual([null, null]);
    expect((await b.get("/admin?user=open-ended")).text).toContain("until lifted");
  });

  test("refusals show the dashboard with the status and change nothing: bad days, a long reason, a site admin, oneself, an unknown account, lifting what is not suspended", async () => {
    const b = await admin(h);
    await h.user({ username: "target-agent" });
    await h.user({ username: "other-admin", admin: true });
    await b.get("/admin?user=target-agent");
    const me = signedInAs((await b.get("/admin")).text)!;
    const cases: [string, Record<string, string>, number, string][] = [
      ["/admin/users/target-agent/suspend", { days: "1.5" }, 422, "must be a whole number"],
      ["/admin/users/target-agent/suspend", { days: "0" }, 422, "from 1 to 3650"],
      ["/admin/users/target-agent/suspend", { days: "99999" }, 422, "from 1 to 3650"],
      ["/admin/users/target-agent/suspend", { reason: "x".repeat(501) }, 422, "at most 500"],
      ["/admin/users/other-admin/suspend", {}, 403, "cannot suspend one another"],
      [`/admin/users/${me}/suspend`, {}, 403, "your own account"],
      ["/admin/users/nobody-here/suspend", {}, 404, "User not found"],
      ["/admin/users/target-agent/unsuspend", {}, 409, "is not suspended"],
    ];
    // A site admin suspended by the command line is shown so, and lifted there only.
    suspend(h.ctx, null, users.findByUsername(h.ctx, "other-admin")!.id);
    const shown = await b.get("/admin?user=other-admin");
    expect(shown.text).toContain("<strong>Suspended</strong>");
    expect(shown.text).not.toContain('action="/admin/users/other-admin/unsuspend"');
    cases.push(["/admin/users/other-admin/unsuspend", {}, 403, "cannot unsuspend one another"]);
    const before = dbState(h);
    for (const [path, fields, status, says] of cases) {
      const r = await b.post(path, fields);
      expect([path, r.status]).toEqual([path, status]);
      expect(r.text).toContain(says);
    }
    expect(dbState(h)).toEqual(before);
  });
});

describe("a suspended person on the web", () => {
  test("their open sessions end at once (and their rows go after commit); signing in is refused with the reason", async () => {
    const person = await human(h, { username: "held-person" });
    const b = await signedInBrowser(h, person.username);
    expect(signedInAs((await b.get("/settings/account")).text)).toBe("held-person");
    suspend(h.ctx, null, person.id, { reason: "harassment", days: 2 });
    const after = await b.get("/settings/account");
    expect([after.status, after.location]).toEqual([303, "/login?next=%2Fsettings%2Faccount"]);
    await h.ctx.events.drain();
    expect(sessionsOf(h, person.id)).toBe(0);

    const again = new Browser(h);
    await again.get("/login");
    const refused = await again.post("/login", { login: person.username, password: PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("This account is suspended until");
    expect(refused.text).toContain("Reason: harassment");
    expect(refused.setCookies.some((c) => c.includes("colony_session="))).toBe(false);
    expect(sessionsOf(h, person.id)).toBe(0);
    // A wrong password still reads as any failure: the suspension is told only to whoever knows it.
    const wrong = await again.post("/login", { login: person.username, password: "not the password at all" });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain("suspended");
  });

  test("the operator's sign-in link is refused and not spent; it works once the suspension is lifted", async () => {
    const person = await human(h, { username: "linked-person" });
    suspend(h.ctx, null, person.id, { days: 1 });
    const link = new URL(operatorSignInLink(h.ctx, person.username).link).pathname;
    const b = new Browser(h);
    await b.get(link);
    const refused = await b.post(link);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("Account suspended");
    h.clock.advance(60_000);
    unsuspend(h.ctx, null, person.id);
    const ok = await b.post(link);
    expect(ok.status).toBe(303);
    expect(signedInAs((await b.get("/settings/account")).text)).toBe("linked-person");
  });

  test("a timed suspension ends by itself: the password signs in again once the clock passes its end", async () => {
    const person = await human(h, { username: "timed-person" });
    suspend(h.ctx, null, person.id, { days: 3 });
    const b = new Browser(h);
    await b.get("/login");
    h.clock.advance(3 * DAY - 1);
    expect((await b.post("/login", { login: person.username, password: PASSWORD })).status).toBe(403);
    h.clock.advance(1);
    expect((await b.post("/login", { login: person.username, password: PASSWORD })).status).toBe(303);
    expect(signedInAs((await b.get("/settings/account")).text)).toBe("timed-person");
  });

  test("their profile page says the account is suspended; it stops saying so when it ends", async () => {
    const agent = await h.user({ username: "quiet-agent" });
    const b = new Browser(h);
    expect((await b.get("/u/quiet-agent")).text).not.toContain("This account is suspended");
    suspend(h.ctx, null, agent.id, { days: 1, reason: "secret reason" });
    await h.ctx.events.drain();
    const page = await b.get("/u/quiet-agent");
    expect(page.status).toBe(200);
    expect(page.text).toContain("This account is suspended");
    expect(page.text).not.toContain("secret reason");
    h.clock.advance(DAY);
    expect((await b.get("/u/quiet-agent")).text).not.toContain("This account is suspended");
  });
});
