// Live updates in a real browser: the server (what `colony serve` starts, in the test process) on a
// temporary data folder at 127.0.0.1 (open registration), Debian's Chromium (headless), two people
// in two browser contexts. Bob writes to Alice: her open conversation shows the message and her
// header's count rises, without a reload (assets/live.js over GET /live). Alice comments on her
// post while Bob reads it: his page says "1 new comment — Show", and Show reloads it at the
// comment. Both pages, as updated, are checked with axe-core (every rule in the light scheme, the
// colour rules in the dark): no violation of serious or critical impact, nothing from another
// host, no console error. Cara and Dan share a group: Dan's message appears on Cara's open group
// page.
// Skipped only where Chromium is not installed (test/chromium.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { BROWSER_HOOK_TIMEOUT, COLOUR_RULES, SCHEMES, axeProblems, hasChromium, launchChromium, tearDown, watchPage } from "./chromium";
import { serveInProcess, type InProcessServer } from "./serve";

const PASSWORD = "a long enough secret for the live test";

describe("live updates in headless Chromium", () => {
  let browser: Browser | undefined;
  let server: InProcessServer | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-live-"));
  const contexts: BrowserContext[] = [];

  /** A new browser context signed up as `username` through the form. */
  async function person(username: string, colorScheme: "light" | "dark" = "light"): Promise<{ page: Page; problems: string[] }> {
    const ctx = await browser!.newContext({ colorScheme, reducedMotion: "reduce" });
    contexts.push(ctx);
    const page = await ctx.newPage();
    const problems = await watchPage(page);
    await page.goto(`${server!.url}/signup`);
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/settings\/account/);
    return { page, problems };
  }

  /** Goes to `path` and waits until the page's live stream has answered. */
  async function openLive(page: Page, path: string): Promise<void> {
    const live = page.waitForResponse((r) => new URL(r.url()).pathname === "/live");
    await page.goto(`${server!.url}${path}`, { waitUntil: "load" });
    expect((await live).status()).toBe(200);
  }

  beforeAll(async () => {
    if (!hasChromium) return;
    server = await serveInProcess(dataDir, { COLONY_REGISTRATION: "open" });
    browser = await launchChromium();
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(async () => {
    for (const ctx of contexts) await ctx.close();
    await tearDown(browser, server, dataDir);
  });

  test.skipIf(!hasChromium)("a message and a comment appear on the other person's open page without a reload (skipped without Chromium)", async () => {
    const alice = await person("alice-live");
    const bob = await person("bob-live", "dark");

    // Alice has her (empty) conversation with Bob open.
    await openLive(alice.page, "/messages/bob-live");
    expect(await alice.page.locator(".who a[href='/notifications']").textContent()).toBe("Notifications");
    await alice.page.evaluate("window.stillHere = true");

    // Bob writes to her from his own conversation page (a plain form post).
    await bob.page.goto(`${server!.url}/messages/alice-live`);
    await bob.page.getByLabel("Message").fill("Hello Alice, are you there? <b>not bold</b>");
    await bob.page.getByRole("button", { name: "Send" }).click();
    await bob.page.waitForURL(/#message-/);

    // Alice's page shows it, as the server renders it, and her count rises; no reload happened.
    const message = alice.page.locator("ol.dm li.theirs").filter({ hasText: "Hello Alice, are you there?" });
    await message.waitFor({ timeout: 10_000 });
    expect(await message.locator(".text").textContent()).toBe("Hello Alice, are you there? <b>not bold</b>");
    expect(await message.locator("b").count()).toBe(0);
    await alice.page.locator(".who a[href='/notifications']", { hasText: "Notifications (1)" }).waitFor({ timeout: 10_000 });
    expect(await alice.page.title()).toBe("(1) Messages with bob-live · Colony");
    expect(await alice.page.getByRole("status").filter({ hasText: "New message from bob-live" }).count()).toBe(1);
    expect(await alice.page.evaluate("window.stillHere === true")).toBe(true);
    for (const scheme of SCHEMES) {
      await alice.page.emulateMedia({ colorScheme: scheme });
      expect((await axeProblems(alice.page, scheme === "dark" ? COLOUR_RULES : undefined)).map((v) => `conversation/${scheme}: ${v}`)).toEqual([]);
    }

    // Alice writes a post; Bob reads it; Alice comments on it.
    await alice.page.goto(`${server!.url}/submit?colony=general`);
    await alice.page.getByLabel("Title").fill("Live from the garden");
    await alice.page.getByLabel("Body").fill("The tomatoes are in.");
    await alice.page.getByRole("button", { name: "Post", exact: true }).click();
    await alice.page.waitForURL(/\/post\/[0-9a-f-]{36}$/);
    const postPath = new URL(alice.page.url()).pathname;
    await openLive(bob.page, postPath);
    await bob.page.evaluate("window.stillHere = true");
    await alice.page.getByLabel("Add a comment (Markdown)").fill("And the beans are next.");
    await alice.page.getByRole("button", { name: "Comment", exact: true }).click();
    await alice.page.waitForURL(/#comment-/);
    const commentId = new URL(alice.page.url()).hash.slice(1);

    const note = bob.page.locator("#comments .live-note[role='status']");
    await note.filter({ hasText: "1 new comment — Show" }).waitFor({ timeout: 10_000 });
    expect(await bob.page.evaluate("window.stillHere === true")).toBe(true);
    expect(await bob.page.locator(`article#${commentId}`).count()).toBe(0);
    for (const scheme of SCHEMES) {
      await bob.page.emulateMedia({ colorScheme: scheme });
      expect((await axeProblems(bob.page, scheme === "dark" ? COLOUR_RULES : undefined)).map((v) => `post/${scheme}: ${v}`)).toEqual([]);
    }
    // Show reloads the page at the new comment.
    await note.getByRole("link", { name: "Show" }).click();
    await bob.page.locator(`article#${commentId}`).waitFor({ timeout: 10_000 });
    expect(new URL(bob.page.url()).hash).toBe(`#${commentId}`);
    expect(await bob.page.evaluate("window.stillHere === true")).toBe(false);
    expect(await bob.page.locator(`article#${commentId}`).textContent()).toContain("And the beans are next.");

    expect([...alice.problems, ...bob.problems]).toEqual([]);
  }, 90_000);

  test.skipIf(!hasChromium)("a group message appears on the other member's open group page without a reload (skipped without Chromium)", async () => {
    const cara = await person("cara-live");
    const dan = await person("dan-live", "dark");

    // Cara makes a group with Dan, who accepts the invitation.
    await cara.page.goto(`${server!.url}/groups/new`);
    await cara.page.getByLabel("Title").fill("Seed swap");
    await cara.page.getByLabel("Members").fill("dan-live");
    await cara.page.getByRole("button", { name: "Create group" }).click();
    await cara.page.waitForURL(/\/groups\/[0-9a-f-]{36}/);
    const groupPath = new URL(cara.page.url()).pathname;
    await dan.page.goto(`${server!.url}${groupPath}`);
    await dan.page.getByRole("button", { name: "Accept the invitation to Seed swap" }).click();
    await dan.page.getByRole("textbox", { name: "Message" }).waitFor();

    // Cara has the group open; Dan writes to it.
    await openLive(cara.page, groupPath);
    await cara.page.evaluate("window.stillHere = true");
    await dan.page.getByRole("textbox", { name: "Message" }).fill("Beans for tomatoes? <i>plain</i>");
    await dan.page.getByRole("button", { name: "Send" }).click();
    await dan.page.waitForURL(/#message-/);

    const message = cara.page.locator("[data-live-group] ol.dm li.theirs").filter({ hasText: "Beans for tomatoes?" });
    await message.waitFor({ timeout: 10_000 });
    expect(await message.locator(".text").textContent()).toBe("Beans for tomatoes? <i>plain</i>");
    expect(await message.locator("i").count()).toBe(0);
    expect(await cara.page.getByRole("status").filter({ hasText: "New message from dan-live" }).count()).toBe(1);
    expect(await cara.page.evaluate("window.stillHere === true")).toBe(true);
    for (const scheme of SCHEMES) {
      await cara.page.emulateMedia({ colorScheme: scheme });
      expect((await axeProblems(cara.page, scheme === "dark" ? COLOUR_RULES : undefined)).map((v) => `group/${scheme}: ${v}`)).toEqual([]);
    }
    expect([...cara.problems, ...dan.problems]).toEqual([]);
  }, 90_000);
});
