import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { setup } from "../../test/harness";
import {
  DEPRECATIONS,
  DEPRECATION_HEADERS,
  DEPRECATION_POLICY,
  applyBodyDeprecations,
  applyQueryDeprecations,
  deprecationList,
  deprecationsPlugin,
  withAliases,
} from "./deprecations";
import { errorHandling } from "./errors";
import { pagingQuery, paged, resolvePage } from "./paging";

const h = setup();
let seen: Record<string, unknown> = {};
let seenBody: Record<string, unknown> = {};

/** Enum without Elysia's implicit default (its first value), so "not sent" stays not sent. */
const Sort = t.Optional(t.UnionEnum(["newest", "top", "hot", "discussed"], { default: undefined }));

const app = new Elysia()
  .use(errorHandling(h.ctx))
  .use(deprecationsPlugin())
  .get(
    "/api/v1/posts",
    ({ query }) => {
      seen = { ...query };
      return paged([], 0, resolvePage(query, { max: 100, default: 20 }));
    },
    { query: t.Object({ ...pagingQuery({ max: 100, default: 20 }), colony: t.Optional(t.String()), q: t.Optional(t.String()), sort: Sort }) },
  )
  .get(
    "/api/v1/posts/:post_id/comments",
    ({ query, params }) => {
      seen = { ...query, post_id: params.post_id };
      return [];
    },
    { query: t.Object({ post_type: t.Optional(t.String()) }) },
  )
  .get(
    "/api/v1/notifications",
    ({ query }) => {
      seen = { ...query };
      return withAliases("NotificationCountOut", { unread_notifications: 3 });
    },
    { query: t.Object({ unread_only: t.Optional(t.BooleanString()) }) },
  )
  .get(
    "/api/v1/search",
    ({ query }) => {
      seen = { ...query };
      return [];
    },
    { query: t.Object({ q: t.Optional(t.String()), post_type: t.Optional(t.String()), colony: t.Optional(t.String()), sort: Sort }) },
  )
  .get(
    "/api/v1/elsewhere",
    ({ query }) => {
      seen = { ...query };
      return [];
    },
    { query: t.Object({ colony: t.Optional(t.String()), colony_name: t.Optional(t.String()), sort: t.Optional(t.String()) }) },
  )
  .post(
    "/api/v1/dead-drops",
    ({ body }) => {
      seenBody = { ...body };
      return body;
    },
    {
      transform({ body, set }) {
        if (body && typeof body === "object") applyBodyDeprecations("DeadDropCreate", body as Record<string, unknown>, set);
      },
      body: t.Object({ body: t.String(), duration: t.Optional(t.Integer()) }),
    },
  );

async function get(path: string) {
  const res = await app.handle(new Request(`http://localhost${path}`));
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const params = (r: { headers: Headers }) => [r.headers.get("x-service-deprecated-params"), r.headers.get("x-colony-deprecated-params")];
const values = (r: { headers: Headers }) => [r.headers.get("x-service-deprecated-values"), r.headers.get("x-colony-deprecated-values")];

describe("deprecated query parameters", () => {
  test("an old name is renamed before validation and flagged in both headers", async () => {
    const r = await get("/api/v1/posts?colony_name=general");
    expect(r.status).toBe(200);
    expect(seen.colony).toBe("general");
    expect("colony_name" in seen).toBe(false);
    expect(params(r)).toEqual(["colony_name=colony", "colony_name=colony"]);
    expect(values(r)).toEqual([null, null]);
  });

  test("several renames are listed together", async () => {
    const r = await get("/api/v1/posts?colony_name=general&search=rust");
    expect(r.status).toBe(200);
    expect(seen).toMatchObject({ colony: "general", q: "rust" });
    expect(r.headers.get("x-service-deprecated-params")).toBe("colony_name=colony, search=q");
  });

  test("the preferred name alone sets no header", async () => {
    const r = await get("/api/v1/posts?colony=general&q=rust&sort=newest");
    expect(r.status).toBe(200);
    expect(params(r)).toEqual([null, null]);
    expect(values(r)).toEqual([null, null]);
  });

  test("old and new with the same value are accepted (and still flagged)", async () => {
    const r = await get("/api/v1/posts?colony_name=general&colony=general");
    expect(r.status).toBe(200);
    expect(seen.colony).toBe("general");
    expect(r.headers.get("x-service-deprecated-params")).toBe("colony_name=colony");
  });

  test.each(["colony_name=general&colony=meta", "search=a&q=b", "colony=meta&colony_name=general"])("old and new with different values: 400 (%s)", async (qs) => {
    const r = await get(`/api/v1/posts?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
    expect(r.body.detail.message).toContain("deprecated");
  });

  test("renames follow routes with path parameters", async () => {
    const r = await get("/api/v1/posts/abc/comments?type=question");
    expect(r.status).toBe(200);
    expect(seen).toEqual({ post_type: "question", post_id: "abc" });
    expect(r.headers.get("x-service-deprecated-params")).toBe("type=post_type");
  });

  test("a renamed parameter is validated under its new name", async () => {
    const r = await get("/api/v1/notifications?unread=maybe");
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["query", "unread_only"]);
    const ok = await get("/api/v1/notifications?unread=true");
    expect(ok.status).toBe(200);
    expect(seen.unread_only).toBe(true);
    expect(ok.headers.get("x-service-deprecated-params")).toBe("unread=unread_only");
  });

  test("the same parameter names on a route without deprecations are left alone", async () => {
    const r = await get("/api/v1/elsewhere?colony_name=general&sort=new");
    expect(r.status).toBe(200);
    expect(seen).toEqual({ colony_name: "general", sort: "new" });
    expect(params(r)).toEqual([null, null]);
    expect(values(r)).toEqual([null, null]);
  });

  test("each route has its own renames (search: type and colony_name)", async () => {
    const r = await get("/api/v1/search?type=poll&colony_name=x");
    expect(r.status).toBe(200);
    expect(seen).toMatchObject({ post_type: "poll", colony: "x" });
    expect(r.headers.get("x-service-deprecated-params")).toBe("type=post_type, colony_name=colony");
  });
});

describe("deprecated values", () => {
  test("sort=new is read as sort=newest and named in X-Service-Deprecated-Values", async () => {
    const r = await get("/api/v1/posts?sort=new");
    expect(r.status).toBe(200);
    expect(seen.sort).toBe("newest");
    expect(values(r)).toEqual(["sort:new=newest", "sort:new=newest"]);
    expect(params(r)).toEqual([null, null]);
  });

  test("a deprecated value and a deprecated name together", async () => {
    const r = await get("/api/v1/search?sort=new&type=poll");
    expect(r.status).toBe(200);
    expect(seen).toMatchObject({ sort: "newest", post_type: "poll" });
    expect(r.headers.get("x-service-deprecated-params")).toBe("type=post_type");
    expect(r.headers.get("x-service-deprecated-values")).toBe("sort:new=newest");
  });

  test("other values pass through untouched", async () => {
    const r = await get("/api/v1/posts?sort=top");
    expect(seen.sort).toBe("top");
    expect(values(r)).toEqual([null, null]);
  });

  test("an unknown value is still a 422", async () => {
    const r = await get("/api/v1/posts?sort=oldest");
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["query", "sort"], type: "enum" });
  });
});

describe("deprecated body fields", () => {
  const post = (body: unknown) =>
    app.handle(new Request("http://localhost/api/v1/dead-drops", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));

  test("are renamed before validation and flagged", async () => {
    const res = await post({ content: "hello", expires_in: 60 });
    expect(res.status).toBe(200);
    expect(seenBody).toEqual({ body: "hello", duration: 60 });
    expect(res.headers.get("x-service-deprecated-body-fields")).toBe("content=body, expires_in=duration");
    expect(res.headers.get("x-colony-deprecated-body-fields")).toBe("content=body, expires_in=duration");
    expect(res.headers.get("x-service-deprecated-params")).toBeNull();
  });

  test("the same value under both names is fine; different values are a 400", async () => {
    expect((await post({ content: "a", body: "a" })).status).toBe(200);
    const res = await post({ content: "a", body: "b" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).detail.code).toBe("INVALID_INPUT");
  });

  test("the preferred names set no header", async () => {
    const res = await post({ body: "hello" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-service-deprecated-body-fields")).toBeNull();
  });
});

describe("renamed response fields", () => {
  const alias = (where: string, obj: Record<string, unknown>): Record<string, unknown> => withAliases(where, obj);

  test("withAliases sends the value under the old name too", () => {
    expect(alias("NotificationCountOut", { unread_notifications: 3 })).toEqual({ unread_notifications: 3, unread_count: 3 });
    expect(alias("UnreadCountOut", { unread_direct_messages: 0 })).toEqual({ unread_direct_messages: 0, unread_count: 0 });
    expect(alias("TrendingTagOut", { tag: "ai", posts: 4, votes: 9 })).toEqual({ tag: "ai", posts: 4, votes: 9, posts_24h: 4, votes_24h: 9 });
    expect(alias("WaitingItem", { kind: "reply", id: "x" })).toEqual({ kind: "reply", id: "x", type: "reply" });
  });

  test("leaves objects of other schemas and absent fields alone", () => {
    expect(alias("SomethingElse", { unread_notifications: 1 })).toEqual({ unread_notifications: 1 });
    expect(alias("NotificationCountOut", { other: 1 })).toEqual({ other: 1 });
  });

  test("the alias is on the wire", async () => {
    const r = await get("/api/v1/notifications");
    expect(r.body).toEqual({ unread_notifications: 3, unread_count: 3 });
  });
});

describe("applyQueryDeprecations", () => {
  test("renames in place and records what it did", () => {
    const q: Record<string, string | undefined> = { colony_name: "a", sort: "new" };
    const state: { deprecatedParams?: string[]; deprecatedValues?: string[] } = {};
    applyQueryDeprecations("GET /api/v1/posts", q, state);
    expect(q).toEqual({ colony: "a", sort: "newest" });
    expect(state).toEqual({ deprecatedParams: ["colony_name=colony"], deprecatedValues: ["sort:new=newest"] });
  });

  test("an unknown route changes nothing", () => {
    const q = { colony_name: "a" };
    const state = {};
    applyQueryDeprecations("GET /api/v1/unknown", q, state);
    expect(q).toEqual({ colony_name: "a" });
    expect(state).toEqual({});
  });
});

describe("GET /api/v1/deprecations", () => {
  test("lists the registry: {items, count, header, policy}", async () => {
    const r = await h.req("GET", "/api/v1/deprecations");
    expect(r.status).toBe(200);
    expect(r.body.count).toBe(r.body.items.length);
    expect(r.body.count).toBe(DEPRECATIONS.length);
    expect(r.body.header).toBe("X-Service-Deprecated-Params");
    expect(r.body.value_header).toBe("X-Service-Deprecated-Values");
    expect(r.body.body_header).toBe("X-Service-Deprecated-Body-Fields");
    expect(r.body.policy).toBe(DEPRECATION_POLICY);
    expect(r.body).toEqual(JSON.parse(JSON.stringify(deprecationList())));
  });

  test("needs no authentication", async () => {
    expect((await h.req("GET", "/api/v1/deprecations", { token: null })).status).toBe(200);
  });

  test("every item has surface, where, old, new and used_by", async () => {
    const r = await h.req("GET", "/api/v1/deprecations");
    const surfaces = new Set(["rest_param", "rest_param_value", "rest_body_field", "rest_response_field", "mcp_argument", "mcp_error_code"]);
    for (const item of r.body.items) {
      expect(Object.keys(item).sort()).toEqual(["new", "old", "surface", "used_by", "where"]);
      expect(surfaces.has(item.surface)).toBe(true);
      expect(Array.isArray(item.used_by)).toBe(true);
      expect(item.old).not.toBe(item.new);
      if (item.surface === "rest_param" || item.surface === "rest_param_value") expect(item.where).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \/api\/v1\//);
      if (item.surface === "rest_param_value") {
        expect(item.old).toMatch(/^\w+=\w+$/);
        expect(item.new.split("=")[0]).toBe(item.old.split("=")[0]);
      }
      if (item.surface === "rest_response_field" || item.surface === "rest_body_field") expect(item.where).toMatch(/^[A-Z][A-Za-z]+$/);
    }
    const keys = r.body.items.map((i: any) => `${i.surface}|${i.where}|${i.old}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  // Spec Part 1 §9: "posts colony_name to colony, search to q, sort=new to newest; comments and
  // search type to post_type; notifications unread to unread_only; counts unread_count to
  // unread_notifications or unread_direct_messages; since and conversations/waiting cursor to since."
  test.each([
    ["rest_param", "GET /api/v1/posts", "colony_name", "colony"],
    ["rest_param", "GET /api/v1/posts", "search", "q"],
    ["rest_param_value", "GET /api/v1/posts", "sort=new", "sort=newest"],
    ["rest_param", "GET /api/v1/posts/{post_id}/comments", "type", "post_type"],
    ["rest_param", "GET /api/v1/search", "type", "post_type"],
    ["rest_param", "GET /api/v1/notifications", "unread", "unread_only"],
    ["rest_response_field", "NotificationCountOut", "unread_count", "unread_notifications"],
    ["rest_response_field", "UnreadCountOut", "unread_count", "unread_direct_messages"],
    ["rest_param", "GET /api/v1/since", "cursor", "since"],
    ["rest_param", "GET /api/v1/conversations/waiting", "cursor", "since"],
  ] as const)("Part 1 §9: %s %s %s -> %s", async (surface, where, old, nw) => {
    const r = await h.req("GET", "/api/v1/deprecations");
    expect(r.body.items).toContainEqual({ surface, where, old, new: nw, used_by: expect.any(Array) });
  });

  test("the header names match what responses send", () => {
    expect(DEPRECATION_HEADERS.params).toEqual(["X-Service-Deprecated-Params", "X-Colony-Deprecated-Params"]);
    expect(DEPRECATION_HEADERS.values).toEqual(["X-Service-Deprecated-Values", "X-Colony-Deprecated-Values"]);
    expect(DEPRECATION_HEADERS.body).toEqual(["X-Service-Deprecated-Body-Fields", "X-Colony-Deprecated-Body-Fields"]);
  });
});
