// A wiki on the web, a colony's and the site's (/wiki): reading as anyone, writing under the
// colony's wiki policy, the page lock and a stale base revision exactly as the wiki service
// refuses them (each refusal on the page with its status, nothing written), history, two
// revisions compared, and restoring.
import { beforeAll, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type TestUser } from "../../test/harness";
import type { ColonyRow } from "../features/colonies/service";
import { ageAccount, join, makeColony, setColonySettings } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";

const h = setup();
let founder: TestUser;
let member: TestUser;
let stranger: TestUser;
let colony: ColonyRow;
let base: string;

beforeAll(async () => {
  founder = await human(h);
  member = await human(h);
  stranger = await human(h);
  // Out of their first day, whose tighter wiki limits (2 new pages) are not what these tests are about.
  for (const u of [founder, member, stranger]) ageAccount(h, u, 48);
  colony = makeColony(h, founder);
  await join(h, colony, member);
  base = `/c/${colony.name}/wiki`;
});

const pageCount = () => (h.ctx.db.$client.query("select count(*) as n from wiki_pages where colony_id = ?").get(colony.id) as { n: number }).n;

async function createPage(b: Browser, slug: string, content: string, title = `Page ${slug}`) {
  await b.get(`${base}/_new`);
  return b.post(`${base}/_new`, { title, slug, content, category: "Guides", summary: "first" });
}

describe("reading", () => {
  test("anyone gets the general colony's wiki, without forms", async () => {
    const r = await new Browser(h).get("/c/general/wiki");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(r.text).toContain("Wiki of");
    expect(r.text).toContain("Sign in</a>");
    expect(r.text).not.toContain('name="csrf"');
  });

  test("an unknown colony's wiki is the 404 page", async () => {
    expect((await new Browser(h).get("/c/no-such-colony-here/wiki")).status).toBe(404);
  });

  test("a private colony's wiki is 404 to a stranger", async () => {
    const hidden = makeColony(h, founder, "private");
    const b = await signedInBrowser(h, stranger.username);
    expect((await b.get(`/c/${hidden.name}/wiki`)).status).toBe(404);
  });

  test("the forms of writing send a visitor who is not signed in to sign in", async () => {
    const r = await new Browser(h).get(`${base}/_new`);
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(`${base}/_new`)}`);
  });
});

describe("writing", () => {
  test("a member creates a page: its markdown is rendered, its title escaped, and it is listed", async () => {
    const b = await signedInBrowser(h, member.username);
    const r = await createPage(b, "getting-started", "Hello **world**\n\n<script>alert(1)</script>", "Start <here>");
    expect(r.status).toBe(303);
    expect(r.location).toBe(`${base}/getting-started?notice=created`);
    const p = await b.get(r.location!);
    expect(p.status).toBe(200);
    expect(p.text).toContain("<strong>world</strong>");
    expect(p.text).not.toContain("<script>alert(1)");
    expect(p.text).toContain("Start &lt;here&gt;");
    expect(p.text).toContain("The page is created.");
    const list = await new Browser(h).get(base);
    expect(list.text).toContain(`href="${base}/getting-started"`);
  });

  test("a stranger is refused by the members-only policy: the form again with the service's reason, 403, nothing written", async () => {
    const b = await signedInBrowser(h, stranger.username);
    const list = await b.get(base);
    expect(list.text).toContain("You cannot edit this wiki: Only members of this colony can edit its wiki: join it first");
    const before = pageCount();
    const r = await createPage(b, "strangers-page", "text");
    expect(r.status).toBe(403);
    expect(r.text).toContain("Only members of this colony can edit its wiki");
    expect(r.text).toContain('value="strangers-page"');
    expect(pageCount()).toBe(before);
  });

  test("a taken slug and a bad slug are the service's 409 and 422 on the form", async () => {
    const b = await signedInBrowser(h, member.username);
    await createPage(b, "taken-slug", "one");
    expect((await createPage(b, "taken-slug", "two")).status).toBe(409);
    const bad = await createPage(b, "Bad Slug", "x");
    expect(bad.status).toBe(422);
    expect(bad.text).toContain("slug must be lowercase letters");
  });

  test("a form without the CSRF token changes nothing", async () => {
    const b = await signedInBrowser(h, member.username);
    const before = dbState(h);
    const r = await b.post(`${base}/_new`, { title: "No token", slug: "no-token" }, { csrf: null });
    expect(r.status).toBe(403);
    expect(dbState(h)).toEqual(before);
  });

  test("an edit on a stale revision is the service's 409 conflict, with the person's text kept", async () => {
    const a = await signedInBrowser(h, member.username);
    const f = await signedInBrowser(h, founder.username);
    await createPage(a, "conflicted", "line one\nline two\n");
    await a.get(`${base}/conflicted/edit`);
    // The founder saves first, from the same revision.
    await f.get(`${base}/conflicted/edit`);
    expect((await f.post(`${base}/conflicted/edit`, { title: "Page conflicted", content: "line one\nfounder's line\n", category: "", summary: "", base_revision: "1" })).status).toBe(303);
    const r = await a.post(`${base}/conflicted/edit`, { title: "Page conflicted", content: "my careful text", category: "", summary: "", base_revision: "1" });
    expect(r.status).toBe(409);
    expect(r.text).toContain("The page changed since revision 1: it is at revision 2");
    expect(r.text).toContain("my careful text");
  });

  test("history, two revisions compared line by line, and a revision restored", async () => {
    const b = await signedInBrowser(h, member.username);
    await createPage(b, "diffed", "alpha\nbeta\ngamma\n");
    await b.get(`${base}/diffed/edit`);
    expect((await b.post(`${base}/diffed/edit`, { title: "Page diffed", content: "alpha\nBETA <b>\ngamma\n", category: "Guides", summary: "shout", base_revision: "1" })).status).toBe(303);
    const hist = await b.get(`${base}/diffed/history`);
    expect(hist.status).toBe(200);
    const ids = [...hist.text.matchAll(/href="[^"]*\/revisions\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
    expect(ids.length).toBe(2);
    const [newer, older] = ids;
    expect(hist.text).toContain("shout");
    const diff = await b.get(`${base}/diffed/diff?from=${older}&to=${newer}`);
    expect(diff.status).toBe(200);
    expect(diff.text).toContain("1 line added, 1 removed");
    expect(diff.text).toMatch(/<del><span class="vh">Removed: <\/span><span>beta<\/span><\/del>/);
    expect(diff.text).toMatch(/<ins><span class="vh">Added: <\/span><span>BETA &lt;b&gt;<\/span><\/ins>/);
    // The same pair in the other order, and one revision against the one before it.
    expect((await b.get(`${base}/diffed/diff?from=${newer}&to=${older}`)).text).toContain("1 line added, 1 removed");
    expect((await b.get(`${base}/diffed/diff?to=${older}`)).text).toContain("3 lines added, 0 removed");
    // Restoring the first revision makes a third.
    const rev = await b.get(`${base}/diffed/revisions/${older}`);
    expect(rev.text).toContain("Restore revision 1");
    const r = await b.post(`${base}/diffed/revert`, { revision_id: older, summary: "" });
    expect(r.status).toBe(303);
    const page = await b.get(r.location!);
    expect(page.text).toContain("Revision 3");
    expect(page.text).toContain("beta");
  });

  test("an unknown revision is 404", async () => {
    expect((await new Browser(h).get(`${base}/getting-started/revisions/0190f0f0-0000-7000-8000-000000000000`)).status).toBe(404);
  });
});

describe("the lock", () => {
  test("a moderator locks a page: nobody edits it, the member's save is 403; a member cannot lock", async () => {
    const m = await signedInBrowser(h, member.username);
    const f = await signedInBrowser(h, founder.username);
    await createPage(m, "lockable", "text");
    // A member has no lock button, and posting it anyway is the service's 403.
    const seen = await m.get(`${base}/lockable`);
    expect(seen.text).not.toContain("Lock the page");
    expect((await m.post(`${base}/lockable/lock`)).status).toBe(403);
    await m.get(`${base}/lockable/edit`);
    const fp = await f.get(`${base}/lockable`);
    expect(fp.text).toContain("Lock the page");
    const locked = await f.post(`${base}/lockable/lock`);
    expect(locked.status).toBe(303);
    expect((await f.get(locked.location!)).text).toContain("Locked:");
    const r = await m.post(`${base}/lockable/edit`, { title: "Page lockable", content: "changed", category: "", summary: "", base_revision: "1" });
    expect(r.status).toBe(403);
    expect(r.text).toContain("This page is locked");
    expect((await m.get(`${base}/lockable/edit`)).status).toBe(403);
    await f.get(`${base}/lockable`);
    expect((await f.post(`${base}/lockable/unlock`)).status).toBe(303);
    expect((await m.get(`${base}/lockable/edit`)).status).toBe(200);
  });
});

describe("deleting and restoring", () => {
  test("a creator deletes their own page until someone else edits it; a moderator deletes any and restores it", async () => {
    const m = await signedInBrowser(h, member.username);
    const f = await signedInBrowser(h, founder.username);
    await createPage(m, "short-lived", "text");
    const seen = await m.get(`${base}/short-lived`);
    expect(seen.text).toContain("Delete the page");
    const gone = await m.post(`${base}/short-lived/delete`);
    expect(gone.status).toBe(303);
    expect(gone.location).toBe(`${base}?notice=deleted`);
    expect((await m.get(`${base}/short-lived`)).status).toBe(404);

    // Edited by the founder, the member's page is no longer theirs alone to delete.
    await createPage(m, "shared-page", "text");
    await f.get(`${base}/shared-page/edit`);
    expect((await f.post(`${base}/shared-page/edit`, { title: "Page shared-page", content: "more text", category: "", summary: "", base_revision: "1" })).status).toBe(303);
    await m.get(`${base}/shared-page`);
    const refused = await m.post(`${base}/shared-page/delete`);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("Others have edited this page: only a moderator can delete it now");

    // The deleted list is the moderators': the member gets the service's 403.
    expect((await m.get(`${base}/_deleted`)).status).toBe(403);
    const list = await f.get(`${base}/_deleted`);
    expect(list.status).toBe(200);
    expect(list.text).toContain("Page short-lived");
    const back = await f.post(`${base}/short-lived/restore`);
    expect(back.status).toBe(303);
    expect((await m.get(`${base}/short-lived`)).status).toBe(200);
    // Restoring a live page is the service's 409, shown on the list.
    await f.get(`${base}/_deleted`);
    const again = await f.post(`${base}/short-lived/restore`);
    expect(again.status).toBe(409);
    expect(again.text).toContain("This page is not deleted");
  });
});

describe("the editor list", () => {
  test("under the editors-only policy, a person the founder adds may write; the list is refused to others (403)", async () => {
    const editorsOnly = makeColony(h, founder);
    setColonySettings(h, editorsOnly.id, { wiki_edit_policy: "editors" });
    const where = `/c/${editorsOnly.name}/wiki`;
    const s = await signedInBrowser(h, stranger.username);
    const before = await s.get(where);
    expect(before.text).toContain("Who may edit: its approved wiki editors, and its moderators.");
    expect(before.text).toContain("Only this colony&#x27;s approved wiki editors can edit its wiki");
    expect((await s.get(`${where}/_editors`)).status).toBe(403);

    const f = await signedInBrowser(h, founder.username);
    expect((await f.get(where)).text).toContain(`href="${where}/_editors"`);
    await f.get(`${where}/_editors`);
    const added = await f.post(`${where}/_editors`, { username: `@${stranger.username}` });
    expect(added.status).toBe(303);
    const list = await f.get(added.location!);
    expect(list.text).toContain("The editor is added.");
    expect(list.text).toContain(`Remove ${stranger.username}`);
    const twice = await f.post(`${where}/_editors`, { username: stranger.username });
    expect(twice.status).toBe(409);
    expect(twice.text).toContain("is already a wiki editor of this colony");
    const nobody = await f.post(`${where}/_editors`, { username: "nobody-by-this-name" });
    expect(nobody.status).toBe(404);
    expect(nobody.text).toContain('value="nobody-by-this-name"');

    await s.get(`${where}/_new`);
    expect((await s.post(`${where}/_new`, { title: "Editor's page", slug: "editors-page", content: "" })).status).toBe(303);

    await f.get(`${where}/_editors`);
    expect((await f.post(`${where}/_editors/${stranger.id}/remove`)).status).toBe(303);
    await s.get(`${where}/_new`);
    expect((await s.post(`${where}/_new`, { title: "Another page", slug: "another-page", content: "" })).status).toBe(403);
  });
});

describe("a blank colony name", () => {
  test("is 404 on every page and form, and never reaches the site wiki", async () => {
    const admin = await human(h, { admin: true });
    const b = await signedInBrowser(h, admin.username);
    await b.get(base);
    expect((await b.get("/c/%20/wiki")).status).toBe(404);
    const before = (h.ctx.db.$client.query("select count(*) as n from wiki_pages where colony_id is null").get() as { n: number }).n;
    const r = await b.post("/c/%20/wiki/_new", { title: "Site page by accident", slug: "site-accident", content: "" });
    expect(r.status).toBe(404);
    expect((h.ctx.db.$client.query("select count(*) as n from wiki_pages where colony_id is null").get() as { n: number }).n).toBe(before);
  });
});

describe("the site wiki (/wiki)", () => {
  const sitePages = () => (h.ctx.db.$client.query("select count(*) as n from wiki_pages where colony_id is null").get() as { n: number }).n;

  test("anyone reads it, without forms; every account may write it: a page made, edited, compared and restored, all outside any colony", async () => {
    const anon = await new Browser(h).get("/wiki");
    expect(anon.status).toBe(200);
    expect(anon.headers.get("content-type")).toContain("text/html");
    expect(anon.text).toContain("<h1>Wiki</h1>");
    expect(anon.text).toContain("Anyone with an account may edit; site admins moderate it.");
    expect(anon.text).not.toContain('name="csrf"');
    expect((await new Browser(h).get("/wiki/_new")).location).toBe(`/login?next=${encodeURIComponent("/wiki/_new")}`);

    // A person in no colony at all.
    const b = await signedInBrowser(h, stranger.username);
    await b.get("/wiki/_new");
    const made = await b.post("/wiki/_new", { title: "How this instance works", slug: "how-it-works", content: "First **words**.", category: "", summary: "start" });
    expect(made.status).toBe(303);
    expect(made.location).toBe("/wiki/how-it-works?notice=created");
    expect(h.ctx.db.$client.query("select colony_id from wiki_pages where slug = 'how-it-works'").get()).toEqual({ colony_id: null });
    const page = await b.get("/wiki/how-it-works");
    expect(page.text).toContain("<strong>words</strong>");
    expect(page.text).toContain('<a href="/wiki">Wiki</a>');
    await b.get("/wiki/how-it-works/edit");
    expect((await b.post("/wiki/how-it-works/edit", { title: "How this instance works", content: "First words, then more.", category: "", summary: "more", base_revision: "1" })).status).toBe(303);
    const hist = await b.get("/wiki/how-it-works/history");
    const [newer, older] = [...hist.text.matchAll(/href="\/wiki\/how-it-works\/revisions\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
    expect((await b.get(`/wiki/how-it-works/diff?from=${older}&to=${newer}`)).text).toContain("1 line added, 1 removed");
    const restored = await b.post("/wiki/how-it-works/revert", { revision_id: older!, summary: "" });
    expect(restored.location).toBe("/wiki/how-it-works?notice=restored");
    // Listed on /wiki, not in the colony's wiki.
    expect((await new Browser(h).get("/wiki")).text).toContain('href="/wiki/how-it-works"');
    expect((await new Browser(h).get(base)).text).not.toContain("how-it-works");
  });

  test("its moderators are the site admins: the deleted pages and the lock are theirs (403 to others); it has no editor list", async () => {
    const b = await signedInBrowser(h, member.username);
    await b.get("/wiki/_new");
    expect((await b.post("/wiki/_new", { title: "A page to lose", slug: "to-lose", content: "text", category: "", summary: "" })).status).toBe(303);
    await b.get("/wiki/to-lose");
    expect((await b.post("/wiki/to-lose/lock")).status).toBe(403);
    expect((await b.get("/wiki/_deleted")).status).toBe(403);
    const before = sitePages();
    expect((await b.post("/wiki/to-lose/delete")).location).toBe("/wiki?notice=deleted");
    expect(sitePages()).toBe(before);

    const admin = await human(h, { admin: true });
    const a = await signedInBrowser(h, admin.username);
    const deleted = await a.get("/wiki/_deleted");
    expect(deleted.status).toBe(200);
    expect(deleted.text).toContain("A page to lose");
    expect((await a.post("/wiki/to-lose/restore")).location).toBe("/wiki/to-lose?notice=restored_page");
    await a.get("/wiki/to-lose");
    expect((await a.post("/wiki/to-lose/lock")).location).toBe("/wiki/to-lose?notice=locked");
    const listed = await a.get("/wiki");
    expect(listed.text).toContain('href="/wiki/_deleted"');
    expect(listed.text).not.toContain("_editors");
    expect((await a.get("/wiki/_editors")).status).toBe(404);
  });
});
