/** @jsxImportSource @kitajs/html */
// Answering a page: the visit, the page's rendering (or its error page), gzip for clients that
// accept it, the security headers of every HTML answer (http/html.ts), and the anonymous page
// cache (docs/decisions.md §133).
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import { htmlHeaders } from "../http/html";
import { varyAndOrigin } from "../http/cors";
import { readCacheOf, stampOf } from "../http/read-cache";
import { acceptsGzip } from "./assets";
import { gzipAround, gzipOnce, gzipPage, type Spliced } from "./gzip";
import { Page, sync } from "./layout";
import { moderatesSomething } from "./moderates";
import { failure, page, type Web } from "./session";
import { ANONYMOUS, visitOf, type Visit } from "./visit";

/** Bodies smaller than this go out as they are: gzip would save less than a packet. */
const GZIP_MIN_BYTES = 1024;
/** Every page shows forum content: any forum write makes its cached copy stale. */
const PAGE_SCOPES: readonly string[] = ["forum"];
const encoder = new TextEncoder();

const VARY = varyAndOrigin("accept-encoding", "cookie");

function headers(gzip: boolean): Record<string, string> {
  const h = htmlHeaders();
  h["cache-control"] = "no-cache";
  h.vary = VARY;
  if (gzip) h["content-encoding"] = "gzip";
  return h;
}

/** An HTML answer, gzipped when the client accepts it and it is worth it. */
export function htmlAnswer(request: Request, page: string | Spliced, status = 200): Response {
  if (typeof page !== "string") {
    if (acceptsGzip(request)) return new Response(gzipAround(page.head, page.middle.piece(), page.tail), { status, headers: headers(true) });
    page = page.html;
  }
  if (page.length >= GZIP_MIN_BYTES && acceptsGzip(request)) return new Response(gzipOnce(page), { status, headers: headers(true) });
  return new Response(page, { status, headers: headers(false) });
}

const TITLES: Record<number, string> = { 400: "Bad request", 403: "Forbidden", 404: "Page not found", 429: "Too many requests", 500: "Something went wrong" };

export function ErrorPage({ status, message, visit }: { status: number; message: string; visit: Visit }): JSX.Element {
  const title = TITLES[status] ?? (status >= 500 ? TITLES[500] : TITLES[400]);
  return (
    <Page title={title} viewer={visit.viewer} csrf={visit.csrf} noindex>
      <h1 safe>{title}</h1>
      <p safe>{message}</p>
      <p>
        <a href="/">Back to the front page</a>
      </p>
    </Page>
  );
}

export const notFoundMessage = "There is nothing here, or it is not visible to you.";

/** The error page of a form's route: `status` and `message`, with the request's viewer in the header (their moderation link included). */
export function webErrorPage(ctx: Ctx, web: Web, status: number, message: string): Response {
  const u = web.viewer?.user;
  const viewer = u ? { username: u.username, displayName: u.displayName, isAdmin: u.isAdmin, moderates: moderatesSomething(ctx, u) } : null;
  return page(web, sync(ErrorPage({ status, message, visit: { caller: web.viewer?.caller ?? null, viewer, csrf: web.csrf } })), status);
}

/** The answer to a page that failed: its HTML error page, never a stack trace. */
export function errorAnswer(ctx: Ctx, request: Request, err: unknown, visit: Visit): Response {
  if (err instanceof ApiError && err.status < 500) {
    // Anything hidden from the reader is "not found", whatever the service's own wording.
    const message = err.status === 404 ? notFoundMessage : err.message;
    const res = htmlAnswer(request, sync(ErrorPage({ status: err.status, message, visit })), err.status);
    for (const [k, v] of Object.entries(err.headers ?? {})) res.headers.set(k, v);
    return res;
  }
  ctx.log.error("page failed", { path: new URL(request.url).pathname, error: String((err as Error)?.stack ?? err) });
  return htmlAnswer(request, sync(ErrorPage({ status: 500, message: "The page could not be shown. Please try again in a moment.", visit })), 500);
}

/**
 * A refused action on a page that is not a form of its own: the error page with the service's
 * status and message (a 404 in the reading pages' words), the session's cookies kept.
 */
export function refusedAction(ctx: Ctx, web: Web, request: Request, err: unknown): Response {
  const f = failure(err);
  const message = f.status === 404 ? notFoundMessage : f.message;
  return page(web, sync(ErrorPage({ status: f.status, message, visit: visitOf(ctx, request) })), f.status, f.headers);
}

/** What a page is: the key of its cached copy (null: never cached) and how to render it. */
export interface PagePlan {
  key: string | null;
  render: (visit: Visit) => JSX.Element | Spliced | Promise<JSX.Element>;
}

/**
 * Answers a page. `plan` reads the request (throwing ApiError 400 for input it refuses) and names
 * everything the page depends on besides the forum's content in `key`; with a key, an anonymous
 * visit is answered from the read cache while no forum write has happened since and for at most
 * its time to live. `render` throws ApiError for pages that do not exist or are not visible.
 */
export async function servePage(ctx: Ctx, request: Request, plan: () => PagePlan): Promise<Response> {
  let visit: Visit | null = null;
  try {
    visit = await visitOf(ctx, request);
    const { key, render } = plan();
    const cache = readCacheOf(ctx);
    if (key === null || visit.caller !== null || cache.budget <= 0) return htmlAnswer(request, await render(visit));
    const stamps = stampOf(ctx);
    const zipped = acceptsGzip(request);
    const entry = `web${zipped ? ".gz" : ""} ${key}`;
    const hit = cache.get(entry, stamps);
    if (hit) return new Response(hit, { headers: headers(isGzip(hit)) });
    // Taken before rendering: a write landing meanwhile makes this copy stale at once.
    const stamp = stamps(PAGE_SCOPES);
    const out = await render(visit);
    const html = typeof out === "string" ? out : out.html;
    const zip = zipped && html.length >= GZIP_MIN_BYTES;
    const body = zip ? gzipPage(html) : encoder.encode(html);
    cache.set(entry, body, PAGE_SCOPES, stamp);
    return new Response(body, { headers: headers(zip) });
  } catch (err) {
    return errorAnswer(ctx, request, err, visit ?? ANONYMOUS);
  }
}

/** The HTML 404 page of a path nothing serves. */
export async function notFoundPage(ctx: Ctx, request: Request): Promise<Response> {
  let visit = ANONYMOUS;
  try {
    visit = await visitOf(ctx, request);
  } catch {}
  return htmlAnswer(request, sync(ErrorPage({ status: 404, message: notFoundMessage, visit })), 404);
}

/** Whether bytes are a gzip stream (a small page is cached unzipped under the gzip key). */
const isGzip = (b: Uint8Array) => b.byteLength > 2 && b[0] === 0x1f && b[1] === 0x8b;
