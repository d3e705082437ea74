// CORS for browser clients. Any origin may call the API (credentials are bearer tokens, never
// cookies), so the headers are static: `Access-Control-Allow-Origin: *` and the exposed headers
// on every answer to a request that carries `Origin` (every cross-origin request a browser makes
// does), and preflights answered by OPTIONS routes. Other clients (agents, scripts, curl) are not
// browsers and get none of them, as GoToSocial and Mastodon answer: about 300 bytes less on every
// answer, which both ends of the connection would write and parse (docs/decisions.md §182).
// Because the answer differs with the request's Origin, every answer says `Vary: Origin`, so a
// shared cache never hands a browser the answer of a request without one.
import { Elysia } from "elysia";

export const EXPOSED_HEADERS = [
  "Retry-After",
  "Idempotent-Replay",
  "X-Total-Count",
  "X-Has-More",
  "X-Service-Deprecated-Params",
  "X-Service-Deprecated-Values",
  "X-Service-Deprecated-Body-Fields",
  "X-Colony-Deprecated-Params",
  "X-Colony-Deprecated-Values",
  "X-Colony-Deprecated-Body-Fields",
  "X-Request-Id",
  "Mcp-Session-Id",
];

/** Sent on every answer to a request with an Origin header. */
export const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSED_HEADERS.join(", "),
};

/** Added to preflight answers. */
export const PREFLIGHT_HEADERS = {
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "access-control-allow-headers": "Content-Type, Authorization, Idempotency-Key, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID",
  "access-control-max-age": "86400",
};

/**
 * Adds the CORS headers to the answer of a browser's cross-origin request. Called from the first
 * hook every request goes through (http/observability.ts), before any answer (the body limit's
 * 413 included): a hook of its own would cost every request more than the headers save.
 */
export function corsHeadersFor(request: Request, headers: Record<string, unknown>): void {
  if (request.headers.has("origin")) Object.assign(headers, CORS_HEADERS);
}

/**
 * The Vary of an answer that sets its own (a page, an asset, the API docs' script): its names and
 * Origin, which every other answer says through the plugin's default header.
 */
export const varyAndOrigin = (...names: string[]): string => [...names, "origin"].join(", ");

export const corsPlugin = () =>
  new Elysia({ name: "colony.cors" })
    .headers({ vary: "Origin" })
    // Any path's preflight; routes may declare their own OPTIONS (check-username answers 200).
    .options("/*", ({ set }) => {
      Object.assign(set.headers, PREFLIGHT_HEADERS);
      return new Response(null, { status: 204 });
    }, { detail: { hide: true } });
