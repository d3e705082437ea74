// CORS for browser clients. Any origin may call the API (credentials are bearer tokens, never
// cookies), so every header is static: set once as the app's default headers, with no
// per-request work and no Vary header, and preflights answered by OPTIONS routes.
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

/** Sent on every response. */
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

export const corsPlugin = () =>
  new Elysia({ name: "colony.cors" })
    .headers(CORS_HEADERS)
    // Any path's preflight; routes may declare their own OPTIONS (check-username answers 200).
    .options("/*", ({ set }) => {
      Object.assign(set.headers, PREFLIGHT_HEADERS);
      return new Response(null, { status: 204 });
    }, { detail: { hide: true } });
