// The operator dashboard (/admin) and a person's agents (/operator): every page and form as an
// anonymous visitor, as someone not allowed, and as the site admin or operator; refusals change
// nothing.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Browser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup as setupHarness, type Harness, type TestUser } from "../../test/harness";
import type { Config } from "../config";
import { verifyKey } from "../features/auth/service";
import { api as claimsApi, operated } from "../features/claims/fixtures";
import { PASSWORD, human } from "../features/sessions/fixtures";
import * as users from "../features/users/service";
import { manualBackupState } from "../ops/manual-backup";

/** Every harness here gets a backup folder of its own: nothing is written beside the sources. */
const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});
function setup(overrides: Partial<Config> = {}, opts: { readers?: number } = {}): Harness {
  const backupDir = mkdtempSync(join(tmpdir(), "colony-ops-backups-"));
  folders.push(backupDir);
  return setupHarness({ backupDir, ...overrides }, opts);
}

// One harness for the file; each test makes its own accounts and claims. Tests that read or count
// what the whole database holds (the dashboard's lists and counters), need another configuration,
// or move the clock a week for the whole site have a harness of their own.
const h = setup();

/** A browser signed in through the form as a new human (a site admin with `admin`). */
async function signedIn(h: Harness, opts: { admin?: boolean } = {}): Promise<{ b: Browser; u: TestUser }> {
  const u = await human(h, { admin: opts.admin });
  const b = new Browser(h);
  await b.get("/login");
  expect((await b.post("/login", { login: u.username, password: PASSWORD })).status).toBe(303);
  await b.get("/settings/account");
  return { b, u };
}

const karmaOf = (h: Harness, id: string) => users.findById(h.ctx, id)!.karma;
const inviteCount = (h: Harness) => (h.ctx.db.$client.query("select count(*) as n from invite_codes").get() as { n: number }).n;
const keyWorks = (h: Harness, key: string) => {
  try {
    verifyKey(h.ctx, key);
    return true;
  } catch {
    return false;
  }
};
const secretOn = (html: string) => /<code class="ops-secret">([^<]+)<\/code>/.exec(html)?.[1] ?? null;

describe("/admin refuses everyone but site admins", () => {
  test("anonymous visitors are sent to sign in; their form posts change nothing", async () => {
    const b = new Browser(h);
    const r = await b.get("/admin");
    expect(r.status).toBe(303);
    expect(r.location).toBe("/login?next=%2Fadmin");
    await b.get("/login");
    const before = dbState(h);
    for (const path of ["/admin/invites", "/admin/backups", "/admin/users/someone/rotate-key"]) {
      const p = await b.post(path, { days: "7" });
      expect(p.status).toBe(303);
      expect(p.location).toBe("/login?next=%2Fadmin");
    }
    expect(dbState(h)).toEqual(before);
    expect(manualBackupState(h.ctx).running).toBeNull();
  });

  test("a signed-in person who is not a site admin gets the 404 page for every page and form, and nothing changes", async () => {
    const { b } = await signedIn(h);
    const target = await h.user();
    const before = dbState(h);
    for (const path of ["/admin", "/admin?user=x", "/admin/backups/colony-2026-01-01T00-00-00-000Z.tar.gz"]) {
      const r = await b.get(path);
      expect(r.status).toBe(404);
      expect(r.text).toContain("Page not found");
    }
    for (const [path, fields] of [
      ["/admin/invites", { days: "7" }],
      ["/admin/backups", {}],
      [`/admin/users/${target.username}/karma`, { amount: "50" }],
      [`/admin/users/${target.username}/rotate-key`, {}],
      ["/admin/bugs/019a0000-0000-7000-8000-000000000000", { status: "closed", response: "no" }],
    ] as const) {
      const r = await b.post(path, fields);
      expect(r.status).toBe(404);
    }
    expect(dbState(h)).toEqual(before);
    expect(keyWorks(h, target.apiKey)).toBe(true);
    expect(manualBackupState(h.ctx).running).toBeNull();
    // The header offers no Admin link to them.
    expect((await b.get("/operator")).text).not.toContain('href="/admin"');
  });
});

describe("/admin for a site admin", () => {
  test("shows health, counters, registration, webhook delivery health, backups and the bug inbox; the header links to it", async () => {
    // A harness of its own: the dashboard shows what the whole database holds.
    const h = setup({ registration: "invite" });
    const { b } = await signedIn(h, { admin: true });
    const r = await b.get("/admin");
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    for (const s of ["<h1>Admin</h1>", 'id="ops-health"', "OK", "Accounts", 'id="ops-users"', "Registration is invite", 'id="ops-webhooks"', "Turned off", 'id="ops-backups"', "No backup files yet.", 'id="ops-bugs"', "No open bug reports."])
      expect(r.text).toContain(s);
    expect(r.text).toContain('<a href="/admin">Admin</a>');
  });

  test("finds an account by username; grants karma (303), refuses a number that is not whole (422) and an unknown account (404)", async () => {
    const { b } = await signedIn(h, { admin: true });
    const target = await h.user({ username: "karma-target" });
    const found = await b.get("/admin?user=Karma-Target");
    expect(found.text).toContain("@karma-target");
    expect(found.text).toContain('action="/admin/users/karma-target/karma"');
    expect((await b.get("/admin?user=nobody-here")).text).toContain("No account is called nobody-here.");

    const ok = await b.post("/admin/users/karma-target/karma", { amount: "25" });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe("/admin?user=karma-target&notice=karma#ops-users");
    expect(karmaOf(h, target.id)).toBe(25);
    expect((await b.get(ok.location!.split("#")[0])).text).toContain("Karma granted.");

    const before = dbState(h);
    const bad = await b.post("/admin/users/karma-target/karma", { amount: "2.5" });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain("must be a whole number");
    expect((await b.post("/admin/users/karma-target/karma", { amount: "0" })).status).toBe(422);
    expect((await b.post("/admin/users/nobody-here/karma", { amount: "5" })).status).toBe(404);
    expect(dbState(h)).toEqual(before);
  });

  test("rotates an account's key: the new key is shown once, the old one stops working; without the CSRF token, 403 and nothing changes", async () => {
    const { b } = await signedIn(h, { admin: true });
    const target = await h.user({ username: "rotated-agent" });
    await b.get("/admin?user=rotated-agent");
    const before = dbState(h);
    const refused = await b.post("/admin/users/rotated-agent/rotate-key", {}, { csrf: null });
    expect(refused.status).toBe(403);
    expect(dbState(h)).toEqual(before);
    expect(keyWorks(h, target.apiKey)).toBe(true);

    const r = await b.post("/admin/users/rotated-agent/rotate-key");
    expect(r.status).toBe(200);
    const key = secretOn(r.text);
    expect(key).toMatch(/^col_/);
    expect(keyWorks(h, key!)).toBe(true);
    expect(keyWorks(h, target.apiKey)).toBe(false);
    expect((await b.get("/admin?user=rotated-agent")).text).not.toContain(key!);
  });

  test("invite codes: made (shown once, and it signs someone up), listed, revoked (303); a used one is not revoked (409)", async () => {
    // A harness of its own: it counts every invite code there is.
    const h = setup({ registration: "invite" });
    const { b } = await signedIn(h, { admin: true });
    const made = await b.post("/admin/invites", { days: "3" });
    expect(made.status).toBe(200);
    const code = secretOn(made.text);
    expect(code).toMatch(/^inv_/);
    expect(made.text).toContain(`/signup?invite=${code}`);
    expect((await b.post("/admin/invites", { days: "91" })).status).toBe(400);
    expect((await b.post("/admin/invites", { days: "soon" })).status).toBe(422);
    expect(inviteCount(h)).toBe(1);

    const list = await b.get("/admin");
    expect(list.text).not.toContain(code!);
    expect(list.text).toContain("<td>unused</td>");
    const id = /action="\/admin\/invites\/([^/]+)\/revoke"/.exec(list.text)![1];

    // A second code is used by a sign-up, then cannot be revoked.
    const second = secretOn((await b.post("/admin/invites", { days: "7" })).text)!;
    const visitor = new Browser(h);
    await visitor.get(`/signup?invite=${second}`);
    expect((await visitor.post("/signup", { username: "invited-person", display_name: "Invited", email: "", invite: second, password: "a long enough secret" })).status).toBe(303);
    const usedId = (h.ctx.db.$client.query("select id from invite_codes where used_at is not null").get() as { id: string }).id;
    await b.get("/admin");
    expect(b.last!.text).toContain("used by @invited-person");
    const before = dbState(h);
    expect((await b.post(`/admin/invites/${usedId}/revoke`)).status).toBe(409);
    expect((await b.post("/admin/invites/019a0000-0000-7000-8000-000000000000/revoke")).status).toBe(404);
    expect(dbState(h)).toEqual(before);

    const revoked = await b.post(`/admin/invites/${id}/revoke`);
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe("/admin?notice=invite-revoked#ops-invites");
    expect(inviteCount(h)).toBe(1);
    const late = new Browser(h);
    await late.get("/signup");
    expect((await late.post("/signup", { username: "too-late", display_name: "Late", email: "", invite: code!, password: "a long enough secret" })).status).toBe(403);
  });

  test("the bug inbox lists reports with their reporter and saves an answer (303); a bad status is 422 and changes nothing", async () => {
    // A harness of its own: it reads the whole inbox.
    const h = setup();
    const reporter = await h.user({ username: "bug-finder" });
    const filed = await h.req("POST", "/api/v1/bugs", { token: reporter.token, body: { title: "Search <b>breaks</b>", description: "Searching for a quote mark fails every time." } });
    expect(filed.status).toBe(201);
    const { b } = await signedIn(h, { admin: true });
    const inbox = await b.get("/admin");
    expect(inbox.text).toContain("Search &lt;b&gt;breaks&lt;/b&gt;");
    expect(inbox.text).toContain("from @bug-finder");
    const before = dbState(h);
    expect((await b.post(`/admin/bugs/${filed.body.id}`, { status: "gone", response: "x" })).status).toBe(422);
    expect(dbState(h)).toEqual(before);
    const r = await b.post(`/admin/bugs/${filed.body.id}`, { status: "acknowledged", response: "Thanks, we see it." });
    expect(r.status).toBe(303);
    const mine = await h.req("GET", "/api/v1/bugs", { token: reporter.token });
    expect(JSON.stringify(mine.body)).toContain("Thanks, we see it.");
    expect((await b.get("/admin")).text).toContain("No open bug reports.");
    expect((await b.get("/admin?bugs=acknowledged")).text).toContain("Thanks, we see it.");
  });

  test("backup files: listed newest first and downloaded by name; work files are not listed, and any other name is the 404 page", async () => {
    const dir = mkdtempSync(join(tmpdir(), "colony-ops-backups-"));
    try {
      const h = setup({ backupDir: dir, dataDir: join(dir, "data") });
      mkdirSync(join(dir, "data"));
      writeFileSync(join(dir, "data", "colony.db"), "not for download");
      writeFileSync(join(dir, "colony-2026-01-01T00-00-00-000Z.tar.gz"), "archive bytes");
      writeFileSync(join(dir, ".colony-2026-01-02T00-00-00-000Z.tar.gz.partial-x"), "work");
      const { b } = await signedIn(h, { admin: true });
      const page = await b.get("/admin");
      expect(page.text).toContain('href="/admin/backups/colony-2026-01-01T00-00-00-000Z.tar.gz"');
      expect(page.text).not.toContain("partial");
      const file = await b.get("/admin/backups/colony-2026-01-01T00-00-00-000Z.tar.gz");
      expect(file.status).toBe(200);
      expect(file.text).toBe("archive bytes");
      expect(file.headers.get("content-disposition")).toBe('attachment; filename="colony-2026-01-01T00-00-00-000Z.tar.gz"');
      for (const name of [".colony-2026-01-02T00-00-00-000Z.tar.gz.partial-x", "..%2Fdata%2Fcolony.db", "..%2F..%2Fetc%2Fpasswd", "nothing.tar.gz"]) expect((await b.get(`/admin/backups/${name}`)).status).toBe(404);
      // A person who is not an admin cannot download one either.
      const { b: other } = await signedIn(h);
      expect((await other.get("/admin/backups/colony-2026-01-01T00-00-00-000Z.tar.gz")).status).toBe(404);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("Back up now writes an archive off the request (303 at once), then lists it; a second press while it runs starts nothing", async () => {
    const h = setup({}, { readers: 1 });
    try {
      const { b } = await signedIn(h, { admin: true });
      const r = await b.post("/admin/backups");
      expect(r.status).toBe(303);
      expect(r.location).toBe("/admin?notice=backup-started#ops-backups");
      const running = manualBackupState(h.ctx).running;
      expect(running).not.toBeNull();
      expect((await b.post("/admin/backups")).location).toBe("/admin?notice=backup-running#ops-backups");
      expect((await b.get("/admin")).text).toContain("A backup is being written now.");
      await running;
      expect(manualBackupState(h.ctx).stats.lastError).toBeNull();
      const page = await b.get("/admin");
      const name = /href="\/admin\/backups\/(colony-[^"]+\.tar\.gz)"/.exec(page.text)?.[1];
      expect(name).toBeDefined();
      const file = await b.request("GET", `/admin/backups/${name}`);
      expect(file.status).toBe(200);
    } finally {
      await h.close();
    }
  }, 30_000);
});

describe("/operator", () => {
  test("anonymous visitors are sent to sign in; their posts change nothing", async () => {
    const b = new Browser(h);
    expect((await b.get("/operator")).location).toBe("/login?next=%2Foperator");
    expect((await b.get("/operator/claims/019a0000-0000-7000-8000-000000000000")).location).toBe("/login?next=%2Foperator%2Fclaims%2F019a0000-0000-7000-8000-000000000000");
    await b.get("/login");
    const before = dbState(h);
    expect((await b.post("/operator/claims", { agent: "someone" })).status).toBe(303);
    expect(dbState(h)).toEqual(before);
  });

  test("a person claims an agent (303), sees it pending, withdraws it (303); refusals show the service's words and change nothing", async () => {
    const agent = await h.user({ username: "claimable-agent" });
    const otherHuman = await h.user({ username: "a-person", human: true });
    const { b } = await signedIn(h);
    expect((await b.get("/operator")).text).toContain("You operate no agents yet.");
    const r = await b.post("/operator/claims", { agent: "@claimable-agent" });
    expect(r.status).toBe(303);
    expect(r.location).toBe("/operator?notice=claimed");
    const list = await b.get(r.location!);
    expect(list.text).toContain("@claimable-agent: waiting for the agent to confirm");
    expect(list.text).toContain("Claim made.");
    const claimId = /action="\/operator\/claims\/([^/]+)\/withdraw"/.exec(list.text)![1];
    const { b: stranger } = await signedIn(h);
    await b.get("/operator");

    const before = dbState(h);
    const twice = await b.post("/operator/claims", { agent: "claimable-agent" });
    expect(twice.status).toBe(409);
    expect(twice.text).toContain("You already have a pending claim on @claimable-agent");
    expect(twice.text).toContain('value="claimable-agent"');
    expect((await b.post("/operator/claims", { agent: "a-person" })).status).toBe(400);
    expect((await b.post("/operator/claims", { agent: "no-such-agent" })).status).toBe(404);
    expect((await b.post("/operator/claims", { agent: "claimable-agent" }, { csrf: null })).status).toBe(403);
    // Another person cannot withdraw it.
    expect((await stranger.post(`/operator/claims/${claimId}/withdraw`)).status).toBe(404);
    expect(dbState(h)).toEqual(before);
    expect(otherHuman.id).toBeTruthy();

    const w = await b.post(`/operator/claims/${claimId}/withdraw`);
    expect(w.status).toBe(303);
    expect((await b.get("/operator")).text).toContain("@claimable-agent: withdrawn");
    expect((await b.post(`/operator/claims/${claimId}/withdraw`)).status).toBe(409);
  });

  test("an expired claim reads as expired once the clock passes 7 days", async () => {
    await h.user({ username: "slow-agent" });
    const { b } = await signedIn(h);
    await b.post("/operator/claims", { agent: "slow-agent" });
    h.clock.advance(7 * 24 * 3600_000 + 1);
    const page = await b.get("/operator");
    expect(page.text).toContain("@slow-agent: expired unanswered");
    expect(page.text).not.toContain("/withdraw");
  });

  test("a confirmed agent's page: recent posts and comments, allowed IPs saved (303) or refused (400, the list kept), a new key shown once", async () => {
    const agent = await h.user({ username: "operated-agent" });
    const { b, u } = await signedIn(h);
    const me = { ...u };
    const claim = await operated(h, me, agent);
    const post = await h.req("POST", "/api/v1/posts", { token: agent.token, body: { colony: "general", post_type: "discussion", title: "An agent's <first> post", body: "Hello from the agent, at length." } });
    expect(post.status).toBe(201);
    const comment = await h.req("POST", `/api/v1/posts/${post.body.id}/comments`, { token: agent.token, body: { body: "A comment of the agent." } });
    expect(comment.status).toBe(201);

    const list = await b.get("/operator");
    expect(list.text).toContain(`href="/operator/claims/${claim.id}"`);
    const page = await b.get(`/operator/claims/${claim.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Operating @operated-agent");
    expect(page.text).toContain("An agent&#x27;s &lt;first&gt; post");
    expect(page.text).toContain("A comment of the agent.");

    const saved = await b.post(`/operator/claims/${claim.id}/allowed-ips`, { ips: "203.0.113.7\n2001:db8::/32" });
    expect(saved.status).toBe(303);
    expect(users.findById(h.ctx, agent.id)!.allowedIps).toContain("203.0.113.7");
    expect((await b.get(saved.location!)).text).toContain("Allowed addresses saved.");

    const before = dbState(h);
    const bad = await b.post(`/operator/claims/${claim.id}/allowed-ips`, { ips: "203.0.113.7\nnot-an-address" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("not-an-address");
    expect(dbState(h)).toEqual(before);

    const rotated = await b.post(`/operator/claims/${claim.id}/rotate-key`);
    expect(rotated.status).toBe(200);
    const key = secretOn(rotated.text)!;
    expect(keyWorks(h, key)).toBe(true);
    expect(keyWorks(h, agent.apiKey)).toBe(false);
    expect((await b.get(`/operator/claims/${claim.id}`)).text).not.toContain(key);
  });

  test("a claim that is not the viewer's confirmed claim is the 404 page, and its forms change nothing", async () => {
    const agent = await h.user({ username: "guarded-agent" });
    const operator = await human(h);
    const claim = await operated(h, operator, agent);
    const { b } = await signedIn(h);
    const before = dbState(h);
    expect((await b.get(`/operator/claims/${claim.id}`)).status).toBe(404);
    expect((await b.get("/operator/claims/not-an-id")).status).toBe(404);
    expect((await b.post(`/operator/claims/${claim.id}/rotate-key`)).status).toBe(404);
    expect((await b.post(`/operator/claims/${claim.id}/allowed-ips`, { ips: "203.0.113.7" })).status).toBe(404);
    expect(dbState(h)).toEqual(before);
    expect(keyWorks(h, agent.apiKey)).toBe(true);
    // The operator's own pending-only claim has no page either.
    const pending = await claimsApi(h).create(operator, (await h.user()).username);
    const { b: theirs } = await signedIn(h);
    expect((await theirs.get(`/operator/claims/${pending.body.id}`)).status).toBe(404);
  });
});

describe("form posts from this site's own pages in Chromium", () => {
  test("Origin: null with Sec-Fetch-Site: same-origin (no-referrer pages) is this site's; null alone is refused and changes nothing", async () => {
    await h.user({ username: "null-origin-agent" });
    const { b } = await signedIn(h);
    await b.get("/operator");
    const before = dbState(h);
    expect((await b.post("/operator/claims", { agent: "null-origin-agent" }, { headers: { origin: "null" } })).status).toBe(403);
    expect((await b.post("/operator/claims", { agent: "null-origin-agent" }, { headers: { origin: "null", "sec-fetch-site": "cross-site" } })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
    expect((await b.post("/operator/claims", { agent: "null-origin-agent" }, { headers: { origin: "null", "sec-fetch-site": "same-origin" } })).status).toBe(303);
  });
});

describe("the services the dashboard added", () => {
  test("listInvites and revokeInvite refuse anyone but a site admin (403)", async () => {
    const { listInvites, revokeInvite, createInvite } = await import("../features/sessions/invites");
    const { callerOf } = await import("../features/auth/caller");
    // A harness of its own: it lists every invite code, and moves the clock a week.
    const h = setup();
    const admin = callerOf(users.findById(h.ctx, (await h.user({ human: true, admin: true })).id)!);
    const person = callerOf(users.findById(h.ctx, (await h.user({ human: true })).id)!);
    const made = createInvite(h.ctx, admin, 7);
    expect(() => listInvites(h.ctx, person)).toThrow("Only site admins");
    expect(() => revokeInvite(h.ctx, person, made.id)).toThrow("Only site admins");
    expect(listInvites(h.ctx, admin).map((i) => [i.id, i.state])).toEqual([[made.id, "unused"]]);
    h.clock.advance(7 * 24 * 3600_000);
    expect(listInvites(h.ctx, admin)[0].state).toBe("expired");
  });

  test("deliveryHealth counts webhooks turned off and failing, and the last day's deliveries by outcome", async () => {
    const { deliveryHealth } = await import("../features/webhooks/service");
    // A harness of its own: it counts every webhook and delivery there is.
    const h = setup();
    const u = await h.user();
    const now = h.clock.now();
    const hook = h.ctx.db.$client.query("insert into webhooks (id, user_id, url, secret_enc, events, is_active, failure_count, created_at, updated_at) values (?, ?, ?, 'x', '[]', ?, ?, ?, ?)");
    hook.run("019a0000-0000-7000-8000-000000000001", u.id, "https://a.example/h", 1, 0, now, now);
    hook.run("019a0000-0000-7000-8000-000000000002", u.id, "https://b.example/h", 1, 3, now, now);
    hook.run("019a0000-0000-7000-8000-000000000003", u.id, "https://c.example/h", 0, 10, now, now);
    const delivery = h.ctx.db.$client.query("insert into webhook_deliveries (id, webhook_id, user_id, event, event_id, body, status, created_at) values (?, '019a0000-0000-7000-8000-000000000002', ?, 'post_created', ?, '{}', ?, ?)");
    delivery.run("019a0000-0000-7000-8000-000000000011", u.id, "e1", "failed", now - 2 * 24 * 3600_000);
    delivery.run("019a0000-0000-7000-8000-000000000012", u.id, "e2", "failed", now - 3600_000);
    delivery.run("019a0000-0000-7000-8000-000000000013", u.id, "e3", "succeeded", now - 60_000);
    delivery.run("019a0000-0000-7000-8000-000000000014", u.id, "e4", "pending", now);
    expect(deliveryHealth(h.ctx, now - 24 * 3600_000)).toEqual({ webhooks: 3, inactive: 1, failing: 1, pending: 1, failedSince: 1, succeededSince: 1 });
    const { b } = await signedIn(h, { admin: true });
    expect((await b.get("/admin")).text).toContain("<dt>Turned off</dt><dd>1</dd>");
  });
});
