// Finding things and one's own content in a real browser: the server (what `colony serve` starts,
// in the test process) on a temporary data folder at 127.0.0.1 (sign-up open), Debian's Chromium
// (headless). An agent registers through the API, writes a post and makes an organisation; a
// person signed up on the web then, at a desktop's width, searches /c, founds a colony, joins
// another, filters /users to agents, opens the organisation, bookmarks the agent's post and files
// it in a new folder, edits a post of their own, reports the agent's post, and gathers it into a
// new collection from the post's page; at a phone's width the same person leaves a colony, edits a
// comment and reports the agent from its profile (a link no anonymous reader is given).
//
// The journeys also check every page of the area with axe-core, at 1280 and 390 px each: a page
// a journey passes through is checked where it stands (resized to the other width and back, so
// one load and one copy of axe-core serve both), and the desktop's journey loads the few that
// neither passes through. No violation of serious or critical impact, nothing from another host,
// no console error. With SCREENSHOTS_DIR set, each checked page is also saved there as a PNG at
// both widths. One signed-in browser context per width serves the set-up's forms and a journey.
// Skipped only where Chromium is not installed (test/chromium.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { AXE_PASSES, BROWSER_HOOK_TIMEOUT, apiClient, axeCounts, hasChromium, launchChromium, tearDown, VIEWPORTS } from "./chromium";
import { serveInProcess, type InProcessServer } from "./serve";

const PASSWORD = "a long enough secret for the directories";
const WIDTHS = VIEWPORTS;

type Width = keyof typeof WIDTHS;
const OTHER: Record<Width, Width> = { desktop: "phone", phone: "desktop" };
/** The colour scheme each width is checked in (AXE_PASSES): both schemes' colours, both widths' layouts. */
const SCHEME = Object.fromEntries(AXE_PASSES.map((p) => [p.device, p.colorScheme])) as Record<Width, "light" | "dark">;

/** The pages the phone's journey checks; the desktop's checks the rest of the area. */
const PHONE_CHECKS = ["comment-edit", "profile", "person-report", "person-report-sent"];

/**
 * A page of a journey at `width`, watched: requests to any host but 127.0.0.1 (there is no other
 * network to reach; listened to rather than routed, which would hand every request to this
 * process and back), console errors and script errors. `check` runs axe-core on the page as it
 * stands at both widths, the desktop's light and the phone's dark (one load and one copy of
 * axe-core for the two), once per name.
 */
async function journeyPage(context: BrowserContext, width: Width) {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on("request", (r) => void (new URL(r.url()).hostname !== "127.0.0.1" && !r.url().startsWith("data:") && problems.push(`off host: ${r.url()}`)));
  page.on("console", (msg) => void (msg.type() === "error" && problems.push(`console: ${msg.text()}`)));
  page.on("pageerror", (err) => void problems.push(`page error: ${err.message}`));
  const checked = new Map<string, string[]>();
  const violations: string[] = [];
  async function check(name: string): Promise<void> {
    expect(checked.has(name)).toBe(false);
    const counts: string[] = [];
    for (const w of [width, OTHER[width]]) {
      const px = WIDTHS[w].width;
      if (w !== width) await page.setViewportSize(WIDTHS[w]);
      await page.emulateMedia({ colorScheme: SCHEME[w] });
      const c = await axeCounts(page);
      counts.push(`${name} ${px} ${SCHEME[w]}: ${c.serious}/${c.critical}/${c.other}`);
      violations.push(...c.bad.map((v) => `${name} ${px}: ${v}`));
      if (process.env.SCREENSHOTS_DIR) await page.screenshot({ path: join(process.env.SCREENSHOTS_DIR, `directories-${name}-${px}.png`), fullPage: true });
    }
    await page.setViewportSize(WIDTHS[width]);
    await page.emulateMedia({ colorScheme: "light" });
    checked.set(name, counts);
  }
  /** Loads and checks each page of `rest` the journey has not checked, then expects it checked `expected` and found nothing. */
  async function done(base: string, expected: readonly string[], rest: Record<string, string> = {}): Promise<void> {
    for (const [name, path] of Object.entries(rest)) {
      if (checked.has(name)) continue;
      const res = await page.goto(`${base}${path}`);
      expect([name, res?.status()]).toEqual([name, 200]);
      await check(name);
    }
    expect([...checked.keys()].sort()).toEqual([...expected].sort());
    console.log(`axe-core, ${width} journey (serious/critical/other):\n${[...checked.values()].flat().join("\n")}`);
    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
  }
  return { page, check, done };
}

describe("directories and one's own content in headless Chromium", () => {
  let browser: Browser | undefined;
  let server: InProcessServer | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-directories-"));
  const api = apiClient(() => server!.url);
  const signedIn: Partial<Record<keyof typeof WIDTHS, BrowserContext>> = {};
  let adaPost = "";
  let ivyPost = "";
  let ivyComment = "";
  let folderPath = "";
  let collectionPath = "";

  /** Every page of the area, by the name its check is reported under. */
  const area = (): Record<string, string> => ({
    colonies: "/c",
    colony: "/c/herb-club",
    people: "/users?type=agent",
    org: "/orgs/ada-labs",
    bookmarks: "/bookmarks",
    "bookmark-folder": folderPath,
    "post-edit": `${ivyPost}/edit`,
    "post-delete": `${ivyPost}/delete`,
    "post-report": `${adaPost}/report`,
    "post-with-own-comment": adaPost,
    "comment-edit": `${ivyComment}/edit`,
    collections: "/collections",
    collection: collectionPath,
    "collection-delete": `${collectionPath}/delete`,
    profile: "/u/ada-agent",
    "person-report": "/u/ada-agent/report",
    "person-report-sent": "/u/ada-agent/report?sent=1",
  });

  beforeAll(async () => {
    if (!hasChromium) return;
    // The browser starts while the server does and the agent writes.
    const launched = launchChromium();
    server = await serveInProcess(dataDir, { COLONY_REGISTRATION: "open", COLONY_KARMA_CREATE_ORG: "0" });
    const url = server.url;
    const { api_key } = await api("POST", "/api/v1/auth/register", null, { username: "ada-agent", display_name: "Ada" });
    const token = (await api("POST", "/api/v1/auth/token", null, { api_key })).access_token;
    [adaPost] = await Promise.all([
      api("POST", "/api/v1/posts", token, { colony: "general", post_type: "finding", title: "Ada's soil survey", body: "Loam in the north beds." }).then((p) => `/post/${p.id}`),
      api("POST", "/api/v1/orgs", token, { slug: "ada-labs", name: "Ada Labs", description: "Soil research." }),
    ]);
    browser = await launched;
    // Ivy signs up, and the rest of the set-up is her forms, sent over HTTP from the context her
    // desktop journey then uses (its cookie jar is hers from the sign-up on). A session's forms
    // all carry one CSRF token: read once, from the first page after signing up.
    const desktop = (signedIn.desktop = await browser.newContext({ viewport: WIDTHS.desktop }));
    const csrfOf = async (page: string) => /<input type="hidden" name="csrf" value="([^"]*)"/.exec(await (await desktop.request.get(`${url}${page}`)).text())?.[1] ?? "";
    let csrf = await csrfOf("/signup");
    const form = async (action: string, fields: Record<string, string>): Promise<string> => {
      const res = await desktop.request.post(`${url}${action}`, { form: { csrf, ...fields }, headers: { origin: url }, maxRedirects: 0 });
      if (res.status() !== 303) throw new Error(`POST ${action}: ${res.status()} ${await res.text()}`);
      return new URL(res.headers()["location"] ?? "", url).href.slice(url.length);
    };
    await form("/signup", { username: "ivy", password: PASSWORD });
    csrf = await csrfOf("/submit");
    // For the pages' checks, whatever order the tests run in: a post and a comment of Ivy's, a
    // colony of hers, a bookmark in a folder and a collection with a post.
    await Promise.all([
      (async () => {
        ivyPost = await form("/submit", { colony: "general", post_type: "discussion", title: "Ivy's first notes", body: "Beans **first**.", tags: "beans" });
        await form(`${ivyPost}/bookmark`, { do: "add" });
        folderPath = await form("/bookmarks/folders", { name: "Keep" });
        await form("/bookmarks/move", { post_id: ivyPost.slice("/post/".length), folder: new URL(folderPath, url).searchParams.get("folder")!, back: "" });
      })(),
      form(`${adaPost}/comment`, { body: "Which beds exactly?" }).then((to) => void (ivyComment = `/comment/${new URL(to, url).hash.slice("#comment-".length)}`)),
      form("/c", { name: "herb-club", display_name: "Herb club", description: "Sage, thyme and the rest.", community_type: "public" }),
      (async () => {
        collectionPath = new URL(await form("/collections", { title: "Reading list", description: "What to read next.", public: "1" }), url).pathname;
        await form(`${collectionPath}/items`, { post: adaPost, note: "The survey itself." });
      })(),
    ]);
    signedIn.phone = await browser.newContext({ viewport: WIDTHS.phone, isMobile: true, hasTouch: true });
    await signedIn.phone.addCookies(await desktop.cookies());
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(() => tearDown(browser, server, dataDir));

  test.skipIf(!hasChromium)("colonies, people, an organisation, bookmarks, one's own post, a report and a collection at 1280 px, and axe-core on every page of the area (skipped without Chromium)", async () => {
    const { page, check, done } = await journeyPage(signedIn.desktop!, "desktop");
    const url = server!.url;

    // Colonies: search, found one, join another.
    await page.goto(`${url}/c`);
    await check("colonies");
    await page.getByLabel("Find a colony").fill("questions");
    await page.locator("main").getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/\/c\?q=questions$/);
    expect(await page.locator("ul.dir > li").count()).toBe(1);
    await page.getByRole("button", { name: "Join: Questions" }).click();
    await page.waitForURL(/\/c\?q=questions$/);
    expect(await page.getByRole("button", { name: "Leave: Questions" }).count()).toBe(1);
    await page.getByLabel("Name (its address: c/name)").fill("seed-swap");
    await page.getByLabel("Display name").fill("Seed swap");
    await page.getByLabel("Who may join").selectOption("restricted");
    await page.getByRole("button", { name: "Found the colony" }).click();
    await page.waitForURL(/\/c\/seed-swap$/);
    await check("colony");
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Seed swap");

    // People and an organisation.
    await page.goto(`${url}/users`);
    await page.getByRole("link", { name: "Agents", exact: true }).click();
    await page.waitForURL(/\/users\?type=agent$/);
    await check("people");
    expect(await page.locator("ul.people").textContent()).toContain("@ada-agent");
    expect(await page.locator("ul.people").textContent()).not.toContain("@ivy");
    await page.goto(`${url}/orgs/ada-labs`);
    await check("org");
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Ada Labs");

    // A collection, then the agent's post: bookmarked, added to the collection, reported.
    await page.goto(`${url}/collections`);
    await check("collections");
    await page.getByLabel("Title").fill("Soil reading");
    await page.getByRole("button", { name: "Make the collection" }).click();
    await page.waitForURL(/\/collections\/[0-9a-f-]{36}\?notice=made$/);
    await check("collection");
    await page.goto(`${url}${adaPost}`);
    await check("post-with-own-comment");
    await page.getByRole("button", { name: "Bookmark", exact: true }).click();
    await page.getByRole("link", { name: "Your bookmarks" }).waitFor();
    await page.getByLabel("Collection", { exact: true }).selectOption({ label: "Soil reading" });
    await page.getByRole("button", { name: "Add to the collection" }).click();
    await page.waitForURL(/notice=added$/);
    expect(await page.locator("ol.dir").textContent()).toContain("Ada's soil survey");
    await page.goBack();
    await page.locator("article.post").getByRole("link", { name: "Report" }).click();
    await page.waitForURL(new RegExp(`${adaPost}/report$`));
    await check("post-report");
    await page.getByLabel("Spam or advertising").check();
    await page.getByRole("button", { name: "Send the report" }).click();
    await page.waitForURL(/report\?sent=1$/);
    expect(await page.getByRole("status").textContent()).toContain("your report went to the colony's moderators");

    // The bookmark, filed in a new folder.
    await page.goto(`${url}/bookmarks`);
    await check("bookmarks");
    expect(await page.locator("ul.dir").textContent()).toContain("Ada's soil survey");
    await page.getByLabel("Name").fill("Later");
    await page.getByRole("button", { name: "Make the folder" }).click();
    await page.waitForURL(/\/bookmarks\?folder=.*&notice=made$/);
    await page.getByRole("link", { name: "All", exact: true }).click();
    await page.getByLabel("Folder for “Ada's soil survey”").selectOption({ label: "Later" });
    await page.getByRole("button", { name: "Move “Ada's soil survey”" }).click();
    await page.waitForURL(/notice=moved$/);
    await page.getByRole("link", { name: "Later" }).click();
    await page.waitForURL(/\/bookmarks\?folder=[^&]+$/);
    await check("bookmark-folder");
    expect(await page.locator("ul.dir").textContent()).toContain("Ada's soil survey");

    // One's own post, edited within its window.
    await page.goto(`${url}${ivyPost}/edit`);
    await check("post-edit");
    await page.getByLabel("Title").fill("Ivy's better notes");
    await page.getByRole("button", { name: "Save the post" }).click();
    await page.waitForURL(new RegExp(`${ivyPost}$`));
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Ivy's better notes");

    // The pages no journey passes through.
    const rest = Object.fromEntries(Object.entries(area()).filter(([name]) => !PHONE_CHECKS.includes(name)));
    await done(url, Object.keys(rest), rest);
    await page.close();
  }, 90_000);

  test.skipIf(!hasChromium)("leaving a colony, editing a comment and reporting a person at 390 px, and axe-core on every page of the area (skipped without Chromium)", async () => {
    const { page, check, done } = await journeyPage(signedIn.phone!, "phone");
    const url = server!.url;
    await page.goto(`${url}/c/general`);
    await page.getByRole("button", { name: "Join: General" }).click();
    await page.waitForURL(/\/c\/general$/);
    await page.getByRole("button", { name: "Leave: General" }).click();
    await page.waitForURL(/\/c\/general$/);
    expect(await page.getByRole("button", { name: "Join: General" }).count()).toBe(1);

    await page.goto(`${url}${adaPost}`);
    await page.locator(`a[href="${ivyComment}/edit"]`).click();
    await page.waitForURL(new RegExp(`${ivyComment}/edit$`));
    await check("comment-edit");
    await page.getByLabel("Your comment (Markdown)").fill("Which beds, and how deep?");
    await page.getByRole("button", { name: "Save the comment" }).click();
    await page.waitForURL(new RegExp(`${adaPost}#comment-`));
    expect(await page.locator("#comments").textContent()).toContain("Which beds, and how deep?");

    // A person reported from their profile, which also links to their collections. Anonymous
    // readers, the cached copy included, are given no Report link.
    await page.goto(`${url}/u/ada-agent`);
    await check("profile");
    expect(await page.locator("dl.facts").getByRole("link", { name: "Collections" }).getAttribute("href")).toBe("/collections?user=ada-agent");
    await page.getByRole("link", { name: "Report", exact: true }).click();
    await page.waitForURL(/\/u\/ada-agent\/report$/);
    await check("person-report");
    await page.getByLabel("Harassment or abuse").check();
    await page.getByLabel("Anything the administrators should know (optional)").fill("Posts the same survey everywhere.");
    await page.getByRole("button", { name: "Send the report" }).click();
    await page.waitForURL(/\/u\/ada-agent\/report\?sent=1$/);
    await check("person-report-sent");
    expect(await page.getByRole("status").textContent()).toContain("your report went to the site's administrators");
    for (let i = 0; i < 2; i++) {
      const anonymous = await (await fetch(`${url}/u/ada-agent`)).text();
      expect(anonymous).toContain("/collections?user=ada-agent");
      expect(anonymous).not.toContain("/u/ada-agent/report");
    }

    await done(url, PHONE_CHECKS);
    await page.close();
  }, 90_000);
});
