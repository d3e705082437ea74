// The marketplace in a real browser: the server (what `colony serve` starts, in the test process)
// on a temporary data folder at 127.0.0.1 (sign-up open, the development wallet), Debian's
// Chromium (headless). An agent lists a service offer, a document for sale and a post through the
// API, with a Lightning address; two people sign up on the web. At a desktop's width, Mia posts a
// paid task from /marketplace/new, Leo bids on it, Mia accepts the bid, sees the invoice as a QR
// code and BOLT11 text, and once it is paid (`colony admin settle`, the development wallet's
// stand-in for a payment) the open page notices by itself and she completes the task. At a phone's
// width, Mia orders the agent's offer, pays the invoice once the agent accepts, buys the document
// and downloads it once paid, and tips the agent's post. Every marketplace page is checked once
// with axe-core on the way, at the width it is seen at (no violation of serious or critical
// impact; the counts of every impact are printed per page), the task's and the order's invoices in
// the dark colour scheme, the others in the light one; nothing is loaded from another host, and no
// console error (a refused Content-Security-Policy included) or script error happens.
// Skipped only where Chromium is not installed (test/chromium.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeInvoice } from "@getalby/lightning-tools/bolt11";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { loadConfig } from "../src/config";
import { settleInvoice } from "../src/ops/admin";
import { AXE, BROWSER_HOOK_TIMEOUT, apiClient, axeCounts, hasChromium, launchChromium, signUpOnTheWeb, tearDown, VIEWPORTS, watchPageLight } from "./chromium";
import { serveEnv, serveInProcess, type InProcessServer } from "./serve";

const PASSWORD = "a long enough secret for the market";
const { desktop: DESKTOP, phone: PHONE } = VIEWPORTS;
/** With COLONY_TEST_SCREENSHOTS set, a screenshot of every page at its width in /tmp, for a person to look at. */
const SHOTS = !!process.env.COLONY_TEST_SCREENSHOTS;

type Cookies = Awaited<ReturnType<BrowserContext["cookies"]>>;

describe("the marketplace in headless Chromium", () => {
  let browser: Browser | undefined;
  let server: InProcessServer | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-market-"));
  const api = apiClient(() => server!.url);
  const config = () => loadConfig(serveEnv(dataDir, { COLONY_LOG_LEVEL: "silent" }));
  let rex = "";
  let offerId = "";
  let documentId = "";
  let postId = "";
  const cookies: Record<string, Cookies> = {};
  /** Per page: axe-core's counts (serious/critical/other). */
  const counts: string[] = [];
  const problems: string[] = [];

  /** Checks the page with axe-core where it stands (in the dark colour scheme with `dark`) and, with SHOTS, takes its screenshot. */
  async function look(page: Page, name: string, scheme: "light" | "dark" = "light"): Promise<void> {
    if (scheme === "dark") await page.emulateMedia({ colorScheme: "dark" });
    const c = await axeCounts(page);
    const width = `${page.viewportSize()?.width}${scheme === "dark" ? " dark" : ""}`;
    counts.push(`${name} @${width}: serious ${c.serious}, critical ${c.critical}, other ${c.other}`);
    if (c.bad.length) problems.push(`${name} @${width}: ${c.bad.join(", ")}`);
    if (SHOTS) await page.screenshot({ path: `/tmp/marketplace-${name}-${width.replace(" ", "-")}.png`, fullPage: true });
    if (scheme === "dark") await page.emulateMedia({ colorScheme: "light" });
  }

  /** Pays the invoice the page shows, as a payer's wallet would (the development wallet's settle). */
  async function pay(page: Page): Promise<void> {
    const bolt11 = (await page.locator("#invoice-bolt11").inputValue()).trim();
    const hash = decodeInvoice(bolt11)?.paymentHash;
    if (!hash) throw new Error(`not an invoice: ${bolt11}`);
    expect(await settleInvoice(config(), hash, () => {})).toBe(0);
  }

  /**
   * Mia's page, kept across the tests (each sets its width), with axe-core loaded in each of its
   * documents and the page's clock one the test may move on (time flows as usual otherwise), and
   * what its watch has seen.
   */
  let mia: Promise<{ page: Page; watched: string[] }> | undefined;
  const miaPage = () =>
    (mia ??= (async () => {
      const context = await browser!.newContext({ colorScheme: "light", reducedMotion: "reduce" });
      await context.addInitScript(AXE);
      await context.clock.install();
      await context.addCookies(cookies.mia);
      const page = await context.newPage();
      return { page, watched: await watchPageLight(page) };
    })());

  /** Mia's page at `viewport`, and what its watch sees from now on. */
  async function miaAt(viewport: { width: number; height: number }): Promise<{ page: Page; watched: () => string[] }> {
    const { page, watched } = await miaPage();
    await page.setViewportSize(viewport);
    const from = watched.length;
    return { page, watched: () => watched.slice(from) };
  }

  /** Posts a form of the page at `path` as `name`, over HTTP from this origin (another person's move, no page rendered). */
  async function postAs(name: string, path: string, action: string, fields: Record<string, string>): Promise<void> {
    const url = server!.url;
    const cookie = cookies[name].map((c) => `${c.name}=${c.value}`).join("; ");
    const html = await (await fetch(`${url}${path}`, { headers: { cookie } })).text();
    const csrf = /<input type="hidden" name="csrf" value="([^"]*)"/.exec(html)?.[1] ?? "";
    const res = await fetch(`${url}${action}`, { method: "POST", redirect: "manual", headers: { cookie, origin: url, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ csrf, ...fields }) });
    expect(res.status).toBe(303);
  }

  beforeAll(async () => {
    if (!hasChromium) return;
    server = await serveInProcess(dataDir, { COLONY_REGISTRATION: "open" });
    const { api_key } = await api("POST", "/api/v1/auth/register", null, { username: "rex-agent", display_name: "Rex" });
    rex = (await api("POST", "/api/v1/auth/token", null, { api_key })).access_token;
    await api("PUT", "/api/v1/users/me", rex, { lightning_address: "rex@wallet.example" });
    offerId = (
      await api("POST", "/api/v1/posts", rex, {
        colony: "general",
        post_type: "paid_offer",
        title: "A literature review in a day",
        body: "Any topic: **twenty** sources, summarised.",
        metadata: { listed_rate_sats: 2_100, category: "research", delivery_days: 1 },
      })
    ).id;
    documentId = (
      await api("POST", "/api/v1/market/documents", rex, {
        title: "Lightning fees, explained",
        filename: "fees.md",
        content: "# Fees\n\nRouting fees are a base fee plus a rate in parts per million.\n",
        price_sats: 150,
        description: "A short guide.",
      })
    ).id;
    postId = (await api("POST", "/api/v1/posts", rex, { colony: "general", post_type: "finding", title: "Fees fell by half this month", body: "Measured on 40 channels." })).id;
    browser = await launchChromium();
    [cookies.mia, cookies.leo] = await Promise.all([signUpOnTheWeb(browser, server.url, "mia", PASSWORD), signUpOnTheWeb(browser, server.url, "leo", PASSWORD)]);
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(async () => {
    if (counts.length) console.log(`axe-core per marketplace page:\n  ${counts.join("\n  ")}`);
    await tearDown(browser, server, dataDir);
  });

  test.skipIf(!hasChromium)(
    "at 1280 px: a paid task posted, bid on, accepted, paid (seen live by the open page) and completed (skipped without Chromium)",
    async () => {
      const url = server!.url;
      const { page, watched } = await miaAt(DESKTOP);
      await page.goto(`${url}/marketplace`);
      await look(page, "tasks");
      await page.getByRole("link", { name: "Post a paid task" }).click();
      await page.getByLabel("Title").fill("Label 200 photos of birds");
      await page.getByLabel("The work (Markdown)").fill("Species and count per photo, as **CSV**.");
      await page.getByLabel("Budget from (sats, optional)").fill("500");
      await page.getByLabel("Budget up to (sats, optional)").fill("3000");
      await page.getByLabel("Category").selectOption("research");
      await look(page, "new-listing");
      await page.getByRole("button", { name: "Post the task" }).click();
      await page.waitForURL(/\/marketplace\/tasks\/[0-9a-f-]{36}$/);
      const taskPath = new URL(page.url()).pathname;

      // Leo bids through the form.
      await postAs("leo", taskPath, `${taskPath}/bid`, { amount_sats: "1800", description: "I know my birds: done by Friday." });
      await page.reload();
      const bid = page.locator("ol.bids > li").filter({ hasText: "I know my birds" });
      expect(await bid.textContent()).toContain("1,800 sats");
      await look(page, "task-with-bid");
      await bid.getByRole("button", { name: "Accept this bid" }).click();
      await page.waitForURL(/notice=accepted/);
      await expect(page.getByRole("img", { name: "QR code of the Lightning invoice for 1,800 sats" }).isVisible()).resolves.toBe(true);
      expect(await page.locator("#invoice-bolt11").inputValue()).toMatch(/^lnbcrt/);
      await look(page, "task-invoice", "dark");

      // Paid at the wallet: the open page notices by itself and shows the next step. It first asks
      // 2 s after it loaded, then less and less often: its clock is moved on to its next look.
      await pay(page);
      await page.clock.fastForward(2_500);
      await page.getByRole("button", { name: "Mark complete" }).waitFor({ timeout: 10_000 });
      expect(await page.locator(".payment").textContent()).toContain("The invoice is paid.");
      await page.getByRole("button", { name: "Mark complete" }).click();
      await page.waitForURL(/notice=completed/);
      expect(await page.locator(".step").textContent()).toContain("Completed");
      await look(page, "task-completed");
      expect(watched()).toEqual([]);
      expect(problems).toEqual([]);
    },
    60_000,
  );

  test.skipIf(!hasChromium)(
    "at 390 px: an offer ordered and paid, a document bought and downloaded, a post tipped (skipped without Chromium)",
    async () => {
      const url = server!.url;
      const { page, watched } = await miaAt(PHONE);
      await page.goto(`${url}/marketplace/new?kind=offer`);
      await look(page, "new-offer");
      await page.goto(`${url}/marketplace/offers`);
      await look(page, "offers");
      await page.getByRole("link", { name: "A literature review in a day" }).click();
      await look(page, "offer");
      await page.getByLabel("What you need (optional, up to 2000 characters)").fill("Soil microbiomes, 2020 onwards.");
      await page.getByRole("button", { name: "Place order" }).click();
      await page.waitForURL(/\/marketplace\/orders\/[0-9a-f-]{36}\?notice=ordered$/);
      const orderPath = new URL(page.url()).pathname;
      await look(page, "order-requested");
      await api("POST", `/api/v1/offers/orders/${orderPath.split("/").at(-1)}/accept`, rex);
      await page.goto(`${url}${orderPath}`);
      await look(page, "order-invoice", "dark");
      await pay(page);
      await page.getByRole("button", { name: "Check payment" }).click();
      await page.waitForURL(/notice=checked/);
      expect(await page.locator(".step").textContent()).toContain("Paid");
      await page.goto(`${url}/marketplace/orders`);
      await look(page, "my-orders");

      // A document: bought, paid, downloaded.
      await page.goto(`${url}/marketplace/documents`);
      await look(page, "documents");
      await page.getByRole("link", { name: "Lightning fees, explained" }).click();
      await look(page, "document");
      await page.getByRole("button", { name: "Buy for 150 sats" }).click();
      await page.waitForURL(/\/marketplace\/purchases\/[0-9a-f-]{36}\?notice=bought$/);
      await look(page, "purchase-invoice");
      await pay(page);
      await page.getByRole("button", { name: "Check payment" }).click();
      await page.waitForURL(/notice=checked/);
      const download = page.getByRole("link", { name: "Download fees.md" });
      const [file] = await Promise.all([page.waitForEvent("download"), download.click()]);
      expect(file.suggestedFilename()).toBe("fees.md");
      await page.goto(`${url}/marketplace/purchases`);
      await look(page, "my-purchases");

      // A tip on the agent's post.
      await page.goto(`${url}/post/${postId}/tip`);
      await look(page, "tip-form");
      await page.getByLabel("Amount in sats").fill("210");
      await page.getByRole("button", { name: "Get the invoice" }).click();
      await page.waitForURL(/\/marketplace\/tips\/[0-9a-f-]{36}\?notice=created$/);
      await look(page, "tip-invoice");
      await pay(page);
      await page.getByRole("button", { name: "Check payment" }).click();
      await page.waitForURL(/notice=checked/);
      expect(await page.locator(".step").textContent()).toContain("Paid: thank you");
      await page.goto(`${url}/post/${postId}/tip`);
      expect(await page.locator(".tip-total").textContent()).toBe("210 sats in 1 tip");
      expect(watched()).toEqual([]);
      expect(problems).toEqual([]);
    },
    60_000,
  );
});
