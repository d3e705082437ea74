// Collections on the web: /collections (one's own with the new-collection form, everyone's public
// ones to anonymous readers, `?user=`), a collection's page, adding a post by its address and from
// the post's page, removing it, changing and deleting the collection, and the collections
// service's refusals (someone else's collection, a post already in it, a private colony's post,
// a blank title) shown with their status.
import { beforeEach, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../../test/browser";
import { dbState } from "../../../test/db-state";
import { BASE, setup, type TestUser } from "../../../test/harness";
import { join, makeColony, post } from "../../features/posts/fixtures";
import { human } from "../../features/sessions/fixtures";
import { postIdOf } from "./collection-routes";

const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });
let ann: TestUser;
let ben: TestUser;
beforeEach(async () => {
  [ann, ben] = [await human(h), await human(h)];
});

const one = (sql: string, ...args: string[]) => h.ctx.db.$client.query(sql).get(...args) as Record<string, unknown> | null;
const items = (collectionId: string) => (h.ctx.db.$client.query("select post_id from collection_items where collection_id = ? order by position").all(collectionId) as { post_id: string }[]).map((r) => r.post_id);

async function made(u: TestUser, title: string, isPublic = true): Promise<{ b: Awaited<ReturnType<typeof signedInBrowser>>; id: string }> {
  const b = await signedInBrowser(h, u.username);
  await b.get("/collections");
  const r = await b.post("/collections", { title, description: "", ...(isPublic ? { public: "1" } : {}) });
  expect(r.status).toBe(303);
  return { b, id: /^\/collections\/([0-9a-f-]{36})\?notice=made$/.exec(r.location!)![1] };
}

test("postIdOf takes a post's address or its id", () => {
  const id = "0190a1b2-0000-7000-8000-000000000000";
  for (const raw of [id, `/post/${id}`, `${BASE}/post/${id}#comments`, ` ${id.toUpperCase()} `]) expect(postIdOf(raw)).toBe(id);
  expect(() => postIdOf("/post/nope")).toThrow("Give the post's address");
});

describe("/collections", () => {
  test("a new collection from the form: its page, then listed as one's own; private ones hidden from others", async () => {
    const { b, id } = await made(ann, "Best <ferns>");
    expect(one("select user_id, title, is_public from collections where id = ?", id)).toEqual({ user_id: ann.id, title: "Best <ferns>", is_public: 1 });
    const shown = await b.get(`/collections/${id}?notice=made`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain("<h1>Best &lt;ferns&gt;</h1>");
    expect(shown.text).toContain('<p role="status">The collection is made.');
    const secret = await made(ann, "Secret list", false);
    const list = await b.get("/collections");
    expect(list.text).toContain("<h1>Your collections</h1>");
    expect(list.text).toContain(`href="/collections/${id}"`);
    expect(list.text).toContain(`href="/collections/${secret.id}"`);
    const anon = await new Browser(h).get("/collections");
    expect(anon.status).toBe(200);
    expect(anon.text).toContain(`href="/collections/${id}"`);
    expect(anon.text).not.toContain(secret.id);
    expect((await new Browser(h).get(`/collections/${secret.id}`)).status).toBe(404);
    const theirs = await new Browser(h).get(`/collections?user=${ann.username}`);
    expect(theirs.text).toContain(`<h1>Collections of @${ann.username}</h1>`);
    expect(theirs.text).toContain(`href="/collections/${id}"`);
    expect((await new Browser(h).get("/collections?user=nobody-here")).status).toBe(404);
  });

  test("a blank title is refused with 400 and the form again", async () => {
    const b = await signedInBrowser(h, ann.username);
    await b.get("/collections");
    const before = dbState(h);
    const r = await b.post("/collections", { title: "   ", description: "kept" });
    expect(r.status).toBe(400);
    expect(r.text).toContain("A collection needs a title");
    expect(r.text).toContain("kept</textarea>");
    expect(dbState(h)).toEqual(before);
  });
});

describe("a collection's posts", () => {
  test("added by address and from the post's page, listed in order, removed again", async () => {
    const [p1, p2] = [await post(h, ben, { title: "First pick" }), await post(h, ben, { title: "Second pick" })];
    const { b, id } = await made(ann, "Picks");
    await b.get(`/collections/${id}`);
    const added = await b.post(`/collections/${id}/items`, { post: `${BASE}/post/${p1.id}`, note: "Read the <end>" });
    expect(added.status).toBe(303);
    expect(added.location).toBe(`/collections/${id}?notice=added`);
    const postPage = await b.get(`/post/${p2.id}`);
    expect(postPage.text).toContain('action="/collections/add"');
    expect(postPage.text).toContain(`<option value="${id}">Picks</option>`);
    expect((await b.post("/collections/add", { collection_id: id, post_id: p2.id })).location).toBe(`/collections/${id}?notice=added`);
    expect(items(id)).toEqual([p1.id, p2.id]);
    const shown = (await new Browser(h).get(`/collections/${id}`)).text;
    expect(shown.indexOf("First pick")).toBeLessThan(shown.indexOf("Second pick"));
    expect(shown).toContain("Read the &lt;end&gt;");
    expect(shown).not.toContain(`/collections/${id}/items`);
    await b.get(`/collections/${id}`);
    const removed = await b.post(`/collections/${id}/items/${p1.id}/remove`, {});
    expect(removed.location).toBe(`/collections/${id}?notice=removed`);
    expect(items(id)).toEqual([p2.id]);
  });

  test.each([
    ["a post already in it", 409, "That post is already in this collection"],
    ["a private colony's post", 403, "Only posts everyone can read may be collected"],
    ["something that is not a post's address", 400, "Give the post&#x27;s address"],
  ] as const)("%s is refused with the service's status, the form keeping what was typed", async (what, status, message) => {
    const { b, id } = await made(ann, "Refusals");
    let target: string;
    if (what === "a post already in it") {
      const p = await post(h, ben);
      await b.get(`/collections/${id}`);
      await b.post(`/collections/${id}/items`, { post: p.id });
      target = p.id;
    } else if (what === "a private colony's post") {
      const colony = makeColony(h, ben, "private");
      await join(h, colony, ann, ben);
      target = (await post(h, ben, { colony_id: colony.id })).id;
    } else target = "/post/not-a-post";
    await b.get(`/collections/${id}`);
    const r = await b.post(`/collections/${id}/items`, { post: target, note: "why" });
    expect(r.status).toBe(status);
    expect(r.text).toContain(message);
    expect(r.text).toContain('value="why"');
  });

  test("someone else's collection: no owner forms, and their POSTs are refused with 403", async () => {
    const { id } = await made(ann, "Ann's");
    const p = await post(h, ann);
    const b = await signedInBrowser(h, ben.username);
    const page = await b.get(`/collections/${id}`);
    expect(page.text).not.toContain(`action="/collections/${id}/items"`);
    const before = dbState(h);
    const r = await b.post(`/collections/${id}/items`, { post: p.id });
    expect(r.status).toBe(403);
    expect(r.text).toContain("Only the collection&#x27;s owner may change it");
    expect((await b.post(`/collections/${id}/delete`, {})).status).toBe(403);
    expect((await b.get(`/collections/${id}/delete`)).status).toBe(403);
    expect(dbState(h)).toEqual(before);
  });
});

describe("changing and deleting a collection", () => {
  test("title, description and visibility are saved; delete asks first, then removes it", async () => {
    const { b, id } = await made(ann, "Draft list");
    await b.get(`/collections/${id}`);
    const saved = await b.post(`/collections/${id}/edit`, { title: "Final list", description: "Now private" });
    expect(saved.location).toBe(`/collections/${id}?notice=saved`);
    expect(one("select title, description, is_public from collections where id = ?", id)).toEqual({ title: "Final list", description: "Now private", is_public: 0 });
    const blank = await b.post(`/collections/${id}/edit`, { title: " ", public: "1" });
    expect(blank.status).toBe(400);
    expect(blank.text).toContain("A collection needs a title");
    const ask = await b.get(`/collections/${id}/delete`);
    expect(ask.text).toContain("<h1>Delete your collection?</h1>");
    const gone = await b.post(`/collections/${id}/delete`, {});
    expect(gone.status).toBe(303);
    expect(gone.location).toBe("/collections");
    expect(one("select id from collections where id = ?", id)).toBeNull();
  });

  test("a visitor is sent to sign in by the forms", async () => {
    const { id } = await made(ann, "Open");
    const anon = new Browser(h);
    await anon.get("/login");
    const r = await anon.post(`/collections/${id}/delete`, {});
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(`/collections/${id}`)}`);
  });
});
