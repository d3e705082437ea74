// Bookmark folders (spec Part 3 §4.12): the cap of 20, positions, rename, delete (bookmarks become
// unsorted), move and unsort with the {ok:true} answers, foreign ids 404, the folder_id filter.
import { describe, expect, test } from "bun:test";
import { setup, type Harness } from "../../../test/harness";
import { dbState } from "../../../test/db-state";
import { refused } from "../../../test/expect";
import { GENERAL, post } from "../posts/fixtures";

const h = setup();
type U = Awaited<ReturnType<Harness["user"]>>;

const folder = async (u: U, name: string) => {
  const r = await h.req("POST", "/api/v1/bookmarks/folders", { token: u.token, body: { name } });
  expect(r.status).toBe(201);
  return r.body as { id: string; name: string; position: number; created_at: string };
};
const bookmark = async (u: U, author: U) => {
  const p = await post(h, author, { colony_id: GENERAL.id });
  const r = await h.req("POST", `/api/v1/posts/${p.id}/bookmark`, { token: u.token });
  return { post: p, id: r.body.bookmark_id as string };
};
const listIds = async (u: U, folder_id?: string) =>
  (await h.req("GET", "/api/v1/posts/bookmarks/list", { token: u.token, query: folder_id ? { folder_id } : {} })).body.items.map((p: any) => p.id);

describe("bookmark folders", () => {
  test("create appends (position = count), names are trimmed, the list is a bare array in position order", async () => {
    const u = await h.user();
    expect((await h.req("GET", "/api/v1/bookmarks/folders", { token: u.token })).body).toEqual([]);
    const a = await folder(u, "  Reading  ");
    expect(a).toEqual({ id: expect.any(String), name: "Reading", position: 0, created_at: expect.any(String) });
    const b = await folder(u, "Later");
    expect(b.position).toBe(1);
    const list = await h.req("GET", "/api/v1/bookmarks/folders", { token: u.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([a, b]);
    // Someone else has none.
    expect((await h.req("GET", "/api/v1/bookmarks/folders", { token: (await h.user()).token })).body).toEqual([]);
  });

  test("empty or over-long names are 400 INVALID_INPUT and create nothing", async () => {
    const u = await h.user();
    for (const name of ["", "   ", "x".repeat(101)]) {
      const r = await h.req("POST", "/api/v1/bookmarks/folders", { token: u.token, body: { name } });
      expect(r.status).toBe(400);
      expect(r.body.detail.code).toBe("INVALID_INPUT");
    }
    expect((await h.req("GET", "/api/v1/bookmarks/folders", { token: u.token })).body).toEqual([]);
    expect((await folder(u, "y".repeat(100))).name).toHaveLength(100);
  });

  test("the 21st folder is 400 LIMIT_EXCEEDED; deleting one makes room and positions stay 0..n-1", async () => {
    const u = await h.user();
    const made = [];
    for (let i = 0; i < 20; i++) made.push(await folder(u, `f${i}`));
    await refused(h, () => h.req("POST", "/api/v1/bookmarks/folders", { token: u.token, body: { name: "one more" } }), 400, "LIMIT_EXCEEDED");
    const del = await h.req("DELETE", `/api/v1/bookmarks/folders/${made[5]!.id}`, { token: u.token });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ok: true });
    const added = await folder(u, "one more");
    expect(added.position).toBe(19);
    const positions = (await h.req("GET", "/api/v1/bookmarks/folders", { token: u.token })).body.map((f: any) => f.position);
    expect(positions).toEqual([...Array(20).keys()]);
  });

  test("rename keeps position; foreign or missing folders are 404 for rename and delete", async () => {
    const [u, other] = [await h.user(), await h.user()];
    const f = await folder(u, "old");
    const r = await h.req("PUT", `/api/v1/bookmarks/folders/${f.id}`, { token: u.token, body: { name: " new " } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...f, name: "new" });
    const blank = await h.req("PUT", `/api/v1/bookmarks/folders/${f.id}`, { token: u.token, body: { name: " " } });
    expect([blank.status, blank.body.detail.code]).toEqual([400, "INVALID_INPUT"]);
    for (const [m, body] of [["PUT", { name: "mine now" }], ["DELETE", undefined]] as const) {
      for (const id of [f.id, crypto.randomUUID()]) {
        const x = await h.req(m, `/api/v1/bookmarks/folders/${id}`, { token: other.token, body });
        expect([x.status, x.body.detail.code]).toEqual([404, "NOT_FOUND"]);
      }
    }
    expect((await h.req("GET", "/api/v1/bookmarks/folders", { token: u.token })).body).toEqual([{ ...f, name: "new" }]);
  });

  test("move files a bookmark, moving again is a no-op, unsort empties it; the folder_id filter lists each", async () => {
    const [u, author] = [await h.user(), await h.user()];
    const [f, g] = [await folder(u, "f"), await folder(u, "g")];
    const b1 = await bookmark(u, author);
    h.clock.advance(1000);
    const b2 = await bookmark(u, author);
    const mv = await h.req("POST", `/api/v1/bookmarks/folders/${f.id}/move/${b1.id}`, { token: u.token });
    expect([mv.status, mv.body]).toEqual([200, { ok: true }]);
    expect((await h.req("POST", `/api/v1/bookmarks/folders/${f.id}/move/${b1.id}`, { token: u.token })).body).toEqual({ ok: true });
    expect(await listIds(u, f.id)).toEqual([b1.post.id]);
    expect(await listIds(u, g.id)).toEqual([]);
    expect(await listIds(u, "unsorted")).toEqual([b2.post.id]);
    expect(await listIds(u)).toEqual([b2.post.id, b1.post.id]);
    // Bookmarking again reports the folder.
    expect((await h.req("POST", `/api/v1/posts/${b1.post.id}/bookmark`, { token: u.token })).body).toEqual({ status: "bookmarked", bookmark_id: b1.id, folder_id: f.id });
    await h.req("POST", `/api/v1/bookmarks/folders/${g.id}/move/${b1.id}`, { token: u.token });
    expect(await listIds(u, g.id)).toEqual([b1.post.id]);
    const un = await h.req("POST", `/api/v1/bookmarks/folders/unsort/${b1.id}`, { token: u.token });
    expect([un.status, un.body]).toEqual([200, { ok: true }]);
    expect(await listIds(u, "unsorted")).toEqual([b2.post.id, b1.post.id]);
  });

  test("deleting a folder unsorts its bookmarks and keeps them", async () => {
    const [u, author] = [await h.user(), await h.user()];
    const f = await folder(u, "f");
    const b = await bookmark(u, author);
    await h.req("POST", `/api/v1/bookmarks/folders/${f.id}/move/${b.id}`, { token: u.token });
    await h.req("DELETE", `/api/v1/bookmarks/folders/${f.id}`, { token: u.token });
    expect(await listIds(u, "unsorted")).toEqual([b.post.id]);
    const gone = await h.req("GET", "/api/v1/posts/bookmarks/list", { token: u.token, query: { folder_id: f.id } });
    expect([gone.status, gone.body.detail.code]).toEqual([404, "NOT_FOUND"]);
  });

  test("foreign bookmarks and foreign folders are 404 for move and unsort, and nothing changes", async () => {
    const [u, other, author] = [await h.user(), await h.user(), await h.user()];
    const mine = await folder(u, "mine");
    const theirs = await folder(other, "theirs");
    const myBookmark = await bookmark(u, author);
    const theirBookmark = await bookmark(other, author);
    const before = dbState(h);
    for (const path of [
      `/api/v1/bookmarks/folders/${theirs.id}/move/${myBookmark.id}`,
      `/api/v1/bookmarks/folders/${mine.id}/move/${theirBookmark.id}`,
      `/api/v1/bookmarks/folders/${crypto.randomUUID()}/move/${myBookmark.id}`,
      `/api/v1/bookmarks/folders/${mine.id}/move/${crypto.randomUUID()}`,
      `/api/v1/bookmarks/folders/unsort/${theirBookmark.id}`,
      `/api/v1/bookmarks/folders/unsort/${crypto.randomUUID()}`,
    ]) {
      const r = await h.req("POST", path, { token: u.token });
      expect([path, r.status, r.body.detail?.code]).toEqual([path, 404, "NOT_FOUND"]);
    }
    expect(dbState(h)).toEqual(before);
    const foreign = await h.req("GET", "/api/v1/posts/bookmarks/list", { token: u.token, query: { folder_id: theirs.id } });
    expect(foreign.status).toBe(404);
  });

  test("anonymous callers are 401 on every folder route", async () => {
    const id = crypto.randomUUID();
    for (const [m, path] of [
      ["GET", "/api/v1/bookmarks/folders"],
      ["POST", "/api/v1/bookmarks/folders"],
      ["PUT", `/api/v1/bookmarks/folders/${id}`],
      ["DELETE", `/api/v1/bookmarks/folders/${id}`],
      ["POST", `/api/v1/bookmarks/folders/${id}/move/${id}`],
      ["POST", `/api/v1/bookmarks/folders/unsort/${id}`],
    ]) {
      const r = await h.req(m, path, { body: m === "POST" || m === "PUT" ? { name: "x" } : undefined });
      expect([path, r.status]).toEqual([path, 401]);
    }
  });

  test("a deleted account's folders go with its bookmarks", async () => {
    const [u, author] = [await h.user(), await h.user()];
    const f = await folder(u, "f");
    const b = await bookmark(u, author);
    await h.req("POST", `/api/v1/bookmarks/folders/${f.id}/move/${b.id}`, { token: u.token });
    const count = () => h.ctx.db.$client.query("select (select count(*) from bookmark_folders where user_id = ?1) + (select count(*) from bookmarks where user_id = ?1) n").get(u.id);
    expect(count()).toEqual({ n: 2 });
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: u.token })).status).toBe(204);
    await h.ctx.events.drain();
    expect(count()).toEqual({ n: 0 });
  });
});
