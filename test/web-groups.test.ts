// Group conversations in a real browser: the server (what `colony serve` starts, in the test
// process) on a temporary data folder at 127.0.0.1 (sign-up open), Debian's Chromium (headless).
// Two people sign up on the web and an agent registers through the API; the first person creates a
// group with the other two from /messages, writes in it; the second finds the invitation on
// /messages, accepts it, reads the message and replies; the first sees the reply. The group's page,
// the new-group form and the invitation page (of a group that two other people made through the
// forms before the tests) are checked with axe-core, light at a desktop's width and dark at a
// phone's (no serious or critical violation), load nothing from another
// host and log no error.
// Skipped only where Chromium is not installed (test/chromium.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { BROWSER_HOOK_TIMEOUT, apiClient, everyWayProblems, hasChromium, launchChromium, signUpOnTheWeb, submitForm, tearDown, watchPage } from "./chromium";
import { serveInProcess, type InProcessServer } from "./serve";

const PASSWORD = "a long enough secret for the group journey";

describe("group conversations in headless Chromium", () => {
  let browser: Browser | undefined;
  let server: InProcessServer | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-groups-"));
  /** For the axe checks: Ivy's group with Jon, who accepted and replied, and an invitation Jon has not answered. */
  let groupPath = "";
  let invitationPath = "";
  const cookies: Record<string, Awaited<ReturnType<BrowserContext["cookies"]>>> = {};

  const api = apiClient(() => server!.url);
  let adaToken = "";

  async function signUp(context: BrowserContext, username: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${server!.url}/signup`);
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/settings\/account/);
    return page;
  }

  beforeAll(async () => {
    if (!hasChromium) return;
    server = await serveInProcess(dataDir, { COLONY_REGISTRATION: "open" });
    const { api_key } = await api("POST", "/api/v1/auth/register", null, { username: "ada-agent", display_name: "Ada" });
    adaToken = (await api("POST", "/api/v1/auth/token", null, { api_key })).access_token;
    browser = await launchChromium();
    const url = server.url;
    cookies.ivy = await signUpOnTheWeb(browser, url, "ivy", PASSWORD);
    cookies.jon = await signUpOnTheWeb(browser, url, "jon", PASSWORD);
    const made = await submitForm(browser, url, cookies.ivy, "/groups/new", "/groups/new", { title: "Garden plan", members: "jon, @ada-agent", description: "Who plants what." });
    groupPath = new URL(made.location, url).pathname;
    await submitForm(browser, url, cookies.ivy, groupPath, `${groupPath}/send`, { body: "Beans in the north bed.\nWho takes the leeks?" });
    await submitForm(browser, url, cookies.jon, "/messages", `${groupPath}/respond`, { answer: "accept" });
    await submitForm(browser, url, cookies.jon, groupPath, `${groupPath}/send`, { body: "Leeks are mine, @ivy." });
    const invited = await submitForm(browser, url, cookies.ivy, "/groups/new", "/groups/new", { title: "Seed library", members: "jon" });
    invitationPath = new URL(invited.location, url).pathname;
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(() => tearDown(browser, server, dataDir));

  test.skipIf(!hasChromium)("a group with two members: created from /messages, the second member accepts the invitation and replies (skipped without Chromium)", async () => {
    const hugoContext = await browser!.newContext();
    const hugo = await signUp(hugoContext, "hugo");
    const hugoProblems = await watchPage(hugo);
    const ginaContext = await browser!.newContext();
    const gina = await signUp(ginaContext, "gina");
    const ginaProblems = await watchPage(gina);

    // Gina makes the group from /messages.
    await gina.goto(`${server!.url}/messages`);
    await gina.getByRole("link", { name: "New group" }).click();
    await gina.waitForURL(/\/groups\/new$/);
    await gina.getByLabel("Title").fill("Allotment rota");
    await gina.getByLabel("Members").fill("hugo, @ada-agent");
    await gina.getByLabel("Description (optional)").fill("Who waters when.");
    await gina.getByRole("button", { name: "Create group" }).click();
    await gina.waitForURL(/\/groups\/[0-9a-f-]{36}\?notice=created$/);
    const groupPath = new URL(gina.url()).pathname;
    expect(await gina.getByRole("heading", { level: 1 }).textContent()).toBe("Allotment rota");
    expect(await gina.getByRole("status").filter({ hasText: "The group is made" }).textContent()).toContain("The group is made");
    expect(await gina.locator("ul.members li").count()).toBe(3);
    await gina.getByLabel("Message", { exact: true }).fill("I can water on Mondays.\nWho takes Thursday?");
    await gina.getByRole("button", { name: "Send" }).click();
    await gina.waitForURL(/#message-/);
    expect(await gina.locator("ol.dm").textContent()).toContain("Who takes Thursday?");
    // She leaves the group's page: an open one shows (and so reads) new messages as they arrive.
    await gina.goto(`${server!.url}/`);

    // Hugo finds the invitation on /messages and accepts it.
    await hugo.goto(`${server!.url}/messages`);
    const invitation = hugo.locator("#groups li").filter({ hasText: "Allotment rota" });
    await invitation.getByRole("button", { name: "Accept the invitation to Allotment rota" }).click();
    await hugo.waitForURL(/\?notice=joined$/);
    expect(new URL(hugo.url()).pathname).toBe(groupPath);
    expect(await hugo.getByRole("status").filter({ hasText: "You joined" }).textContent()).toBe("You joined the group.");
    expect(await hugo.locator("ol.dm").textContent()).toContain("I can water on Mondays.");
    await hugo.getByLabel("Message", { exact: true }).fill("Thursday is mine, @gina.");
    await hugo.getByRole("button", { name: "Send" }).click();
    await hugo.waitForURL(/#message-/);

    // Gina sees the reply, and the group is unread for her until she opens it.
    await gina.goto(`${server!.url}/messages`);
    expect(await gina.locator("#groups li").filter({ hasText: "Allotment rota" }).textContent()).toContain("1 unread");
    await gina.locator("#groups").getByRole("link", { name: "Allotment rota" }).click();
    await gina.waitForURL(new RegExp(`${groupPath}$`));
    expect(await gina.locator("ol.dm li.theirs").last().textContent()).toContain("Thursday is mine, @gina.");

    // The agent, invited too, sees the invitation through the API.
    const inbox = JSON.stringify(await api("GET", "/api/v1/messages/conversations", adaToken));
    expect(inbox).toContain('"title":"Allotment rota"');
    expect(inbox).toContain('"invite_status":"pending"');

    expect([...ginaProblems, ...hugoProblems]).toEqual([]);
    await ginaContext.close();
    await hugoContext.close();
  }, 90_000);

  const pages = [
    ["the group", "ivy", () => groupPath],
    ["a new group", "ivy", () => "/groups/new"],
    ["messages with groups", "jon", () => "/messages"],
  ] as const;

  test.skipIf(!hasChromium).each(pages)("signed in, %s: no serious or critical axe violation, light at 1280 px and dark at 390 px (skipped without Chromium)", async (_name, who, path) => {
    const found = await everyWayProblems(browser!, `${server!.url}${path()}`, {
      cookies: cookies[who],
      ready: async (page) => expect(await page.locator(".who a").first().textContent()).toBe(who),
    });
    expect(found).toEqual([]);
  }, 60_000);

  test.skipIf(!hasChromium)("the invitation page passes axe too (skipped without Chromium)", async () => {
    const found = await everyWayProblems(browser!, `${server!.url}${invitationPath}`, {
      cookies: cookies.jon,
      ready: async (page) => expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Invitation: Seed library"),
    });
    expect(found).toEqual([]);
  }, 60_000);
});
