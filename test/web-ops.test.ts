// The operator dashboard and a person's agents in a real browser: the server (what `colony serve`
// starts, in the test process) on a temporary data folder at 127.0.0.1, site admins and people made
// with `colony admin create-user` and signed in through their one-time links before the tests, in
// Debian's Chromium (headless).
//   - The journey: the admin runs a backup from the dashboard and sees it listed; the person
//     claims an agent, the agent confirms over the API, and the person gives it a new key; the
//     admin suspends an agent (its token is refused) and lifts the suspension.
//   - axe-core on /admin, /operator and an agent's page (of an operator whose claim was made and
//     confirmed before the tests), light at a desktop's width and dark at a phone's: no violation of serious or
//     critical impact, nothing loaded from another host, no CSP error.
// Skipped only where Chromium is not installed (test/chromium.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext } from "playwright-core";
import { BROWSER_HOOK_TIMEOUT, apiClient, everyWayProblems, hasChromium, launchChromium, submitForm, tearDown } from "./chromium";
import { colonyWith } from "./cli";
import { serveEnv, serveInProcess, type InProcessServer } from "./serve";

describe("operator dashboard and agents' operators in headless Chromium", () => {
  let browser: Browser | undefined;
  let server: InProcessServer | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-ops-"));
  /** Each account's session cookies, signed in through its one-time link before the tests. */
  const cookies: Record<string, Awaited<ReturnType<BrowserContext["cookies"]>>> = {};
  /** The page of the agent the operator claimed before the tests. */
  let claimPage = "";

  /** `colony admin create-user` before the server starts; returns the path of its sign-in link. */
  async function createHuman(username: string, admin: boolean): Promise<string> {
    const r = await colonyWith(serveEnv(dataDir), "admin", "create-user", username, "--human", ...(admin ? ["--admin"] : []));
    const m = /sign-in link: (\S+)/.exec(r.out);
    if (!m) throw new Error(`create-user ${username}: ${r.out}${r.err}`);
    return new URL(m[1]).pathname;
  }

  const api = apiClient(() => server!.url);

  /** Signs in through the one-time link `path` and returns the session's cookies. */
  async function signInThrough(path: string): Promise<Awaited<ReturnType<BrowserContext["cookies"]>>> {
    const context = await browser!.newContext();
    const page = await context.newPage();
    await page.goto(`${server!.url}${path}`);
    await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Sign in" }).click()]);
    if (new URL(page.url()).pathname.startsWith("/login")) throw new Error(`${path} did not sign in: ${page.url()} ${await page.locator("main").textContent()}`);
    const jar = await context.cookies();
    await context.close();
    return jar;
  }

  /** A browser context signed in as `name`. */
  async function signedIn(name: string): Promise<BrowserContext> {
    const context = await browser!.newContext();
    await context.addCookies(cookies[name]);
    return context;
  }

  beforeAll(async () => {
    if (!hasChromium) return;
    const links = {
      admin: await createHuman("ops-admin", true),
      person: await createHuman("ops-person", false),
      axe: await createHuman("ops-axe", true),
      operator: await createHuman("ops-operator", false),
    };
    // Something in every section of the dashboard for axe to check: an invite code, a bug report.
    expect((await colonyWith(serveEnv(dataDir), "admin", "invite")).code).toBe(0);
    server = await serveInProcess(dataDir);
    const reporter = await api("POST", "/api/v1/auth/register", null, { username: "ops-reporter", display_name: "Reporter" });
    const reporterToken = (await api("POST", "/api/v1/auth/token", null, { api_key: reporter.api_key })).access_token as string;
    await api("POST", "/api/v1/bugs", reporterToken, { title: "The feed skips a post", description: "Between two pages one post never shows up." });
    browser = await launchChromium();
    for (const [name, link] of Object.entries(links)) cookies[name] = await signInThrough(link);

    // The operator's confirmed claim of an agent, for the axe check of an agent's page.
    const reg = await api("POST", "/api/v1/auth/register", null, { username: "ops-operated", display_name: "Operated Agent" });
    const agentToken = (await api("POST", "/api/v1/auth/token", null, { api_key: reg.api_key })).access_token as string;
    await api("POST", "/api/v1/posts", agentToken, { colony: "general", post_type: "discussion", title: "What the operated agent did", body: "A day of work, in some detail." });
    await submitForm(browser, server.url, cookies.operator, "/operator", "/operator/claims", { agent: "ops-operated" });
    const claims = await api("GET", "/api/v1/claims", agentToken);
    const claim = (Array.isArray(claims) ? claims : claims.items)[0];
    await api("POST", `/api/v1/claims/${claim.id}/confirm`, agentToken);
    claimPage = `/operator/claims/${claim.id}`;
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(() => tearDown(browser, server, dataDir));

  test.skipIf(!hasChromium)("an admin signs in, runs a backup from the dashboard and sees it listed (skipped without Chromium)", async () => {
    const context = await signedIn("admin");
    const page = await context.newPage();
    await page.goto(`${server!.url}/`);
    await page.getByRole("link", { name: "Admin", exact: true }).click();
    expect(await page.getByRole("heading", { level: 1, name: "Admin" }).count()).toBe(1);
    expect(await page.getByText("No backup files yet.").count()).toBe(1);
    await page.getByRole("button", { name: "Back up now" }).click();
    await page.waitForURL((u) => u.pathname === "/admin" && u.searchParams.get("notice") === "backup-started");
    // Written on a worker thread: reload until it is listed.
    const link = page.locator('a[href^="/admin/backups/colony-"]');
    for (let i = 0; i < 100 && (await link.count()) === 0; i++) {
      await Bun.sleep(100);
      await page.reload();
    }
    expect(await link.count()).toBe(1);
    const name = (await link.textContent())!;
    expect(readdirSync(join(dataDir, "backups"))).toContain(name);
    const download = await page.request.get(`${server!.url}/admin/backups/${name}`);
    expect(download.status()).toBe(200);
    expect((await download.body()).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    await context.close();
  }, 60_000);

  test.skipIf(!hasChromium)("a person claims an agent; the agent confirms over the API; the person gives it a new key (skipped without Chromium)", async () => {
    const reg = await api("POST", "/api/v1/auth/register", null, { username: "ops-agent", display_name: "Ops Agent" });
    const agentToken = (await api("POST", "/api/v1/auth/token", null, { api_key: reg.api_key })).access_token as string;
    await api("POST", "/api/v1/posts", agentToken, { colony: "general", post_type: "discussion", title: "Notes from the operated agent", body: "What I did today, in some detail." });

    const context = await signedIn("person");
    const page = await context.newPage();
    await page.goto(`${server!.url}/`);
    await page.getByRole("link", { name: "Your agents" }).click();
    await page.getByLabel("Agent's username").fill("ops-agent");
    await page.getByRole("button", { name: "Claim" }).click();
    await page.waitForURL((u) => u.searchParams.get("notice") === "claimed");
    expect(await page.getByText("@ops-agent: waiting for the agent to confirm").count()).toBe(1);

    const claims = await api("GET", "/api/v1/claims", agentToken);
    const claim = (Array.isArray(claims) ? claims : claims.items)[0];
    await api("POST", `/api/v1/claims/${claim.id}/confirm`, agentToken);

    await page.reload();
    await page.getByRole("link", { name: "@ops-agent" }).click();
    expect(new URL(page.url()).pathname).toBe(`/operator/claims/${claim.id}`);
    expect(await page.getByRole("heading", { level: 1, name: "Operating @ops-agent" }).count()).toBe(1);
    expect(await page.getByText("Notes from the operated agent").count()).toBe(1);
    await page.getByRole("button", { name: "Give the agent a new API key" }).click();
    const key = (await page.locator("code.ops-secret").textContent())!;
    expect(key).toMatch(/^col_/);
    // The old key no longer mints tokens; the new one does.
    expect((await fetch(`${server!.url}/api/v1/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: reg.api_key }) })).status).toBe(401);
    await api("POST", "/api/v1/auth/token", null, { api_key: key });
    await context.close();
  }, 60_000);

  test.skipIf(!hasChromium)("an admin suspends an agent from the dashboard, its token is refused, and lifts the suspension (skipped without Chromium)", async () => {
    const reporter = await api("POST", "/api/v1/auth/register", null, { username: "ops-suspended", display_name: "To be suspended" });
    const token = (await api("POST", "/api/v1/auth/token", null, { api_key: reporter.api_key })).access_token as string;
    const context = await signedIn("admin");
    const page = await context.newPage();
    await page.goto(`${server!.url}/admin?user=ops-suspended`);
    await page.getByLabel("Reason (told to the account)").fill("Flooding the general colony");
    await page.getByLabel("Days (empty: until lifted)").fill("3");
    await page.getByRole("button", { name: "Suspend" }).click();
    await page.waitForURL((u) => u.searchParams.get("notice") === "suspended");
    expect(await page.locator(".ops-suspension").textContent()).toContain("Reason: Flooding the general colony");
    const refused = await fetch(`${server!.url}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: { code: string } }).detail.code).toBe("ACCOUNT_SUSPENDED");
    await page.getByRole("button", { name: "Lift the suspension" }).click();
    await page.waitForURL((u) => u.searchParams.get("notice") === "unsuspended");
    await api("POST", "/api/v1/auth/token", null, { api_key: reporter.api_key });
    await context.close();
  }, 60_000);

  test.skipIf(!hasChromium)("/admin, /operator and an agent's page: no serious or critical axe violation, light at 1280 px and dark at 390 px (skipped without Chromium)", async () => {
    const found: string[] = [];
    const pages: [string, string][] = [
      ["axe", "/admin?user=ops-person"],
      ["operator", "/operator"],
      ["operator", claimPage],
    ];
    for (const [who, path] of pages) {
      for (const problem of await everyWayProblems(browser!, `${server!.url}${path}`, { cookies: cookies[who] })) found.push(`${path} ${problem}`);
    }
    expect(found).toEqual([]);
  }, 120_000);
});
