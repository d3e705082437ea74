// The pages' stylesheet and script, embedded in the executable through text imports and served
// under content-hashed names (/assets/site.<hash>.css), so a browser may keep them for a year: a
// changed file is a new name. Each is gzipped once, on its first request by a client that accepts it.
import { Elysia } from "elysia";
import css from "./assets/site.css" with { type: "text" };
import js from "./assets/site.js" with { type: "text" };
import liveJs from "./assets/live.js" with { type: "text" };
import { varyAndOrigin } from "../http/cors";
import { faviconIco, FAVICON_SVG } from "./favicon";

interface Asset {
  /** Where it is served, hash included. */
  path: string;
  body: string;
  type: string;
  etag: string;
  gzipped?: Uint8Array;
}

function asset(name: string, ext: string, body: string, type: string): Asset {
  const hash = Bun.hash(body).toString(36);
  return { path: `/assets/${name}.${hash}.${ext}`, body, type, etag: `"${hash}"` };
}

export const STYLESHEET = asset("site", "css", css, "text/css; charset=utf-8");
export const SCRIPT = asset("site", "js", js, "text/javascript; charset=utf-8");
/** Live updates over /live (web/live-routes.ts), loaded by signed-in pages only. */
export const LIVE_SCRIPT = asset("live", "js", liveJs, "text/javascript; charset=utf-8");
/** The site's icon (web/favicon.ts), linked from every page's head. */
export const FAVICON = asset("favicon", "svg", FAVICON_SVG, "image/svg+xml");

const BY_NAME = new Map([STYLESHEET, SCRIPT, LIVE_SCRIPT, FAVICON].map((a) => [a.path.slice("/assets/".length), a]));
const IMMUTABLE = "public, max-age=31536000, immutable";
const VARY = varyAndOrigin("accept-encoding");

export const acceptsGzip = (request: Request) => /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");

function assetResponse(request: Request, a: Asset): Response {
  const headers: Record<string, string> = { "content-type": a.type, "cache-control": IMMUTABLE, etag: a.etag, vary: VARY };
  if (request.headers.get("if-none-match") === a.etag) return new Response(null, { status: 304, headers });
  if (acceptsGzip(request)) {
    a.gzipped ??= Bun.gzipSync(a.body);
    return new Response(a.gzipped, { headers: { ...headers, "content-encoding": "gzip" } });
  }
  return new Response(a.body, { headers });
}

/** /favicon.ico, drawn on its first request: a name that never changes, so kept for a day only. */
let ico: Uint8Array | undefined;
function icoResponse(): Response {
  ico ??= faviconIco();
  return new Response(ico, { headers: { "content-type": "image/x-icon", "cache-control": "public, max-age=86400" } });
}

/** GET /assets/<name>: the current files; any other name (an old hash) is 404. And GET /favicon.ico. */
export const assetRoutes = () =>
  new Elysia({ name: "colony.web.assets" })
    .get(
      "/assets/:file",
      ({ params, request }) => {
        const a = BY_NAME.get(params.file);
        return a ? assetResponse(request, a) : new Response("Not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
      },
      { detail: { hide: true } },
    )
    .get("/favicon.ico", () => icoResponse(), { detail: { hide: true } });
