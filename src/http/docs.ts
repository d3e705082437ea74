// The API reference at /api/docs: Redoc's standalone bundle (the `redoc` package, pinned), embedded
// in the executable through a text import and served from this server under a versioned path, so
// the page works offline and loads nothing from another host. The page reads /openapi.json. The
// import is made by the first request for the bundle: imported with the module, its 2.3 MB of text
// were held in memory by every server from its start, for a page few visit.
// (package.json overrides @redocly/redoc-opentelemetry, a dependency of redoc's React build that
// the standalone bundle does not load, to the newest version the registry serves; redoc 3.0.1
// asks for ^0.5.1.)
import { Elysia } from "elysia";
import { version as redocVersion } from "redoc/package.json";
import { htmlResponse } from "./html";
import { varyAndOrigin } from "./cors";

/** Where the bundle is served; the version in the name lets it be cached for good. */
export const REDOC_PATH = `/api/docs/redoc-${redocVersion}.js`;
const BUNDLE_VARY = varyAndOrigin("accept-encoding");

/**
 * Redoc's sidebar credits Redocly with a logo drawn from Redocly's CDN, on every page and with no
 * option to turn it off; the served bundle draws the same credit from a data: URL instead, so the
 * page asks no other host for anything.
 */
const CREDIT_LOGOS: Record<string, string> = {
  "https://cdn.redoc.ly/redoc/logo-mini-full.svg": svgDataUrl(64, "Redocly"),
  "https://cdn.redoc.ly/redoc/logo-mini.svg": svgDataUrl(16, "R"),
};

function svgDataUrl(width: number, text: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="16"><text x="0" y="12" font-family="sans-serif" font-size="12" font-weight="600" fill="#5d6675">${text}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/**
 * Redoc's search asks whether it may build its index in a worker by compiling a function from a
 * string (`Function(source)`), which the policy forbids (no 'unsafe-eval'): the browser reports a
 * violation and the search falls back to the page. The served bundle answers "no" without asking.
 */
const SEARCH_WORKER_PROBE = /try\{return e\._factory\?\?=Function\(\w+\),!0\}catch\{return!1\}/;

function servedBundle(original: string): string {
  const review = (what: string) => new Error(`Redoc ${redocVersion}: ${what} is no longer in the bundle; review servedBundle() in src/http/docs.ts`);
  let out = original;
  for (const [url, replacement] of Object.entries(CREDIT_LOGOS)) {
    if (!out.includes(url)) throw review(url);
    out = out.replaceAll(url, replacement);
  }
  if (!SEARCH_WORKER_PROBE.test(out)) throw review("the search worker probe");
  return out.replace(SEARCH_WORKER_PROBE, "return!1");
}

interface Served {
  body: string;
  etag: string;
  gzipped?: Uint8Array;
}

/**
 * The served bundle, its ETag and its gzipped bytes, made on the first request for it: made at
 * start, patching and hashing the 2.3 MB bundle would lengthen every start and keep a patched
 * copy of it in memory, for a page few visit.
 */
let served: Promise<Served> | undefined;
function bundle(): Promise<Served> {
  // The text loader makes the file's contents the default export; TypeScript only knows its typings.
  served ??= import("redoc/bundles/redoc.standalone.js", { with: { type: "text" } }).then((m: unknown) => {
    const body = servedBundle((m as { default: string }).default);
    return { body, etag: `"${Bun.hash(body).toString(36)}"` };
  });
  return served;
}

/**
 * What the page needs beyond its own origin's files: Redoc (styled-components) writes its styles
 * into <style> elements, embeds an icon font as a data: URL and draws its credit logo from one.
 */
export const DOCS_CSP = {
  "style-src": "'self' 'unsafe-inline'",
  "font-src": "'self' data:",
  "img-src": "'self' data:",
};

/**
 * Redoc's light theme draws the HTTP methods' badges, the code samples' highlighting, the "show
 * more" link and its loading text in colours below WCAG's 4.5:1 against their backgrounds, and
 * the search button's label in both schemes (axe-core: colour-contrast, serious); this sheet,
 * served from this origin beside the bundle, gives them darker (in the dark scheme lighter)
 * colours. Redoc sets them as custom properties on the root and on stable class names;
 * `!important` because its styles are inserted after this sheet.
 */
export const DOCS_STYLE = `html:not(.dark) .tag-get, html:not(.dark) .tag-query { --tag-color: #197d47 !important; }
html:not(.dark) .tag-put { --tag-color: #9d5c13 !important; }
html:not(.dark) .tag-patch { --tag-color: #846910 !important; }
html:not(.dark) .tag-post { --tag-color: #1c5de1 !important; }
html:not(.dark) .tag-delete { --tag-color: #cb0a3e !important; }
html:not(.dark) .tag-http-additional-operation { --tag-color: #ae500f !important; }
html:not(.dark) [data-testid="show-more-operations"] { color: #1a5fd0 !important; }
html:not(.dark) { --loading-spinner-color: #6e6f7a !important; --search-trigger-color: #5c5d66 !important; }
html:not(.dark) {
  --code-block-tokens-string-color: #2b67c5 !important; --code-block-tokens-property-string-color: #2b67c5 !important;
  --code-block-tokens-link-color: #2b67c5 !important; --code-block-tokens-boolean-color: #0f783f !important;
  --code-block-tokens-keyword-color: #cd0071 !important; --code-block-tokens-operator-color: #995817 !important;
  --code-block-tokens-function-color: #995817 !important; --code-block-tokens-class-name-color: #995817 !important;
  --code-block-tokens-regex-color: #995817 !important; --code-block-tokens-deleted-color: #cd1f2f !important;
  --code-block-tokens-comment-color: #696a72 !important;
}
html.dark { --loading-spinner-color: #9b9ca8 !important; --search-trigger-color: #9b9ca8 !important; }
`;
const DOCS_STYLE_ETAG = `"${Bun.hash(DOCS_STYLE).toString(36)}"`;
/** Where the sheet is served; its hash in the name lets it be cached for good. */
export const DOCS_STYLE_PATH = `/api/docs/colony-${Bun.hash(DOCS_STYLE).toString(36)}.css`;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function docsPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)} API reference</title>
<link rel="stylesheet" href="${DOCS_STYLE_PATH}">
</head>
<body>
<redoc spec-url="/openapi.json" disable-telemetry="true"></redoc>
<script type="module" src="${REDOC_PATH}"></script>
</body>
</html>
`;
}

async function bundleResponse(request: Request): Promise<Response> {
  const b = await bundle();
  const etag = b.etag;
  const headers: Record<string, string> = {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": "public, max-age=31536000, immutable",
    etag,
    vary: BUNDLE_VARY,
  };
  if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
  if (/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) {
    b.gzipped ??= Bun.gzipSync(b.body);
    return new Response(b.gzipped, { headers: { ...headers, "content-encoding": "gzip" } });
  }
  return new Response(b.body, { headers });
}

export const docsRoutes = (title: string) => {
  const page = docsPage(title);
  return new Elysia({ name: "colony.docs" })
    .get("/api/docs", () => htmlResponse(page, { csp: DOCS_CSP, cacheControl: "public, max-age=300" }), { detail: { hide: true } })
    .get(REDOC_PATH, ({ request }) => bundleResponse(request), { detail: { hide: true } })
    .get(
      DOCS_STYLE_PATH,
      () => new Response(DOCS_STYLE, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=31536000, immutable", etag: DOCS_STYLE_ETAG } }),
      { detail: { hide: true } },
    );
};
