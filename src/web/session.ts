// The web layer's session plugin (docs/decisions.md §138, §145). Every route of a plugin that uses
// webSession(ctx) gets `web`: the viewer its session cookie names (the account, and the same Caller
// the API's services take), the CSRF token its forms carry, the request's client, and the cookies
// the answer must set. Every unsafe request (anything but GET, HEAD, OPTIONS) to those routes is
// checked before its handler runs: an application/x-www-form-urlencoded body of at most 64 KiB,
// from this site (Origin and Sec-Fetch-Site), whose `csrf` field is the page's token, compared in
// constant time; anything else is refused with a 4xx page and nothing runs. A plugin may opt in
// to multipart/form-data bodies up to a size of its own (a file upload: docs/decisions.md §176),
// checked the same way, the token a field of the multipart body.
//
// Tokens: a signed-in viewer's forms carry HMAC(data key, session id), a synchronizer token that
// lives as long as the session. Forms shown before there is a session (sign in, sign up, reset)
// carry HMAC(data key, a random value in a second cookie): a signed double-submit cookie, which a
// page elsewhere can neither read nor forge.
//
// The cookie is `__Host-colony_session` (Secure) when the public URL is https, `colony_session`
// over plain http for local use; both HttpOnly, SameSite=Lax, Path=/. The cookie never
// authenticates the API: http/auth.ts reads only the Authorization header, and this plugin is
// mounted on the web pages only.
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import { ApiError, FieldError } from "../core/errors";
import { randomBase62, safeEqual } from "../core/ids";
import { keyedHash } from "../core/secrets";
import { clientIp } from "../http/client-ip";
import { requestSlot } from "../http/request-slot";
import { htmlResponse } from "../http/html";
import { callerOf, type Caller } from "../features/auth/caller";
import * as sessions from "../features/sessions/service";
import type { Client } from "../features/sessions/sign-in";
import type { UserRow } from "../features/users/service";

/** The signed-in person looking at a page. */
interface Viewer {
  user: UserRow;
  /** What every feature service takes, exactly as the API builds it from a bearer token. */
  caller: Caller;
  sessionId: string;
}

export interface Web {
  viewer: Viewer | null;
  /** The value of the hidden `csrf` field of every form on this request's page. */
  csrf: string;
  client: Client;
  /** Set-Cookie values the answer to this request carries (a new pre-session cookie, a stale one cleared). */
  cookies: string[];
  /** The fields of an unsafe request's form, read and checked before the handler runs. */
  form: URLSearchParams;
  /** The files of a multipart form, on the routes that take one (`webSession`'s `multipart`). */
  files: Map<string, File>;
}

/**
 * A web route plugin's opt-in to multipart/form-data bodies (a file upload) of at most `maxBytes`
 * in all (the file with the form's other fields), beside the usual form-encoded ones.
 */
interface MultipartOption {
  maxBytes: number;
}

/** A request of a signed-in viewer. */
export type SignedInWeb = Web & { viewer: Viewer };
export const isSignedIn = (web: Web): web is SignedInWeb => web.viewer !== null;

export const FORM_MAX_BYTES = 64 * 1024;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const PRE_RE = /^[0-9A-Za-z]{32}$/;

const overHttps = (ctx: Ctx) => ctx.config.publicUrl.startsWith("https://");
export const sessionCookieName = (ctx: Ctx) => (overHttps(ctx) ? "__Host-colony_session" : "colony_session");
const csrfCookieName = (ctx: Ctx) => (overHttps(ctx) ? "__Host-colony_csrf" : "colony_csrf");

function cookie(ctx: Ctx, name: string, value: string, maxAgeS: number | null): string {
  const parts = [`${name}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax"];
  if (overHttps(ctx)) parts.push("Secure");
  if (maxAgeS !== null) parts.push(`Max-Age=${maxAgeS}`);
  return parts.join("; ");
}

/** The cookie of a new session; the browser keeps it for the session's absolute lifetime. */
export const sessionCookie = (ctx: Ctx, token: string) => cookie(ctx, sessionCookieName(ctx), token, Math.floor(sessions.SESSION_ABSOLUTE_MS / 1000));
export const clearedSessionCookie = (ctx: Ctx) => cookie(ctx, sessionCookieName(ctx), "", 0);

/** A Cookie header's values by name; the first of a repeated name wins. */
export function parseCookies(header: string | null): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    const name = eq < 0 ? "" : part.slice(0, eq).trim();
    if (name && !jar.has(name)) jar.set(name, part.slice(eq + 1).trim());
  }
  return jar;
}

const states = requestSlot<Web>("colony.web");

/** The request's viewer, CSRF token and client, worked out once per request. */
export function webOf(ctx: Ctx, request: Request): Web {
  const known = states.get(request);
  if (known) return known;
  const jar = parseCookies(request.headers.get("cookie"));
  const client: Client = { ip: clientIp(ctx, request), userAgent: request.headers.get("user-agent") };
  const cookies: string[] = [];
  const token = jar.get(sessionCookieName(ctx));
  const found = token ? sessions.resolveSession(ctx, token, client) : null;
  if (token && !found) cookies.push(clearedSessionCookie(ctx));
  let viewer: Viewer | null = null;
  let csrf: string;
  if (found) {
    viewer = { user: found.user, caller: callerOf(found.user), sessionId: found.session.id };
    csrf = keyedHash(ctx.secrets.dataKey, "web-csrf", found.session.id);
  } else {
    let pre = jar.get(csrfCookieName(ctx));
    if (!pre || !PRE_RE.test(pre)) {
      pre = randomBase62(32);
      cookies.push(cookie(ctx, csrfCookieName(ctx), pre, null));
    }
    csrf = keyedHash(ctx.secrets.dataKey, "web-csrf-pre", pre);
  }
  const web: Web = { viewer, csrf, client, cookies, form: new URLSearchParams(), files: new Map() };
  states.set(request, web);
  return web;
}

/**
 * Whether the browser says the request comes from another site: Sec-Fetch-Site other than
 * same-origin (or none: typed by the person), or an Origin that is neither the public URL's nor
 * the request's own (or `null` without Sec-Fetch-Site: same-origin). Browsers that send neither
 * header are covered by the token alone.
 */
export function fromAnotherSite(ctx: Ctx, request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return true;
  const origin = request.headers.get("origin");
  // Under `Referrer-Policy: no-referrer` (http/html.ts) Chromium sends `Origin: null` with this
  // site's own form posts; Sec-Fetch-Site, which no page can forge, vouches for them (docs/decisions.md §153).
  if (origin === null || (origin === "null" && site === "same-origin")) return false;
  return origin !== new URL(ctx.config.publicUrl).origin && origin !== new URL(request.url).origin;
}

/**
 * The body of `request`, or null once it passes `max` bytes: a declared Content-Length over it is
 * refused before anything is read, and a body without one is read only until it passes `max`.
 */
async function boundedBody(request: Request, max: number): Promise<Uint8Array | null> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > max) return null;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

const TOO_LARGE: [number, string] = [413, "That form was too large."];

/** Why an unsafe request is refused before its handler runs: [status, message], or null when it may go on. */
async function refusalOf(ctx: Ctx, request: Request, web: Web, multipart: MultipartOption | null): Promise<[number, string] | null> {
  const contentType = request.headers.get("content-type") ?? "";
  const type = contentType.split(";")[0].trim().toLowerCase();
  const isMultipart = multipart !== null && type === "multipart/form-data";
  if (type !== "application/x-www-form-urlencoded" && !isMultipart) return [415, "This address takes form submissions only."];
  if (isMultipart) {
    // Refused from another site before a byte of the upload is read.
    if (fromAnotherSite(ctx, request)) return [403, "That form was sent from another site, so nothing was done."];
    const body = await boundedBody(request, multipart.maxBytes);
    if (!body) return TOO_LARGE;
    let parsed: Awaited<ReturnType<Response["formData"]>>;
    try {
      parsed = await new Response(body, { headers: { "content-type": contentType } }).formData();
    } catch {
      return [400, "That form could not be read. Go back and try again."];
    }
    web.form = new URLSearchParams();
    for (const [name, value] of parsed.entries()) {
      if (typeof value === "string") web.form.append(name, value);
      else web.files.set(name, value as File);
    }
  } else {
    // Read only up to the limit, with a declared length or without (a chunked body).
    const body = await boundedBody(request, FORM_MAX_BYTES);
    if (!body) return TOO_LARGE;
    if (fromAnotherSite(ctx, request)) return [403, "That form was sent from another site, so nothing was done."];
    web.form = new URLSearchParams(new TextDecoder().decode(body));
  }
  const sent = web.form.getAll("csrf");
  if (sent.length !== 1 || !safeEqual(sent[0], web.csrf)) return [403, "That form has expired or did not come from this site, so nothing was done. Go back, reload the page and try again."];
  return null;
}

/** An HTML answer with the request's cookies; never stored by caches (pages carry tokens and personal data). */
export function page(web: Web, html: string, status = 200, headers: Record<string, string> = {}): Response {
  const res = htmlResponse(html, { status, cacheControl: "no-store" });
  for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
  for (const c of web.cookies) res.headers.append("set-cookie", c);
  return res;
}

/** 303 See Other to a page of this site (post/redirect/get), with the request's cookies and `cookies`. */
export function seeOther(web: Web, location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const c of [...web.cookies, ...cookies]) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}

/** Sends a visitor who is not signed in to /login, to come back to `path` (a path of this site) after. */
export function toSignIn(web: Web, path: string): Response {
  return seeOther(web, `/login?next=${encodeURIComponent(safeNext(path))}`);
}

/**
 * A form field as text: missing is empty; sent twice, or longer than `max` characters, is a 422
 * naming the field (the page shows it), never cut short.
 */
export function field(web: Web, name: string, max: number): string {
  const all = web.form.getAll(name);
  if (all.length > 1) throw new FieldError(["body", name], `${name} was sent more than once`);
  const value = all[0] ?? "";
  if (value.length > max) throw new FieldError(["body", name], `That is too long: at most ${max} characters`);
  return value;
}

/** What a page says about a refused action: the service's status and message (a 422 for a field). */
export function failure(err: unknown): { status: number; message: string; headers: Record<string, string> } {
  if (err instanceof ApiError) return { status: err.status, message: err.message, headers: err.headers };
  if (err instanceof FieldError) return { status: 422, message: err.message, headers: {} };
  throw err;
}

/** A `next` address to return to after signing in: a path of this site, else the home page. */
export function safeNext(raw: string | null | undefined): string {
  if (!raw || raw.length > 4096 || !raw.startsWith("/") || raw.startsWith("//") || /[\\\u0000-\u001f\u007f]/.test(raw)) return "/";
  return raw;
}

/**
 * The plugin. `refuse` renders the page of a refused unsafe request (status and message). Used
 * without a name on purpose: each web route plugin gets its own copy of the hooks (`scoped`: they
 * apply to the routes of the plugin that uses this one, and to nothing else).
 */
export const webSession = (ctx: Ctx, refuse: (web: Web, status: number, message: string) => Response, opts: { multipart?: MultipartOption } = {}) =>
  new Elysia()
    .resolve({ as: "scoped" }, ({ request }) => ({ web: webOf(ctx, request) }))
    .onBeforeHandle({ as: "scoped" }, async ({ request }) => {
      if (SAFE_METHODS.has(request.method)) return;
      const web = webOf(ctx, request);
      const refused = await refusalOf(ctx, request, web, opts.multipart ?? null);
      if (refused) return refuse(web, refused[0], refused[1]);
    });
