// The colony wikis, forecasts, debates, the calendar, time capsules and the statistics in a real
// browser: the server (what `colony serve` starts, in the test process) on a temporary data folder
// at 127.0.0.1 (sign-up open), Debian's Chromium (headless). Two people sign up on the web and an
// agent founds a colony whose wiki anyone may write; then, on a desktop's width (1280 px) and a
// phone's (390 px), one person goes through each area with its forms, and every page on the way
// is checked with axe-core (no serious or critical violation; the phone in the dark colour
// scheme, the desktop in the light one), loads nothing from another host and logs no error.
// Rules that follow from time are tested in process with the test clock (src/web/*-routes.test.ts),
// not here. COLONY_TEST_SCREENSHOTS=1 saves a screenshot of each page checked to /tmp/areas-*.png.
// Skipped only where /usr/bin/chromium is not installed (`apt-get install -y chromium`).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { Database } from "bun:sqlite";
import { AXE, BROWSER_HOOK_TIMEOUT, apiClient, hasChromium, launchChromium, signUpOnTheWeb, tearDown } from "./chromium";
import { serveInProcess, type InProcessServer } from "./serve";

const PASSWORD = "a long enough secret for the areas journey";
const WIDTHS = [
  ["desktop", { width: 1280, height: 900 }],
  ["phone", { width: 390, height: 844 }],
] as const;

/** axe-core's violations on the page as it stands: serious and critical ones listed, the others counted. */
async function axeOn(page: Page): Promise<{ bad: string[]; other: number }> {
  if (!(await page.evaluate("typeof axe !== 'undefined'"))) await page.evaluate(AXE);
  // Without the selectors of every node it looks at (the slow part of a run on a page that
  // passes), a violation names its nodes by their markup.
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ["violations"], selectors: false, ancestry: false, xpath: false }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.html.slice(0, 120)) })))`)) as {
    id: string;
    impact: string;
    nodes: string[];
  }[];
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id} at ${v.nodes.join(", ")}`);
  return { bad, other: violations.length - bad.length };
}

/**
 * What `page` does wrong, as it goes: a request to any host but 127.0.0.1, a console error, an
 * uncaught script error. Listened to rather than intercepted (watchPage's routing would hold
 * every request of the journey for the test process).
 */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on("request", (r) => void (new URL(r.url()).hostname !== "127.0.0.1" && problems.push(`off host: ${r.url()}`)));
  page.on("console", (msg) => void (msg.type() === "error" && problems.push(`console: ${msg.text()}`)));
  page.on("pageerror", (err) => void problems.push(`page error: ${err.message}`));
  return problems;
}

describe("the Part 3 areas in headless Chromium", () => {
  let browser: Browser | undefined;
  let server: InProcessServer | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-areas-"));
  const api = apiClient(() => server!.url);
  let ivyCookies: Awaited<ReturnType<BrowserContext["cookies"]>> = [];
  let jonCookies: Awaited<ReturnType<BrowserContext["cookies"]>> = [];
  /** Per page and width: the serious and critical violations, and how many others. */
  const axeCounts = new Map<string, { bad: number; other: number }>();

  beforeAll(async () => {
    if (!hasChromium) return;
    server = await serveInProcess(dataDir, { COLONY_REGISTRATION: "open" });
    const { api_key } = await api("POST", "/api/v1/auth/register", null, { username: "gardener-agent", display_name: "Gardener" });
    const token = (await api("POST", "/api/v1/auth/token", null, { api_key })).access_token;
    const colony = await api("POST", "/api/v1/colonies", token, { name: "garden", display_name: "The Garden" });
    await api("PATCH", `/api/v1/colonies/${colony.id}`, token, { wiki_edit_policy: "anyone" });
    browser = await launchChromium();
    ivyCookies = await signUpOnTheWeb(browser, server.url, "ivy", PASSWORD);
    jonCookies = await signUpOnTheWeb(browser, server.url, "jon", PASSWORD);
    // Debates need 5 karma, which votes on their posts would have given them.
    const db = new Database(join(dataDir, "colony.db"));
    db.query("update users set karma = 20 where username in ('ivy', 'jon')").run();
    // Ivy is a site admin, so the wiki's moderators' pages (editors, deleted pages) are hers to see too.
    db.query("update users set is_admin = 1 where username = 'ivy'").run();
    db.close();
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(async () => {
    if (axeCounts.size) console.log([...axeCounts].map(([k, v]) => `axe ${k}: ${v.bad} serious/critical, ${v.other} other`).join("\n"));
    await tearDown(browser, server, dataDir);
  });

  /** Posts a form of the page at `path` as the holder of `cookies`, over HTTP from this origin (another person's move). */
  async function postAs(cookies: Awaited<ReturnType<BrowserContext["cookies"]>>, path: string, action: string, fields: Record<string, string> = {}): Promise<void> {
    const url = server!.url;
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    const html = await (await fetch(`${url}${path}`, { headers: { cookie } })).text();
    const csrf = /<input type="hidden" name="csrf" value="([^"]*)"/.exec(html)?.[1] ?? "";
    const res = await fetch(`${url}${action}`, { method: "POST", redirect: "manual", headers: { cookie, origin: url, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ csrf, ...fields }) });
    expect(res.status).toBe(303);
  }

  type Width = (typeof WIDTHS)[number][0];
  const viewportOf = (width: Width) => WIDTHS.find(([w]) => w === width)![1];
  /** Ivy's page at each width, kept across the tests (a context per test would cost more than its pages), and what its watch saw. */
  const ivyPages = new Map<Width, Promise<{ page: Page; problems: string[] }>>();

  function ivyPage(width: Width): Promise<{ page: Page; problems: string[] }> {
    let made = ivyPages.get(width);
    if (!made) {
      made = (async () => {
        // The phone in the dark colour scheme, the desktop in the light one: both schemes' contrast is checked.
        const context = await browser!.newContext({ viewport: viewportOf(width), colorScheme: width === "phone" ? "dark" : "light" });
        await context.addCookies(ivyCookies);
        const page = await context.newPage();
        return { page, problems: watch(page) };
      })();
      ivyPages.set(width, made);
    }
    return made;
  }

  /** Checks the page as it stands: axe, and a screenshot to look at. */
  async function check(page: Page, name: string, width: string): Promise<void> {
    const t0 = performance.now();
    const { bad, other } = await axeOn(page);
    if (process.env.AXE_TIMING) console.log(`axe ${name} ${width}: ${Math.round(performance.now() - t0)} ms`);
    axeCounts.set(`${name} (${width})`, { bad: bad.length, other });
    // Screenshots to look at, when asked for (they take a while).
    if (process.env.COLONY_TEST_SCREENSHOTS) await page.screenshot({ path: `/tmp/areas-${name}-${width}.png`, fullPage: true });
    expect(bad).toEqual([]);
  }

  for (const [width] of WIDTHS) {
    test.skipIf(!hasChromium)(`${width}: the garden's wiki: a page written, edited, compared with its first revision (skipped without /usr/bin/chromium)`, async () => {
      const { page, problems } = await ivyPage(width);
      const url = server!.url;
      const slug = `beds-${width}`;

      await page.goto(`${url}/c/garden/wiki`);
      await check(page, "wiki-list", width);
      await page.getByRole("link", { name: "New page" }).click();
      await page.getByLabel("Title").fill("Raised beds");
      await page.getByLabel("Address (slug)").fill(slug);
      await page.getByLabel("Category (optional)").fill("Guides");
      await page.getByLabel("Content").fill("# Beds\n\nBeans in the **north** bed.\nLeeks in the south.\n");
      await check(page, "wiki-new", width);
      await page.getByRole("button", { name: "Create the page" }).click();
      await page.waitForURL(new RegExp(`/c/garden/wiki/${slug}\\?notice=created$`));
      expect(await page.locator("main strong", { hasText: "north" }).count()).toBe(1);
      await check(page, "wiki-page", width);

      await page.getByRole("link", { name: "Edit this page" }).click();
      await page.getByLabel("Content").fill("# Beds\n\nBeans in the **north** bed.\nGarlic in the south.\n");
      await page.getByLabel("Summary of the change (optional)").fill("garlic, not leeks");
      await check(page, "wiki-edit", width);
      await page.getByRole("button", { name: "Save the page" }).click();
      await page.waitForURL(/\?notice=saved$/);

      await page.getByRole("link", { name: "History" }).first().click();
      expect(await page.locator("main").innerText()).toContain("garlic, not leeks");
      await check(page, "wiki-history", width);
      await page.getByRole("button", { name: "Compare the chosen revisions" }).click();
      await page.waitForURL(/\/diff\?(from|to)=/);
      expect(await page.locator(".diff li.add").innerText()).toContain("Garlic in the south.");
      expect(await page.locator(".diff li.del").innerText()).toContain("Leeks in the south.");
      await check(page, "wiki-diff", width);
      await page.getByRole("link", { name: "revision 1" }).click();
      await check(page, "wiki-revision", width);

      await page.goto(`${url}/c/garden/wiki/_editors`);
      await page.getByLabel("Add an editor by username").fill("jon");
      await page.getByRole("button", { name: "Add", exact: true }).click();
      await page.waitForURL(/notice=editor_added$/);
      await check(page, "wiki-editors", width);
      await page.getByRole("button", { name: "Remove jon" }).click();
      await page.goto(`${url}/c/garden/wiki/_deleted`);
      await check(page, "wiki-deleted", width);

      expect(problems).toEqual([]);
    }, 30_000);

    test.skipIf(!hasChromium)(`${width}: a forecast published, resolved by its author, then the calibration and the leaderboard (skipped without /usr/bin/chromium)`, async () => {
      const { page, problems } = await ivyPage(width);
      const title = `The north bed yields a kilo of beans (${width})`;

      await page.goto(`${server!.url}/forecasts`);
      await page.getByRole("link", { name: "New forecast" }).click();
      await page.getByLabel("What will happen?").fill(title);
      await page.getByLabel("Details (optional)").fill("Weighed at the harvest.");
      await page.getByLabel("Your probability that it happens (%)").fill("65");
      await page.getByLabel("Resolution date").fill(new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10));
      await check(page, "forecast-new", width);
      await page.getByRole("button", { name: "Publish the forecast" }).click();
      await page.waitForURL(/\/forecasts\/[0-9a-f-]{36}\?notice=created$/);
      expect(await page.locator("main").innerText()).toContain("65%");
      await check(page, "forecast", width);
      await page.getByRole("button", { name: "It happened (yes)" }).click();
      await page.waitForURL(/\?notice=resolved$/);
      expect(await page.locator("main").innerText()).toContain("Resolved: yes");
      await page.getByRole("link", { name: "calibration" }).click();
      expect(await page.locator("main").innerText()).toContain("Brier score");
      await check(page, "forecast-calibration", width);
      await page.goto(`${server!.url}/forecasts`);
      await check(page, "forecast-list", width);
      await page.getByRole("link", { name: "Leaderboard" }).click();
      await check(page, "forecast-leaderboard", width);

      expect(problems).toEqual([]);
    }, 30_000);

    test.skipIf(!hasChromium)(`${width}: a debate started, its other side taken, the first argument made (skipped without /usr/bin/chromium)`, async () => {
      const { page, problems } = await ivyPage(width);
      const url = server!.url;

      await page.goto(`${url}/debates`);
      await page.getByRole("link", { name: "Start a debate" }).click();
      await page.getByLabel("Proposition", { exact: true }).fill(`Raised beds beat rows for small gardens (${width})`);
      await page.getByLabel("Background (optional)").fill("Think of the soil, the paths and the backs.");
      await page.getByLabel("Against it").check();
      await check(page, "debate-new", width);
      await page.getByRole("button", { name: "Start the debate" }).click();
      await page.waitForURL(/\/debates\/[0-9a-f-]{36}\?notice=created$/);
      expect(await page.getByRole("button", { name: "Delete the debate" }).count()).toBe(1);
      const path = new URL(page.url()).pathname;

      await postAs(jonCookies, path, `${path}/accept`);
      await page.goto(`${url}${path}`);
      await page.getByLabel("Your argument").fill("Rows waste less wood and are easier to turn over each spring.");
      await page.getByRole("button", { name: "Make the argument" }).click();
      await page.waitForURL(/\?notice=argued$/);
      expect(await page.locator(".arguments").innerText()).toContain("Turn 1, against");
      await check(page, "debate", width);
      await page.goto(`${url}/debates?sort=active_first`);
      await check(page, "debate-list", width);

      expect(problems).toEqual([]);
    }, 30_000);

    test.skipIf(!hasChromium)(`${width}: an event scheduled and answered, with the calendar's subscription address (skipped without /usr/bin/chromium)`, async () => {
      const { page, problems } = await ivyPage(width);
      const url = server!.url;
      const local = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 16);

      await page.goto(`${url}/events`);
      await page.getByRole("link", { name: "New event" }).click();
      await page.getByLabel("Title").fill(`Seed swap (${width})`);
      await page.getByLabel("Starts (UTC)").fill(local(5));
      await page.getByLabel("Ends (UTC, optional)").fill(local(5.1));
      await page.getByLabel("Location (optional)").fill("The garden shed");
      await page.getByLabel("It happens online").uncheck();
      await page.getByLabel("Description (optional)").fill("Bring **seeds** in paper envelopes.");
      await check(page, "event-new", width);
      await page.getByRole("button", { name: "Schedule the event" }).click();
      await page.waitForURL(/\/events\/[0-9a-f-]{36}\?notice=created$/);
      await page.getByRole("button", { name: "Going", exact: true }).click();
      await page.waitForURL(/\?notice=answered/);
      expect(await page.locator("main").innerText()).toContain("Your answer: going.");
      await check(page, "event", width);
      await page.getByRole("link", { name: "Events", exact: true }).first().click();
      expect(await page.locator("main").innerText()).toContain("/api/v1/events.ics");
      await check(page, "event-list", width);

      expect(problems).toEqual([]);
    }, 30_000);

    test.skipIf(!hasChromium)(`${width}: a time capsule sealed, then the statistics with their charts (skipped without /usr/bin/chromium)`, async () => {
      const { page, problems } = await ivyPage(width);
      const url = server!.url;

      await page.goto(`${url}/capsules`);
      await page.getByRole("link", { name: "Seal a capsule" }).click();
      await page.getByLabel("Title").fill(`To next spring's gardeners (${width})`);
      await page.getByLabel("Message").fill("The **leeks** were a mistake.");
      await page.getByLabel("Tags (optional)").fill("garden, letters");
      await page.getByLabel("Opens at (UTC)").fill(new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 16));
      await check(page, "capsule-new", width);
      await page.getByRole("button", { name: "Seal the capsule" }).click();
      await page.waitForURL(/\/capsules\/[0-9a-f-]{36}\?notice=sealed$/);
      expect(await page.locator("main").innerText()).toContain("Only you can read it until then.");
      await check(page, "capsule", width);
      await page.goto(`${url}/capsules`);
      await check(page, "capsule-list", width);

      const seen = await page.goto(`${url}/stats`);
      expect(seen?.status()).toBe(200);
      expect(await page.locator("svg.chart").count()).toBe(5);
      await page.getByText("The numbers").first().click();
      await check(page, "stats", width);

      expect(problems).toEqual([]);
    }, 30_000);
  }
});
