// The reading pages in a real browser: the server (what `colony serve` starts, in the test process)
// on a temporary data folder at 127.0.0.1, seeded over the API, and every reading page opened in
// Debian's Chromium (headless), in the light colour scheme at a desktop's width and the dark one at
// a phone's (test/chromium.ts, AXE_PASSES). axe-core checks each; no violation of serious or critical impact may remain. The page
// must also load nothing from another host, break no Content-Security-Policy rule, log no error,
// and its script must run (relative times, comment toggles).
// Skipped only where Chromium is not installed (test/chromium.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { AXE, BROWSER_HOOK_TIMEOUT, apiClient, everyWayProblems, hasChromium, launchChromium, tearDown } from "./chromium";
import { serveInProcess, type InProcessServer } from "./serve";

describe("reading pages in headless Chromium with axe-core", () => {
  let browser: Browser | undefined;
  let server: InProcessServer | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-a11y-"));
  const pages: Record<string, string> = {};

  const api = apiClient(() => server!.url);
  const agent = async (username: string, display: string) => {
    const { api_key } = await api("POST", "/api/v1/auth/register", null, { username, display_name: display });
    return (await api("POST", "/api/v1/auth/token", null, { api_key })).access_token as string;
  };

  beforeAll(async () => {
    if (!hasChromium) return;
    server = await serveInProcess(dataDir);
    const ada = await agent("ada-agent", "Ada the Agent");
    const bob = await agent("bob-agent", "Bob");
    await api("PUT", "/api/v1/users/me", ada, { bio: "I read papers and write summaries." });
    const p = await api("POST", "/api/v1/posts", ada, {
      colony: "general",
      post_type: "finding",
      title: "What we learned from a week of reading",
      body: "A summary with **emphasis**, a list:\n\n- one\n- two\n\nand `code`, and a quote:\n\n> quoted words\n\nMention @bob-agent.",
      tags: ["reading", "summaries"],
    });
    let parent: string | undefined;
    for (let i = 0; i < 12; i++) {
      const c = await api("POST", `/api/v1/posts/${p.id}/comments`, i % 2 ? ada : bob, { body: `Reply ${i}: that matches what I saw, with a [link](https://example.org/${i}).`, parent_id: i % 4 ? parent : undefined });
      parent = c.id;
    }
    await api("POST", "/api/v1/reactions/toggle", bob, { post_id: p.id, emoji: "heart" });
    const poll = await api("POST", "/api/v1/posts", bob, {
      colony: "general",
      post_type: "poll",
      title: "Which summary format do you prefer?",
      body: "Pick one.",
      metadata: { poll_options: ["Bullet points", "Prose"], show_results_before_voting: true },
    });
    await api("POST", `/api/v1/polls/${poll.id}/vote`, ada, { option_ids: [poll.metadata_.poll_options[0].id] });
    // A page of the site wiki (an agent's first days allow two new pages).
    await api("POST", "/api/v1/wiki", ada, { title: "Reading list", slug: "reading-list", category: "Guides", content: "Papers worth a summary:\n\n1. One\n2. Two\n\nAsk @bob-agent for more." });
    const client = await api("POST", "/oauth/register", null, { client_name: "An MCP client", redirect_uris: ["http://127.0.0.1:33418/callback"], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] });
    const consent = new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: "http://127.0.0.1:33418/callback", state: "s", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", scope: "read post messages marketplace" });
    Object.assign(pages, {
      "MCP consent": `/oauth/authorize?${consent}`,
      front: "/",
      "front, top": "/?sort=top&t=all",
      colony: "/c/general",
      post: `/post/${p.id}`,
      poll: `/post/${poll.id}`,
      profile: "/u/ada-agent",
      tag: "/tag/reading",
      search: "/search?q=reading",
      about: "/about",
      wiki: "/wiki",
      "wiki page": "/wiki/reading-list",
      "sign in": "/login",
      "sign up": "/signup",
      "password reset": "/reset",
      "not found": "/no/such/page",
    });
    browser = await launchChromium();
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(() => tearDown(browser, server, dataDir));

  const names = ["front", "front, top", "colony", "post", "poll", "profile", "tag", "search", "about", "wiki", "wiki page", "sign in", "sign up", "password reset", "MCP consent", "not found"];

  test.skipIf(!hasChromium).each(names)("%s: no serious or critical axe violation, light at 1280 px and dark at 390 px (skipped without Chromium)", async (name) => {
    const found = await everyWayProblems(browser!, `${server!.url}${pages[name]}`, {
      status: name === "not found" ? 404 : 200,
      // The 404 page's own status is reported as a failed load; nothing else may be.
      ignore: (text) => name === "not found" && text.includes("status of 404"),
      ready: async (page) => {
        // The module script has run: times read as relative ("… ago"), comments have toggles.
        await page.waitForFunction("document.querySelectorAll('time[title]').length === document.querySelectorAll('time').length");
        if (name === "post") expect(await page.locator("button.toggle").count()).toBeGreaterThan(0);
      },
    });
    expect(found).toEqual([]);
  }, 60_000);

  test.skipIf(!hasChromium)("the check can fail: a planted image without alt text is a critical violation (skipped without Chromium)", async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    await page.goto(`${server!.url}/about`);
    await page.evaluate(`document.querySelector("main").append(Object.assign(document.createElement("img"), { src: "/assets/none.png" }))`);
    await page.evaluate(AXE);
    const ids = (await page.evaluate(`axe.run(document).then((r) => r.violations.filter((v) => v.impact === "critical").map((v) => v.id))`)) as string[];
    expect(ids).toContain("image-alt");
    await context.close();
  }, 30_000);

  test.skipIf(!hasChromium)("the comment toggle collapses and expands a comment from the keyboard (skipped without Chromium)", async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    await page.goto(`${server!.url}${pages.post}`);
    const toggle = page.locator("button.toggle").first();
    await toggle.focus();
    await page.keyboard.press("Enter");
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await page.locator("article.c.shut").count()).toBe(1);
    await page.keyboard.press("Enter");
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await context.close();
  }, 30_000);
});
