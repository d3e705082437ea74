import { describe, expect, test } from "bun:test";
import { version as redocVersion } from "redoc/package.json";
import { setup } from "../../test/harness";
import { DOCS_STYLE_PATH, REDOC_PATH } from "./docs";

const h = setup();

/** Every src/href of an HTML page. */
const references = (html: string) => [...html.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/g)].map((m) => m[1]!);

describe("GET /api/docs", () => {
  test("answers an HTML page that loads only same-origin files: the pinned Redoc bundle, its colour fixes and /openapi.json", async () => {
    const r = await h.req("GET", "/api/docs");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(r.text).toContain('spec-url="/openapi.json"');
    expect(r.text).toContain('disable-telemetry="true"');
    const refs = references(r.text);
    expect(refs.sort()).toEqual([DOCS_STYLE_PATH, REDOC_PATH].sort());
    for (const ref of refs) expect(ref.startsWith("/") && !ref.startsWith("//")).toBe(true);
    expect(REDOC_PATH).toBe(`/api/docs/redoc-${redocVersion}.js`);
    expect(redocVersion).toBe("3.0.1");
  });

  test("the bundle answers JavaScript, cached for good, with an ETag (304 on a match) and gzip when asked", async () => {
    const r = await h.req("GET", REDOC_PATH);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/javascript");
    expect(r.headers.get("cache-control")).toContain("immutable");
    expect(r.text.length).toBeGreaterThan(1_000_000);
    expect(r.text).toContain("Redoc");
    const etag = r.headers.get("etag")!;
    expect(etag).toMatch(/^".+"$/);
    expect((await h.req("GET", REDOC_PATH, { headers: { "if-none-match": etag } })).status).toBe(304);
    const gz = await h.app.handle(new Request(`http://localhost${REDOC_PATH}`, { headers: { "accept-encoding": "gzip, br" } }));
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    const unzipped = new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gz.arrayBuffer())));
    expect(unzipped).toBe(r.text);
  });
});

test("the colour fixes are a stylesheet of this origin, cached for good under a hashed name", async () => {
  const r = await h.req("GET", DOCS_STYLE_PATH);
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toContain("text/css");
  expect(r.headers.get("cache-control")).toContain("immutable");
  expect(DOCS_STYLE_PATH).toMatch(/^\/api\/docs\/colony-[0-9a-z]+\.css$/);
  // The light scheme's GET badge, the darkest offender (2.4:1 in Redoc's own colours).
  expect(r.text).toContain("html:not(.dark) .tag-get");
  expect(r.text).not.toContain("url(");
});

describe("the docs page's policy", () => {
  test("allows what Redoc needs (inline styles, data: fonts and images) and nothing from another host", async () => {
    const r = await h.req("GET", "/api/docs");
    const csp = r.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("script-src");
    expect(csp).not.toContain("unsafe-eval");
    for (const directive of csp.split(";")) {
      for (const source of directive.trim().split(/\s+/).slice(1)) expect(source).toMatch(/^('[a-z-]+'|data:)$/);
    }
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("referrer-policy")).toBe("no-referrer");
  });

  test("the served bundle asks no other host: Redocly's CDN logo is replaced, and no search-worker probe compiles code", async () => {
    const js = (await h.req("GET", REDOC_PATH)).text;
    expect(js).not.toContain("cdn.redoc.ly");
    expect(js).not.toContain("_factory??=Function(");
  });
});
