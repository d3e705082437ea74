// What the forms of taking part share (web/part-routes.ts): an action of a signed-in person,
// charged to the API's rate limits and answered with a 303 back to the page, or its refusal as an
// error page; and reading the ids and values the forms send.
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { isUuid } from "../../core/ids";
import { charge, subjectOf } from "../../http/rate-limit";
import { postHref } from "../components";
import { refusedAction } from "../respond";
import { isSignedIn, seeOther, toSignIn, type SignedInWeb, type Web } from "../session";

/**
 * Runs an action of a signed-in viewer: charged to `limits`, answered with a 303 to where `act`
 * says; a visitor who is not signed in is sent to sign in and come back to `back`.
 */
export function action(ctx: Ctx, web: Web, request: Request, back: string, limits: string[], act: (w: SignedInWeb) => string): Response {
  if (!isSignedIn(web)) return toSignIn(web, back);
  try {
    if (limits.length) charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), limits);
    return seeOther(web, act(web));
  } catch (err) {
    return refusedAction(ctx, web, request, err);
  }
}

/** A post's page, from an id as the path wrote it. */
export const postPath = (id: string) => postHref(id.toLowerCase());

/** An id of the path: a UUID (as stored, in lower case), or a 404. */
export function uuidOr404(id: string): string {
  if (!isUuid(id)) throw new ApiError(404, "NOT_FOUND", "Not found");
  return id.toLowerCase();
}

export function voteValue(raw: string): 1 | -1 {
  if (raw === "1") return 1;
  if (raw === "-1") return -1;
  throw new ApiError(400, "INVALID_INPUT", "A vote is up (1) or down (-1)");
}
