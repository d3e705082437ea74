// What the browser tests share: Debian's Chromium (headless) through playwright-core, axe-core,
// the colour schemes and viewports every page is checked in, and a page watch that reports
// anything loaded from another host, console errors and script errors.
// Tests skip where /usr/bin/chromium is not installed (`apt-get install -y chromium`).
import type { Subprocess } from "bun";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);
export const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
export const VIEWPORTS = { phone: { width: 360, height: 740 }, desktop: { width: 1280, height: 900 } } as const;
export const SCHEMES = ["light", "dark"] as const;

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });

/**
 * Watches `page`: a request to any host but 127.0.0.1 is refused and reported, as are console
 * errors (except those `ignore` accepts) and uncaught script errors. Returns the list it fills.
 */
export async function watchPage(page: Page, ignore: (consoleText: string) => boolean = () => false): Promise<string[]> {
  const problems: string[] = [];
  await page.route("**/*", (route) =>
    new URL(route.request().url()).hostname === "127.0.0.1" ? route.continue() : (problems.push(`off host: ${route.request().url()}`), route.abort("blockedbyclient")),
  );
  page.on("console", (msg) => {
    if (msg.type() === "error" && !ignore(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  return problems;
}

/** axe-core's serious and critical violations on the page as it stands, one line each. */
export async function axeProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) })))`,
  )) as { id: string; impact: string; help: string; nodes: string[] }[];
  if (!Array.isArray(violations)) throw new Error("axe-core did not run");
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(", ")}`);
}

/** A JSON client of the server at `base()`: answers the body, throws on any status from 300 up. */
export function apiClient(base: () => string) {
  return async (method: string, path: string, token: string | null, body?: unknown): Promise<any> => {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = res.status === 204 ? null : await res.json();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/** Closes the browser, kills the servers and removes their data folder. */
export async function tearDown(browser: Browser | undefined, children: Subprocess[], dataDir: string): Promise<void> {
  await browser?.close();
  for (const child of children) child.kill("SIGKILL");
  await Promise.all(children.map((c) => c.exited));
  rmSync(dataDir, { recursive: true, force: true });
}
