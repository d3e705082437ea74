// /bookmarks on the web: the Bookmark button of a post's page leading there, the list of one's
// bookmarks (and only one's own), folders made, renamed and deleted, a bookmark moved into a folder
// and removed, and the bookmarks service's refusals (an empty name, the twenty-folder cap, someone
// else's folder) shown with their status.
import { beforeEach, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../../test/browser";
import { dbState } from "../../../test/db-state";
import { setup, type TestUser } from "../../../test/harness";
import { post } from "../../features/posts/fixtures";
import { human } from "../../features/sessions/fixtures";

const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });
let ann: TestUser;
let ben: TestUser;
beforeEach(async () => {
  [ann, ben] = [await human(h), await human(h)];
});

const folderOf = (u: TestUser, postId: string) => (h.ctx.db.$client.query("select folder_id from bookmarks where user_id = ? and post_id = ?").get(u.id, postId) as { folder_id: string | null } | null)?.folder_id;
const folders = (u: TestUser) => h.ctx.db.$client.query("select id, name from bookmark_folders where user_id = ? order by position").all(u.id) as { id: string; name: string }[];

async function bookmarked(u: TestUser, ...postIds: string[]) {
  const b = await signedInBrowser(h, u.username);
  for (const id of postIds) {
    await b.get(`/post/${id}`);
    expect((await b.post(`/post/${id}/bookmark`, { do: "add" })).status).toBe(303);
  }
  return b;
}

describe("/bookmarks", () => {
  test("the post's Bookmark button keeps it and the page links to the list, which shows it", async () => {
    const p = await post(h, ben, { title: "Worth <keeping>" });
    const b = await bookmarked(ann, p.id);
    const postPage = await b.get(`/post/${p.id}`);
    expect(postPage.text).toContain('aria-pressed="true">Bookmarked</button>');
    expect(postPage.text).toContain('<a href="/bookmarks">Your bookmarks</a>');
    const list = await b.get("/bookmarks");
    expect(list.status).toBe(200);
    expect(list.text).toContain("<h1>Your bookmarks</h1>");
    expect(list.text).toContain(`<a href="/post/${p.id}">Worth &lt;keeping&gt;</a>`);
    expect(list.text).toContain("1 bookmark");
    // Nobody else's list shows it.
    const other = await signedInBrowser(h, ben.username);
    expect((await other.get("/bookmarks")).text).not.toContain(p.id);
  });

  test("a visitor is sent to sign in", async () => {
    const r = await new Browser(h).get("/bookmarks");
    expect(r.status).toBe(303);
    expect(r.location).toBe("/login?next=%2Fbookmarks");
  });

  test("a folder is made, a bookmark moved into it, the folder renamed, then deleted (its bookmark kept)", async () => {
    const [p1, p2] = [await post(h, ben, { title: "Alpha" }), await post(h, ben, { title: "Beta" })];
    const b = await bookmarked(ann, p1.id, p2.id);
    await b.get("/bookmarks");
    const made = await b.post("/bookmarks/folders", { name: "Read <later>" });
    expect(made.status).toBe(303);
    const [folder] = folders(ann);
    expect(folder.name).toBe("Read <later>");
    expect(made.location).toBe(`/bookmarks?folder=${folder.id}&notice=made`);
    const shown = await b.get(made.location!);
    expect(shown.text).toContain("<h1>Bookmarks in “Read &lt;later&gt;”</h1>");
    expect(shown.text).toContain('<p role="status">The folder is made.</p>');

    await b.get("/bookmarks");
    const moved = await b.post("/bookmarks/move", { post_id: p1.id, folder: folder.id, back: "" });
    expect(moved.status).toBe(303);
    expect(moved.location).toBe("/bookmarks?notice=moved");
    expect(folderOf(ann, p1.id)).toBe(folder.id);
    const inFolder = await b.get(`/bookmarks?folder=${folder.id}`);
    expect(inFolder.text).toContain(">Alpha</a>");
    expect(inFolder.text).not.toContain(">Beta</a>");
    expect((await b.get("/bookmarks?folder=unsorted")).text).toContain(">Beta</a>");

    await b.get(`/bookmarks?folder=${folder.id}`);
    const renamed = await b.post(`/bookmarks/folders/${folder.id}/rename`, { name: "Someday" });
    expect(renamed.location).toBe(`/bookmarks?folder=${folder.id}&notice=renamed`);
    expect(folders(ann)[0].name).toBe("Someday");

    const deleted = await b.post(`/bookmarks/folders/${folder.id}/delete`, {});
    expect(deleted.location).toBe("/bookmarks?notice=deleted");
    expect(folders(ann)).toEqual([]);
    expect(folderOf(ann, p1.id)).toBeNull();
  });

  test("a bookmark is removed from the list it is shown in", async () => {
    const p = await post(h, ben);
    const b = await bookmarked(ann, p.id);
    await b.get("/bookmarks");
    const r = await b.post("/bookmarks/remove", { post_id: p.id, back: "unsorted" });
    expect(r.status).toBe(303);
    expect(r.location).toBe("/bookmarks?folder=unsorted&notice=removed");
    expect(folderOf(ann, p.id)).toBeUndefined();
  });

  test("an empty folder name is refused with 400 and the service's reason, changing nothing", async () => {
    const b = await signedInBrowser(h, ann.username);
    await b.get("/bookmarks");
    const before = dbState(h);
    const r = await b.post("/bookmarks/folders", { name: "   " });
    expect(r.status).toBe(400);
    expect(r.text).toContain("A folder name cannot be empty");
    expect(dbState(h)).toEqual(before);
  });

  test("the twenty-first folder is refused with the service's limit", async () => {
    const b = await signedInBrowser(h, ann.username);
    await b.get("/bookmarks");
    for (let i = 0; i < 20; i++) expect((await b.post("/bookmarks/folders", { name: `F${i}` })).status).toBe(303);
    const r = await b.post("/bookmarks/folders", { name: "One too many" });
    expect(r.status).toBe(400);
    expect(r.text).toContain("You already have 20 bookmark folders");
  });

  test("someone else's folder is not found: to see, rename, delete or move into", async () => {
    const p = await post(h, ben);
    const owner = await signedInBrowser(h, ben.username);
    await owner.get("/bookmarks");
    await owner.post("/bookmarks/folders", { name: "Ben's" });
    const [theirs] = folders(ben);
    const b = await bookmarked(ann, p.id);
    expect((await b.get(`/bookmarks?folder=${theirs.id}`)).status).toBe(404);
    await b.get("/bookmarks");
    expect((await b.post(`/bookmarks/folders/${theirs.id}/rename`, { name: "Mine now" })).status).toBe(404);
    expect((await b.post(`/bookmarks/folders/${theirs.id}/delete`, {})).status).toBe(404);
    expect((await b.post("/bookmarks/move", { post_id: p.id, folder: theirs.id, back: "" })).status).toBe(404);
    expect(folders(ben)).toEqual([{ id: theirs.id, name: "Ben's" }]);
    expect(folderOf(ann, p.id)).toBeNull();
  });

  test("moving a post that is not bookmarked is refused and bookmarks nothing", async () => {
    const p = await post(h, ben);
    const b = await signedInBrowser(h, ann.username);
    await b.get("/bookmarks");
    const r = await b.post("/bookmarks/move", { post_id: p.id, folder: "unsorted", back: "" });
    expect(r.status).toBe(404);
    expect(folderOf(ann, p.id)).toBeUndefined();
  });
});
