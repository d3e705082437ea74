// /users and /orgs/<slug> on the web: the directory to anonymous readers with its search, type and
// order (and its 400s), and an organisation's page as the orgs service shows it: to its members
// without the roster, to its admins with it, a private one as 404 to strangers, and a visitor sent
// to sign in as the API asks for a token.
import { beforeEach, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../../test/browser";
import { setup, type TestUser } from "../../../test/harness";
import { orgApi } from "../../features/orgs/fixtures";
import { human } from "../../features/sessions/fixtures";

const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });
const karma = (u: TestUser, n: number) => h.ctx.db.$client.query("update users set karma = ? where id = ?").run(n, u.id);
/** The username of the first person a page of /users lists. */
const firstPerson = (html: string) => /<ul class="rows dir people"><li>.*?<a href="\/u\/([^"]+)"/.exec(html)?.[1];
const bio = (u: TestUser, text: string) => h.ctx.db.$client.query("update users set bio = ? where id = ?").run(text, u.id);

describe("/users", () => {
  let ann: TestUser;
  let bot: TestUser;
  beforeEach(async () => {
    ann = await human(h);
    bot = await h.user();
  });

  test("anonymous readers get the directory: people with links, badges and karma, most karma first", async () => {
    karma(ann, 90_000);
    bio(ann, "Grows <b>ferns</b>");
    const r = await new Browser(h).get("/users");
    expect(r.status).toBe(200);
    expect(r.text).toContain("<h1>People</h1>");
    expect(firstPerson(r.text)).toBe(ann.username);
    expect(r.text).toContain("90,000 karma");
    expect(r.text).toContain("Grows &lt;b&gt;ferns&lt;/b&gt;");
    expect(r.text).toContain('<span class="b human">human</span>');
  });

  test("type narrows to agents or humans; search matches the username; sort=newest puts the newest first", async () => {
    const agents = await new Browser(h).get("/users?type=agent");
    expect(agents.text).toContain(`href="/u/${bot.username}"`);
    expect(agents.text).not.toContain(`href="/u/${ann.username}"`);
    expect(agents.text).toContain('aria-current="page">Agents</a>');
    const found = await new Browser(h).get(`/users?q=${ann.username.toUpperCase()}`);
    expect(found.text).toContain(`href="/u/${ann.username}"`);
    expect(found.text).toContain("1 person matching");
    h.clock.advance(60_000);
    const late = await h.user();
    expect(firstPerson((await new Browser(h).get("/users?sort=newest")).text)).toBe(late.username);
  });

  test.each(["/users?type=robots", "/users?sort=loud", "/users?page=0"])("%s is a 400 page", async (path) => {
    const r = await new Browser(h).get(path);
    expect(r.status).toBe(400);
    expect(r.headers.get("content-type")).toContain("text/html");
  });
});

describe("/orgs/<slug>", () => {
  const api = orgApi(h);
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let slug: string;
  beforeEach(async () => {
    [owner, member, stranger] = [await human(h), await human(h), await human(h)];
    karma(owner, 50);
    slug = `acme-${Math.random().toString(36).slice(2, 8)}`;
    expect((await api.create(owner, { slug, name: "Acme <labs>", description: "We build things." })).status).toBe(201);
    await api.add(slug, owner, member);
  });

  test("a member sees its name, description and count, but not the roster", async () => {
    const b = await signedInBrowser(h, member.username);
    const r = await b.get(`/orgs/${slug}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain("<h1>Acme &lt;labs&gt;</h1>");
    expect(r.text).toContain("We build things.");
    expect(r.text).toContain("2 members");
    expect(r.text).toContain("You are its member");
    expect(r.text).toContain("No verified domain");
    expect(r.text).not.toContain('id="org-members-h"');
  });

  test("its owner sees the members, and a verified domain is shown", async () => {
    h.ctx.db.$client.query("update orgs set verified_domain = 'acme.example' where slug = ?").run(slug);
    const r = await (await signedInBrowser(h, owner.username)).get(`/orgs/${slug.toUpperCase()}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('id="org-members-h"');
    expect(r.text).toContain(`href="/u/${member.username}"`);
    expect(r.text).toContain("<strong>acme.example</strong>");
  });

  test("a private organisation (disclosure none) is the 404 page to a stranger; an unknown slug too", async () => {
    await api.req("PUT", `/${slug}/disclosure`, owner.token, { mode: "none" });
    const b = await signedInBrowser(h, stranger.username);
    expect((await b.get(`/orgs/${slug}`)).status).toBe(404);
    expect((await b.get("/orgs/no-such-org")).status).toBe(404);
    expect((await b.get(`/orgs/${slug}`)).text).toContain("Page not found");
  });

  test("a visitor is sent to sign in and come back", async () => {
    const r = await new Browser(h).get(`/orgs/${slug}`);
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(`/orgs/${slug}`)}`);
  });
});
