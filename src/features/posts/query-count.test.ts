// A page of 100 posts renders with a fixed number of queries, however many authors and colonies
// it spans (no N+1): authors and colonies are batch-loaded.
import { expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { makeColony, post } from "./fixtures";

test("GET /api/v1/posts?limit=100 runs the same number of queries for 10 or 100 posts", async () => {
  const h = setup({ rateLimitMultiplier: 0 });
  const authors: TestUser[] = [];
  for (let i = 0; i < 20; i++) authors.push(await h.user());
  const cols = Array.from({ length: 10 }, (_, i) => makeColony(h, authors[i]));

  const client = h.ctx.db.$client;
  const countQueries = async (path: string) => {
    let n = 0;
    const prepare = client.prepare.bind(client);
    const query = client.query.bind(client);
    client.prepare = ((sql: string, ...rest: any[]) => (n++, prepare(sql, ...rest))) as typeof client.prepare;
    client.query = ((sql: string) => (n++, query(sql))) as typeof client.query;
    try {
      const r = await h.req("GET", path);
      expect(r.status).toBe(200);
      return { n, items: r.body.items.length };
    } finally {
      client.prepare = prepare;
      client.query = query;
    }
  };

  for (let i = 0; i < 10; i++) await post(h, authors[0], { colony_id: cols[0].id });
  const small = await countQueries("/api/v1/posts?limit=100&sort=hot");
  for (let i = 10; i < 100; i++) await post(h, authors[i % 20], { colony_id: cols[i % 10].id });
  const large = await countQueries("/api/v1/posts?limit=100&sort=hot");

  expect(small.items).toBe(10);
  expect(large.items).toBe(100);
  expect(small.n).toBeGreaterThan(0);
  expect(large.n).toBeLessThanOrEqual(small.n);
  expect(large.n).toBeLessThan(20);
});
