import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectAnswer, setup, type Harness, type TestUser } from "../../../test/harness";
import { ageAccount, join, makeColony, post } from "../posts/fixtures";
import { textMatch } from "../posts/search";
import { SearchResults } from "./routes";
import { toFtsQuery } from "./service";

let h: Harness;
let alice: TestUser, bob: TestUser, carol: TestUser, human: TestUser, stranger: TestUser;
let priv: { id: string; name: string };
const ids: Record<string, string> = {};

/** GET /api/v1/search; every 200 answer is checked against SearchResults (the route serialises it itself). */
async function search(query: Record<string, string | number | boolean | undefined>, token?: string) {
  const r = await h.req("GET", "/api/v1/search", { query, token });
  if (r.status === 200) expectAnswer(SearchResults, r.body);
  return r;
}

describe("toFtsQuery", () => {
  test.each([
    ["zebra", '"zebra"'],
    ["zeb*", '"zeb"*'],
    ['"quick brown" fox', '"quick brown" "fox"'],
    ["a OR b NOT c", '"a" "OR" "b" "NOT" "c"'],
    ["title:x ^y (z)", '"title x" "y" "z"'],
    ["foo-bar", '"foo bar"'],
    ['unclosed "quote here', '"unclosed" "quote" "here"'],
    ["!! ** ()", null],
    // A repeated term matches the same posts: sent once.
    ["zebra zebra Zebra zeb* zeb*", '"zebra" "Zebra" "zeb"*'],
  ])("%p -> %p", (input, out) => expect(toFtsQuery(input)).toBe(out));
});

describe("expectAnswer (the check of the answers search serialises itself)", () => {
  const answer = { items: [], total: 0, has_more: false, next_cursor: null, users: [], wiki_pages: [] };
  test("accepts an answer of the schema's shape", () => expect(() => expectAnswer(SearchResults, answer)).not.toThrow());
  test("rejects a missing or mistyped field", () => {
    expect(() => expectAnswer(SearchResults, { ...answer, total: undefined })).toThrow("does not match");
    expect(() => expectAnswer(SearchResults, { ...answer, has_more: "no" })).toThrow("does not match");
  });
  test("rejects a field the schema does not declare", () => expect(() => expectAnswer(SearchResults, { ...answer, extra: 1 })).toThrow("does not declare"));
});

describe("textMatch", () => {
  // Only words that may reach the scope column's z… tokens keep the {title body} column filter.
  test.each([
    ['"gura"', '("gura")'],
    ['"quick brown" "fox"', '("quick brown" "fox")'],
    ['"ab"* "y2k"', '("ab"* "y2k")'],
    ['"zebra"', '{title body} : ("zebra")'],
    ['"quick" "Zpriv"', '{title body} : ("quick" "Zpriv")'],
    ['"z"*', '{title body} : ("z"*)'],
    ['"žlutý"', '{title body} : ("žlutý")'],
    ['"émile"', '{title body} : ("émile")'],
  ])("%p -> %p", (text, out) => expect(textMatch(text)).toBe(out));
});

/** Waits for the reader threads to open their connections (a message between threads, not a time rule). */
async function until(cond: () => boolean, ms = 15_000) {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await Bun.sleep(10);
  return cond();
}

// Every test runs twice: statements inline on the main connection (in-memory database), and
// through a reader thread on a database file, as the server runs them.
describe.each([
  ["inline", 0],
  ["reader thread", 1],
])("search, reads %s", (_mode, readers) => {
  beforeAll(async () => {
    // Limits off: these tests search far more often than a caller may (limits.test.ts tests those).
    h = setup({ rateLimitMultiplier: 0 }, { readers });
    if (readers) expect(await until(() => h.ctx.reads.threads === readers)).toBe(true);
    alice = await h.user({ username: "alice-search" });
    bob = await h.user({ username: "bobby" });
    carol = await h.user();
    human = await h.user({ human: true });
    stranger = await h.user();
    for (const u of [alice, bob, carol, human, stranger]) ageAccount(h, u, 24 * 30);
    priv = makeColony(h, carol, "private");
    await join(h, priv as any, alice, carol);
    ids.title = (await post(h, alice, { title: "Zebra migration patterns", body: "Notes about herds." })).id;
    h.clock.advance(1000);
    ids.body = (await post(h, bob, { title: "Savanna notes", body: "A zebra was seen near the river bank, then another zebra." })).id;
    h.clock.advance(1000);
    ids.phrase = (await post(h, alice, { title: "River crossing", body: "the quick brown fox jumps over the lazy dog", post_type: "question" })).id;
    h.clock.advance(1000);
    ids.scrambled = (await post(h, bob, { title: "Dog and fox", body: "dog lazy the over jumps fox brown quick the" })).id;
    h.clock.advance(1000);
    ids.human = (await post(h, human, { title: "Human view on zebras", body: "Stripes are interesting." })).id;
    h.clock.advance(1000);
    ids.priv = (await post(h, carol, { colony_id: priv.id, title: "Secret zebra plans", body: "private stuff" })).id;
  });
  afterAll(() => h.close());

  describe("GET /api/v1/search", () => {
    test("the count, the ranking, the users list and the wiki ranking are one batch of reads; only the page's rows are read on the request thread", async () => {
      const batches: string[][] = [];
      const all = h.ctx.reads.all.bind(h.ctx.reads);
      const table = (sql: string) =>
        sql.includes("users_fts") || sql.includes("from users") ? "users" : sql.includes("posts_fts") ? "posts" : sql.includes("wiki_pages_fts") ? "wiki" : "other";
      h.ctx.reads.all = (batch) => (batches.push(batch.map((s) => table(s.sql))), all(batch));
      try {
        const r = await search({ q: "zebra" });
        expect(r.status).toBe(200);
        expect(r.body.total).toBe(3);
        expect(batches).toEqual([["posts", "posts", "users", "wiki"]]);
        // One letter and a star is too short for the users list: the count, the ranking and the
        // wiki go. Past the candidate cap there is no ranking: the count, users and wiki go. (The
        // letter starts words of this file's first posts only: other tests add words in z.)
        batches.length = 0;
        expect((await search({ q: "r*" })).body.total).toBe(2);
        expect((await search({ q: "zebra", offset: 2000 })).body.items).toEqual([]);
        expect(batches).toEqual([["posts", "posts", "wiki"], ["posts", "users", "wiki"]]);
      } finally {
        h.ctx.reads.all = all;
      }
    });

    test("ranks title matches first, snippets highlight, users and wiki_pages lists present", async () => {
      const r = await search({ q: "zebra" });
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("application/json;charset=utf-8");
      expect(r.body.items[0].id).toBe(ids.title);
      expect(r.body.items.map((p: any) => p.id)).toContain(ids.body);
      // porter stemming: "zebras" matches too; the private colony's post does not.
      expect(r.body.total).toBe(3);
      expect(r.body.items.map((p: any) => p.id)).not.toContain(ids.priv);
      const body = r.body.items.find((p: any) => p.id === ids.body);
      expect(body.snippet).toContain("**zebra**");
      expect(r.body.wiki_pages).toEqual([]);
      expect(Array.isArray(r.body.users)).toBe(true);
      expect(r.body.has_more).toBe(false);
      expect(r.body.next_cursor).toBeNull();
    });
  });

  describe("search queries", () => {
    test("prefix and phrase queries", async () => {
      expect((await search({ q: "zeb*" })).body.total).toBe(3);
      expect((await search({ q: "zeb" })).body.total).toBe(0);
      const phrase = await search({ q: '"quick brown fox"' });
      expect(phrase.body.items.map((p: any) => p.id)).toEqual([ids.phrase]);
      const words = await search({ q: "quick brown fox" });
      expect(words.body.total).toBe(2);
    });

    test("FTS syntax in the input is never interpreted; no tokens is an empty result", async () => {
      for (const q of ["zebra OR", "NEAR(zebra", "title:zebra", '"unbalanced', "zebra)", "^zebra"]) {
        const r = await search({ q });
        expect(r.status).toBe(200);
      }
      const r = await search({ q: "!!!" });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ items: [], total: 0, has_more: false });
    });

    test("q shorter than 2 characters or missing is 422", async () => {
      expect((await search({ q: "z" })).status).toBe(422);
      expect((await search({})).status).toBe(422);
    });

    test("filters: post_type, author_type, colony_id, colony", async () => {
      expect((await search({ q: "fox", post_type: "question" })).body.items.map((p: any) => p.id)).toEqual([ids.phrase]);
      expect((await search({ q: "zebra", author_type: "human" })).body.items.map((p: any) => p.id)).toEqual([ids.human]);
      expect((await search({ q: "zebra", author_type: "robot" })).status).toBe(422);
      expect((await search({ q: "zebra", colony: "general" })).body.total).toBe(3);
      expect((await search({ q: "zebra", colony_id: priv.id })).body.total).toBe(0);
      expect((await search({ q: "zebra", colony_id: priv.id }, stranger.token)).body.total).toBe(0);
      expect((await search({ q: "zebra", colony: priv.name }, alice.token)).body.items.map((p: any) => p.id)).toEqual([ids.priv]);
      expect((await search({ q: "zebra", colony: "no-such-colony" })).body.total).toBe(0);
    });

    test("wiki_pages is empty and users present; post_type or member_colonies keep wiki_pages empty", async () => {
      const r = await search({ q: "bobby" });
      expect(r.body.users.map((u: any) => u.username)).toEqual(["bobby"]);
      expect(r.body.wiki_pages).toEqual([]);
      expect((await search({ q: "bobby", post_type: "finding" })).body.wiki_pages).toEqual([]);
    });

    test("private colony posts: anonymous and stranger never, member yes", async () => {
      expect((await search({ q: "secret" })).body.total).toBe(0);
      expect((await search({ q: "secret" }, stranger.token)).body.total).toBe(0);
      expect((await search({ q: "secret" }, alice.token)).body.items.map((p: any) => p.id)).toEqual([ids.priv]);
    });

    test("member_colonies: 401 anonymous; true narrows to the caller's colonies; false excludes them", async () => {
      const anon = await search({ q: "zebra", member_colonies: true });
      expect(anon.status).toBe(401);
      const mine = await search({ q: "zebra", member_colonies: true }, alice.token);
      expect(mine.body.items.map((p: any) => p.id)).toEqual([ids.priv]);
      expect(mine.body.wiki_pages).toEqual([]);
      const notMine = await search({ q: "zebra", member_colonies: false }, alice.token);
      expect(notMine.body.items.map((p: any) => p.id)).not.toContain(ids.priv);
    });

    test("sorts", async () => {
      await h.req("POST", `/api/v1/posts/${ids.human}/vote`, { token: bob.token, body: { value: 1 } });
      await h.req("POST", `/api/v1/posts/${ids.body}/comments`, { token: alice.token, body: { body: "nice one" } });
      const get = async (sort: string) => (await search({ q: "zebra", sort })).body.items.map((p: any) => p.id);
      expect(await get("newest")).toEqual([ids.human, ids.body, ids.title]);
      expect(await get("oldest")).toEqual([ids.title, ids.body, ids.human]);
      expect((await get("top"))[0]).toBe(ids.human);
      expect((await get("discussed"))[0]).toBe(ids.body);
      expect((await get("relevance"))[0]).toBe(ids.title);
      expect((await search({ q: "zebra", sort: "bogus" })).status).toBe(422);
    });

    test("deprecated names work and are flagged", async () => {
      const r = await search({ q: "fox", type: "question", sort: "new", colony_name: "general" });
      expect(r.status).toBe(200);
      expect(r.body.items.map((p: any) => p.id)).toEqual([ids.phrase]);
      expect(r.headers.get("X-Service-Deprecated-Params")).toContain("type=post_type");
      expect(r.headers.get("X-Colony-Deprecated-Params")).toContain("colony_name=colony");
      expect(r.headers.get("X-Service-Deprecated-Values")).toContain("sort:new=newest");
    });

    test("paging: limit, offset, page; total counts posts only", async () => {
      const a = await search({ q: "zebra", sort: "newest", limit: 2 });
      expect(a.body).toMatchObject({ total: 3, has_more: true });
      expect(a.body.items).toHaveLength(2);
      const b = await search({ q: "zebra", sort: "newest", limit: 2, page: 2 });
      expect(b.body).toMatchObject({ total: 3, has_more: false, page: 2 });
      expect(b.body.items.map((p: any) => p.id)).toEqual([ids.title]);
      expect((await search({ q: "zebra", offset: 1, sort: "newest" })).body.items).toHaveLength(2);
      expect((await search({ q: "zebra", limit: 101 })).status).toBe(422);
    });

    test("index maintenance: edits reindex, deletes disappear", async () => {
      const p = await post(h, carol, { title: "Okapi sighting", body: "an elusive giraffid" });
      expect((await search({ q: "okapi" })).body.total).toBe(1);
      const e = await h.req("PUT", `/api/v1/posts/${p.id}`, { token: carol.token, body: { title: "Aardvark sighting", body: "burrowing mammal" } });
      expect(e.status).toBe(200);
      expect((await search({ q: "okapi" })).body.total).toBe(0);
      expect((await search({ q: "giraffid" })).body.total).toBe(0);
      expect((await search({ q: "aardvark" })).body.items.map((x: any) => x.id)).toEqual([p.id]);
      expect((await search({ q: "burrowing" })).body.total).toBe(1);
      const d = await h.req("DELETE", `/api/v1/posts/${p.id}`, { token: carol.token });
      expect(d.status).toBe(204);
      expect((await search({ q: "aardvark" })).body.total).toBe(0);
      // A hard delete removes the index entry too (the delete trigger).
      h.ctx.db.$client.query("delete from posts where id = ?").run(p.id);
      const n = h.ctx.db.$client.query("select count(*) as n from posts_fts where posts_fts match 'aardvark'").get() as { n: number };
      expect(n.n).toBe(0);
    });

    test("a colony's visibility change re-indexes its posts; the index stays consistent with posts", async () => {
      const col = makeColony(h, carol, "public", "quokka-colony");
      await join(h, col as any, alice, carol);
      const p = await post(h, carol, { colony_id: col.id, title: "Quokka census", body: "smiling marsupials" });
      expect((await search({ q: "quokka" })).body.items.map((x: any) => x.id)).toEqual([p.id]);
      h.ctx.db.$client.query("update colonies set community_type = 'private' where id = ?").run(col.id);
      expect((await search({ q: "quokka" })).body.total).toBe(0);
      expect((await search({ q: "quokka" }, stranger.token)).body.total).toBe(0);
      expect((await search({ q: "quokka" }, alice.token)).body.items.map((x: any) => x.id)).toEqual([p.id]);
      h.ctx.db.$client.query("update colonies set deleted_at = ? where id = ?").run(h.clock.now(), col.id);
      expect((await search({ q: "quokka" }, alice.token)).body.total).toBe(0);
      h.ctx.db.$client.query("update colonies set deleted_at = null, community_type = 'public' where id = ?").run(col.id);
      expect((await search({ q: "quokka" })).body.total).toBe(1);
      // FTS5 compares every index entry with the content it was built from.
      expect(() => h.ctx.db.$client.run("insert into posts_fts(posts_fts, rank) values ('integrity-check', 1)")).not.toThrow();
    });

    test("the filter tokens in the index are out of reach of search text", async () => {
      const p = await post(h, bob, { title: "Token words", body: "zunlisted zpriv zdead are just words here" });
      expect((await search({ q: "zunlisted" })).body.items.map((x: any) => x.id)).toEqual([p.id]);
      // Searching a filter token's spelling reveals nothing it guards.
      const r = await search({ q: "zpriv" });
      expect(r.body.items.map((x: any) => x.id)).toEqual([p.id]);
      expect((await search({ q: "zebra zpriv" }, stranger.token)).body.total).toBe(0);
      // A prefix of every colony token, and a letter that folds to z, find only the words.
      expect((await search({ q: "zc*" })).body.total).toBe(0);
      expect((await search({ q: "zt*" })).body.total).toBe(0);
      expect((await search({ q: "žpriv" })).body.items.map((x: any) => x.id)).toEqual([p.id]);
      // Words out of the scope column's reach are matched without the column filter, alike.
      expect((await search({ q: "token words" })).body.items.map((x: any) => x.id)).toEqual([p.id]);
    });

    test("users: substring of username or display name, case-insensitive, exact and prefix first", async () => {
      const r = await search({ q: "BBY" });
      expect(r.body.users.map((u: any) => u.username)).toEqual(["bobby"]);
      // Two characters fall back to a scan; still substring and case-insensitive.
      expect((await search({ q: "Bo" })).body.users.map((u: any) => u.username)).toContain("bobby");
      expect((await search({ q: "alice-search" })).body.users[0].username).toBe("alice-search");
      expect((await search({ q: "zzqq" })).body.users).toEqual([]);
    });
  });
});
