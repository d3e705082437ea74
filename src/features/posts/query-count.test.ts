// Pages render with a fixed number of statements executed, however many rows they hold (no N+1):
// authors, colonies, votes and comments are batch-loaded. Statements are counted as they execute
// (test/query-counter.ts), so a per-row lookup through a cached prepared statement counts N times.
import { describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { comment } from "../comments/fixtures";
import * as users from "../users/service";
import { makeColony, post } from "./fixtures";

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
    // The same page plus one user lookup per item: each lookup runs a statement prepared once.
    const withLookups = async (limit: number) => {
      const { count, result } = await h.queries!.during(async () => {
        const r = await h.req("GET", `/api/v1/posts?limit=${limit}&sort=hot`);
        for (const item of r.body.items) users.findById(h.ctx, item.author.id);
        return r;
      });
      return { count, rows: result.body.items.length };
    };
    const small = await withLookups(5);
    const large = await withLookups(50);
    expect(() => expectNoNPlusOne(small, large, "injected")).toThrow("a query per row?");
  });
});
