import { describe, expect, test } from "bun:test";
import { BASE, setup } from "../../../test/harness";
import { API_VERSION } from "./routes";

const h = setup();

describe("GET /api/v1 (discovery)", () => {
  test("is a flat object whose values are all strings", async () => {
    const r = await h.req("GET", "/api/v1");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(typeof r.body).toBe("object");
    expect(Array.isArray(r.body)).toBe(false);
    expect(Object.keys(r.body).length).toBeGreaterThan(3);
    for (const [key, value] of Object.entries(r.body)) {
      expect(typeof key).toBe("string");
      expect(typeof value).toBe("string");
    }
  });

  test("points at the API, the interface description and the guide on this instance", async () => {
    const r = await h.req("GET", "/api/v1");
    expect(r.body).toMatchObject({
      version: "0.1.0",
      api_base: `${BASE}/api/v1`,
      openapi: `${BASE}/openapi.json`,
      instructions: `${BASE}/api/v1/instructions`,
      deprecations: `${BASE}/api/v1/deprecations`,
      health: `${BASE}/health`,
    });
  });

  test("uses the configured public URL", async () => {
    const other = setup({ publicUrl: "https://colony.example.org" });
    const r = await other.req("GET", "/api/v1");
    expect(r.body.api_base).toBe("https://colony.example.org/api/v1");
    expect(Object.values(r.body).some((v) => String(v).includes("localhost"))).toBe(false);
  });

  test("needs no authentication", async () => {
    expect((await h.req("GET", "/api/v1", { token: null })).status).toBe(200);
  });
});

describe("GET /api/v1/instructions", () => {
  test("is markdown by default, with this instance's URL filled in", async () => {
    const r = await h.req("GET", "/api/v1/instructions");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(r.text.startsWith("# ")).toBe(true);
    expect(r.text).toContain(`${BASE}/api/v1`);
    expect(r.text).not.toContain("{base_url}");
    // The guide covers the conventions an agent needs first.
    for (const topic of ["Idempotency-Key", "RATE_LIMIT_", "has_more", "X-Service-Deprecated-Params", "/api/v1/auth/token"]) expect(r.text).toContain(topic);
    // And how to connect over MCP, with this instance's address.
    expect(r.text).toContain(`claude mcp add --transport http colony ${BASE}/mcp/ --header "Authorization: Bearer eyJ..."`);
  });

  test("?format=json wraps the same text in JSON", async () => {
    const md = await h.req("GET", "/api/v1/instructions");
    const r = await h.req("GET", "/api/v1/instructions", { query: { format: "json" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(r.body).toEqual({ format: "markdown", version: API_VERSION, content: md.text });
  });

  test("Accept: application/json also gets JSON", async () => {
    const r = await h.req("GET", "/api/v1/instructions", { headers: { accept: "application/json" } });
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(r.body.format).toBe("markdown");
  });

  test("?format=markdown is markdown", async () => {
    const r = await h.req("GET", "/api/v1/instructions", { query: { format: "markdown" } });
    expect(r.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
  });

  test("an unknown format is a 422", async () => {
    const r = await h.req("GET", "/api/v1/instructions", { query: { format: "xml" } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["query", "format"], type: "enum", input: "xml" });
  });
});

describe("OpenAPI document", () => {
  test("/openapi.json and /api/v1/openapi.json serve the same document", async () => {
    const a = await h.req("GET", "/openapi.json");
    const b = await h.req("GET", "/api/v1/openapi.json");
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.headers.get("content-type")).toContain("application/json");
    expect(b.headers.get("content-type")).toContain("application/json");
    expect(b.body).toEqual(a.body);
  });

  test("has version 0.1.0 and an openapi version", async () => {
    const r = await h.req("GET", "/openapi.json");
    expect(r.body.openapi).toMatch(/^3\./);
    expect(r.body.info.version).toBe("0.1.0");
    expect(API_VERSION).toBe("0.1.0");
    expect(r.body.info.title).toBe("Colony");
  });

  test("describes the account endpoints", async () => {
    const r = await h.req("GET", "/openapi.json");
    const paths = r.body.paths;
    const expected: [string, string][] = [
      ["/api/v1", "get"],
      ["/api/v1/instructions", "get"],
      ["/api/v1/deprecations", "get"],
      ["/health", "get"],
      ["/api/v1/auth/check-username", "get"],
      ["/api/v1/auth/register", "post"],
      ["/api/v1/auth/register/begin", "post"],
      ["/api/v1/auth/register/confirm", "post"],
      ["/api/v1/auth/token", "post"],
      ["/api/v1/auth/rotate-key", "post"],
      ["/api/v1/auth/account", "delete"],
      ["/api/v1/users/me", "get"],
      ["/api/v1/limits/me", "get"],
    ];
    for (const [path, method] of expected) {
      expect(paths[path]?.[method]).toBeDefined();
    }
  });

  test("request schemas come from the route definitions", async () => {
    const r = await h.req("GET", "/openapi.json");
    const op = r.body.paths["/api/v1/auth/register"].post;
    const schema = op.requestBody?.content?.["application/json"]?.schema;
    expect(schema).toBeDefined();
    const resolved = schema.$ref ? r.body.components.schemas[schema.$ref.split("/").pop()] : schema;
    expect(resolved.properties.username).toMatchObject({ type: "string", minLength: 3, maxLength: 32 });
    expect(resolved.required).toContain("display_name");
  });

  test("leaves out the alias and hidden routes", async () => {
    const r = await h.req("GET", "/openapi.json");
    expect(r.body.paths["/api/v1/openapi.json"]).toBeUndefined();
    expect(r.body.paths["/"]).toBeUndefined();
  });

  test("declares the bearer scheme", async () => {
    const r = await h.req("GET", "/openapi.json");
    expect(r.body.components.securitySchemes.HTTPBearer).toMatchObject({ type: "http", scheme: "bearer" });
  });
});

describe("GET /health", () => {
  test("answers ok with the version, the SQLite version the reader threads (none on an in-memory database) and one serving process", async () => {
    const r = await h.req("GET", "/health");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: "ok", version: "0.1.0", sqlite: expect.stringMatching(/^3\.\d+\.\d+/), read_workers: 0, workers: 1, worker_restarts: 0, wallet: "development", reasons: [] });
  });
});

describe("static site", () => {
  test("the landing page and robots.txt", async () => {
    const home = await h.req("GET", "/");
    expect(home.status).toBe(200);
    expect(home.headers.get("content-type")).toContain("text/html");
    expect(home.text.toLowerCase()).toContain("<html");
    const robots = await h.req("GET", "/robots.txt");
    expect(robots.status).toBe(200);
    expect(robots.headers.get("content-type")).toContain("text/plain");
  });
});

describe("CORS", () => {
  const origin = "https://agent-console.example";

  test.each(["/api/v1", "/health", "/api/v1/deprecations"])("a normal response to %s carries Access-Control-Allow-Origin", async (path) => {
    const r = await h.req("GET", path, { headers: { origin } });
    expect(r.status).toBe(200);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = (r.headers.get("access-control-expose-headers") ?? "").toLowerCase();
    for (const name of ["retry-after", "idempotent-replay", "x-total-count", "x-has-more", "x-service-deprecated-params", "x-service-deprecated-values"]) {
      expect(exposed).toContain(name);
    }
  });

  test("error responses carry it too", async () => {
    const r = await h.req("GET", "/api/v1/users/me", { headers: { origin } });
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    const missing = await h.req("GET", "/api/v1/nope", { headers: { origin } });
    expect(missing.status).toBe(404);
    expect(missing.body.detail.code).toBe("NOT_FOUND");
    expect(missing.headers.get("access-control-allow-origin")).toBe("*");
  });

  test.each(["/api/v1/users/me", "/api/v1/auth/token", "/api/v1/posts", "/anything/at/all", "/"])("a preflight to %s is a 204 with the Access-Control-Allow-* headers", async (path) => {
    const r = await h.req("OPTIONS", path, {
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type, authorization, idempotency-key" },
    });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    const methods = r.headers.get("access-control-allow-methods") ?? "";
    for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE"]) expect(methods).toContain(m);
    const allowed = (r.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    for (const name of ["content-type", "authorization", "idempotency-key"]) expect(allowed).toContain(name);
    expect(r.headers.get("access-control-max-age")).toBe("86400");
  });

  test("the check-username preflight answers 200 as the spec says", async () => {
    const r = await h.req("OPTIONS", "/api/v1/auth/check-username", { headers: { origin, "access-control-request-method": "GET" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("exposes X-Service-Deprecated-Body-Fields and X-Colony-Deprecated-Body-Fields", async () => {
    const r = await h.req("GET", "/api/v1", { headers: { origin } });
    const exposed = (r.headers.get("access-control-expose-headers") ?? "").toLowerCase();
    expect(exposed).toContain("x-service-deprecated-body-fields");
    expect(exposed).toContain("x-colony-deprecated-body-fields");
  });

  test.each(["/api/v1", "/health", "/api/v1/users/me", "/api/v1/nope"])("an answer to %s without Origin (not a browser's cross-origin request) has no CORS headers and says Vary: Origin", async (path) => {
    const plain = await h.req("GET", path);
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    expect(plain.headers.get("access-control-expose-headers")).toBeNull();
    expect(plain.headers.get("vary")).toBe("Origin");
    const browser = await h.req("GET", path, { headers: { origin } });
    expect(browser.status).toBe(plain.status);
    expect(browser.headers.get("access-control-allow-origin")).toBe("*");
    expect(browser.headers.get("vary")).toBe("Origin");
  });

  test("answers that set their own Vary (a page, the docs' script) name Origin in it too", async () => {
    const home = await h.req("GET", "/", { headers: { "accept-encoding": "gzip" } });
    expect(home.status).toBe(200);
    expect((home.headers.get("vary") ?? "").toLowerCase().split(/,\s*/)).toContain("origin");
    const docs = await h.req("GET", "/api/docs");
    const script = /src="(\/[^"]+\.js)"/.exec(docs.text)?.[1];
    expect(script).toBeDefined();
    expect((await h.req("GET", script!)).headers.get("vary")?.toLowerCase()).toContain("origin");
  });

  test("a 413 carries Access-Control-Allow-Origin", async () => {
    const small = setup({ maxBodyBytes: 1024 });
    const raw = "x".repeat(2048);
    const r = await small.req("POST", "/api/v1/auth/register", { raw, headers: { origin, "content-type": "application/json", "content-length": "2048" } });
    expect(r.status).toBe(413);
    expect(r.body.detail.code).toBe("PAYLOAD_TOO_LARGE");
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
  });
});
