import { describe, expect, test } from "bun:test";
import { setup } from "../../test/harness";
import { contentSecurityPolicy } from "./html";

const h = setup();

describe("security headers", () => {
  test("the base policy keeps a page on this origin and out of frames; extra directives add to it", () => {
    expect(contentSecurityPolicy()).toBe("default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'");
    expect(contentSecurityPolicy({ "style-src": "'unsafe-inline'", "default-src": "'none'" })).toBe(
      "default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'; style-src 'unsafe-inline'",
    );
  });

  test.each([
    ["GET", "/"],
    ["GET", "/verify-email"],
    ["GET", "/login"],
    ["GET", "/signup"],
  ])("%s %s: CSP on this origin only, no framing, nosniff, no referrer", async (method, path) => {
    const r = await h.req(method, path);
    expect(r.headers.get("content-type")).toContain("text/html");
    const csp = r.headers.get("content-security-policy")!;
    expect(csp).toMatch(/default-src '(self|none)'/);
    expect(csp).toContain("frame-ancestors 'none'");
    // No host but this one: only keywords and the data: scheme.
    for (const directive of csp.split(";")) {
      for (const source of directive.trim().split(/\s+/).slice(1)) expect([path, source]).toEqual([path, expect.stringMatching(/^('[a-z-]+'|data:)$/)]);
    }
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    expect(r.headers.get("referrer-policy")).toBe("no-referrer");
  });

  test("JSON answers, errors and files carry nosniff too", async () => {
    for (const path of ["/api/v1", "/api/v1/users/me", "/no/such/route", "/robots.txt", "/openapi.json"]) {
      expect([path, (await h.req("GET", path)).headers.get("x-content-type-options")]).toEqual([path, "nosniff"]);
    }
  });
});
