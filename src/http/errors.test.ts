import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { setup } from "../../test/harness";
import { ApiError, FieldError, notFound } from "../core/errors";
import type { Logger } from "../core/log";
import { apiErrorResponse, errorHandling, errorResponse, validationResponse } from "./errors";
import { observabilityPlugin } from "./observability";

const h = setup({ maxBodyBytes: 4096 });

const logged: { msg: string; fields?: Record<string, unknown> }[] = [];
const log: Logger = { debug() {}, info() {}, warn() {}, error: (msg, fields) => void logged.push({ msg, fields }), access() {}, flush() {} };
h.ctx.log = log;

class TeapotError extends Error {
  status = 418;
}
class PayloadError extends Error {
  status = 413;
}

const app = new Elysia()
  .use(observabilityPlugin(h.ctx))
  .use(errorHandling(h.ctx))
  .get("/api-error", () => {
    throw new ApiError(429, "RATE_LIMIT_THING", "Too many things", { retry_after: 42, action: "thing" }, { "Retry-After": "42", "X-Extra": "yes" });
  })
  .get("/not-found", () => {
    throw notFound("No such thing", "THING_NOT_FOUND");
  })
  .get("/field-error", () => {
    throw new FieldError(["body", "title"], "Title must not be blank", "   ");
  })
  .get("/field-error-typed", () => {
    throw new FieldError(["query", "since"], "Not a timestamp", "yesterday", "datetime_parsing");
  })
  .get("/boom", () => {
    throw new Error("database password is hunter2");
  })
  .get("/boom-async", async () => {
    await Promise.resolve();
    throw new TypeError("cannot read properties of undefined (reading 'secret')");
  })
  .get("/status-4xx", () => {
    throw new TeapotError("short and stout");
  })
  .get("/status-413", () => {
    throw new PayloadError("too big");
  })
  .get("/in-resolve", () => "unreachable", {
    beforeHandle() {
      throw new ApiError(403, "FORBIDDEN", "Not yours");
    },
  })
  .post("/items", ({ body }) => body, {
    body: t.Object({
      name: t.String({ minLength: 2, maxLength: 5 }),
      count: t.Integer({ minimum: 1, maximum: 10 }),
      // Elysia gives UnionEnum a default (its first value) that Optional would fill in.
      kind: t.Optional(t.UnionEnum(["a", "b"], { default: undefined })),
      tags: t.Optional(t.Array(t.String(), { maxItems: 2 })),
      nested: t.Optional(t.Object({ score: t.Number() })),
      note: t.Optional(t.Nullable(t.String({ maxLength: 3 }))),
      flag: t.Optional(t.Boolean()),
    }),
  })
  .get("/things/:id", ({ params }) => params, {
    params: t.Object({ id: t.Integer({ minimum: 1 }) }),
    query: t.Object({
      limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
      page: t.Optional(t.Integer({ minimum: 1 })),
      ratio: t.Optional(t.Number({ maximum: 2 })),
      flag: t.Optional(t.Boolean()),
      sort: t.Optional(t.UnionEnum(["newest", "top"])),
      mode: t.Optional(t.Union([t.Literal("x"), t.Literal("y")])),
      name: t.Optional(t.String({ maxLength: 3 })),
    }),
  });

async function call(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
  const res = await app.handle(new Request(`http://localhost${path}`, { method, body: init.body, headers: init.headers }));
  const text = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, text, body };
}
const post = (path: string, body: unknown) => call("POST", path, { body: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": "application/json" } });

describe("handled errors", () => {
  test('ApiError renders {"detail": {code, message, ...extra}} with its status and headers', async () => {
    const r = await call("GET", "/api-error");
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ detail: { code: "RATE_LIMIT_THING", message: "Too many things", retry_after: 42, action: "thing" } });
    expect(r.headers.get("retry-after")).toBe("42");
    expect(r.headers.get("x-extra")).toBe("yes");
    expect(r.headers.get("content-type")).toContain("application/json");
  });

  test("helpers keep their status and code", async () => {
    const r = await call("GET", "/not-found");
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: { code: "THING_NOT_FOUND", message: "No such thing" } });
  });

  test("an ApiError thrown before the handler is rendered the same way", async () => {
    const r = await call("GET", "/in-resolve");
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("FORBIDDEN");
  });

  test("errors carrying a 4xx status become INVALID_INPUT (413: PAYLOAD_TOO_LARGE)", async () => {
    const a = await call("GET", "/status-4xx");
    expect(a.status).toBe(418);
    expect(a.body.detail).toEqual({ code: "INVALID_INPUT", message: "short and stout" });
    const b = await call("GET", "/status-413");
    expect(b.status).toBe(413);
    expect(b.body.detail.code).toBe("PAYLOAD_TOO_LARGE");
  });

  test("errorResponse, apiErrorResponse and validationResponse build the same shapes", async () => {
    const a = errorResponse(409, "CONFLICT", "taken", { field: "name" }, { "X-A": "1" });
    expect(a.status).toBe(409);
    expect(a.headers.get("x-a")).toBe("1");
    expect(await a.json()).toEqual({ detail: { code: "CONFLICT", message: "taken", field: "name" } });
    const b = apiErrorResponse(new ApiError(400, "INVALID_INPUT", "bad"));
    expect(b.status).toBe(400);
    expect(await b.json()).toEqual({ detail: { code: "INVALID_INPUT", message: "bad" } });
    const c = validationResponse([{ loc: ["body", "x"], msg: "Field required", type: "missing" }]);
    expect(c.status).toBe(422);
    expect(await c.json()).toEqual({ detail: [{ loc: ["body", "x"], msg: "Field required", type: "missing" }] });
  });
});

describe("unexpected errors", () => {
  test.each(["/boom", "/boom-async"])("%s is a 500 INTERNAL_ERROR without internals in the body", async (path) => {
    logged.length = 0;
    const r = await call("GET", path);
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ detail: { code: "INTERNAL_ERROR", message: "Internal server error" } });
    expect(r.text).not.toContain("hunter2");
    expect(r.text).not.toContain("secret");
    expect(r.text).not.toContain("Error");
    expect(r.text).not.toMatch(/\bat .*\.ts:\d+/);
    // The details go to the server log instead.
    expect(logged).toHaveLength(1);
    expect(logged[0].msg).toBe("unhandled error");
    expect(logged[0].fields).toMatchObject({ method: "GET", url: `http://localhost${path}`, request_id: r.headers.get("x-request-id") });
    expect(r.headers.get("x-request-id")).toBeTruthy();
    expect(String(logged[0].fields?.error)).toMatch(/hunter2|secret/);
  });
});

describe("validation failures (422 HTTPValidationError)", () => {
  test("FieldError from a service", async () => {
    const r = await call("GET", "/field-error");
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ detail: [{ loc: ["body", "title"], msg: "Title must not be blank", type: "value_error", input: "   " }] });
    const typed = await call("GET", "/field-error-typed");
    expect(typed.status).toBe(422);
    expect(typed.body.detail[0]).toMatchObject({ loc: ["query", "since"], type: "datetime_parsing", input: "yesterday" });
  });

  test("a missing body field is type 'missing' at loc ['body', field]", async () => {
    const r = await post("/items", { name: "ok" });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ detail: [{ loc: ["body", "count"], msg: "Field required", type: "missing" }] });
  });

  test("every failing field is listed once", async () => {
    const r = await post("/items", {});
    expect(r.status).toBe(422);
    const locs = r.body.detail.map((d: any) => d.loc.join("."));
    expect(locs.sort()).toEqual(["body.count", "body.name"]);
    expect(r.body.detail.every((d: any) => d.type === "missing")).toBe(true);
  });

  test.each([
    [{ name: "a", count: 1 }, ["body", "name"], "string_too_short", { min_length: 2 }],
    [{ name: "abcdef", count: 1 }, ["body", "name"], "string_too_long", { max_length: 5 }],
    [{ name: 12, count: 1 }, ["body", "name"], "string_type", undefined],
    [{ name: "ok", count: 0 }, ["body", "count"], "greater_than_equal", { ge: 1 }],
    [{ name: "ok", count: 11 }, ["body", "count"], "less_than_equal", { le: 10 }],
    [{ name: "ok", count: 1.5 }, ["body", "count"], "int_from_float", undefined],
    [{ name: "ok", count: "many" }, ["body", "count"], "int_parsing", undefined],
    [{ name: "ok", count: 1, kind: "c" }, ["body", "kind"], "enum", { expected: "'a' or 'b'" }],
    [{ name: "ok", count: 1, tags: ["a", "b", "c"] }, ["body", "tags"], "too_long", { field_type: "List", max_length: 2, actual_length: 3 }],
    [{ name: "ok", count: 1, nested: { score: "high" } }, ["body", "nested", "score"], "float_parsing", undefined],
    [{ name: "ok", count: 1, nested: { score: true } }, ["body", "nested", "score"], "float_type", undefined],
    [{ name: "ok", count: 1, note: "long" }, ["body", "note"], "string_too_long", { max_length: 3 }],
    [{ name: "ok", count: 1, flag: "perhaps" }, ["body", "flag"], "bool_parsing", undefined],
  ] as const)("body %j -> %j %s", async (body, loc, type, ctx) => {
    const r = await post("/items", body);
    expect(r.status).toBe(422);
    expect(r.body.detail).toHaveLength(1);
    const [item] = r.body.detail;
    expect(item.loc).toEqual(loc);
    expect(item.type).toBe(type);
    expect(typeof item.msg).toBe("string");
    expect(item.msg.length).toBeGreaterThan(0);
    expect(item.ctx).toEqual(ctx);
    expect("input" in item).toBe(true);
  });

  test("messages read like the reference service's", async () => {
    const r = await post("/items", { name: "ok", count: 0 });
    expect(r.body.detail[0].msg).toBe("Input should be greater than or equal to 1");
    const e = await post("/items", { name: "ok", count: 1, kind: "c" });
    expect(e.body.detail[0].msg).toBe("Input should be 'a' or 'b'");
    const s = await post("/items", { name: "abcdef", count: 1 });
    expect(s.body.detail[0].msg).toBe("String should have at most 5 characters");
  });

  test("a nested missing field has the full path", async () => {
    // (Elysia's normalisation turns a non-object here into {} first, so this is also the answer
    // for {"nested": "x"}.)
    const r = await post("/items", { name: "ok", count: 1, nested: {} });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ["body", "nested", "score"], msg: "Field required", type: "missing" }]);
  });

  test.each([
    // The input is what the client sent: query and path values are strings.
    ["/things/1?limit=0", ["query", "limit"], "greater_than_equal", "0"],
    ["/things/1?limit=101", ["query", "limit"], "less_than_equal", "101"],
    ["/things/1?limit=abc", ["query", "limit"], "int_parsing", "abc"],
    ["/things/1?limit=", ["query", "limit"], "int_parsing", ""],
    ["/things/1?limit=2.5", ["query", "limit"], "int_from_float", "2.5"],
    ["/things/1?limit=5&page=0", ["query", "page"], "greater_than_equal", "0"],
    ["/things/1?page=5&limit=0", ["query", "limit"], "greater_than_equal", "0"],
    ["/things/1?page=-3", ["query", "page"], "greater_than_equal", "-3"],
    ["/things/1?ratio=3", ["query", "ratio"], "less_than_equal", "3"],
    ["/things/1?ratio=lots", ["query", "ratio"], "float_parsing", "lots"],
    ["/things/1?flag=perhaps", ["query", "flag"], "bool_parsing", "perhaps"],
    ["/things/1?sort=new", ["query", "sort"], "enum", "new"],
    ["/things/1?mode=z", ["query", "mode"], "enum", "z"],
    ["/things/1?name=abcd", ["query", "name"], "string_too_long", "abcd"],
    ["/things/0", ["path", "id"], "greater_than_equal", "0"],
    ["/things/abc", ["path", "id"], "int_parsing", "abc"],
  ] as const)("%s -> %j %s", async (path, loc, type, input) => {
    const r = await call("GET", path);
    expect(r.status).toBe(422);
    expect(r.body.detail).toHaveLength(1);
    expect(r.body.detail[0]).toMatchObject({ loc, type, input });
  });

  test("valid input passes and unknown body fields are dropped", async () => {
    const r = await post("/items", { name: "ok", count: "3", extra: "dropped" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: "ok", count: 3 });
    const q = await call("GET", "/things/7?limit=5&unknown=1");
    expect(q.status).toBe(200);
    expect(q.body).toEqual({ id: 7 });
  });

  test.each([
    ["{not json", "application/json"],
    ['{"name": "ok", "count": 1', "application/json"],
    ["", "application/json"],
  ])("malformed JSON %p is a 422, not a 500", async (raw, type) => {
    const r = await call("POST", "/items", { body: raw, headers: { "content-type": type } });
    expect(r.status).toBe(422);
    expect(Array.isArray(r.body.detail)).toBe(true);
    expect(r.body.detail[0].loc[0]).toBe("body");
  });

  test("malformed JSON names json_invalid", async () => {
    const r = await call("POST", "/items", { body: "{nope", headers: { "content-type": "application/json" } });
    expect(r.body).toEqual({ detail: [{ loc: ["body", 0], msg: "JSON decode error: the body is not valid JSON", type: "json_invalid" }] });
  });
});

describe("routing", () => {
  test.each([
    ["GET", "/nowhere"],
    ["GET", "/api/v1/nowhere"],
    ["POST", "/api/v1/nowhere/deeper"],
    ["DELETE", "/items"],
  ])('unknown route %s %s -> 404 {"detail": {"code": "NOT_FOUND"}}', async (method, path) => {
    const r = await call(method, path);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: { code: "NOT_FOUND", message: "Not found" } });
  });
});

describe("the assembled app", () => {
  test("unknown routes answer 404 NOT_FOUND", async () => {
    const r = await h.req("GET", "/api/v1/definitely-not-a-route");
    expect(r.status).toBe(404);
    expect(r.body.detail.code).toBe("NOT_FOUND");
  });

  test("malformed JSON on a real route is a 422", async () => {
    const r = await h.req("POST", "/api/v1/auth/register", { raw: '{"username": "x', headers: { "content-type": "application/json" } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].type).toBe("json_invalid");
  });

  test("a missing field on a real route is a 422 'missing'", async () => {
    const r = await h.req("POST", "/api/v1/auth/register", { body: { username: "someone" } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual({ loc: ["body", "display_name"], msg: "Field required", type: "missing" });
  });

  test("a body over the configured maximum (by Content-Length) is a 413 before any work", async () => {
    const raw = JSON.stringify({ username: "big-body", display_name: "x".repeat(5000) });
    const r = await h.req("POST", "/api/v1/auth/register", { raw, headers: { "content-type": "application/json", "content-length": String(raw.length) } });
    expect(r.status).toBe(413);
    expect(r.body.detail.code).toBe("PAYLOAD_TOO_LARGE");
    const check = await h.req("GET", "/api/v1/auth/check-username", { query: { username: "big-body" } });
    expect(check.body.available).toBe(true);
  });

  test("a body at the maximum is accepted for processing", async () => {
    const raw = JSON.stringify({ username: "at-limit", display_name: "Limit" }).padEnd(4096, " ");
    const r = await h.req("POST", "/api/v1/auth/register", { raw, headers: { "content-type": "application/json", "content-length": "4096" } });
    expect(r.status).toBe(201);
  });
});
