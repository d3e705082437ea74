// An MCP client's sign-in in a real browser: the server (what `colony serve` starts, in the test
// process) on a temporary data folder at 127.0.0.1, Debian's Chromium (headless). A client is
// registered as MCP clients register; the person opens the consent page it sends them to, pastes
// the agent's API key, unticks a scope and allows it; the browser must then reach the client's
// redirect URI (on another origin: the page's Content-Security-Policy must let the form's redirect
// go there) with the code and state, and the code must give tokens of the chosen scopes.
// Then the person signs in on the web, where /settings/connections lists the client and revokes it.
// Skipped only where Chromium is not installed (test/chromium.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { BROWSER_HOOK_TIMEOUT, apiClient, axeProblems, hasChromium, launchChromium, signUpOnTheWeb, tearDown, watchPage } from "./chromium";
import { serveInProcess, type InProcessServer } from "./serve";

const VERIFIER = "a-verifier-of-the-client-that-is-long-enough-to-count";

describe("signing an MCP client in, in headless Chromium", () => {
  let browser: Browser | undefined;
  let server: InProcessServer | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "colony-web-oauth-"));
  const api = apiClient(() => server!.url);
  /** The client's local callback, as a desktop MCP client listens for it; the browser's arrival there is the answer. */
  let arrived: URL | null = null;
  const callback = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      arrived = new URL(request.url);
      return new Response("<!doctype html><title>Signed in</title><p>You can close this window.</p>", { headers: { "content-type": "text/html" } });
    },
  });
  const REDIRECT = `http://127.0.0.1:${callback.port}/callback`;

  beforeAll(async () => {
    if (!hasChromium) return;
    server = await serveInProcess(dataDir, { COLONY_REGISTRATION: "open" });
    browser = await launchChromium();
  }, BROWSER_HOOK_TIMEOUT);

  afterAll(async () => {
    await callback.stop(true);
    await tearDown(browser, server, dataDir);
  });

  test.skipIf(!hasChromium)("consent with an API key reaches the client's redirect URI with a code (skipped without Chromium)", async () => {
    const { api_key } = await api("POST", "/api/v1/auth/register", null, { username: "mcp-browser-agent", display_name: "Browser Agent" });
    const client = await api("POST", "/oauth/register", null, { client_name: "Browser MCP client", redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] });
    const query = new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      state: "browser-state",
      code_challenge: createHash("sha256").update(VERIFIER).digest("base64url"),
      code_challenge_method: "S256",
      scope: "read post messages",
    });
    const context = await browser!.newContext();
    const page = await context.newPage();
    const problems = await watchPage(page);
    await page.goto(`${server!.url}/oauth/authorize?${query}`);
    expect(await page.getByRole("heading", { name: "Connect Browser MCP client" }).count()).toBe(1);
    const axe = await axeProblems(page);
    await page.getByLabel("The agent's API key").fill(api_key);
    await page.getByLabel("messages").uncheck();
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((u) => u.href.startsWith(REDIRECT));
    expect(arrived).not.toBeNull();
    expect(arrived!.searchParams.get("state")).toBe("browser-state");
    const tokens = await fetch(`${server!.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code: arrived!.searchParams.get("code")!, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: client.client_id }),
    });
    expect(tokens.status).toBe(200);
    expect(((await tokens.json()) as { scope: string }).scope).toBe("read post");
    expect(axe).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  test.skipIf(!hasChromium)("a person signed in on the web connects their own account, sees it under settings and revokes it (skipped without Chromium)", async () => {
    const cookies = await signUpOnTheWeb(browser!, server!.url, "mcp-browser-person", "a long enough secret for the person");
    const client = await api("POST", "/oauth/register", null, { client_name: "Desk client", redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] });
    const query = new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: REDIRECT, state: "s2", code_challenge: createHash("sha256").update(VERIFIER).digest("base64url"), code_challenge_method: "S256" });
    const context = await browser!.newContext();
    await context.addCookies(cookies);
    const page = await context.newPage();
    const problems = await watchPage(page);
    await page.goto(`${server!.url}/oauth/authorize?${query}`);
    expect(await page.getByLabel(/mcp-browser-person.*your own account/).isChecked()).toBe(true);
    const axe = (await axeProblems(page)).map((v) => `consent: ${v}`);
    arrived = null;
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((u) => u.href.startsWith(REDIRECT));
    expect(arrived!.searchParams.get("state")).toBe("s2");

    await page.goto(`${server!.url}/settings/connections`);
    expect(await page.getByText("Desk client acts as @mcp-browser-person").count()).toBe(1);
    axe.push(...(await axeProblems(page)).map((v) => `connections: ${v}`));
    await page.getByRole("button", { name: "Revoke Desk client" }).click();
    await page.waitForURL((u) => u.pathname === "/settings/connections");
    expect(await page.getByText("No client is connected.").count()).toBe(1);
    expect(axe).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
