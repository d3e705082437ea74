import { beforeAll, describe, expect, test } from "bun:test";
import { lintFromString, loadConfig } from "@redocly/openapi-core";
import { FormatRegistry } from "elysia/type-system";
import { join } from "node:path";
import { setup } from "../../test/harness";
import { fullFormats } from "elysia/type-system/format";
import { dateTimeFormat, docPath } from "./openapi";

describe("string formats after loading the OpenAPI plugin", () => {
  // The plugin's own checks build a validation schema per call (slow on every request); ours are
  // Elysia's regular expressions, which (unlike the plugin's) accept the urn:uuid: form.
  test("uuid uses Elysia's regular expression", () => {
    const uuid = FormatRegistry.Get("uuid")!;
    expect(uuid("0190a0b0-0000-7000-8000-00000000a001")).toBe(true);
    expect(uuid("urn:uuid:0190a0b0-0000-7000-8000-00000000a001")).toBe(true);
    expect(uuid("not-a-uuid")).toBe(false);
  });

  test("email, url, ipv4 and ipv6 are checked", () => {
    expect(FormatRegistry.Get("email")!("a@b.co")).toBe(true);
    expect(FormatRegistry.Get("email")!("nope")).toBe(false);
    expect(FormatRegistry.Get("url")!("https://example.org/x")).toBe(true);
    expect(FormatRegistry.Get("ipv4")!("127.0.0.1")).toBe(true);
    expect(FormatRegistry.Get("ipv6")!("::1")).toBe(true);
    expect(FormatRegistry.Get("ipv4")!("999.1.1.1")).toBe(false);
  });

  test("date-time answers as Elysia's check does, instants in toISOString() form by a shorter path", () => {
    const check = FormatRegistry.Get("date-time")!;
    expect(check).toBe(dateTimeFormat);
    const elysia = fullFormats["date-time"] as (v: string) => boolean;
    const cases: [string, boolean][] = [
      ["2026-11-22T06:20:04.123Z", true],
      ["2024-02-29T23:59:59.999Z", true],
      ["0000-01-01T00:00:00.000Z", true],
      ["2026-13-01T00:00:00.000Z", false],
      ["2026-11-22T25:00:00.000Z", false],
      ["2026-11-22T23:60:00.000Z", false],
      ["2026-11-22T23:59:61.000Z", false],
      ["2026-11-22T06:20:04Z", true],
      ["2026-11-22T06:20:04.123+02:00", true],
      // Not in toISOString() form: Elysia's check decides, and it takes a bare date too.
      ["2026-11-22", true],
      ["yesterday", false],
      ["", false],
    ];
    for (const [value, valid] of cases) {
      expect([value, check(value)]).toEqual([value, valid]);
      // Elysia's strict RFC 3339 check agrees on every instant in toISOString() form.
      if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value)) expect([value, elysia(value)]).toEqual([value, valid]);
    }
  });
});

describe("the generated document", () => {
  const PUBLIC_URL = "https://colony.example.org";
  const h = setup({ publicUrl: PUBLIC_URL });
  let doc: any;
  const operations = () => Object.entries(doc.paths).flatMap(([path, item]: [string, any]) => Object.entries(item).map(([method, op]: [string, any]) => ({ path, method, op })));

  beforeAll(async () => {
    const r = await h.req("GET", "/openapi.json");
    expect(r.status).toBe(200);
    doc = r.body;
  });

  test("passes Redocly's recommended rules (as configured in redocly.yaml) with no error or warning", async () => {
    const config = await loadConfig({ configPath: join(import.meta.dir, "../../redocly.yaml") });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config });
    const report = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(report).toEqual([]);
  }, 30_000);

  test("is OpenAPI 3.1 without 3.0's nullable: nullable fields are type arrays or anyOf with null", () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(JSON.stringify(doc)).not.toContain('"nullable"');
    const out = doc.paths["/api/v1/users/me"].get.responses["200"].content["application/json"].schema;
    expect(out.properties.bio.type).toEqual(["string", "null"]);
  });

  test("declares bearer security once for the document; public operations say security: []", () => {
    expect(doc.security).toEqual([{ HTTPBearer: [] }]);
    expect(doc.components.securitySchemes.HTTPBearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.paths["/api/v1/auth/register"].post.security).toEqual([]);
    expect(doc.paths["/api/v1/auth/token"].post.security).toEqual([]);
    expect(doc.paths["/health"].get.security).toEqual([]);
    // auth: "required" inherits the document's requirement and documents the 401.
    expect(doc.paths["/api/v1/users/me"].get.security).toBeUndefined();
    expect(doc.paths["/api/v1/users/me"].get.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
    // auth: "optional" allows anonymous callers too.
    expect(doc.paths["/api/v1/posts"].get.security).toEqual([{}, { HTTPBearer: [] }]);
  });

  test("security follows the routes' auth macro, not a list", () => {
    const routes = h.app.routes as { method: string; path: string; hooks?: { detail?: { security?: unknown[]; hide?: boolean } } }[];
    let checked = 0;
    for (const r of routes) {
      const path = docPath(r.path);
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      if (!op) continue;
      const declared = r.hooks?.detail?.security;
      if (!declared) expect([path, op.security]).toEqual([path, []]);
      else expect([path, op.security ?? [{ HTTPBearer: [] }]]).toEqual([path, declared]);
      checked++;
    }
    expect(checked).toBe(operations().length);
  });

  test("uploads are multipart/form-data with a binary file field; JSON bodies are JSON only", () => {
    for (const [path, method] of [
      ["/api/v1/users/me/avatar/upload", "post"],
      ["/api/v1/messages/attachments/upload", "post"],
      ["/api/v1/messages/groups/{conv_id}/avatar", "post"],
    ]) {
      const body = doc.paths[path][method].requestBody;
      expect(Object.keys(body.content)).toEqual(["multipart/form-data"]);
      expect(body.content["multipart/form-data"].schema.properties.file).toEqual({ type: "string", format: "binary", contentMediaType: "application/octet-stream" });
    }
    expect(Object.keys(doc.paths["/api/v1/posts"].post.requestBody.content)).toEqual(["application/json"]);
  });

  test("servers[0] is the configured public URL", () => {
    expect(doc.servers[0].url).toBe(PUBLIC_URL);
  });

  test("operationIds are unique and in the reference service's form", () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths["/api/v1/auth/register"].post.operationId).toBe("register_agent_api_v1_auth_register_post");
    expect(doc.paths["/api/v1/posts/{post_id}"].get.operationId).toBe("get_post_api_v1_posts__post_id__get");
    // Declared by the route where the reference service's differs from the rule.
    expect(doc.paths["/api/v1/messages/send/{username}"].post.operationId).toBe("sendMessage");
    expect(doc.paths["/health"].get.operationId).toBe("health_check_health_get");
  });

  test("every operation has a summary, a success answer and a described tag", () => {
    const described = new Map(doc.tags.map((t: any) => [t.name, t.description]));
    for (const { path, method, op } of operations()) {
      expect([path, method, typeof op.summary]).toEqual([path, method, "string"]);
      expect([path, method, Object.keys(op.responses).some((s) => /^2\d\d$/.test(s))]).toEqual([path, method, true]);
      for (const tag of op.tags) expect([tag, typeof described.get(tag)]).toEqual([tag, "string"]);
    }
  });

  test("number literal unions keep their type", () => {
    const value = doc.paths["/api/v1/posts/{post_id}/vote"].post.requestBody.content["application/json"].schema.properties.value;
    expect(value).toEqual({ type: "integer", enum: [1, -1] });
  });

  test("is built once and answered with a validator", async () => {
    const a = await h.req("GET", "/openapi.json");
    const etag = a.headers.get("etag");
    expect(etag).toBeTruthy();
    expect((await h.req("GET", "/api/v1/openapi.json")).headers.get("etag")).toBe(etag);
    expect((await h.req("GET", "/openapi.json", { headers: { "if-none-match": etag! } })).status).toBe(304);
    expect(a.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
