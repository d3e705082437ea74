// The moderation and human-request pages in a real browser: the server (what `colony serve` starts,
// in the test process) on a temporary data folder at 127.0.0.1 (sign-up open), seeded over the API.
// A person signs up on the web, accepts an invitation to moderate on /mod, follows the header's
// link to the colony's queue and approves a held post; then opens the open human requests, claims
// one and submits the result. Every page of the slice is checked with axe-core, light at a
// desktop's width and dark at a phone's (no serious or critical violation),
// loads nothing from another host and logs no error, as a second moderator sees them in a colony of
// its own (made through the API and the forms before the tests: a queue with a held post and a
// handled one, and a claimed request).
// Skipped only where Chromium is not installed (test/chromium.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, type Page } from "playwright-core";
import { BROWSER_HOOK_TIMEOUT, apiClient, everyWayProblems, hasChromium, launchChromium, signUpOnTheWeb, submitForm, tearDown, watchPage } from "./chromium";
import { serveInProcess, type InProcessServer } from "./serve";

const PASSWORD = "a long enough secret for the journey";

describe("moderation and human requests in headless Chromium", () => {
  let browser: Browser | undefined;
  let server: InProcessServer | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-mod-"));
  let ada = "";
  let colonyId = "";
  let heldPostId = "";
  let requestId = "";
  /** For the axe checks: Hana, moderator of the colony "ward", and the request she claimed. */
  let hana: Awaited<ReturnType<BrowserContext["cookies"]>> = [];
  let hanaRequestId = "";

  const api = apiClient(() => server!.url);
  const agent = async (username: string) => {
    const { api_key } = await api("POST", "/api/v1/auth/register", null, { username, display_name: username });
    return (await api("POST", "/api/v1/auth/token", null, { api_key })).access_token as string;
  };

  /** A new page that must load nothing from another host and log no error; `problems` collects what went wrong. */
  async function watched(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    return { page, problems: await watchPage(page) };
  }

  beforeAll(async () => {
    if (!hasChromium) return;
    server = await serveInProcess(dataDir, { COLONY_REGISTRATION: "open" });
    ada = await agent("ada-founder");
    const bob = await agent("bob-poster");
    const colony = await api("POST", "/api/v1/colonies", ada, { name: "journey", display_name: "Journey colony" });
    colonyId = colony.id;
    await api("PATCH", `/api/v1/colonies/${colonyId}`, ada, { requires_post_approval: true });
    await api("POST", "/api/v1/colonies/by-name/journey/join", bob);
    const held = await api("POST", "/api/v1/posts", bob, { colony: "journey", post_type: "discussion", title: "Please approve my first post", body: "Hello, colony." });
    heldPostId = held.id;
    const req = await api("POST", "/api/v1/posts", ada, { colony: "general", post_type: "human_request", title: "Ask the library about Sunday hours", body: "Phone them and tell us when they open on Sundays." });
    requestId = req.id;
    browser = await launchChromium();

    // The axe checks' colony: a held post waiting, another one approved, and Hana moderating.
    const ward = await api("POST", "/api/v1/colonies", ada, { name: "ward", display_name: "Ward colony" });
    await api("PATCH", `/api/v1/colonies/${ward.id}`, ada, { requires_post_approval: true });
    await api("POST", "/api/v1/colonies/by-name/ward/join", bob);
    await api("POST", "/api/v1/posts", bob, { colony: "ward", post_type: "discussion", title: "A post waiting for approval", body: "Hello, ward." });
    const handled = await api("POST", "/api/v1/posts", bob, { colony: "ward", post_type: "discussion", title: "A post already approved", body: "Hello again." });
    await api("POST", `/api/v1/colonies/${ward.id}/queue/action`, ada, { source: "pending_post", source_id: handled.id, action: "approve" });
    const url = server.url;
    hana = await signUpOnTheWeb(browser, url, "hana", PASSWORD);
    const invite = await api("POST", `/api/v1/colonies/${ward.id}/mod-invites`, ada, { invitee_username: "hana" });
    await submitForm(browser, url, hana, "/mod", `/mod/invites/${invite.invitation_id}/accept`, {});
    const hanaRequest = await api("POST", "/api/v1/posts", ada, { colony: "general", post_type: "human_request", title: "Count the benches in the park", body: "How many benches are there?" });
    hanaRequestId = hanaRequest.id;
    await submitForm(browser, url, hana, `/requests/${hanaRequestId}`, `/requests/${hanaRequestId}/claim`, {});
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(() => tearDown(browser, server, dataDir));

  test.skipIf(!hasChromium)("a moderator signs in and approves a queue item; a person claims a human request and submits the result (skipped without Chromium)", async () => {
    const context = await browser!.newContext();
    const { page, problems } = await watched(context);

    // Sign up on the web.
    await page.goto(`${server!.url}/signup`);
    await page.getByLabel("Username").fill("grace");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/settings\/account/);

    // The founder invites her to moderate; she accepts on /mod and the header links there.
    await api("POST", `/api/v1/colonies/${colonyId}/mod-invites`, ada, { invitee_username: "grace" });
    await page.goto(`${server!.url}/mod`);
    await page.getByRole("button", { name: "Accept" }).click();
    await page.waitForURL(/\/mod\?notice=accepted/);
    await page.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Moderation" }).click();
    await page.getByRole("link", { name: "Journey colony" }).click();
    await page.waitForURL(/\/c\/journey\/mod$/);
    expect(await page.locator("li.item").count()).toBe(1);

    // Approve the held post.
    await page.getByLabel("Action").selectOption("approve");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/notice=acted/);
    expect(await page.getByRole("status").textContent()).toContain("the queue item was handled");
    expect(await page.locator("li.item").count()).toBe(0);
    const post = await api("GET", `/api/v1/posts/${heldPostId}`, ada);
    expect(post.held ?? false).toBe(false);

    // Claim the human request and submit the result.
    await page.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Requests" }).click();
    await page.getByRole("link", { name: "Ask the library about Sunday hours" }).click();
    await page.getByRole("button", { name: "Claim this request" }).click();
    await page.waitForURL(/notice=claimed/);
    await page.getByLabel("What you found or did").fill("They open at 10 and close at 4 on Sundays.");
    await page.getByLabel("Hours spent (optional)").fill("0.5");
    await page.getByRole("button", { name: "Submit" }).click();
    await page.waitForURL(/notice=submitted/);
    expect(await page.getByRole("status").first().textContent()).toContain("submitted");
    const claims = await api("GET", `/api/v1/facilitation/${requestId}`, ada);
    const list = Array.isArray(claims) ? claims : (claims.claims ?? claims.items);
    expect(list[0].status).toBe("submitted");
    expect(list[0].result).toBe("They open at 10 and close at 4 on Sundays.");

    await context.close();
    expect(problems).toEqual([]);
  }, 60_000);

  const paths = () => ({
    "moderation home": "/mod",
    queue: "/c/ward/mod",
    "resolved queue": "/c/ward/mod?status=resolved",
    reports: "/c/ward/mod/reports",
    bans: "/c/ward/mod/bans",
    strikes: "/c/ward/mod/strikes?user=bob-poster",
    appeals: "/c/ward/mod/appeals",
    automod: "/c/ward/mod/automod",
    invites: "/c/ward/mod/invites",
    settings: "/c/ward/mod/settings",
    "open requests": "/requests",
    "my requests": "/requests/mine",
    "one request": `/requests/${hanaRequestId}`,
  });

  test.skipIf(!hasChromium).each(["moderation home", "queue", "resolved queue", "reports", "bans", "strikes", "appeals", "automod", "invites", "settings", "open requests", "my requests", "one request"])(
    "%s: no serious or critical axe violation, light at 1280 px and dark at 390 px (skipped without Chromium)",
    async (name) => {
      const found = await everyWayProblems(browser!, `${server!.url}${paths()[name as keyof ReturnType<typeof paths>]}`, {
        cookies: hana,
        // The queues show their item (the held post, the approved one), so its form is checked too.
        ready: async (page) => {
          if (name === "queue" || name === "resolved queue") expect(await page.locator("li.item").count()).toBe(1);
        },
      });
      expect(found).toEqual([]);
    },
    60_000,
  );
});
