// What the pages of the colony wikis, forecasts, debates, the calendar, time capsules and the
// statistics share (web/areas-routes.ts): reading pages served like every other page (never from
// the anonymous cache: they show counts and answers that change outside the forum's writes), and
// forms of a signed-in person that call a feature's service as the API's route does, charged to
// the same rate limits, answered 303 back (post/redirect/get) or, refused, with the form's page
// again carrying the service's message and status.
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import { isUuid } from "../core/ids";
import type { Page as Paging } from "../core/paging";
import { charge, subjectOf } from "../http/rate-limit";
import { refusedAction, servePage } from "./respond";
import { failure, isSignedIn, page, seeOther, toSignIn, type SignedInWeb, type Web } from "./session";
import { visitOf, type Visit } from "./visit";

/** A reading page: `render` gets the visit (anonymous or signed in) and throws ApiError for what is not there. */
export const readingPage = (ctx: Ctx, request: Request, render: (visit: Visit) => string): Promise<Response> => servePage(ctx, request, () => ({ key: null, render }));

/**
 * A form of a signed-in person: charged to `limits`, then `act`, answered 303 to where it says. A
 * refusal renders `again` (the form's page with the message) with the service's status; a 404, or
 * a page that cannot be shown again, is the error page. A visitor who is not signed in is sent to
 * sign in and come back to `back`.
 */
export function formAction(
  ctx: Ctx,
  web: Web,
  request: Request,
  back: string,
  limits: readonly string[],
  act: (w: SignedInWeb) => string,
  again: (visit: Visit, error: string) => string,
  discriminator?: string,
): Response {
  if (!isSignedIn(web)) return toSignIn(web, back);
  try {
    if (limits.length) charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), limits, discriminator);
    return seeOther(web, act(web));
  } catch (err) {
    const f = failure(err);
    // A 404 is the page's own (it is not there, or hidden); a person named in the form who does not exist is the form's error.
    if (f.status === 404 && !(err instanceof ApiError && err.code === "USER_NOT_FOUND")) return refusedAction(ctx, web, request, err);
    try {
      return page(web, again(visitOf(ctx, request), f.message), f.status, f.headers);
    } catch (again) {
      return refusedAction(ctx, web, request, again);
    }
  }
}

/** A form field as sent (the first value), for showing a refused form again; never checked. */
export const typed = (web: Web, name: string, max = 200_000) => (web.form.getAll(name)[0] ?? "").slice(0, max);

/** A query parameter as a string, or undefined. */
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The fixed text of a `?notice=` key, never text from the address. */
export const noticeOf = (notices: Record<string, string>, raw: unknown): string | null => {
  const key = str(raw);
  return key && Object.hasOwn(notices, key) ? notices[key] : null;
};

/** The paging of `?page=` with `perPage` items: page 1 when absent; a page past `max` is 400. */
export function pageOf(raw: unknown, perPage: number, max = 1000): Paging {
  const s = str(raw);
  const n = s === undefined ? 1 : /^\d{1,5}$/.test(s) ? Number(s) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > max) throw new ApiError(400, "INVALID_INPUT", `page must be a whole number from 1 to ${max}`);
  return { limit: perPage, offset: (n - 1) * perPage, page: n };
}

/** An id of the path: a UUID (as stored, in lower case), or 404. */
export function idOr404(id: string): string {
  if (!isUuid(id)) throw new ApiError(404, "NOT_FOUND", "Not found");
  return id.toLowerCase();
}

/** The reason the service gives for refusing `check`, or null when it passes. */
export function refusalOf(check: () => void): string | null {
  try {
    check();
    return null;
  } catch (err) {
    if (err instanceof ApiError) return err.message;
    throw err;
  }
}
