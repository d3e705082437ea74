// /c on the web: the list to anonymous readers (private colonies hidden), search, the two orders,
// "yours", joining and leaving from /c and from a colony's page (public at once, restricted
// pending), founding a colony, and the colonies service's refusals shown with their status.
import { beforeEach, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../../test/browser";
import { dbState } from "../../../test/db-state";
import { setup, type TestUser } from "../../../test/harness";
import { archive, ban, makeColony } from "../../features/colonies/fixtures";
import { human } from "../../features/sessions/fixtures";

const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });
let ann: TestUser;
let ben: TestUser;
beforeEach(async () => {
  [ann, ben] = [await human(h), await human(h)];
});

const member = (colonyId: string, u: TestUser) => h.ctx.db.$client.query("select role, approved from colony_members where colony_id = ? and user_id = ?").get(colonyId, u.id) as { role: string; approved: number } | null;
const setPosts = (colonyId: string, n: number) => h.ctx.db.$client.query("update colonies set post_count = ? where id = ?").run(n, colonyId);

describe("/c to anonymous readers", () => {
  test("lists public and restricted colonies with links, counts and no forms; private ones stay hidden", async () => {
    const open = makeColony(h, ann, { displayName: "Open <garden>" });
    const shut = makeColony(h, ann, { type: "private", displayName: "Secret club" });
    const r = await new Browser(h).get("/c");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(r.text).toContain("<h1>Colonies</h1>");
    expect((await new Browser(h).get(`/c?q=${open.name}`)).text).toContain(`<a href="/c/${open.name}">Open &lt;garden&gt;</a>`);
    expect((await new Browser(h).get("/c?q=general")).text).toContain('<a href="/c/general">General</a>');
    const hidden = await new Browser(h).get(`/c?q=${shut.name}`);
    expect(hidden.text).not.toContain(`href="/c/${shut.name}"`);
    expect(hidden.text).toContain("No colony matches that.");
    expect(r.text).not.toContain('method="post" action="/c');
    expect(r.text).toContain('href="/login?next=%2Fc"');
  });

  test("search narrows the list by name or display name; an unknown order is a 400 page", async () => {
    const fern = makeColony(h, ann, { displayName: "Ferns and mosses" });
    const r = await new Browser(h).get("/c?q=MOSSES");
    expect(r.status).toBe(200);
    expect(r.text).toContain(`href="/c/${fern.name}"`);
    expect(r.text).not.toContain('href="/c/general"');
    expect(r.text).toContain("1 colony matching “MOSSES”");
    expect((await new Browser(h).get("/c?sort=loudest")).status).toBe(400);
  });

  test("most members first by default, most posts first with sort=activity", async () => {
    const busy = makeColony(h, ann, { displayName: "Busy place" });
    const crowded = makeColony(h, ann, { displayName: "Crowded place" });
    h.ctx.db.$client.query("update colonies set member_count = 500 where id = ?").run(crowded.id);
    setPosts(busy.id, 900);
    const byMembers = (await new Browser(h).get("/c?q=place")).text;
    expect(byMembers.indexOf(crowded.name)).toBeLessThan(byMembers.indexOf(busy.name));
    const byPosts = (await new Browser(h).get("/c?q=place&sort=activity")).text;
    expect(byPosts.indexOf(busy.name)).toBeLessThan(byPosts.indexOf(crowded.name));
    expect(byPosts).toContain('aria-current="page">Most posts</a>');
  });
});

describe("/c's pages and its cache", () => {
  test("31 colonies matching a search make two pages in either order", async () => {
    for (let i = 0; i < 31; i++) makeColony(h, ann, { name: `pager-${i}-${Math.random().toString(36).slice(2, 6)}` });
    for (const sort of ["", "&sort=activity"]) {
      const first = await new Browser(h).get(`/c?q=pager-${sort}`);
      expect(first.text).toContain("31 colonies matching");
      expect(first.text.match(/<li><h2>/g)?.length).toBe(30);
      expect(first.text).toContain(`href="/c?q=pager-${sort}&amp;page=2" rel="next"`.replace("&amp;", "&"));
      const second = await new Browser(h).get(`/c?q=pager-${sort}&page=2`);
      expect(second.text.match(/<li><h2>/g)?.length).toBe(1);
      expect(second.text).not.toContain('rel="next"');
    }
  });

  test("with the page cache on, a signed-in reader never gets the anonymous copy", async () => {
    const hh = setup({ rateLimitMultiplier: 0 });
    const u = await human(hh);
    const anon = await new Browser(hh).get("/c");
    expect(anon.status).toBe(200);
    expect((await new Browser(hh).get("/c")).text).toBe(anon.text);
    const mine = await (await signedInBrowser(hh, u.username)).get("/c");
    expect(mine.text).toContain('aria-label="Join: General"');
    expect(mine.text).toContain('action="/c"');
    expect((await new Browser(hh).get("/c")).text).not.toContain('aria-label="Join: General"');
  });
});

describe("joining and leaving", () => {
  test("a public colony is joined at once from /c, and left again; the button follows", async () => {
    const c = makeColony(h, ann, { displayName: "Potters" });
    const b = await signedInBrowser(h, ben.username);
    const list = await b.get("/c?q=potters");
    expect(list.text).toContain(`action="/c/${c.name}/join"`);
    expect(list.text).toContain('aria-label="Join: Potters"');
    const joined = await b.post(`/c/${c.name}/join`, { back: "/c?q=potters" });
    expect(joined.status).toBe(303);
    expect(joined.location).toBe("/c?q=potters");
    expect(member(c.id, ben)).toEqual({ role: "member", approved: 1 });
    const after = await b.get("/c?q=potters");
    expect(after.text).toContain('aria-label="Leave: Potters"');
    expect(after.text).toContain("you are a member");
    expect((await b.get("/c?q=potters&mine=1")).text).toContain(`href="/c/${c.name}"`);
    const left = await b.post(`/c/${c.name}/leave`, { back: "/c?q=potters" });
    expect(left.status).toBe(303);
    expect(member(c.id, ben)).toBeNull();
  });

  test("a restricted colony's join is a pending request, shown on its page with a withdraw button", async () => {
    const c = makeColony(h, ann, { type: "restricted", displayName: "Guild" });
    const b = await signedInBrowser(h, ben.username);
    const page = await b.get(`/c/${c.name}`);
    expect(page.text).toContain('aria-label="Ask to join: Guild"');
    const r = await b.post(`/c/${c.name}/join`, { back: `/c/${c.name}` });
    expect(r.location).toBe(`/c/${c.name}`);
    expect(member(c.id, ben)).toEqual({ role: "member", approved: 0 });
    const again = await b.get(`/c/${c.name}`);
    expect(again.text).toContain("Request pending");
    expect(again.text).toContain('aria-label="Withdraw request: Guild"');
  });

  test("a back address elsewhere is not followed: the colony's page instead", async () => {
    const c = makeColony(h, ann);
    const b = await signedInBrowser(h, ben.username);
    await b.get("/c");
    expect((await b.post(`/c/${c.name}/join`, { back: "https://elsewhere.example/" })).location).toBe(`/c/${c.name}`);
  });

  test.each([
    ["banned", 403, "You are banned from this colony"],
    ["archived", 409, "This colony is archived and closed to new members"],
  ] as const)("a %s person's join is refused with the service's status and message, changing nothing", async (why, status, message) => {
    const c = makeColony(h, ann);
    if (why === "banned") ban(h, c.id, ben.id);
    else archive(h, c.id);
    const b = await signedInBrowser(h, ben.username);
    await b.get(`/c/${c.name}`);
    const before = dbState(h);
    const r = await b.post(`/c/${c.name}/join`, { back: "/c" });
    expect(r.status).toBe(status);
    expect(r.text).toContain(message);
    expect(dbState(h)).toEqual(before);
  });

  test("the last moderator cannot leave: 409 with the service's reason", async () => {
    const c = makeColony(h, ann);
    const b = await signedInBrowser(h, ann.username);
    await b.get("/c");
    const r = await b.post(`/c/${c.name}/leave`, { back: "/c" });
    expect(r.status).toBe(409);
    expect(r.text).toContain("You are the last moderator of this colony");
  });

  test("signed out, a join is sent to sign in; without the page's token it is refused", async () => {
    const c = makeColony(h, ann);
    const anon = new Browser(h);
    await anon.get("/login");
    const r = await anon.post(`/c/${c.name}/join`, {});
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(`/c/${c.name}`)}`);
    const b = await signedInBrowser(h, ben.username);
    expect((await b.post(`/c/${c.name}/join`, {}, { csrf: "forged" })).status).toBe(403);
    expect(member(c.id, ben)).toBeNull();
  });
});

describe("founding a colony", () => {
  test("the form founds it: its founder is its moderator and lands on its page", async () => {
    const b = await signedInBrowser(h, ann.username);
    const list = await b.get("/c");
    expect(list.text).toContain('<h2 id="new-colony-h">Found a colony</h2>');
    const r = await b.post("/c", { name: "Tea-Lovers", display_name: "Tea <lovers>", description: "Leaves.", community_type: "restricted" });
    expect(r.status).toBe(303);
    expect(r.location).toBe("/c/tea-lovers");
    const row = h.ctx.db.$client.query("select id, display_name, community_type, created_by from colonies where name = 'tea-lovers'").get() as { id: string; display_name: string; community_type: string; created_by: string };
    expect(row).toMatchObject({ display_name: "Tea <lovers>", community_type: "restricted", created_by: ann.id });
    expect(member(row.id, ann)).toEqual({ role: "founder_moderator", approved: 1 });
    expect((await b.get("/c/tea-lovers")).text).toContain("<h1>Tea &lt;lovers&gt;</h1>");
  });

  test.each([
    ["a taken name", { name: "general", display_name: "Mine" }, 409, "Colony name is already taken"],
    ["a malformed name", { name: "a b", display_name: "Mine" }, 400, "Colony name may contain only lower-case letters"],
    ["an unknown type", { name: "fine-name", display_name: "Mine", community_type: "secret" }, 400, "Choose who may join"],
  ] as const)("%s is refused: the form again with what was typed, the reason and its status", async (_, fields, status, message) => {
    const b = await signedInBrowser(h, ann.username);
    await b.get("/c");
    const before = dbState(h);
    const r = await b.post("/c", { ...fields });
    expect(r.status).toBe(status);
    expect(r.text).toContain('<p role="alert">');
    expect(r.text).toContain(message);
    expect(r.text).toContain(`value="${fields.name}"`);
    expect(dbState(h)).toEqual(before);
  });

  test("the daily cap of the API's create_colony limit applies: 429", async () => {
    const hh = setup({ readCacheBytes: 0 });
    const u = await human(hh);
    const b = await signedInBrowser(hh, u.username);
    await b.get("/c");
    for (let i = 0; i < 3; i++) expect((await b.post("/c", { name: `capped-${i}`, display_name: "C" })).status).toBe(303);
    const r = await b.post("/c", { name: "capped-9", display_name: "C" });
    expect(r.status).toBe(429);
    expect(r.text).toContain('<p role="alert">');
  });

  test("signed out, the form is not offered and its POST is sent to sign in", async () => {
    const anon = new Browser(h);
    await anon.get("/login");
    const r = await anon.post("/c", { name: "nope-colony", display_name: "N" });
    expect(r.status).toBe(303);
    expect(r.location).toBe("/login?next=%2Fc");
  });
});
