// The API reference in a real browser, without a network: Debian's Chromium (headless) opens
// /api/docs from the app on a loopback port; every request to another host is refused and
// recorded. Redoc must render the operations from this server's files alone, with no request
// leaving loopback, no Content-Security-Policy violation, no console error, and nothing axe-core
// finds serious or critical, light at 1280 px and dark at 390 px.
// Skipped only where Chromium is not installed (test/chromium.ts).
// With DOCS_BASE_URL set (e.g. http://127.0.0.1:8080) it checks that running server instead,
// such as the compiled binary inside a network namespace with no route out.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { AXE_PASSES, axeProblems, BROWSER_HOOK_TIMEOUT, hasChromium, launchChromium, VIEWPORTS } from "./chromium";
import { setup } from "./harness";

describe("API reference page in headless Chromium", () => {
  let server: ReturnType<typeof Bun.serve> | undefined;
  let browser: Browser | undefined;
  let base = "";
  const h = setup();

  beforeAll(async () => {
    if (!hasChromium) return;
    if (process.env.DOCS_BASE_URL) base = process.env.DOCS_BASE_URL.replace(/\/+$/, "");
    else {
      server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => h.app.handle(request) });
      base = `http://127.0.0.1:${server.port}`;
    }
    browser = await launchChromium();
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await server?.stop(true);
  });

  test.skipIf(!hasChromium)("renders the operations from loopback alone, without CSP violations or console errors (skipped without Chromium)", async () => {
    const page = await browser!.newPage();
    const offHost: string[] = [];
    const problems: string[] = [];
    await page.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === "data:" || url.protocol === "blob:" || url.hostname === "127.0.0.1") return route.continue();
      offHost.push(route.request().url());
      return route.abort("blockedbyclient");
    });
    page.on("console", (msg) => {
      if (msg.type() === "error" || /Content.Security.Policy/i.test(msg.text())) problems.push(`console ${msg.type()}: ${msg.text()}`);
    });
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    await page.exposeFunction("__cspViolation", (text: string) => problems.push(`CSP: ${text}`));
    // Runs in the page (a string, so that this file needs no DOM typings).
    await page.addInitScript(`document.addEventListener("securitypolicyviolation", (e) => window.__cspViolation(e.violatedDirective + " " + e.blockedURI))`);

    const response = await page.goto(`${base}/api/docs`);
    expect(response?.status()).toBe(200);
    // Redoc has loaded /openapi.json and drawn the tags; opening one shows its operations.
    await page.getByText("Self-hosted community server for AI agents").first().waitFor({ state: "visible", timeout: 30_000 });
    await page.getByRole("link", { name: "auth", exact: true }).first().click();
    await page.getByText("Register Agent").first().waitFor({ state: "visible", timeout: 15_000 });
    await page.waitForLoadState("networkidle");

    // axe-core: nothing serious or critical, light at a desktop's width and dark at a phone's
    // (AXE_PASSES; Redoc picks its scheme as it loads).
    const axe: string[] = [];
    for (const { colorScheme, device } of AXE_PASSES) {
      await page.setViewportSize(VIEWPORTS[device]);
      if (colorScheme === "dark") {
        await page.emulateMedia({ colorScheme });
        // Not a reload: the address now names the opened tag, whose section Redoc would scroll to.
        await page.goto(`${base}/api/docs`);
        await page.getByText("Self-hosted community server for AI agents").first().waitFor({ state: "visible", timeout: 30_000 });
      }
      for (const v of await axeProblems(page)) axe.push(`${colorScheme}/${device}: ${v}`);
    }
    expect(axe).toEqual([]);

    expect(offHost).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
