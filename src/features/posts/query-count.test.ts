// Pages render with a fixed number of statements executed, however many rows they hold (no N+1):
// authors, colonies, votes and comments are batch-loaded. Statements are counted as they execute
// (test/query-counter.ts), so a per-row lookup through a cached prepared statement counts N times.
import { describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { comment } from "../comments/fixtures";
import * as users from "../users/service";
import { GENERAL, makeColony, post } from "./fixtures";

/** The guard: the larger page may not execute more statements than the smaller one. */
function expectNoNPlusOne(small: { count: number; rows: number }, large: { count: number; rows: number }, why: string) {
  expect(large.rows).toBeGreaterThan(small.rows);
  if (large.count > small.count) throw new Error(`${why}: ${small.count} statements for ${small.rows} rows, ${large.count} for ${large.rows} (a query per row?)`);
}

describe("no N+1", async () => {
  // The read cache would answer the second read without running anything.
  const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 }, { countQueries: true });
  const authors: TestUser[] = [];
  for (let i = 0; i < 20; i++) authors.push(await h.user());
  const cols = Array.from({ length: 10 }, (_, i) => makeColony(h, authors[i]));
  const page = async (path: string, token?: string) => {
    const { result, count } = await h.queries!.during(() => h.req("GET", path, { token }));
    expect(result.status).toBe(200);
    return { count, body: result.body };
  };

  test("GET /api/v1/posts?limit=100: the same statements for 10 posts by one author as for 100 by twenty", async () => {
    for (let i = 0; i < 10; i++) await post(h, authors[0], { colony_id: cols[0].id });
    const small = await page("/api/v1/posts?limit=100&sort=hot", authors[1].token);
    for (let i = 10; i < 100; i++) await post(h, authors[i % 20], { colony_id: cols[i % 10].id });
    const large = await page("/api/v1/posts?limit=100&sort=hot", authors[1].token);
    expect(small.count).toBeGreaterThan(0);
    expectNoNPlusOne({ count: small.count, rows: small.body.items.length }, { count: large.count, rows: large.body.items.length }, "post list");
    expect(large.count).toBeLessThan(20);
  });

  test("GET /api/v1/posts/{id}/context: the same statements for 3 comments as for 30 by many authors", async () => {
    const p = await post(h, authors[0], { colony_id: cols[0].id });
    for (let i = 0; i < 3; i++) await comment(h, authors[1], p.id, { body: `comment ${i}` });
    const small = await page(`/api/v1/posts/${p.id}/context`, authors[2].token);
    for (let i = 3; i < 30; i++) await comment(h, authors[i % 20], p.id, { body: `comment ${i}` });
    const large = await page(`/api/v1/posts/${p.id}/context`, authors[2].token);
    const rows = (b: { comments: unknown[] }) => JSON.stringify(b.comments).split('"id"').length;
    expectNoNPlusOne({ count: small.count, rows: rows(small.body) }, { count: large.count, rows: rows(large.body) }, "context pack");
  });

  test("the guard catches an N+1 over a cached prepared statement", async () => {
    // An instance of its own: its pages hold only the posts made here, each by another author
    // (a lookup of an author already looked up is answered from memory and runs nothing).
    const g = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 }, { countQueries: true });
    for (let i = 0; i < 10; i++) await post(g, await g.user());
    // The same page plus one user lookup per item: each lookup runs a statement prepared once.
    const withLookups = async (limit: number) => {
      const { count, result } = await g.queries!.during(async () => {
        const r = await g.req("GET", `/api/v1/posts?limit=${limit}&sort=hot`);
        for (const item of r.body.items) users.findById(g.ctx, item.author.id);
        return r;
      });
      return { count, rows: result.body.items.length };
    };
    const small = await withLookups(5);
    const large = await withLookups(50);
    expect(() => expectNoNPlusOne(small, large, "injected")).toThrow("a query per row?");
  });
});

describe("creating a post or a comment reads nothing twice", async () => {
  const h = setup({ rateLimitMultiplier: 0 }, { countQueries: true });
  const author = await h.user();
  const named = await h.user();
  const times = (sql: string[], pattern: RegExp) => sql.filter((s) => pattern.test(s.replace(/\s+/g, " "))).length;

  test("POST /api/v1/posts: the colony membership read once, no tag rows deleted, the answer built from rows already read", async () => {
    const { result, sql } = await h.queries!.during(() =>
      h.req("POST", "/api/v1/posts", { token: author.token, body: { colony_id: GENERAL.id, post_type: "discussion", title: "Counted", body: `Hello @${named.username}, see https://a.example`, tags: ["a", "b"] } }),
    );
    expect(result.status).toBe(201);
    expect(result.body.author.username).toBe(author.username);
    expect(result.body.colony_name).toBe(GENERAL.name);
    expect(times(sql, /from colony_members where/i)).toBe(1);
    expect(times(sql, /delete from post_tags/i)).toBe(0);
    expect(times(sql, /insert into post_tags/i)).toBe(1);
    expect(times(sql, /from "?users"? where id in \(select value from json_each/i)).toBe(0);
    expect(times(sql, /from colonies where id in \(select value from json_each/i)).toBe(0);
  });

  test("POST /api/v1/posts/{id}/comments: the answer's author is the caller's row, not read again", async () => {
    const p = await post(h, author);
    const { result, sql } = await h.queries!.during(() => h.req("POST", `/api/v1/posts/${p.id}/comments`, { token: named.token, body: { body: `Thanks @${author.username}` } }));
    expect(result.status).toBe(201);
    expect(result.body.author.username).toBe(named.username);
    expect(times(sql, /from "?users"? where id in \(select value from json_each/i)).toBe(0);
  });

  test("an edited post's tags replace the old ones", async () => {
    const p = await post(h, author, { tags: ["old", "kept"] });
    const r = await h.req("PUT", `/api/v1/posts/${p.id}`, { token: author.token, body: { tags: ["kept", "new"] } });
    expect(r.status).toBe(200);
    const rows = h.ctx.db.$client.query("select tag from post_tags where post_id = ? order by tag").all(p.id) as { tag: string }[];
    expect(rows.map((r) => r.tag)).toEqual(["kept", "new"]);
  });
});
