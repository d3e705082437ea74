// The marketplace's script (assets/market.js: an invoice's status followed while it waits),
// embedded in the executable as text and served under a content-hashed name, as the site's own
// assets are (web/assets.ts), by the marketplace's routes; only pages with an invoice load it.
import marketJs from "./assets/market.js" with { type: "text" };

const hash = Bun.hash(marketJs).toString(36);

export const MARKET_SCRIPT = { path: `/marketplace/assets/market.${hash}.js`, body: marketJs, etag: `"${hash}"`, file: `market.${hash}.js` };

const IMMUTABLE = "public, max-age=31536000, immutable";

/** GET /marketplace/assets/<file>: the current script; any other name (an old hash) is 404. */
export function marketAsset(file: string, request: Request): Response {
  if (file !== MARKET_SCRIPT.file) return new Response("Not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
  const headers: Record<string, string> = { "content-type": "text/javascript; charset=utf-8", "cache-control": IMMUTABLE, etag: MARKET_SCRIPT.etag };
  if (request.headers.get("if-none-match") === MARKET_SCRIPT.etag) return new Response(null, { status: 304, headers });
  return new Response(MARKET_SCRIPT.body, { headers });
}
