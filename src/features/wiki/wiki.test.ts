// The site wiki (spec Part 3 §4.14): create with the slug rules and the shared handle namespace,
// read, list with its filters, edit as revisions, history, one revision, diff, revert, the delete
// rules, deleted pages and restore, lock and unlock.
import { beforeAll, describe, expect, test } from "bun:test";
import { HOUR } from "../../core/clock";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { makeColony } from "../colonies/fixtures";
import { outcome, refused } from "../../../test/expect";
import { unchanged, wikiApi, type WikiApi } from "./fixtures";

let h: Harness;
let w: WikiApi;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;

beforeAll(async () => {
  h = setup({ rateLimitMultiplier: 0 });
  w = wikiApi(h);
  alice = await h.user({ username: "alice-wiki" });
  bob = await h.user({ username: "bob-wiki" });
  admin = await h.user({ username: "site-admin", admin: true });
});

let seq = 0;
const slug = (base = "page") => `${base}-${++seq}`;

async function page(u: TestUser = alice, body: Record<string, unknown> = {}) {
  const r = await w.create(u, { title: "A page", slug: slug(), content: "one\ntwo\nthree\n", ...body });
  expect(r.status).toBe(201);
  return r.body;
}

const author = (u: TestUser) => ({ username: u.username, display_name: u.username });

describe("create and read", () => {
  test("201 WikiPageOut; anyone reads it; the first revision starts the history", async () => {
    const s = slug("getting-started");
    const at = new Date(h.clock.now()).toISOString();
    const r = await w.create(alice, { title: "  Getting started ", slug: s, content: "# Hello", category: " Guides ", summary: "first draft" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      slug: s,
      title: "Getting started",
      content: "# Hello",
      category: "Guides",
      created_by: author(alice),
      updated_by: author(alice),
      is_locked: false,
      revision_count: 1,
      colony_name: null,
      colony: null,
      created_at: at,
      updated_at: at,
    });
    expect((await w.get(s)).body).toEqual(r.body);
    const hist = await w.history(s);
    expect(hist.body).toEqual([{ id: expect.any(String), title: "Getting started", summary: "first draft", author: author(alice), created_at: at }]);
    expect(hist.headers.get("x-total-count")).toBe("1");
  });

  test("content defaults to empty; category and summary are optional", async () => {
    const r = await w.create(alice, { title: "Stub", slug: slug("stub") });
    expect(r.body).toMatchObject({ content: "", category: null, revision_count: 1 });
  });

  test("401 without an account, and nothing is written", async () => {
    await refused(h, () => w.create(null, { title: "T", slug: slug() }), 401, "AUTH_INVALID_TOKEN");
  });

  test.each([
    ["capitals", "Bad-Slug"],
    ["a double hyphen", "bad--slug"],
    ["a leading hyphen", "-bad"],
    ["a trailing hyphen", "bad-"],
    ["an underscore", "bad_slug"],
    ["a space", "bad slug"],
    ["a dot", "bad.slug"],
    ["nothing", ""],
    ["201 characters", "a".repeat(201)],
  ])("422 for a slug with %s, nothing written", async (_, bad) => {
    const r = await refused(h, () => w.create(alice, { title: "T", slug: bad }), 422, null);
    expect(r.body.detail[0].loc).toEqual(["body", "slug"]);
  });

  test.each([
    ["a blank title", { title: "   " }],
    ["an empty title", { title: "" }],
    ["a 301-character title", { title: "t".repeat(301) }],
    ["content over 200000 characters", { content: "c".repeat(200_001) }],
    ["a 101-character category", { category: "c".repeat(101) }],
    ["a 501-character summary", { summary: "s".repeat(501) }],
    ["a missing title", { title: undefined }],
  ])("422 for %s, nothing written", async (_, body) => {
    await refused(h, () => w.create(alice, { title: "T", slug: slug(), ...body }), 422, null);
  });

  test("a slug of 200 characters and content of 200000 are accepted", async () => {
    const r = await w.create(alice, { title: "Long", slug: "a".repeat(199) + "b", content: "c".repeat(200_000) });
    expect(r.status).toBe(201);
    expect(r.body.content.length).toBe(200_000);
  });

  test("404 for a page that does not exist", async () => {
    expect(outcome(await w.get("no-such-page"))).toEqual({ status: 404, code: "NOT_FOUND" });
  });
});

describe("slugs: taken, reserved, immutable, and one namespace with names", () => {
  test("409 for a slug taken in the site wiki, live or deleted", async () => {
    const p = await page();
    await refused(h, () => w.create(bob, { title: "Again", slug: p.slug }), 409, "CONFLICT");
    expect((await w.remove(alice, p.slug)).status).toBe(204);
    await refused(h, () => w.create(bob, { title: "Again", slug: p.slug }), 409, "CONFLICT");
  });

  test("409 for the reserved slug `deleted` (the route of deleted pages)", async () => {
    await refused(h, () => w.create(alice, { title: "Deleted", slug: "deleted" }), 409, "CONFLICT");
  });

  test("409 when a username, a colony name or an organisation slug holds the slug", async () => {
    await refused(h, () => w.create(alice, { title: "Bob", slug: bob.username }), 409, "CONFLICT");
    const c = makeColony(h, alice, { name: "wiki-named-colony" });
    await refused(h, () => w.create(alice, { title: "Colony", slug: c.name }), 409, "CONFLICT");
    const org = await h.req("POST", "/api/v1/orgs", { token: (await h.user({ karma: 20 })).token, body: { slug: "wiki-org", name: "Wiki Org" } });
    expect(org.status).toBe(201);
    await refused(h, () => w.create(alice, { title: "Org", slug: "wiki-org" }), 409, "CONFLICT");
  });

  test("a site page's slug is taken for usernames and colony names, and stays so after its deletion", async () => {
    const p = await page(alice, { slug: "handle-of-a-page" });
    expect((await h.req("GET", "/api/v1/auth/check-username", { query: { username: p.slug } })).body).toMatchObject({ valid: true, available: false });
    expect((await h.req("POST", "/api/v1/auth/register", { body: { username: p.slug, display_name: "X" } })).status).toBe(409);
    expect((await h.req("POST", "/api/v1/colonies", { token: alice.token, body: { name: p.slug, display_name: "X" } })).status).toBe(409);
    await w.remove(alice, p.slug);
    expect((await h.req("POST", "/api/v1/auth/register", { body: { username: p.slug, display_name: "X" } })).status).toBe(409);
  });

  test("the slug cannot change: PUT ignores a slug in the body", async () => {
    const p = await page();
    const r = await w.put(alice, p.slug, { slug: "another-slug", title: "Renamed" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ slug: p.slug, title: "Renamed" });
    expect((await w.get("another-slug")).status).toBe(404);
  });
});

describe("list", () => {
  let l: Harness;
  let lw: WikiApi;
  let u: TestUser;
  beforeAll(async () => {
    l = setup({ rateLimitMultiplier: 0 });
    lw = wikiApi(l);
    u = await l.user();
    const pages = [
      { title: "banana bread", slug: "banana", category: "food", content: "Flour, BANANAS and time." },
      { title: "Apple pie", slug: "apple", category: "food", content: "Apples." },
      { title: "zebra facts", slug: "zebra", category: "animals", content: "Stripes at 100% coverage." },
      { title: "Cherry", slug: "cherry", content: "A fruit with a_stone." },
      { title: "Gone", slug: "gone", content: "banana" },
    ];
    for (const p of pages) expect((await lw.create(u, p)).status).toBe(201);
    await lw.remove(u, "gone");
  });

  test("alphabetical by title whatever the case; deleted pages left out; WikiPageListItem", async () => {
    const r = await lw.list();
    expect(r.body.items.map((p: any) => p.slug)).toEqual(["apple", "banana", "cherry", "zebra"]);
    expect(r.body).toMatchObject({ total: 4, has_more: false });
    expect(r.body.items[0]).toEqual({
      id: expect.any(String),
      slug: "apple",
      title: "Apple pie",
      category: "food",
      updated_by: { username: u.username, display_name: u.username },
      revision_count: 1,
      colony_name: null,
      colony: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  test("category is an exact match; q a case-insensitive substring of title or content; total is the filtered size", async () => {
    expect((await lw.list({ category: "food" })).body).toMatchObject({ total: 2, items: [{ slug: "apple" }, { slug: "banana" }] });
    expect((await lw.list({ category: "Food" })).body.total).toBe(0);
    expect((await lw.list({ q: "banana" })).body).toMatchObject({ total: 1, items: [{ slug: "banana" }] });
    expect((await lw.list({ q: "APPLE" })).body).toMatchObject({ total: 1, items: [{ slug: "apple" }] });
    expect((await lw.list({ q: "fruit", category: "food" })).body.total).toBe(0);
    // LIKE's wildcards are literal characters.
    expect((await lw.list({ q: "0%" })).body).toMatchObject({ total: 1, items: [{ slug: "zebra" }] });
    expect((await lw.list({ q: "a_s" })).body).toMatchObject({ total: 1, items: [{ slug: "cherry" }] });
    expect((await lw.list({ q: "a%s" })).body.total).toBe(0);
  });

  test("search is the deprecated spelling of q, flagged in the headers; both with different values is 400", async () => {
    const r = await lw.list({ search: "zebra" });
    expect(r.body).toMatchObject({ total: 1, items: [{ slug: "zebra" }] });
    expect(r.headers.get("x-colony-deprecated-params")).toBe("search=q");
    expect(outcome(await lw.list({ search: "zebra", q: "apple" }))).toEqual({ status: 400, code: "INVALID_INPUT" });
  });

  test("paging: limit, offset, page, has_more; q shorter than 2 or limit over 200 is 422", async () => {
    expect((await lw.list({ limit: 2 })).body).toMatchObject({ total: 4, has_more: true, items: [{ slug: "apple" }, { slug: "banana" }] });
    expect((await lw.list({ limit: 2, page: 2 })).body).toMatchObject({ total: 4, has_more: false, page: 2, items: [{ slug: "cherry" }, { slug: "zebra" }] });
    expect((await lw.list({ offset: 3 })).body.items.map((p: any) => p.slug)).toEqual(["zebra"]);
    expect((await lw.list({ q: "a" })).status).toBe(422);
    expect((await lw.list({ limit: 201 })).status).toBe(422);
    expect((await lw.list({ limit: 200 })).status).toBe(200);
  });

  test("the site list holds no colony pages, and a colony's list none of the site's", async () => {
    const c = makeColony(l, u, { name: "listed-colony" });
    expect((await lw.create(u, { title: "Apple of the colony", slug: "apple", colony: c.name })).status).toBe(201);
    expect((await lw.list()).body.total).toBe(4);
    const r = await lw.list({ colony: c.name });
    expect(r.body).toMatchObject({ total: 1, items: [{ slug: "apple", colony_name: c.name, colony: c.name, title: "Apple of the colony" }] });
    const old = await lw.list({ colony_name: c.name });
    expect(old.body.total).toBe(1);
    expect(old.headers.get("x-colony-deprecated-params")).toBe("colony_name=colony");
  });
});

describe("edit", () => {
  test("an edit appends a revision; the fields sent change; updated_by and updated_at move; the last write wins", async () => {
    const p = await page(alice, { category: "guides" });
    h.clock.advance(60_000);
    const r = await w.put(bob, p.slug, { content: "one\n2\nthree\n", summary: "fix" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: "A page", content: "one\n2\nthree\n", category: "guides", created_by: author(alice), updated_by: author(bob), revision_count: 2, updated_at: new Date(h.clock.now()).toISOString() });
    expect(Date.parse(r.body.updated_at) - Date.parse(p.created_at)).toBe(60_000);
    expect(r.body.created_at).toBe(p.created_at);
    const again = await w.put(alice, p.slug, { title: "Renamed", category: null });
    expect(again.body).toMatchObject({ title: "Renamed", content: "one\n2\nthree\n", category: null, updated_by: author(alice), revision_count: 3 });
    expect((await w.get(p.slug)).body).toEqual(again.body);
    const hist = (await w.history(p.slug)).body;
    expect(hist.map((x: any) => [x.title, x.summary, x.author.username])).toEqual([
      ["Renamed", null, alice.username],
      ["A page", "fix", bob.username],
      ["A page", null, alice.username],
    ]);
  });

  test("base_revision: the current revision number writes, another is 409 CONFLICT and changes nothing", async () => {
    const p = await page();
    expect((await w.put(bob, p.slug, { content: "b", base_revision: 1 })).status).toBe(200);
    await refused(h, () => w.put(alice, p.slug, { content: "a", base_revision: 1 }), 409, "CONFLICT");
    expect((await w.put(alice, p.slug, { content: "a", base_revision: 2 })).body.revision_count).toBe(3);
  });

  test("400 INVALID_INPUT for an edit naming none of title, content and category; 422 for a blank title; nothing written", async () => {
    const p = await page();
    await refused(h, () => w.put(alice, p.slug, {}), 400, "INVALID_INPUT");
    await refused(h, () => w.put(alice, p.slug, { summary: "only a summary" }), 400, "INVALID_INPUT");
    await refused(h, () => w.put(alice, p.slug, { title: "  " }), 422, null);
    await refused(h, () => w.put(alice, p.slug, { content: "c".repeat(200_001) }), 422, null);
  });

  test("401 without an account; 404 for a missing or deleted page", async () => {
    const p = await page();
    await refused(h, () => w.put(null, p.slug, { content: "x" }), 401, "AUTH_INVALID_TOKEN");
    await refused(h, () => w.put(alice, "never-was", { content: "x" }), 404, "NOT_FOUND");
    await w.remove(alice, p.slug);
    await refused(h, () => w.put(alice, p.slug, { content: "x" }), 404, "NOT_FOUND");
  });
});

describe("history, revisions, diff", () => {
  test("history newest first with paging headers; 404 for a missing page", async () => {
    const p = await page();
    for (const n of [2, 3, 4]) await w.put(alice, p.slug, { content: `v${n}`, summary: `r${n}` });
    const r = await w.history(p.slug, { limit: 2 });
    expect(r.body.map((x: any) => x.summary)).toEqual(["r4", "r3"]);
    expect([r.headers.get("x-total-count"), r.headers.get("x-has-more")]).toEqual(["4", "true"]);
    expect((await w.history(p.slug, { limit: 2, page: 2 })).body.map((x: any) => x.summary)).toEqual(["r2", null]);
    expect((await w.history("never-was")).status).toBe(404);
    expect((await w.history(p.slug, { limit: 201 })).status).toBe(422);
  });

  test("a revision is its full snapshot; the slug and the revision are checked together", async () => {
    const p = await page();
    await w.put(bob, p.slug, { title: "Second", content: "second" });
    const [second, first] = (await w.history(p.slug)).body;
    expect((await w.revision(p.slug, first.id)).body).toEqual({ id: first.id, title: "A page", content: "one\ntwo\nthree\n", summary: null, author: author(alice), created_at: first.created_at });
    expect((await w.revision(p.slug, second.id)).body).toMatchObject({ title: "Second", content: "second", author: author(bob) });
    const other = await page();
    const otherRev = (await w.history(other.slug)).body[0].id;
    expect(outcome(await w.revision(p.slug, otherRev))).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(outcome(await w.revision(p.slug, "not-a-uuid"))).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(outcome(await w.revision("never-was", first.id))).toEqual({ status: 404, code: "NOT_FOUND" });
  });

  test("the diff of a revision is a unified diff against the revision before it", async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
    const p = await page(alice, { content: lines.join("\n") + "\n" });
    const changed = [...lines.slice(0, 1), "LINE 2", ...lines.slice(2), "line 13"];
    await w.put(bob, p.slug, { content: changed.join("\n") + "\n", title: "Counting" });
    const [second, first] = (await w.history(p.slug)).body;
    const r = await w.diff(p.slug, second.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      revision_id: second.id,
      previous_revision_id: first.id,
      old_title: "A page",
      new_title: "Counting",
      diff:
        `--- a/${p.slug}\trevision 1 (${first.id})\n+++ b/${p.slug}\trevision 2 (${second.id})\n` +
        "@@ -1,5 +1,5 @@\n line 1\n-line 2\n+LINE 2\n line 3\n line 4\n line 5\n" +
        "@@ -10,3 +10,4 @@\n line 10\n line 11\n line 12\n+line 13\n",
      additions: 2,
      deletions: 1,
      author: author(bob),
      created_at: second.created_at,
    });
  });

  test("a page's first revision is diffed against an empty page; an unchanged content is an empty diff", async () => {
    const p = await page(alice, { content: "only line" });
    const first = (await w.history(p.slug)).body[0];
    const r = (await w.diff(p.slug, first.id)).body;
    expect(r).toMatchObject({ previous_revision_id: null, old_title: null, new_title: "A page", additions: 1, deletions: 0 });
    expect(r.diff).toBe(`--- a/${p.slug}\tempty page\n+++ b/${p.slug}\trevision 1 (${first.id})\n@@ -0,0 +1,1 @@\n+only line\n\\ No newline at end of file\n`);
    await w.put(alice, p.slug, { title: "New title only" });
    const second = (await w.history(p.slug)).body[0];
    expect((await w.diff(p.slug, second.id)).body).toMatchObject({ old_title: "A page", new_title: "New title only", diff: "", additions: 0, deletions: 0 });
  });

  test("the diff is checked with the slug: a revision of another page is 404", async () => {
    const p = await page();
    const other = await page();
    const otherRev = (await w.history(other.slug)).body[0].id;
    expect(outcome(await w.diff(p.slug, otherRev))).toEqual({ status: 404, code: "NOT_FOUND" });
  });
});

describe("revert", () => {
  test("restores an earlier revision's title, content and category as a new revision", async () => {
    const p = await page(alice, { category: "first" });
    await w.put(bob, p.slug, { title: "Vandalised", content: "spam", category: "junk" });
    const first = (await w.history(p.slug)).body.at(-1);
    const r = await w.revert(alice, p.slug, { revision_id: first.id });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: "A page", content: "one\ntwo\nthree\n", category: "first", revision_count: 3, updated_by: author(alice) });
    const hist = (await w.history(p.slug)).body;
    expect(hist[0]).toMatchObject({ title: "A page", summary: "Reverted to revision 1", author: author(alice) });
    expect((await w.revert(alice, p.slug, { revision_id: first.id, summary: "again" })).body.revision_count).toBe(4);
    expect((await w.history(p.slug)).body[0].summary).toBe("again");
  });

  test("a revision of another page is 404, a malformed id 422, no account 401; nothing written", async () => {
    const p = await page();
    const other = await page();
    const otherRev = (await w.history(other.slug)).body[0].id;
    await refused(h, () => w.revert(alice, p.slug, { revision_id: otherRev }), 404, "NOT_FOUND");
    await refused(h, () => w.revert(alice, p.slug, { revision_id: "nope" }), 422, null);
    await refused(h, () => w.revert(null, p.slug, { revision_id: otherRev }), 401, "AUTH_INVALID_TOKEN");
  });
});

describe("delete, deleted pages, restore", () => {
  test("the creator deletes a page nobody else edited: 204, then it is gone to every read", async () => {
    const p = await page();
    await w.put(alice, p.slug, { content: `my own edit of ${p.slug}` });
    expect((await w.list({ q: p.slug })).body.total).toBe(1);
    expect((await w.remove(alice, p.slug)).status).toBe(204);
    for (const r of [await w.get(p.slug), await w.history(p.slug), await w.put(alice, p.slug, { content: "x" }), await w.remove(alice, p.slug)]) {
      expect(outcome(r)).toEqual({ status: 404, code: "NOT_FOUND" });
    }
    expect((await w.list({ q: p.slug })).body.total).toBe(0);
  });

  test("403 for the creator once someone else edited, and for anyone but the creator; nothing changes", async () => {
    const p = await page();
    await refused(h, () => w.remove(bob, p.slug), 403, "FORBIDDEN");
    await w.put(bob, p.slug, { content: "bob's work" });
    await refused(h, () => w.remove(alice, p.slug), 403, "FORBIDDEN");
    await refused(h, () => w.remove(null, p.slug), 401, "AUTH_INVALID_TOKEN");
  });

  test("a site admin deletes any page; the deleted list and restore are theirs", async () => {
    const p = await page();
    await w.put(bob, p.slug, { content: "bob's work" });
    h.clock.advance(HOUR);
    expect((await w.remove(admin, p.slug)).status).toBe(204);
    const list = await w.deleted(admin);
    expect(list.status).toBe(200);
    expect(list.body.items[0]).toEqual({
      id: p.id,
      slug: p.slug,
      title: "A page",
      category: null,
      created_by: author(alice),
      updated_by: author(bob),
      revision_count: 2,
      colony_name: null,
      colony: null,
      created_at: p.created_at,
      updated_at: expect.any(String),
      deleted_at: new Date(h.clock.now()).toISOString(),
      deleted_by: { username: admin.username, display_name: admin.username },
    });
    await refused(h, () => w.deleted(alice), 403, "FORBIDDEN");
    await refused(h, () => w.restore(alice, p.slug), 403, "FORBIDDEN");
    const r = await w.restore(admin, p.slug);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: p.id, slug: p.slug, content: "bob's work", revision_count: 2 });
    expect((await w.get(p.slug)).status).toBe(200);
    expect((await w.deleted(admin)).body.items.some((x: any) => x.id === p.id)).toBe(false);
    await refused(h, () => w.restore(admin, p.slug), 409, "CONFLICT");
    await refused(h, () => w.restore(admin, "never-was"), 404, "NOT_FOUND");
  });

  test("deleted pages newest deletion first, paged", async () => {
    const d = setup({ rateLimitMultiplier: 0 });
    const dw = wikiApi(d);
    const u = await d.user();
    const a = await d.user({ admin: true });
    for (const s of ["first", "second", "third"]) {
      await dw.create(u, { title: s, slug: s });
      await dw.remove(u, s);
      d.clock.advance(1000);
    }
    const r = await dw.deleted(a, { limit: 2 });
    expect(r.body).toMatchObject({ total: 3, has_more: true, items: [{ slug: "third" }, { slug: "second" }] });
    expect((await dw.deleted(null)).status).toBe(401);
  });
});

describe("lock", () => {
  test("site admins lock and unlock; a locked page refuses every edit, revert and its creator's delete, the admin's too", async () => {
    const p = await page();
    const first = (await w.history(p.slug)).body[0].id;
    await refused(h, () => w.lock(alice, p.slug), 403, "FORBIDDEN");
    const locked = await w.lock(admin, p.slug);
    expect(locked.status).toBe(200);
    expect(locked.body).toMatchObject({ slug: p.slug, is_locked: true, revision_count: 1 });
    // Locking a locked page changes nothing.
    await unchanged(h, () => w.lock(admin, p.slug), 200);
    expect((await w.get(p.slug)).body.is_locked).toBe(true);
    await refused(h, () => w.put(bob, p.slug, { content: "x" }), 403, "FORBIDDEN");
    await refused(h, () => w.put(admin, p.slug, { content: "x" }), 403, "FORBIDDEN");
    await refused(h, () => w.revert(alice, p.slug, { revision_id: first }), 403, "FORBIDDEN");
    await refused(h, () => w.remove(alice, p.slug), 403, "FORBIDDEN");
    await refused(h, () => w.unlock(alice, p.slug), 403, "FORBIDDEN");
    expect((await w.unlock(admin, p.slug)).body.is_locked).toBe(false);
    await unchanged(h, () => w.unlock(admin, p.slug), 200);
    expect((await w.put(bob, p.slug, { content: "x" })).status).toBe(200);
  });

  test("404 for locking a missing page; 401 without an account", async () => {
    await refused(h, () => w.lock(admin, "never-was"), 404, "NOT_FOUND");
    await refused(h, () => w.lock(null, "never-was"), 401, "AUTH_INVALID_TOKEN");
  });
});
