// What the marketplace's route files (web/market-*.ts) share: reading the query and the form,
// the ids of paths, a signed-in person's action answered 303 back to its page, and a refusal shown
// as the page again with the service's status and message (or the 404 page for what is not there).
import type { Ctx } from "../core/context";
import { ApiError, FieldError } from "../core/errors";
import { isUuid } from "../core/ids";
import { charge, subjectOf } from "../http/rate-limit";
import { notFoundMessage, webErrorPage } from "./respond";
import { failure, isSignedIn, page, seeOther, toSignIn, type SignedInWeb, type Web } from "./session";
import { visitOf, type Visit } from "./visit";

export const PER_PAGE = 20;

/** The query as strings: the first value of a repeated parameter. */
export function strings(query: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(query)) out[k] = typeof v === "string" ? v : Array.isArray(v) && typeof v[0] === "string" ? v[0] : undefined;
  return out;
}

/** A page number from the query: 1 unless a whole number from 1 to 4000. */
export const pageOf = (v: string | undefined) => Math.min(Math.max(1, Math.floor(Number(v ?? 1)) || 1), 4000);

/** `v` when it is one of `values`, else "" (a filter that does not bind is no filter). */
export const oneOf = (v: string | undefined, values: readonly string[]): string => (v !== undefined && values.includes(v) ? v : "");

/** An id of the path: a UUID as stored (lower case), or a 404. */
export function idOr404(id: string): string {
  if (!isUuid(id)) throw new ApiError(404, "NOT_FOUND", "Not found");
  return id.toLowerCase();
}

/**
 * A whole number of sats from a form field: empty or anything else than digits is a 422 naming
 * the field (the service checks the range itself, with its own message).
 */
export function satsField(web: Web, name: string, label: string): number {
  const all = web.form.getAll(name);
  const raw = (all[0] ?? "").trim();
  if (all.length !== 1 || !/^\d{1,12}$/.test(raw)) throw new FieldError(["body", name], `${label} must be a whole number of sats`);
  return Number(raw);
}

/** A notice named by `?notice=` (the 303 of a form done), from the page's own list. */
export const noticeOf = (query: Record<string, unknown>, notices: Record<string, string>) => {
  const k = strings(query).notice ?? "";
  return Object.hasOwn(notices, k) ? notices[k] : null;
};

/** The 404 page (anything hidden from the person is "not found", whatever the service's wording). */
export const notFoundPage = (ctx: Ctx, web: Web) => webErrorPage(ctx, web, 404, notFoundMessage);

/**
 * A signed-in person's form on the page at `back`: charged to the API route's `limits`, then
 * `act` calls the service and names where to go (a 303); a visitor who is not signed in is sent
 * to sign in and come back. A refusal shows `again(visit, error)` with the service's status, or
 * the 404 page for anything not there or not visible.
 */
export async function formAction(
  ctx: Ctx,
  web: Web,
  request: Request,
  o: { back: string; limits?: string[]; act: (w: SignedInWeb) => string | Promise<string>; again: (visit: Visit, error: string) => string | Promise<string> },
): Promise<Response> {
  if (!isSignedIn(web)) return toSignIn(web, o.back);
  try {
    if (o.limits?.length) charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), o.limits);
    return seeOther(web, await o.act(web));
  } catch (err) {
    const f = failure(err);
    if (f.status === 404) return notFoundPage(ctx, web);
    let html: string;
    try {
      html = await o.again(visitOf(ctx, request), f.message);
    } catch (again) {
      // The page itself went away meanwhile (a post deleted): the plain error page.
      const g = failure(again);
      return webErrorPage(ctx, web, g.status, g.status === 404 ? notFoundMessage : g.message);
    }
    return page(web, html, f.status, f.headers);
  }
}
