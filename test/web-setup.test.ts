// Setting an instance up from the browser, and the frame every page shares, in Debian's Chromium
// (headless) against `colony serve` started as the README starts it (`bun src/main.ts serve`, on
// a free port and an empty data folder):
//   - the first run: the log's one-time setup link opens the page that makes the first
//     administrator, who names the instance and opens registration on /admin/settings; a new
//     person then signs up without an invite code. No file edited, no restart; the link is dead after.
//   - the navigation at 390 px and 1280 px for an anonymous visitor, a signed-in person, a
//     moderator and an admin: every link of the header on one line (no word broken), the menu
//     folded on the phone and opening without a script, and axe-core content with what each sees;
//   - axe-core on the first-run page, /admin/settings, the front page (before the setup and for
//     its admin), a tag page and the search page: each page once, at one width and in one colour
//     scheme, the four widths and schemes shared out between them (the page re-laid out in place):
//     no violation of serious or critical impact; nothing loaded from another host, no console
//     error (a refused Content-Security-Policy included) and no script error on any page seen
//     (/api/docs: test/docs-page.test.ts).
// Skipped only where Chromium is not installed (test/chromium.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { apiClient, AXE, axeProblems, BROWSER_HOOK_TIMEOUT, hasChromium, launchChromium, watchPageLight } from "./chromium";
import { colonyWith } from "./cli";
import { serveEnv, startServe, type Running } from "./serve";

type Cookies = Awaited<ReturnType<BrowserContext["cookies"]>>;
const WIDTHS = [390, 1280] as const;
const PASSWORD = "a long enough secret";

describe("setting an instance up from the browser, and the site's frame, in headless Chromium", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-setup-"));
  const children: Subprocess[] = [];
  let server: Running | undefined;
  let browser: Browser | undefined;
  const base = () => server!.url;
  const api = apiClient(base);
  /** Each viewer's session cookies (the anonymous visitor has none). */
  const cookies: Record<"anonymous" | "person" | "moderator" | "admin", Cookies> = { anonymous: [], person: [], moderator: [], admin: [] };

  beforeAll(async () => {
    if (!hasChromium) return;
    [server, browser] = await Promise.all([startServe(dataDir, { cwd: dataDir, children }), launchChromium()]);
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    for (const c of children) c.kill("SIGTERM");
    await Promise.all(children.map((c) => c.exited));
    rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * The page the tests browse with, kept across them (each viewer's cookies put in its context in
   * turn: a context per viewer would cost more than its pages), axe-core loaded in each document,
   * and what its watch has seen: requests to another host, console and script errors.
   */
  let browsing: Promise<{ page: Page; watched: string[] }> | undefined;
  const browsingPage = () =>
    (browsing ??= (async () => {
      const context = await browser!.newContext({ reducedMotion: "reduce" });
      await context.addInitScript(AXE);
      const page = await context.newPage();
      return { page, watched: await watchPageLight(page) };
    })());

  /**
   * Makes `page` the browser of the holder of `jar` (no one with none). The page it showed is left
   * first, so that nothing of it (its live updates) asks the server again with the new cookies.
   */
  async function holding(page: Page, jar: Cookies): Promise<void> {
    await page.goto("about:blank");
    await page.context().clearCookies();
    await page.context().addCookies(jar);
  }

  /** The browsing page as the holder of `jar`, and what its watch sees from now on. */
  async function pageAs(jar: Cookies): Promise<{ page: Page; watched: () => string[] }> {
    const { page, watched } = await browsingPage();
    await holding(page, jar);
    const from = watched.length;
    return { page, watched: () => watched.slice(from) };
  }

  /** Whatever axe-core finds serious or critical on `page` as it stands, laid out `width` px wide in `colorScheme`. */
  async function axeAt(page: Page, width: number, colorScheme: "light" | "dark", label = new URL(page.url()).pathname): Promise<string[]> {
    await page.setViewportSize({ width, height: 860 });
    await page.emulateMedia({ colorScheme });
    return (await axeProblems(page)).map((v) => `${label} ${colorScheme}/${width}: ${v}`);
  }

  /**
   * The first run, done once by whichever test comes first (the tests run in any order, and the
   * others need its administrator and the person who signed up): what it found wrong on the way.
   */
  let firstRunDone: Promise<{ problems: string[]; watched: string[] }> | undefined;
  const firstRun = () => (firstRunDone ??= walkFirstRun());

  async function walkFirstRun(): Promise<{ problems: string[]; watched: string[] }> {
    // The link is printed right after the "colony listening" line.
    let link: string | undefined;
    for (let i = 0; i < 200 && !link; i++) {
      link = /"setup_url":"([^"]+)"/.exec(server!.log())?.[1];
      if (!link) await Bun.sleep(10);
    }
    expect(link).toStartWith(`${base()}/setup/`);
    const problems: string[] = [];

    const { page, watched } = await pageAs([]);
    // Until then the front page tells visitors the instance is being set up, and its operator how.
    await page.goto(`${base()}/`);
    expect(await page.getByRole("heading", { name: "This instance is being set up" }).count()).toBe(1);
    problems.push(...(await axeAt(page, 390, "dark")));
    await page.goto(link!);
    expect(await page.getByRole("heading", { level: 1, name: "Set up this instance" }).count()).toBe(1);
    problems.push(...(await axeAt(page, 1280, "light", "/setup/…")));
    await page.getByLabel("Username").fill("first-admin");
    await page.getByLabel("Password").fill(PASSWORD);
    await Promise.all([page.waitForURL((u) => u.pathname === "/admin/settings"), page.getByRole("button", { name: "Create the administrator" }).click()]);
    expect(await page.getByText("You are the instance's first administrator.").count()).toBe(1);
    cookies.admin = await page.context().cookies();
    problems.push(...(await axeAt(page, 390, "light")));

    // The front page of an instance without posts tells its admin where to begin.
    await page.goto(`${base()}/`);
    expect(await page.getByRole("heading", { name: "Setting up this instance" }).count()).toBe(1);
    problems.push(...(await axeAt(page, 1280, "dark")));

    await page.getByRole("link", { name: "Instance settings" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Test Hive");
    await page.getByLabel("Rules").fill("Be kind to agents and people alike.");
    await page.getByLabel("Open: anyone may sign up on the web.").check();
    await Promise.all([page.waitForURL((u) => u.searchParams.get("notice") === "saved"), page.getByRole("button", { name: "Save settings" }).click()]);
    expect(await page.title()).toBe("Instance settings · Test Hive");

    // The link is dead, and anyone may now sign up, no invite code asked: a new person, in a
    // browser holding no session.
    expect((await fetch(link!)).status).toBe(404);
    await holding(page, []);
    await page.goto(`${base()}/signup`);
    await page.getByLabel("Username").fill("new-person");
    await page.getByLabel("Password").fill(PASSWORD);
    await Promise.all([page.waitForURL((u) => u.pathname === "/settings/account"), page.getByRole("button", { name: "Create account" }).click()]);
    expect(await page.locator("header .brand").textContent()).toBe("Test Hive");
    cookies.person = await page.context().cookies();
    await page.goto(`${base()}/about`);
    expect(await page.getByRole("heading", { level: 1, name: "About Test Hive" }).count()).toBe(1);
    expect(await page.getByText("Be kind to agents and people alike.").count()).toBe(1);

    return { problems, watched: watched() };
  }

  test.skipIf(!hasChromium)("from nothing to a first administrator, a name and open registration, with no file edited and no restart (skipped without Chromium)", async () => {
    const { problems, watched } = await firstRun();
    expect(problems).toEqual([]);
    expect(watched).toEqual([]);
  }, 60_000);

  test.skipIf(!hasChromium)("the navigation never breaks a word, at 390 and 1280 px, for every kind of viewer; the menu folds on the phone and opens without a script (skipped without Chromium)", async () => {
    await firstRun();
    // A moderator: a person (made on the command line, the server running) who founds a colony.
    const made = await colonyWith(serveEnv(dataDir), "admin", "create-user", "colony-founder", "--human");
    const apiKey = /api_key: (\S+)/.exec(made.out)![1];
    const signIn = new URL(/sign-in link: (\S+)/.exec(made.out)![1]).pathname;
    const token = (await api("POST", "/api/v1/auth/token", null, { api_key: apiKey })).access_token as string;
    await api("POST", "/api/v1/colonies", token, { name: "founders", display_name: "Founders" });
    const { page, watched } = await pageAs([]);
    await page.goto(`${base()}${signIn}`);
    await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Sign in" }).click()]);
    cookies.moderator = await page.context().cookies();

    // axe-core once per viewer, the widths and colour schemes shared out between them (the
    // phone's with its menu open).
    const axeWhere: Record<keyof typeof cookies, [number, "light" | "dark"]> = { anonymous: [390, "dark"], person: [1280, "light"], moderator: [1280, "dark"], admin: [390, "light"] };
    const broken: string[] = [];
    for (const [viewer, jar] of Object.entries(cookies) as [keyof typeof cookies, Cookies][]) {
      await holding(page, jar);
      await page.goto(`${base()}/`);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 860 });
        const menu = page.locator("header details.menu");
        const colonies = page.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Colonies" });
        if (width < 600) {
          // Folded: the button shows, the links do not until it is pressed.
          expect(await page.locator("header summary").isVisible()).toBe(true);
          expect(await colonies.isVisible()).toBe(false);
          await page.locator("header summary").click();
          expect(await colonies.isVisible()).toBe(true);
        } else {
          expect(await page.locator("header summary").isVisible()).toBe(false);
          expect(await colonies.isVisible()).toBe(true);
        }
        const texts = (await page.getByRole("navigation", { name: "Site" }).getByRole("link").allTextContents()).join("|");
        if (viewer === "moderator") expect(texts).toContain("Moderation");
        if (viewer === "admin") expect(texts).toContain("Admin");
        if (viewer !== "anonymous") expect(texts).toContain("Bookmarks");
        // Every link and button of the header: its text on one line (each line of a text is a
        // rectangle of its own, at its own height).
        // (A string, run in the page, so that this file needs no DOM typings.)
        const split = (await page.evaluate(`[...document.querySelectorAll("header.top a, header.top button, header.top summary")]
          .filter((el) => el.offsetParent !== null)
          .filter((el) => {
            const range = document.createRange();
            range.selectNodeContents(el);
            return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size > 1;
          })
          .map((el) => el.textContent.trim())`)) as string[];
        for (const s of split) broken.push(`${viewer} at ${width} px: "${s}"`);
        // The page as this viewer sees it, at one of the widths.
        const [axeWidth, scheme] = axeWhere[viewer];
        if (width === axeWidth) for (const v of await axeAt(page, width, scheme, `/ as ${viewer}`)) broken.push(v);
        if (width < 600) await menu.evaluate((d) => d.removeAttribute("open"));
      }
    }
    expect(broken).toEqual([]);

    // Without a script the menu still opens: it is a disclosure element.
    const plain = await (await browser!.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 860 } })).newPage();
    const plainWatched = await watchPageLight(plain);
    await plain.goto(`${base()}/about`);
    await plain.locator("header summary").click();
    expect(await plain.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Marketplace" }).isVisible()).toBe(true);
    await plain.context().close();
    expect([...watched(), ...plainWatched]).toEqual([]);
  }, 60_000);

  test.skipIf(!hasChromium)("axe-core finds nothing serious on a tag page (at 390 px, dark) and the search page (at 1280 px, light) (skipped without Chromium)", async () => {
    // After the first run, whose front page has no posts yet.
    await firstRun();
    const reg = await api("POST", "/api/v1/auth/register", null, { username: "tag-writer", display_name: "Tag Writer" });
    const token = (await api("POST", "/api/v1/auth/token", null, { api_key: reg.api_key })).access_token as string;
    await api("POST", "/api/v1/posts", token, { colony: "general", post_type: "discussion", title: "Setting up a hive", body: "What the first hour of a new instance looks like.", tags: ["setup"] });
    const problems: string[] = [];
    const { page, watched } = await pageAs(cookies.person);
    await page.goto(`${base()}/tag/setup`);
    expect(await page.getByRole("link", { name: "Setting up a hive" }).count()).toBe(1);
    problems.push(...(await axeAt(page, 390, "dark")));
    await page.goto(`${base()}/search?q=hive`);
    expect(await page.getByRole("link", { name: "Setting up a hive" }).count()).toBe(1);
    problems.push(...(await axeAt(page, 1280, "light")));
    expect(problems).toEqual([]);
    expect(watched()).toEqual([]);
  }, 60_000);
});
