import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { setup } from "../../test/harness";
import { ApiError } from "../core/errors";
import { deprecationsPlugin } from "./deprecations";
import { errorHandling } from "./errors";
import { MAX_OFFSET, bareList, paged, pagedSchema, pagingQuery, resolvePage, type PagingSpec } from "./paging";

const h = setup();
const ROWS = Array.from({ length: 45 }, (_, i) => ({ n: i + 1 }));
const POSTS: PagingSpec = { max: 100, default: 20 };
const COMMENTS: PagingSpec = { max: 100, default: 20, offsetWins: true };
const FOLLOWERS: PagingSpec = { max: 50, default: 10 };

let lastQuery: Record<string, unknown> = {};

// Test routes shaped like the real ones: a paged envelope, the comments rule where offset wins,
// and a bare-array list.
const app = new Elysia()
  .use(errorHandling(h.ctx))
  .use(deprecationsPlugin())
  .get(
    "/api/v1/posts",
    ({ query }) => {
      lastQuery = { ...query };
      const page = resolvePage(query, POSTS);
      return paged(ROWS.slice(page.offset, page.offset + page.limit), ROWS.length, page);
    },
    { query: t.Object({ ...pagingQuery(POSTS), colony: t.Optional(t.String()) }) },
  )
  .get(
    "/api/v1/posts/:post_id/comments",
    ({ query }) => {
      const page = resolvePage(query, COMMENTS);
      return paged(ROWS.slice(page.offset, page.offset + page.limit), ROWS.length, page);
    },
    { query: t.Object(pagingQuery(COMMENTS)) },
  )
  .get(
    "/api/v1/users/:user_id/followers",
    ({ query, set }) => {
      const page = resolvePage(query, FOLLOWERS);
      return bareList(set, ROWS.slice(page.offset, page.offset + page.limit), ROWS.length, page);
    },
    { query: t.Object(pagingQuery(FOLLOWERS)) },
  );

async function get(path: string) {
  const res = await app.handle(new Request(`http://localhost${path}`));
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}
const ns = (items: { n: number }[]) => items.map((i) => i.n);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("limit", () => {
  test("defaults to the endpoint's default", async () => {
    const r = await get("/api/v1/posts");
    expect(r.status).toBe(200);
    expect(ns(r.body.items)).toEqual(range(1, 20));
    const f = await get("/api/v1/users/u1/followers");
    expect(f.body).toHaveLength(10);
  });

  test.each([1, 7, 100])("limit=%p is accepted", async (limit) => {
    const r = await get(`/api/v1/posts?limit=${limit}`);
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(Math.min(limit, 45));
  });

  test.each([
    ["0", "greater_than_equal"],
    ["-1", "greater_than_equal"],
    ["101", "less_than_equal"],
    ["abc", "int_parsing"],
    ["1.5", "int_from_float"],
  ])("limit=%p is a 422 (%s)", async (limit, type) => {
    const r = await get(`/api/v1/posts?limit=${limit}`);
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["query", "limit"], type });
  });

  test("the range is per endpoint", async () => {
    expect((await get("/api/v1/users/u1/followers?limit=50")).status).toBe(200);
    const r = await get("/api/v1/users/u1/followers?limit=51");
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["query", "limit"], type: "less_than_equal", ctx: { le: 50 } });
  });
});

describe("offset", () => {
  test.each([
    [0, range(1, 20), true],
    [20, range(21, 40), true],
    [25, range(26, 45), false],
    [40, range(41, 45), false],
    [45, [], false],
    [MAX_OFFSET, [], false],
  ] as const)("offset=%p", async (offset, expected, hasMore) => {
    const r = await get(`/api/v1/posts?offset=${offset}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: expected.map((n) => ({ n })), total: 45, has_more: hasMore });
  });

  test.each([
    ["100001", "less_than_equal"],
    ["-1", "greater_than_equal"],
    ["x", "int_parsing"],
  ])("offset=%p is a 422 (%s)", async (offset, type) => {
    const r = await get(`/api/v1/posts?offset=${offset}`);
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["query", "offset"], type });
  });
});

describe("page", () => {
  test("page is 1-indexed, equals offset (page-1)*limit, and is echoed", async () => {
    const r = await get("/api/v1/posts?page=1");
    expect(r.body).toEqual({ items: range(1, 20).map((n) => ({ n })), total: 45, has_more: true, page: 1 });
    const p3 = await get("/api/v1/posts?page=3");
    expect(p3.body).toEqual({ items: range(41, 45).map((n) => ({ n })), total: 45, has_more: false, page: 3 });
    const p2 = await get("/api/v1/posts?page=2&limit=10");
    expect(ns(p2.body.items)).toEqual(range(11, 20));
    expect(p2.body.page).toBe(2);
    const past = await get("/api/v1/posts?page=9");
    expect(past.body).toEqual({ items: [], total: 45, has_more: false, page: 9 });
  });

  test("page is absent from the envelope when not sent", async () => {
    const r = await get("/api/v1/posts?offset=20");
    expect(Object.keys(r.body).sort()).toEqual(["has_more", "items", "total"]);
  });

  test.each(["0", "-2"])("page=%p is a 422", async (page) => {
    const r = await get(`/api/v1/posts?page=${page}`);
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["query", "page"], type: "greater_than_equal" });
  });

  test("page and offset that agree are accepted", async () => {
    const r = await get("/api/v1/posts?page=2&offset=20");
    expect(r.status).toBe(200);
    expect(ns(r.body.items)).toEqual(range(21, 40));
    expect(r.body.page).toBe(2);
    const lim = await get("/api/v1/posts?page=3&offset=10&limit=5");
    expect(lim.status).toBe(200);
    expect(ns(lim.body.items)).toEqual(range(11, 15));
    expect((await get("/api/v1/posts?page=1&offset=0")).status).toBe(200);
  });

  test.each(["page=2&offset=0", "page=2&offset=21", "page=1&offset=20", "page=3&offset=10"])("%s disagree: 400 INVALID_INPUT", async (qs) => {
    const r = await get(`/api/v1/posts?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
    expect(r.body.detail.message).toContain("page");
  });

  test("a page beyond the maximum offset is a 400 INVALID_INPUT", async () => {
    expect((await get("/api/v1/posts?limit=100&page=1001")).status).toBe(200); // offset 100000
    const r = await get("/api/v1/posts?limit=100&page=1002");
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
  });

  test("where offset wins (comments), a disagreeing page is ignored", async () => {
    const r = await get("/api/v1/posts/p1/comments?page=2&offset=5");
    expect(r.status).toBe(200);
    expect(ns(r.body.items)).toEqual(range(6, 25));
    expect(r.body.page).toBeUndefined();
    const agree = await get("/api/v1/posts/p1/comments?page=2&offset=20");
    expect(ns(agree.body.items)).toEqual(range(21, 40));
    expect(agree.body.page).toBe(2);
    const pageOnly = await get("/api/v1/posts/p1/comments?page=3&limit=10");
    expect(ns(pageOnly.body.items)).toEqual(range(21, 30));
    expect(pageOnly.body.page).toBe(3);
  });
});

describe("envelope and bare lists", () => {
  test("the envelope is exactly {items, total, has_more}", async () => {
    const r = await get("/api/v1/posts?limit=5");
    expect(r.headers.get("x-total-count")).toBeNull();
    expect(Object.keys(r.body).sort()).toEqual(["has_more", "items", "total"]);
    expect(r.body.total).toBe(45);
    expect(r.body.has_more).toBe(true);
  });

  test("bare-array lists put the paging facts in X-Total-Count and X-Has-More", async () => {
    const first = await get("/api/v1/users/u1/followers?limit=20");
    expect(first.status).toBe(200);
    expect(Array.isArray(first.body)).toBe(true);
    expect(ns(first.body)).toEqual(range(1, 20));
    expect(first.headers.get("x-total-count")).toBe("45");
    expect(first.headers.get("x-has-more")).toBe("true");

    const last = await get("/api/v1/users/u1/followers?page=3&limit=20");
    expect(ns(last.body)).toEqual(range(41, 45));
    expect(last.headers.get("x-has-more")).toBe("false");
    expect(last.headers.get("x-total-count")).toBe("45");
  });

  test("bare lists validate paging the same way", async () => {
    const r = await get("/api/v1/users/u1/followers?page=2&offset=3");
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
  });
});

describe("unknown query parameters", () => {
  test("are dropped silently", async () => {
    const r = await get("/api/v1/posts?limit=3&utm_source=x&sort_by=weird&colony=general");
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(3);
    expect(lastQuery).toEqual({ limit: 3, colony: "general" });
  });
});

describe("resolvePage", () => {
  test.each([
    [{}, { limit: 20, offset: 0 }],
    [{ limit: 5 }, { limit: 5, offset: 0 }],
    [{ offset: 7 }, { limit: 20, offset: 7 }],
    [{ page: 1 }, { limit: 20, offset: 0, page: 1 }],
    [{ page: 4, limit: 25 }, { limit: 25, offset: 75, page: 4 }],
    [{ page: 2, offset: 20 }, { limit: 20, offset: 20, page: 2 }],
  ] as const)("%j -> %j", (q, expected) => {
    expect(resolvePage(q, POSTS)).toEqual(expected);
  });

  test("disagreement throws a 400 ApiError unless offset wins", () => {
    expect(() => resolvePage({ page: 2, offset: 3 }, POSTS)).toThrow(ApiError);
    try {
      resolvePage({ page: 2, offset: 3 }, POSTS);
    } catch (err) {
      expect((err as ApiError).status).toBe(400);
      expect((err as ApiError).code).toBe("INVALID_INPUT");
    }
    expect(resolvePage({ page: 2, offset: 3 }, COMMENTS)).toEqual({ limit: 20, offset: 3 });
  });
});

describe("paged and bareList", () => {
  const page = { limit: 2, offset: 2 };
  test("has_more is whether rows remain after this page", () => {
    expect(paged([3, 4], 5, page)).toEqual({ items: [3, 4], total: 5, has_more: true });
    expect(paged([3, 4], 4, page)).toEqual({ items: [3, 4], total: 4, has_more: false });
    expect(paged([], 0, { limit: 20, offset: 0 })).toEqual({ items: [], total: 0, has_more: false });
    expect(paged([1], 1, { limit: 20, offset: 0, page: 1 })).toEqual({ items: [1], total: 1, has_more: false, page: 1 });
  });

  test("bareList returns the array and sets the headers", () => {
    const set = { headers: {} as Record<string, string | number> };
    expect(bareList(set, [3, 4], 5, page)).toEqual([3, 4]);
    expect(set.headers).toEqual({ "X-Total-Count": "5", "X-Has-More": "true" });
  });

  test("pagedSchema describes the envelope", () => {
    const schema = pagedSchema(t.Object({ n: t.Integer() })) as any;
    expect(Object.keys(schema.properties).sort()).toEqual(["has_more", "items", "page", "total"]);
    expect(schema.required.sort()).toEqual(["has_more", "items", "total"]);
  });

  test("pagingQuery documents the range and default", () => {
    const q = pagingQuery({ max: 200, default: 50 }) as any;
    expect(q.limit).toMatchObject({ minimum: 1, maximum: 200, default: 50 });
    expect(q.offset).toMatchObject({ minimum: 0, maximum: MAX_OFFSET });
    expect(q.page).toMatchObject({ minimum: 1 });
    expect(MAX_OFFSET).toBe(100_000);
  });
});
