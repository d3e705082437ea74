// Taking part as a human, in a real browser: the server (what `colony serve` starts, in the test
// process) on a temporary data folder at 127.0.0.1 (open registration), Debian's Chromium
// (headless). The journey: sign up, sign out, sign in through /login, write a post from a colony's
// "New post", comment on it, open a reply form in place and reply to the comment, and see the reply
// on the post page; a reaction and a vote on an agent's comment are sent without reloading the page
// (site.js); a picture is uploaded on /settings/profile and removed. The signed-in pages of a
// second person, who wrote a post, a comment and a message through the forms before the tests (the
// post with its forms, a comment's reply and reaction pages, /submit, /notifications, /messages, a
// conversation, /settings/profile), are checked with axe-core, light at a desktop's width and dark at a
// phone's: no violation of serious or critical impact, nothing
// from another host, no console error.
// Skipped only where Chromium is not installed (test/chromium.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import sharp from "sharp";
import { BROWSER_HOOK_TIMEOUT, axeProblems, everyWayProblems, hasChromium, launchChromium, signUpOnTheWeb, submitForm, tearDown, watchPage } from "./chromium";
import { registerAgent, serveInProcess, type InProcessServer } from "./serve";

const USERNAME = "hana-human";
const IRIS = "iris-human";
const PAINTER = "jade-human";
const PASSWORD = "a long enough secret for hana";

describe("taking part in headless Chromium", () => {
  let browser: Browser | undefined;
  let server: InProcessServer | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-part-"));
  let adaToken = "";
  /** The second person's session, post and comment, made before the tests for the axe checks. */
  let iris: Awaited<ReturnType<BrowserContext["cookies"]>> = [];
  let postPath = "";
  let commentPath = "";

  beforeAll(async () => {
    if (!hasChromium) return;
    server = await serveInProcess(dataDir, { COLONY_REGISTRATION: "open" });
    // Someone to write to.
    adaToken = await registerAgent(server.url, "ada-agent");
    browser = await launchChromium();
    // The account, made through the sign-up form, then signed out.
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${server.url}/signup`);
    await page.getByLabel("Username").fill(USERNAME);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForLoadState("load");
    if (!page.url().includes("/settings/account")) throw new Error(`sign-up failed at ${page.url()}: ${await page.locator("main").textContent()}`);
    await page.locator(".who").getByRole("button", { name: "Sign out" }).click();
    // Closed only once signed out: closing while the sign-out's navigation runs could hang the close.
    await page.waitForURL(/\/login/);
    await ctx.close();

    // The second person's post, comment (with one of Ada's beside it) and message, through the forms.
    const url = server.url;
    iris = await signUpOnTheWeb(browser, url, IRIS, PASSWORD);
    postPath = (await submitForm(browser, url, iris, "/submit", "/submit", { colony: "general", post_type: "discussion", title: "Iris reads the week", body: "Some **notes** of mine.", tags: "notes" })).location;
    const commented = await submitForm(browser, url, iris, postPath, `${postPath}/comment`, { body: "A first comment on my own post." });
    commentPath = `/comment/${new URL(commented.location, url).hash.slice("#comment-".length)}`;
    const adas = await fetch(`${url}/api/v1${postPath.replace("/post/", "/posts/")}/comments`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${adaToken}` }, body: JSON.stringify({ body: "Ada agrees." }) });
    expect(adas.status).toBe(201);
    await submitForm(browser, url, iris, "/messages/ada-agent", "/messages/ada-agent", { body: "Hello Ada, Iris here." });
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(() => tearDown(browser, server, dataDir));

  test.skipIf(!hasChromium)("sign in, write a post, comment, reply to the comment, see the reply on the post page (skipped without Chromium)", async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    await page.goto(`${server!.url}/login`);
    await page.locator("#login").fill(USERNAME);
    await page.locator("#password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.goto(`${server!.url}/c/general`);
    await page.getByRole("link", { name: "New post" }).click();
    await page.waitForURL(/\/submit\?colony=general$/);
    expect(await page.getByLabel("Colony").inputValue()).toBe("general");
    await page.getByLabel("Title").fill("Notes from my first week");
    await page.getByLabel("Body").fill("Some **notes** worth sharing.");
    await page.getByLabel("Tags (optional)").fill("notes, week-one");
    await page.getByRole("button", { name: "Post", exact: true }).click();
    await page.waitForURL(/\/post\/[0-9a-f-]{36}$/);
    postPath = new URL(page.url()).pathname;
    expect(await page.locator("h1#post-title").textContent()).toBe("Notes from my first week");

    await page.getByLabel("Add a comment (Markdown)").fill("A first comment on my own post.");
    await page.getByRole("button", { name: "Comment", exact: true }).click();
    await page.waitForURL(/#comment-/);
    commentPath = `/comment/${new URL(page.url()).hash.slice("#comment-".length)}`;
    const comment = page.locator("article.c").filter({ hasText: "A first comment on my own post." });
    // "Reply" opens the reply page's form in place (site.js).
    await comment.locator(".acts").first().getByRole("link", { name: "Reply", exact: true }).click();
    await comment.getByLabel("Your reply (Markdown)").fill("And a reply to that comment.");
    await comment.getByRole("button", { name: "Reply", exact: true }).click();
    await page.waitForURL(/#comment-/);
    const replyId = new URL(page.url()).hash.slice(1);
    const reply = page.locator(`article#${replyId}`);
    expect(await reply.textContent()).toContain("And a reply to that comment.");
    // Nested under the comment it answers.
    expect(await comment.locator(`article#${replyId}`).count()).toBe(1);
    // A reaction is sent without reloading the page (site.js), and shows at once.
    await page.evaluate("window.stillHere = true");
    await comment.locator(".acts").first().getByRole("link", { name: /^React/ }).click();
    await comment.locator(".act-panel").getByRole("button", { name: "fire" }).click();
    await comment.locator(".acts").first().locator("a.react .mine", { hasText: "fire 1" }).waitFor();
    expect(await comment.locator(".act-panel").count()).toBe(0);
    expect(await page.evaluate("window.stillHere === true")).toBe(true);
    // A vote on someone else's comment: the button of the page's one form, sent in place too.
    const adas = await fetch(`${server!.url}/api/v1${postPath.replace("/post/", "/posts/")}/comments`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${adaToken}` }, body: JSON.stringify({ body: "Ada agrees." }) });
    expect(adas.status).toBe(201);
    await page.reload();
    await page.evaluate("window.stillHere = true");
    const ada = page.locator("article.c").filter({ hasText: "Ada agrees." });
    await ada.locator(".acts").first().getByRole("button", { name: "Upvote", exact: true }).click();
    await ada.locator('.acts button[value="1"][aria-pressed="true"]').waitFor();
    expect(await ada.locator(".acts .score").first().textContent()).toBe("1 point");
    expect(await page.evaluate("window.stillHere === true")).toBe(true);
    // And a message, so the conversation pages have something to show.
    await page.goto(`${server!.url}/messages/ada-agent`);
    await page.getByLabel("Message").fill("Hello Ada, nice to meet you.");
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForURL(/#message-/);
    expect(await page.locator("ol.dm").textContent()).toContain("Hello Ada, nice to meet you.");
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  test.skipIf(!hasChromium)("upload a picture on /settings/profile through the file input; it is shown (skipped without Chromium)", async () => {
    const context = await browser!.newContext();
    await context.addCookies(await signUpOnTheWeb(browser!, server!.url, PAINTER, PASSWORD));
    const page = await context.newPage();
    const errors = await watchPage(page);
    await page.goto(`${server!.url}/settings/profile`);
    const png = await sharp({ create: { width: 120, height: 120, channels: 3, background: { r: 20, g: 160, b: 90 } } })
      .png()
      .toBuffer();
    await page.getByLabel("Picture file").setInputFiles({ name: "me.png", mimeType: "image/png", buffer: png });
    await page.getByRole("button", { name: "Upload picture" }).click();
    await page.waitForURL((u) => u.searchParams.get("notice") === "avatar-saved");
    const img = page.getByRole("img", { name: "Your current picture" });
    expect(await img.getAttribute("src")).toMatch(/^\/avatars\/[0-9a-f-]{36}\/96\.webp\?v=\d+$/);
    await page.waitForFunction('document.querySelector(".avatar-now img")?.naturalWidth === 96');
    expect(await axeProblems(page)).toEqual([]);
    // The profile shows it through /u/<name>/avatar, whose redirect is a path on the host the page
    // was opened at (not the public URL, which a server on port 0 does not know), so the page's
    // img-src 'self' lets it load.
    await page.goto(`${server!.url}/u/${PAINTER}`);
    await page.waitForFunction('document.querySelector("img.avatar")?.naturalWidth > 0');
    await page.goto(`${server!.url}/settings/profile`);
    await page.getByRole("button", { name: "Remove picture" }).click();
    await page.waitForURL((u) => u.searchParams.get("notice") === "avatar-removed");
    expect(await page.getByRole("img", { name: "Your current picture" }).getAttribute("src")).toBe(`/u/${PAINTER}/avatar?size=96`);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  const names = ["post", "reply", "react", "submit", "notifications", "messages", "conversation", "profile settings"] as const;
  const pathOf = (name: (typeof names)[number]) =>
    ({ post: postPath, reply: `${commentPath}/reply`, react: `${commentPath}/react`, submit: "/submit", notifications: "/notifications", messages: "/messages", conversation: "/messages/ada-agent", "profile settings": "/settings/profile" })[name];

  test.skipIf(!hasChromium).each(names)("signed in, %s: no serious or critical axe violation, light at 1280 px and dark at 390 px (skipped without Chromium)", async (name) => {
    const found = await everyWayProblems(browser!, `${server!.url}${pathOf(name)}`, {
      cookies: iris,
      ready: async (page) => expect(await page.locator(".who a").first().textContent()).toBe(IRIS),
    });
    expect(found).toEqual([]);
  }, 60_000);
});
