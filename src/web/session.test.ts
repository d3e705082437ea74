// The session plugin: the cookie's attributes, the viewer it resolves, the CSRF and origin checks
// every form post passes before its handler runs, and the wall between the cookie and the API.
import { describe, expect, test } from "bun:test";
import { DAY, MINUTE } from "../core/clock";
import { Browser, postEndless, signedInAs } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type Harness } from "../../test/harness";
import { CLIENT, PASSWORD, human } from "../features/sessions/fixtures";
import { startSession } from "../features/sessions/service";
import { parseCookies, safeNext } from "./session";

// One harness for the file; each test signs in its own people. Tests of another configuration,
// or that move the clock far, have a harness of their own.
const h = setup();

/** A browser signed in as a new human with a password (through the sign-in form). */
async function signedIn(h: Harness, headers?: Record<string, string>): Promise<{ b: Browser; username: string; id: string }> {
  const u = await human(h);
  const b = new Browser(h, headers);
  await b.get("/login");
  const r = await b.post("/login", { login: u.username, password: PASSWORD });
  expect(r.status).toBe(303);
  return { b, username: u.username, id: u.id };
}

describe("the session cookie", () => {
  test("over http: colony_session, HttpOnly, SameSite=Lax, Path=/, kept 90 days, not Secure", async () => {
    const { b } = await signedIn(h);
    const set = b.last!.setCookies.find((c) => c.startsWith("colony_session="))!;
    expect(set).toMatch(/^colony_session=[0-9A-Za-z]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=7776000$/);
    const pre = (await new Browser(h).get("/login")).setCookies[0];
    expect(pre).toMatch(/^colony_csrf=[0-9A-Za-z]{32}; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  test("over https: the __Host- names, and Secure", async () => {
    const h = setup({ publicUrl: "https://colony.example" });
    const b = new Browser(h);
    expect((await b.get("/login")).setCookies[0]).toMatch(/^__Host-colony_csrf=[0-9A-Za-z]{32}; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    const u = await human(h);
    const r = await b.post("/login", { login: u.username, password: PASSWORD }, { headers: { origin: "https://colony.example" } });
    expect(r.status).toBe(303);
    expect(r.setCookies.find((c) => c.startsWith("__Host-colony_session="))).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Secure; Max-Age=7776000$/);
    expect(signedInAs((await b.get("/settings/account")).text)).toBe(u.username);
    // The plain name means nothing over https.
    const plain = new Browser(h);
    plain.jar.set("colony_session", b.jar.get("__Host-colony_session")!);
    expect((await plain.get("/settings/account")).status).toBe(303);
  });

  test("a cookie whose session is over is cleared, and the visitor is anonymous", async () => {
    // A harness of its own: it moves the clock a month ahead.
    const h = setup();
    const { b } = await signedIn(h);
    h.clock.advance(30 * DAY);
    const r = await b.get("/settings/account");
    expect(r.status).toBe(303);
    expect(r.location).toBe("/login?next=%2Fsettings%2Faccount");
    expect(r.setCookies).toContain("colony_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
    expect(b.jar.has("colony_session")).toBe(false);
  });

  test("a session is seen on each visit, at most once a minute", async () => {
    const { b, id } = await signedIn(h);
    const seen = () => (h.ctx.db.$client.query("select last_seen_at from web_sessions where user_id = ?").get(id) as { last_seen_at: number }).last_seen_at;
    const start = seen();
    await b.get("/settings/account");
    expect(seen()).toBe(start);
    h.clock.advance(MINUTE);
    await b.get("/settings/account");
    expect(seen()).toBe(start + MINUTE);
  });

  test("cookies parse as browsers send them; the first of a repeated name wins", () => {
    expect([...parseCookies("a=1; b = two ;a=3; junk; =x; c=")]).toEqual([
      ["a", "1"],
      ["b", "two"],
      ["c", ""],
    ]);
    expect(parseCookies(null).size).toBe(0);
  });

  test("next addresses stay on this site", () => {
    for (const bad of [null, "", "https://evil.example/", "//evil.example/", "/\\evil.example", "javascript:alert(1)", "/a\nb", "/" + "x".repeat(4100)]) expect([bad, safeNext(bad)]).toEqual([bad, "/"]);
    expect(safeNext("/settings/account?tab=1")).toBe("/settings/account?tab=1");
  });
});

describe("the cookie and the API", () => {
  test("the cookie never authenticates /api/v1; a bearer request is the bearer's, whatever cookie comes with it", async () => {
    const { b, username } = await signedIn(h);
    const cookie = `colony_session=${b.jar.get("colony_session")}`;
    const anon = await h.req("GET", "/api/v1/users/me", { headers: { cookie } });
    expect(anon.status).toBe(401);
    const agent = await h.user();
    const me = await h.req("GET", "/api/v1/users/me", { token: agent.token, headers: { cookie } });
    expect(me.body.username).toBe(agent.username);
    expect(me.body.username).not.toBe(username);
    // A write through the API with only the cookie is refused and changes nothing.
    const before = dbState(h);
    expect((await h.req("PUT", "/api/v1/users/me", { headers: { cookie }, body: { display_name: "Changed by a cookie" } })).status).toBe(401);
    expect(dbState(h)).toEqual(before);
  });

  test("a page is the cookie's viewer's, not a bearer token's", async () => {
    const agent = await h.user();
    const r = await h.req("GET", "/settings/account", { token: agent.token });
    expect(r.status).toBe(303);
  });
});

/**
 * The POST routes outside /api/ that are not web forms, each with why: they are answered to
 * programs, which authenticate otherwise and carry no cookie the site trusts.
 */
const NOT_FORMS: Record<string, string> = {
  "/mcp": "the MCP endpoint: a bearer token on every request",
  "/mcp/": "the MCP endpoint: a bearer token on every request",
  "/oauth/token": "OAuth's token endpoint: client authentication and one-time grants",
  "/oauth/register": "dynamic client registration (RFC 7591): a JSON API",
  "/oauth/revoke": "token revocation (RFC 7009): client authentication",
  "/verify-email": "the mailed link's confirmation: the link's one-time token is the proof",
};

/** Every form route of the web pages, as mounted: every POST outside /api/ but the programs' endpoints above. */
function formRoutes(h: Harness): string[] {
  return (h.app.routes as { method: string; path: string }[]).filter((r) => r.method === "POST" && !r.path.startsWith("/api/") && !(r.path in NOT_FORMS)).map((r) => r.path);
}

describe("every form post is checked before it runs", () => {
  test("the routes left out are mounted, and the forms are many (a new page's forms are checked without listing them)", () => {
    const posts = new Set((h.app.routes as { method: string; path: string }[]).filter((r) => r.method === "POST").map((r) => r.path));
    for (const path of Object.keys(NOT_FORMS)) expect([path, posts.has(path)]).toEqual([path, true]);
    for (const path of ["/login", "/signup", "/submit", "/post/:id/comment", "/oauth/authorize", "/settings/connections/:id/revoke", "/admin/settings", "/marketplace/tasks/:id/bid", "/c/:name/wiki/:slug/edit", "/bookmarks/move"]) {
      expect(formRoutes(h)).toContain(path);
    }
  });

  test("without the token, with a wrong one or another session's: 403, and nothing changes", async () => {
    const h = setup({ registration: "open" });
    const { b, id } = await signedIn(h);
    const other = await signedIn(h);
    const anon = new Browser(h);
    await anon.get("/login");
    const session = (h.ctx.db.$client.query("select id from web_sessions where user_id = ?").get(id) as { id: string }).id;
    const fill = (path: string) => path.replace(/:(token|id|username|name|slug|user|bid|post|answer)\b/g, (_, p: string) => (p === "token" ? "A".repeat(43) : p === "id" || p === "bid" || p === "post" ? session : p === "name" ? "general" : "someone"));
    const fields = { login: "someone", password: "a long enough secret", current: PASSWORD, username: "new-person", email: "x@example.com", code: "123456", ticket: "A".repeat(43), secret: "ABC", otpauth_uri: "x", next: "/" };
    await b.get("/settings/account");
    const mine = b.csrf!;
    const theirs = (await other.b.get("/settings/account"), other.b.csrf!);
    const before = dbState(h);
    let refused = 0;
    for (const path of formRoutes(h)) {
      for (const [who, browser, token] of [
        ["signed in, none", b, null],
        ["signed in, wrong", b, "0".repeat(64)],
        ["signed in, another session's", b, theirs],
        ["signed in, the anonymous form's", b, anon.csrf],
        ["anonymous, none", anon, null],
        ["anonymous, the session's", anon, mine],
      ] as const) {
        const r = await browser.post(fill(path), fields, { csrf: token });
        expect([path, who, r.status]).toEqual([path, who, 403]);
        expect(r.headers.get("content-security-policy")).toContain("default-src 'self'");
        refused++;
      }
    }
    expect(refused).toBe(formRoutes(h).length * 6);
    expect(dbState(h)).toEqual(before);
    // The right token still works afterwards.
    expect((await b.post("/logout", {}, { csrf: mine })).status).toBe(303);
  });

  test("with the right token but sent from another site (Origin or Sec-Fetch-Site): 403, and nothing changes", async () => {
    const { b } = await signedIn(h);
    await b.get("/settings/account");
    const before = dbState(h);
    const sites: Record<string, string>[] = [{ origin: "https://evil.example" }, { origin: "null" }, { "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }, { origin: "http://localhost:9999" }];
    for (const headers of sites) {
      const r = await b.post("/settings/account/sessions/revoke-all", {}, { csrf: b.csrf, headers });
      expect([headers, r.status]).toEqual([headers, 403]);
    }
    expect(dbState(h)).toEqual(before);
    // This site's own origin, or a browser that sends neither header, is fine.
    await b.get("/settings/account");
    expect((await b.post("/settings/account/sessions/revoke-all", {}, { headers: { origin: "http://localhost", "sec-fetch-site": "same-origin" } })).status).toBe(303);
  });

  test("a body that is not a form is 415, one over 64 KiB is 413; nothing runs", async () => {
    const { b } = await signedIn(h);
    await b.get("/settings/account");
    const before = dbState(h);
    const json = await b.request("POST", "/settings/account/sessions/revoke-all", { body: JSON.stringify({ csrf: b.csrf }), headers: { "content-type": "application/json" } });
    expect(json.status).toBe(415);
    const big = await b.post("/settings/account/sessions/revoke-all", { filler: "x".repeat(70_000) });
    expect(big.status).toBe(413);
    const twice = await b.request("POST", "/settings/account/sessions/revoke-all", { body: `csrf=${b.csrf}&csrf=${b.csrf}`, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(twice.status).toBe(403);
    // Without a declared length (a chunked body) the form is read only until it passes the limit.
    const chunk = new TextEncoder().encode(`a=${"x".repeat(16 * 1024)}&`);
    const chunked = await postEndless(h, b, "/settings/account/sessions/revoke-all", "application/x-www-form-urlencoded", chunk);
    expect(chunked.status).toBe(413);
    expect(chunked.pulled).toBeLessThan(64 * 1024 + 4 * chunk.byteLength);
    expect(dbState(h)).toEqual(before);
  });

  test("a session made outside the browser (the token alone) is the viewer, and its forms carry its own token", async () => {
    const u = await human(h);
    const { token } = startSession(h.ctx, u.id, CLIENT);
    const b = new Browser(h);
    b.jar.set("colony_session", token);
    const page = await b.get("/settings/account");
    expect(signedInAs(page.text)).toBe(u.username);
    expect(page.setCookies).toEqual([]);
    expect(b.csrf).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("the reading pages know who is signed in", () => {
  test("the header names the signed-in person on every reading page, its sign-out form carries the session's token, and no signed-in page reaches the anonymous cache", async () => {
    const { b, username } = await signedIn(h);
    const anonymous = new Browser(h);
    for (const path of ["/", "/about", "/search?q=anything"]) {
      // The anonymous copy first: the signed-in read must not be answered from it, nor fill it.
      expect(signedInAs((await anonymous.get(path)).text)).toBeNull();
      const page = await b.get(path);
      expect(page.status).toBe(200);
      expect(signedInAs(page.text)).toBe(username);
      const token = /<form method="post" action="\/logout"><input type="hidden" name="csrf" value="([0-9a-f]+)"/.exec(page.text)?.[1];
      const settings = await b.get("/settings/account");
      expect(token).toBe(/name="csrf" value="([0-9a-f]+)"/.exec(settings.text)![1]);
      expect(signedInAs((await anonymous.get(path)).text)).toBeNull();
    }
    // Signing out from a reading page's header works.
    const home = await b.get("/");
    const token = /action="\/logout"><input type="hidden" name="csrf" value="([0-9a-f]+)"/.exec(home.text)![1];
    expect((await b.post("/logout", { csrf: token })).status).toBe(303);
    expect(signedInAs((await b.get("/")).text)).toBeNull();
  });
});
