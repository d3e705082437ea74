// GET /api/v1/posts?q= reads the full-text index GET /search reads (posts_fts: porter stems,
// prefixes, phrases), never a LIKE scan over the bodies: the statements it runs and their plan
// say so, and it finds what only the index's semantics find, the same posts as /search.
import { describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { setup } from "../../../test/harness";
import { post } from "./fixtures";

describe("GET /api/v1/posts?q= uses the full-text index", async () => {
  const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 }, { countQueries: true });
  const author = await h.user();
  const cooked = await post(h, author, { title: "Dinner notes", body: "We cooked lentils slowly." });
  const cookbook = await post(h, author, { title: "A cookbook review", body: "Recipes for every season." });
  await post(h, author, { title: "Unrelated", body: "Nothing about kitchens here." });

  test("the statements match posts_fts and run no LIKE; the plan reads the virtual table's index", async () => {
    const { result, sql } = await h.queries!.during(() => h.req("GET", "/api/v1/posts", { query: { q: "cooking" } }));
    expect(result.status).toBe(200);
    const listing = sql.filter((s) => /posts_fts/i.test(s));
    expect(listing.length).toBeGreaterThan(0);
    expect(listing.some((s) => /posts_fts\s+match/i.test(s))).toBe(true);
    expect(sql.filter((s) => /\blike\b/i.test(s))).toEqual([]);
    const client = (h.ctx.db as unknown as { $client: Database }).$client;
    const statement = listing.find((s) => /^\s*select/i.test(s) && /posts_fts\s+match/i.test(s))!;
    const params = Array.from({ length: (statement.match(/\?/g) ?? []).length }, () => null);
    const plan = client.query(`EXPLAIN QUERY PLAN ${statement}`).all(...params) as { detail: string }[];
    expect(plan.some((r) => /posts_fts VIRTUAL TABLE INDEX/i.test(r.detail))).toBe(true);
  });

  test("stems and prefixes match as in /search (a LIKE '%cooking%' scan would find nothing)", async () => {
    const ids = async (path: string, q: string) => ((await h.req("GET", path, { query: { q } })).body.items as { id: string }[]).map((x) => x.id).sort();
    const searchIds = async (q: string) => ((await h.req("GET", "/api/v1/search", { query: { q } })).body.items as { id: string }[]).map((x) => x.id).sort();
    expect(await ids("/api/v1/posts", "cooking")).toEqual([cooked.id]);
    expect(await ids("/api/v1/posts", "cooking")).toEqual(await searchIds("cooking"));
    expect(await ids("/api/v1/posts", "cook*")).toEqual([cooked.id, cookbook.id].sort());
    expect(await ids("/api/v1/posts", "cook*")).toEqual(await searchIds("cook*"));
  });
});
