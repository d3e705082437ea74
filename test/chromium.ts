// What the browser tests share: Debian's Chromium through playwright-core, one browser for the
// whole test run, axe-core, the colour schemes and viewports every page is checked in, and a page
// watch that reports anything loaded from another host, console errors and script errors.
// The browser is Chromium's headless shell (`apt-get install -y chromium-headless-shell`): the same
// Blink as the full browser at a third of its cost to start a page, which is what a test run pays
// for; the full browser (`apt-get install -y chromium`) is used where the shell is missing. Tests
// skip where neither is installed.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = ["/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium"].find((path) => existsSync(path)) ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
export const hasChromium = existsSync(CHROMIUM);
export const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
export const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;
export const SCHEMES = ["light", "dark"] as const;
type Cookies = Awaited<ReturnType<BrowserContext["cookies"]>>;

/** How long a hook that starts a server and connects to the browser may take. */
export const BROWSER_HOOK_TIMEOUT = 90_000;

/**
 * A connection to the Chromium this test run shares: the first file that asks starts it
 * (test/chromium-server.ts, which ends with the run), later ones, in this process or in the other
 * processes of `bun test --parallel`, connect to it. Closing the connection closes only the
 * contexts it made.
 */
export async function launchChromium(): Promise<Browser> {
  // The run: the coordinator of `bun test --parallel` for its workers, else this process.
  const run = process.env.BUN_TEST_WORKER_ID ? process.ppid : process.pid;
  const endpointFile = join(tmpdir(), `colony-chromium-${run}.endpoint`);
  const lock = `${endpointFile}.lock`;
  for (let attempt = 0; ; attempt++) {
    if (!existsSync(endpointFile)) {
      let starter = false;
      try {
        mkdirSync(lock);
        starter = true;
      } catch {
        // Another process is starting it.
      }
      if (starter) {
        const child = spawn(process.execPath, [join(import.meta.dir, "chromium-server.ts"), endpointFile, String(run)], { detached: true, stdio: "ignore" });
        child.unref();
      }
      const deadline = Date.now() + 60_000;
      while (!existsSync(endpointFile)) {
        if (Date.now() > deadline) throw new Error("the shared Chromium did not start within 60 s");
        await Bun.sleep(50);
      }
      if (starter) rmdirSync(lock);
    }
    try {
      return await chromium.connect(readFileSync(endpointFile, "utf8"));
    } catch (err) {
      // A browser server left by an ended run: start another once.
      if (attempt > 0) throw err;
      rmSync(endpointFile, { force: true });
    }
  }
}

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

/** Any address but one of 127.0.0.1's (or a data:, blob: or about: one, which load nothing): what watchPageLight routes. */
const OFF_HOST = /^(?!data:|blob:|about:|https?:\/\/127\.0\.0\.1[:/])/;

/**
 * Watches `page` as watchPage does, at less cost: only requests to another host are routed
 * (refused and reported), the browser's side of Playwright letting every other request through
 * without holding it for the test process; console errors (a refusal of the
 * Content-Security-Policy among them) except those `ignore` accepts, and uncaught script errors,
 * are listened to. (Not a listener on every request: with one, the response to a page's
 * EventSource can reach Playwright's client before the request it answers, which breaks the
 * connection.) Returns the list it fills.
 */
export async function watchPageLight(page: Page, ignore: (consoleText: string) => boolean = () => false): Promise<string[]> {
  const problems: string[] = [];
  await page.route(OFF_HOST, (route) => (problems.push(`off host: ${route.request().url()}`), route.abort("blockedbyclient")));
  page.on("console", (msg) => void (msg.type() === "error" && !ignore(msg.text()) && problems.push(`console: ${msg.text()}`)));
  page.on("pageerror", (err) => void problems.push(`page error: ${err.message}`));
  return problems;
}

/** One violation as axe-core reports it, its nodes counted and the first three named. */
interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  count: number;
  nodes: string[];
}

/**
 * Runs axe-core on the page as it stands (only `rules` when given), loading it into the page unless
 * it is there already (a context's init script). Without `selectors` nodes are named by their
 * markup: working out a selector for every node looked at is the slow part of a run on a page that
 * passes.
 */
async function runAxe(page: Page, rules: readonly string[] | undefined, selectors: boolean): Promise<AxeViolation[]> {
  const only = rules ? `runOnly: ${JSON.stringify(rules)}, ` : "";
  const name = selectors ? `(n.target || []).join(" ")` : `n.html.slice(0, 120)`;
  const script = `typeof axe === "undefined" ? "no axe" : axe.run(document, { ${only}resultTypes: ["violations"], selectors: ${selectors} }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, count: v.nodes.length, nodes: v.nodes.slice(0, 3).map((n) => ${name}) })))`;
  let violations = await page.evaluate(script);
  if (violations === "no axe") {
    await page.evaluate(AXE);
    violations = await page.evaluate(script);
  }
  if (!Array.isArray(violations)) throw new Error("axe-core did not run");
  return violations as AxeViolation[];
}

const isBad = (v: AxeViolation) => v.impact === "serious" || v.impact === "critical";

/**
 * axe-core's serious and critical violations on the page as it stands (of `rules` only when given),
 * one line each, its nodes named by selector (a second run, made only when something is found).
 */
export async function axeProblems(page: Page, rules?: readonly string[]): Promise<string[]> {
  let found = (await runAxe(page, rules, false)).filter(isBad);
  if (found.length) found = (await runAxe(page, rules, true)).filter(isBad);
  return found.map((v) => `${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(", ")}`);
}

/**
 * Every rule of axe-core on the page as it stands, for a journey's record of the pages it passed:
 * how many rules found something serious, critical or less, and a line for each serious or
 * critical one naming up to three of its nodes by their markup.
 */
export async function axeCounts(page: Page): Promise<{ serious: number; critical: number; other: number; bad: string[] }> {
  const found = await runAxe(page, undefined, false);
  const of = (impact: string) => found.filter((v) => v.impact === impact).length;
  return { serious: of("serious"), critical: of("critical"), other: found.filter((v) => !isBad(v)).length, bad: found.filter(isBad).map((v) => `${v.impact} ${v.id} ×${v.count} at ${v.nodes.join(", ")}`) };
}

/** A page that checks pages for the tests of a file: its context, and what its watch has seen so far. */
interface Checker {
  page: Page;
  seen: { kind: "off host" | "failed load" | "console" | "page error"; text: string }[];
}

/** Per connection to the browser, one checking page per set of cookies (a signed-in person, or none). */
const checkers = new WeakMap<Browser, Map<string, Promise<Checker>>>();

/**
 * The page that checks pages for `cookies` on this connection, made on first use and kept until
 * the connection closes: a page reused across checks keeps its renderer process and the compiled
 * axe-core, which a new context and page per check would start and compile again. Its watch
 * records requests to any host but 127.0.0.1 (the machine has no other network to reach),
 * subresources that fail to load, console errors and uncaught script errors.
 */
function checkerFor(browser: Browser, cookies: Cookies): Promise<Checker> {
  let byCookies = checkers.get(browser);
  if (!byCookies) checkers.set(browser, (byCookies = new Map()));
  const key = JSON.stringify(cookies.map((c) => [c.name, c.value]));
  let checker = byCookies.get(key);
  if (!checker) {
    checker = (async () => {
      const context = await browser.newContext({ reducedMotion: "reduce" });
      await context.addCookies(cookies);
      const page = await context.newPage();
      const seen: Checker["seen"] = [];
      page.on("request", (r) => {
        const url = new URL(r.url());
        if (url.protocol !== "data:" && url.hostname !== "127.0.0.1") seen.push({ kind: "off host", text: r.url() });
      });
      // A subresource that fails to load is reported with its address; the console's line for it
      // (which names none) is not, nor the one for the favicon the browser asks for itself.
      page.on("response", (r) => void (r.status() >= 400 && !r.request().isNavigationRequest() && seen.push({ kind: "failed load", text: `${r.status()} ${r.url()}` })));
      page.on("console", (msg) => void (msg.type() === "error" && !msg.text().startsWith("Failed to load resource:") && seen.push({ kind: "console", text: msg.text() })));
      page.on("pageerror", (err) => void seen.push({ kind: "page error", text: err.message }));
      return { page, seen };
    })();
    byCookies.set(key, checker);
  }
  return checker;
}

/** The axe-core rules a change of colour scheme can decide: the stylesheet's dark scheme changes colours only. */
export const COLOUR_RULES = ["color-contrast", "link-in-text-block"] as const;

/**
 * Where a page is checked with every rule of axe-core: in the light colour scheme at the desktop's
 * width and in the dark one at the phone's. Each scheme and each width is checked once, whole: the
 * schemes differ in colours only (the same colours at every width), the widths in layout.
 */
export const AXE_PASSES = [
  { colorScheme: "light", device: "desktop" },
  { colorScheme: "dark", device: "phone" },
] as const;

/**
 * Opens `url` (as the holder of `cookies`, or anonymously) and checks it, with reduced motion, in
 * both colour schemes and at both widths (AXE_PASSES: the page re-rendered for each, the
 * stylesheet's media queries and the layout following): axe-core's serious and critical
 * violations, anything loaded from another host, console errors (but those `ignore` accepts) and
 * script errors, one line each prefixed by scheme and device. `ready` runs once the page has
 * loaded (checks of its own, waiting for its script).
 */
export async function everyWayProblems(
  browser: Browser,
  url: string,
  opts: { cookies?: Cookies; status?: number; ignore?: (consoleText: string) => boolean; ready?: (page: Page) => Promise<void> } = {},
): Promise<string[]> {
  const { page, seen } = await checkerFor(browser, opts.cookies ?? []);
  await page.emulateMedia({ colorScheme: AXE_PASSES[0].colorScheme, reducedMotion: "reduce" });
  await page.setViewportSize(VIEWPORTS[AXE_PASSES[0].device]);
  const from = seen.length;
  const response = await page.goto(url, { waitUntil: "load" });
  if (response?.status() !== (opts.status ?? 200)) return [`${url}: status ${response?.status()}, expected ${opts.status ?? 200}`];
  await opts.ready?.(page);
  const found: string[] = [];
  for (const { colorScheme, device } of AXE_PASSES) {
    await page.emulateMedia({ colorScheme, reducedMotion: "reduce" });
    await page.setViewportSize(VIEWPORTS[device]);
    for (const v of await axeProblems(page)) found.push(`${colorScheme}/${device}: ${v}`);
  }
  const watched = seen.slice(from).filter((p) => !(p.kind === "console" && opts.ignore?.(p.text)));
  return [...found, ...watched.map((p) => `${p.kind}: ${p.text}`)];
}

/**
 * Submits a form of the site over HTTP (no page rendered) as a browser holding `cookies` would:
 * reads the CSRF token of `page`, posts `fields` to `action` from this origin, and expects a 303.
 * Returns the redirect's location and the cookies after it.
 */
export async function submitForm(browser: Browser, base: string, cookies: Cookies, page: string, action: string, fields: Record<string, string>): Promise<{ location: string; cookies: Cookies }> {
  const context = await browser.newContext();
  try {
    await context.addCookies(cookies);
    const form = await context.request.get(`${base}${page}`);
    const csrf = /<input type="hidden" name="csrf" value="([^"]*)"/.exec(await form.text())?.[1];
    if (!csrf) throw new Error(`${page} has no csrf field`);
    const res = await context.request.post(`${base}${action}`, { form: { csrf, ...fields }, headers: { origin: base }, maxRedirects: 0 });
    if (res.status() !== 303) throw new Error(`POST ${action}: ${res.status()} ${await res.text()}`);
    return { location: res.headers()["location"] ?? "", cookies: await context.cookies() };
  } finally {
    await context.close();
  }
}

/** Signs `username` up through the sign-up form over HTTP, and returns the signed-in session's cookies. */
export async function signUpOnTheWeb(browser: Browser, base: string, username: string, password: string): Promise<Cookies> {
  return (await submitForm(browser, base, [], "/signup", "/signup", { username, password })).cookies;
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

/** Closes the connection to the browser, stops the server and removes its data folder. */
export async function tearDown(browser: Browser | undefined, server: { stop(): Promise<void> } | undefined, dataDir: string): Promise<void> {
  await browser?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
