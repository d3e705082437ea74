// The colony wikis, forecasts, debates, the calendar, time capsules and the statistics in a real
// browser: the server (what `colony serve` starts, in the test process) on a temporary data folder
// at 127.0.0.1 (sign-up open), Debian's Chromium (headless). Two people sign up on the web, an
// agent founds a colony whose wiki anyone may write and puts a forecast, a debate and an event on
// the lists (over the API: what is tested here is the person's journey). Then one person goes
// through each area with its forms, part of each journey on a phone's width (390 px, in the dark
// colour scheme) and the rest on a desktop's (1280 px, in the light one), in one page whose size
// and scheme change on the way: every page is seen once, at one of the widths, and checked there
// with axe-core (no serious or critical violation; the counts per page are printed), and nothing
// is loaded from another host, no console error (a refused Content-Security-Policy included) and
// no script error happens on the way.
// Rules that follow from time are tested in process with the test clock (src/web/*-routes.test.ts),
// not here. COLONY_TEST_SCREENSHOTS=1 saves a screenshot of each page checked to /tmp/areas-*.png.
// Skipped only where Chromium is not installed (test/chromium.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { Database } from "bun:sqlite";
import { AXE, BROWSER_HOOK_TIMEOUT, apiClient, axeCounts, hasChromium, launchChromium, signUpOnTheWeb, tearDown, VIEWPORTS, watchPageLight } from "./chromium";
import { serveInProcess, type InProcessServer } from "./serve";

const PASSWORD = "a long enough secret for the areas journey";
/** The phone in the dark colour scheme, the desktop in the light one: both schemes' contrast is checked. */
const WIDTHS = {
  desktop: { viewport: VIEWPORTS.desktop, colorScheme: "light" },
  phone: { viewport: VIEWPORTS.phone, colorScheme: "dark" },
} as const;
type Width = keyof typeof WIDTHS;
type Cookies = Awaited<ReturnType<BrowserContext["cookies"]>>;

describe("the Part 3 areas in headless Chromium", () => {
  let browser: Browser | undefined;
  let server: InProcessServer | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-areas-"));
  const api = apiClient(() => server!.url);
  let ivyCookies: Cookies = [];
  let jonCookies: Cookies = [];
  /** Per page and width: the serious and critical violations, and how many others. */
  const axeFound = new Map<string, { bad: number; other: number }>();

  beforeAll(async () => {
    if (!hasChromium) return;
    server = await serveInProcess(dataDir, { COLONY_REGISTRATION: "open" });
    const { api_key } = await api("POST", "/api/v1/auth/register", null, { username: "gardener-agent", display_name: "Gardener" });
    const token = (await api("POST", "/api/v1/auth/token", null, { api_key })).access_token;
    const colony = await api("POST", "/api/v1/colonies", token, { name: "garden", display_name: "The Garden" });
    await api("PATCH", `/api/v1/colonies/${colony.id}`, token, { wiki_edit_policy: "anyone" });
    browser = await launchChromium();
    [ivyCookies, jonCookies] = await Promise.all([signUpOnTheWeb(browser, server.url, "ivy", PASSWORD), signUpOnTheWeb(browser, server.url, "jon", PASSWORD)]);
    // Debates need 5 karma, which votes on their posts would have given them.
    const db = new Database(join(dataDir, "colony.db"));
    db.query("update users set karma = 20 where username in ('ivy', 'jon', 'gardener-agent')").run();
    // Ivy is a site admin, so the wiki's moderators' pages (editors, deleted pages) are hers to see too.
    db.query("update users set is_admin = 1 where username = 'ivy'").run();
    db.close();
    // Something on the lists before Ivy comes, so that the lists are checked with an item each.
    const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
    await Promise.all([
      api("POST", "/api/v1/forecasts", token, { title: "The first frost comes before November", probability: 0.3, resolution_date: inDays(40).slice(0, 10) }),
      api("POST", "/api/v1/debates", token, { proposition: "Compost belongs in every garden", creator_side: "for" }),
      api("POST", "/api/v1/events", token, { title: "Pruning workshop", starts_at: inDays(9), description: "Bring **shears**." }),
    ]);
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(async () => {
    if (axeFound.size) console.log([...axeFound].map(([k, v]) => `axe ${k}: ${v.bad} serious/critical, ${v.other} other`).join("\n"));
    await tearDown(browser, server, dataDir);
  });

  /** Posts a form of the page at `path` as the holder of `cookies`, over HTTP from this origin (another person's move). */
  async function postAs(cookies: Cookies, path: string, action: string, fields: Record<string, string> = {}): Promise<void> {
    const url = server!.url;
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    const html = await (await fetch(`${url}${path}`, { headers: { cookie } })).text();
    const csrf = /<input type="hidden" name="csrf" value="([^"]*)"/.exec(html)?.[1] ?? "";
    const res = await fetch(`${url}${action}`, { method: "POST", redirect: "manual", headers: { cookie, origin: url, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ csrf, ...fields }) });
    expect(res.status).toBe(303);
  }

  /**
   * Ivy's page, kept across the tests (a context per test would cost more than its pages), with
   * axe-core loaded in every document it opens, and what its watch saw.
   */
  let ivy: Promise<{ page: Page; problems: string[] }> | undefined;
  const ivyPage = () =>
    (ivy ??= (async () => {
      const context = await browser!.newContext({ reducedMotion: "reduce" });
      await context.addInitScript(AXE);
      await context.addCookies(ivyCookies);
      const page = await context.newPage();
      return { page, problems: await watchPageLight(page) };
    })());

  /** From here on, the page at `width`, in its colour scheme. */
  async function at(page: Page, width: Width): Promise<void> {
    await page.setViewportSize(WIDTHS[width].viewport);
    await page.emulateMedia({ colorScheme: WIDTHS[width].colorScheme });
  }

  /** Checks the page as it stands, at the width it has: axe, and a screenshot to look at. */
  async function check(page: Page, name: string): Promise<void> {
    const width = page.viewportSize()!.width === WIDTHS.phone.viewport.width ? "phone" : "desktop";
    const t0 = performance.now();
    const { bad, other } = await axeCounts(page);
    if (process.env.AXE_TIMING) console.log(`axe ${name} ${width}: ${Math.round(performance.now() - t0)} ms`);
    axeFound.set(`${name} (${width}, ${WIDTHS[width].colorScheme})`, { bad: bad.length, other });
    // Screenshots to look at, when asked for (they take a while).
    if (process.env.COLONY_TEST_SCREENSHOTS) await page.screenshot({ path: `/tmp/areas-${name}-${width}.png`, fullPage: true });
    expect(bad).toEqual([]);
  }

  test.skipIf(!hasChromium)("the garden's wiki: a page written and edited at 390 px, compared with its first revision and its editors managed at 1280 px (skipped without Chromium)", async () => {
    const { page, problems } = await ivyPage();
    const url = server!.url;
    const from = problems.length;

    await at(page, "phone");
    await page.goto(`${url}/c/garden/wiki`);
    await check(page, "wiki-list");
    await page.getByRole("link", { name: "New page" }).click();
    await page.getByLabel("Title").fill("Raised beds");
    await page.getByLabel("Address (slug)").fill("beds");
    await page.getByLabel("Category (optional)").fill("Guides");
    await page.getByLabel("Content").fill("# Beds\n\nBeans in the **north** bed.\nLeeks in the south.\n");
    await check(page, "wiki-new");
    await page.getByRole("button", { name: "Create the page" }).click();
    await page.waitForURL(/\/c\/garden\/wiki\/beds\?notice=created$/);
    expect(await page.locator("main strong", { hasText: "north" }).count()).toBe(1);
    await check(page, "wiki-page");

    await page.getByRole("link", { name: "Edit this page" }).click();
    await page.getByLabel("Content").fill("# Beds\n\nBeans in the **north** bed.\nGarlic in the south.\n");
    await page.getByLabel("Summary of the change (optional)").fill("garlic, not leeks");
    await check(page, "wiki-edit");
    await page.getByRole("button", { name: "Save the page" }).click();
    await page.waitForURL(/\?notice=saved$/);

    await at(page, "desktop");
    await page.getByRole("link", { name: "History" }).first().click();
    expect(await page.locator("main").innerText()).toContain("garlic, not leeks");
    await check(page, "wiki-history");
    await page.getByRole("button", { name: "Compare the chosen revisions" }).click();
    await page.waitForURL(/\/diff\?(from|to)=/);
    expect(await page.locator(".diff li.add").innerText()).toContain("Garlic in the south.");
    expect(await page.locator(".diff li.del").innerText()).toContain("Leeks in the south.");
    await check(page, "wiki-diff");
    await page.getByRole("link", { name: "revision 1" }).click();
    expect(await page.locator("main").innerText()).toContain("Leeks in the south.");
    await check(page, "wiki-revision");

    await page.goto(`${url}/c/garden/wiki/_editors`);
    await page.getByLabel("Add an editor by username").fill("jon");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await page.waitForURL(/notice=editor_added$/);
    await check(page, "wiki-editors");
    await page.getByRole("button", { name: "Remove jon" }).click();
    await page.waitForURL(/notice=editor_removed$/);
    await page.goto(`${url}/c/garden/wiki/_deleted`);
    await check(page, "wiki-deleted");

    expect(problems.slice(from)).toEqual([]);
  }, 30_000);

  test.skipIf(!hasChromium)("a forecast published at 1280 px, resolved by its author at 390 px, then the calibration and the leaderboard (skipped without Chromium)", async () => {
    const { page, problems } = await ivyPage();
    const from = problems.length;

    await at(page, "desktop");
    await page.goto(`${server!.url}/forecasts`);
    expect(await page.locator("main").innerText()).toContain("The first frost comes before November");
    await check(page, "forecast-list");
    await page.getByRole("link", { name: "New forecast" }).click();
    await page.getByLabel("What will happen?").fill("The north bed yields a kilo of beans");
    await page.getByLabel("Details (optional)").fill("Weighed at the harvest.");
    await page.getByLabel("Your probability that it happens (%)").fill("65");
    await page.getByLabel("Resolution date").fill(new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10));
    await check(page, "forecast-new");
    await page.getByRole("button", { name: "Publish the forecast" }).click();
    await page.waitForURL(/\/forecasts\/[0-9a-f-]{36}\?notice=created$/);
    expect(await page.locator("main").innerText()).toContain("65%");
    await check(page, "forecast");

    await at(page, "phone");
    await page.getByRole("button", { name: "It happened (yes)" }).click();
    await page.waitForURL(/\?notice=resolved$/);
    expect(await page.locator("main").innerText()).toContain("Resolved: yes");
    await page.getByRole("link", { name: "calibration" }).click();
    expect(await page.locator("main").innerText()).toContain("Brier score");
    await check(page, "forecast-calibration");
    await page.goto(`${server!.url}/forecasts/leaderboard`);
    await check(page, "forecast-leaderboard");

    expect(problems.slice(from)).toEqual([]);
  }, 30_000);

  test.skipIf(!hasChromium)("a debate started at 390 px, its other side taken, the first argument made at 1280 px (skipped without Chromium)", async () => {
    const { page, problems } = await ivyPage();
    const url = server!.url;
    const from = problems.length;

    await at(page, "phone");
    await page.goto(`${url}/debates`);
    expect(await page.locator("main").innerText()).toContain("Compost belongs in every garden");
    await check(page, "debate-list");
    await page.getByRole("link", { name: "Start a debate" }).click();
    await page.getByLabel("Proposition", { exact: true }).fill("Raised beds beat rows for small gardens");
    await page.getByLabel("Background (optional)").fill("Think of the soil, the paths and the backs.");
    await page.getByLabel("Against it").check();
    await check(page, "debate-new");
    await page.getByRole("button", { name: "Start the debate" }).click();
    await page.waitForURL(/\/debates\/[0-9a-f-]{36}\?notice=created$/);
    expect(await page.getByRole("button", { name: "Delete the debate" }).count()).toBe(1);
    const path = new URL(page.url()).pathname;

    await postAs(jonCookies, path, `${path}/accept`);
    await at(page, "desktop");
    await page.goto(`${url}${path}`);
    await page.getByLabel("Your argument").fill("Rows waste less wood and are easier to turn over each spring.");
    await page.getByRole("button", { name: "Make the argument" }).click();
    await page.waitForURL(/\?notice=argued$/);
    expect(await page.locator(".arguments").innerText()).toContain("Turn 1, against");
    await check(page, "debate");

    expect(problems.slice(from)).toEqual([]);
  }, 30_000);

  test.skipIf(!hasChromium)("an event scheduled at 1280 px, with the calendar's subscription address, and answered at 390 px (skipped without Chromium)", async () => {
    const { page, problems } = await ivyPage();
    const local = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 16);
    const from = problems.length;

    await at(page, "desktop");
    await page.goto(`${server!.url}/events`);
    const list = await page.locator("main").innerText();
    expect(list).toContain("Pruning workshop");
    expect(list).toContain("/api/v1/events.ics");
    await check(page, "event-list");
    await page.getByRole("link", { name: "New event" }).click();
    await page.getByLabel("Title").fill("Seed swap");
    await page.getByLabel("Starts (UTC)").fill(local(5));
    await page.getByLabel("Ends (UTC, optional)").fill(local(5.1));
    await page.getByLabel("Location (optional)").fill("The garden shed");
    await page.getByLabel("It happens online").uncheck();
    await page.getByLabel("Description (optional)").fill("Bring **seeds** in paper envelopes.");
    await check(page, "event-new");
    await page.getByRole("button", { name: "Schedule the event" }).click();
    await page.waitForURL(/\/events\/[0-9a-f-]{36}\?notice=created$/);

    await at(page, "phone");
    await page.getByRole("button", { name: "Going", exact: true }).click();
    await page.waitForURL(/\?notice=answered/);
    expect(await page.locator("main").innerText()).toContain("Your answer: going.");
    await check(page, "event");

    expect(problems.slice(from)).toEqual([]);
  }, 30_000);

  test.skipIf(!hasChromium)("a time capsule sealed at 390 px and found on the list at 1280 px, then the statistics with their charts at 390 px (skipped without Chromium)", async () => {
    const { page, problems } = await ivyPage();
    const url = server!.url;
    const from = problems.length;

    await at(page, "phone");
    await page.goto(`${url}/capsules`);
    await page.getByRole("link", { name: "Seal a capsule" }).click();
    await page.getByLabel("Title").fill("To next spring's gardeners");
    await page.getByLabel("Message").fill("The **leeks** were a mistake.");
    await page.getByLabel("Tags (optional)").fill("garden, letters");
    await page.getByLabel("Opens at (UTC)").fill(new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 16));
    await check(page, "capsule-new");
    await page.getByRole("button", { name: "Seal the capsule" }).click();
    await page.waitForURL(/\/capsules\/[0-9a-f-]{36}\?notice=sealed$/);

    await at(page, "desktop");
    expect(await page.locator("main").innerText()).toContain("Only you can read it until then.");
    await check(page, "capsule");
    await page.locator(".crumbs").getByRole("link", { name: "Time capsules" }).click();
    expect(await page.locator("main").innerText()).toContain("To next spring's gardeners");
    await check(page, "capsule-list");

    await at(page, "phone");
    const seen = await page.goto(`${url}/stats`);
    expect(seen?.status()).toBe(200);
    expect(await page.locator("svg.chart").count()).toBe(5);
    await page.getByText("The numbers").first().click();
    await check(page, "stats");

    expect(problems.slice(from)).toEqual([]);
  }, 30_000);
});
