// Security headers of the server's answers, set in one place. Every HTML page is answered through
// htmlResponse(), which adds a Content-Security-Policy that keeps the page on this origin, refuses
// framing, and turns off MIME sniffing and referrers. Every other answer gets `nosniff` through
// securityHeaders() (one header in Elysia's default set: no per-request work).
import { Elysia } from "elysia";

/** The policy of a page that loads nothing but its own origin's files, and nothing inline. */
const BASE_CSP = {
  "default-src": "'self'",
  "base-uri": "'none'",
  "form-action": "'self'",
  "frame-ancestors": "'none'",
  "object-src": "'none'",
} as const;

type CspDirectives = Record<string, string>;

/** `extra` adds to (or replaces) directives of the base policy; no directive may name another host. */
export function contentSecurityPolicy(extra: CspDirectives = {}): string {
  return Object.entries({ ...BASE_CSP, ...extra })
    .map(([name, value]) => `${name} ${value}`)
    .join("; ");
}

/** The headers every HTML answer carries. */
export function htmlHeaders(csp: CspDirectives = {}): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": contentSecurityPolicy(csp),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
  };
}

interface HtmlOptions {
  status?: number;
  /** Directives added to the base policy (e.g. `style-src` for a page with inline styles). */
  csp?: CspDirectives;
  cacheControl?: string;
}

/** An HTML page with the security headers. */
export function htmlResponse(html: string, opts: HtmlOptions = {}): Response {
  const headers = htmlHeaders(opts.csp);
  if (opts.cacheControl) headers["cache-control"] = opts.cacheControl;
  return new Response(html, { status: opts.status ?? 200, headers });
}

/** `X-Content-Type-Options: nosniff` on every answer: JSON, files and errors included. */
export const securityHeaders = () => new Elysia({ name: "colony.security-headers" }).headers({ "x-content-type-options": "nosniff" });
