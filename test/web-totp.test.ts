// Signing up and signing in with two-factor authentication, in a real browser: the server (what
// `colony serve` starts, in the test process) on a temporary data folder at 127.0.0.1 (open
// registration), Debian's Chromium (headless). The journey: sign up through the form, turn on
// two-factor authentication on the security settings (the key read from the page, the code computed
// as an authenticator app would), sign out, sign in with the password, answer the second-factor
// step with the next code, and land signed in; a wrong code on that step is refused first. The
// pages of the journey are checked with axe-core.
// Skipped only where Chromium is not installed (test/chromium.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateSync } from "otplib";
import type { Browser } from "playwright-core";
import { BROWSER_HOOK_TIMEOUT, axeProblems, hasChromium, launchChromium, tearDown, watchPage } from "./chromium";
import { serveInProcess, type InProcessServer } from "./serve";

const USERNAME = "tove-two-factor";
const PASSWORD = "a long enough secret for tove";
/** The code an authenticator app shows `offsetS` seconds from now. */
const codeAt = (secret: string, offsetS = 0) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + offsetS });

describe("two-factor sign-in in headless Chromium", () => {
  let browser: Browser | undefined;
  let server: InProcessServer | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-totp-"));

  beforeAll(async () => {
    if (!hasChromium) return;
    server = await serveInProcess(dataDir, { COLONY_REGISTRATION: "open" });
    browser = await launchChromium();
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(() => tearDown(browser, server, dataDir));

  test.skipIf(!hasChromium)("sign up, turn on two-factor, sign out, sign in with the password and a code (skipped without Chromium)", async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const problems = await watchPage(page);
    const axe: string[] = [];
    await page.goto(`${server!.url}/signup`);
    await page.getByLabel("Username").fill(USERNAME);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL((u) => u.pathname === "/settings/account");

    await page.goto(`${server!.url}/settings/security`);
    await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
    await page.waitForLoadState("load");
    axe.push(...(await axeProblems(page)).map((v) => `enrolment: ${v}`));
    const secret = (await page.locator("dt:text-is('Key') + dd code").textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]+=*$/);
    await page.getByLabel("Code from the app").fill(codeAt(secret));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.waitForLoadState("load");
    expect(await page.getByRole("heading", { name: "Your recovery codes" }).count()).toBe(1);
    expect(await page.getByRole("heading", { name: "Two-factor authentication is on" }).count()).toBe(1);

    await page.locator(".who").getByRole("button", { name: "Sign out" }).click();
    await page.waitForLoadState("load");
    await page.goto(`${server!.url}/login`);
    await page.locator("#login").fill(USERNAME);
    await page.locator("#password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    // The password step answers with the second-factor step.
    await page.locator("#code").waitFor();
    axe.push(...(await axeProblems(page)).map((v) => `second factor: ${v}`));
    // A wrong code is refused and the step is shown again.
    await page.locator("#code").fill("000000" === codeAt(secret, 30) ? "111111" : "000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForLoadState("load");
    expect(await page.locator("#code").count()).toBe(1);
    expect(await page.locator(`.who a[href^="/u/"]`).count()).toBe(0);
    // The next step's code: the one used to turn it on may not be used again.
    await page.locator("#code").fill(codeAt(secret, 30));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL((u) => u.pathname === "/");
    expect(await page.locator(".who a").first().textContent()).toBe(USERNAME);
    expect(axe).toEqual([]);
    expect(problems.filter((p) => !p.includes("status of 4"))).toEqual([]);
    await context.close();
  }, 60_000);
});
