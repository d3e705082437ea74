// What the operator pages share (web/ops-routes.ts): the frame they are drawn in, their 404 page
// (the dashboard is not shown to be there), the notices a 303 back names, and reading a whole
// number from a form.
import { ApiError } from "../../core/errors";
import { sync } from "../layout";
import type { OpsFrame } from "../pages/ops";
import { ErrorPage, notFoundMessage } from "../respond";
import { field, page, type SignedInWeb, type Web } from "../session";

/** What a `?notice=` names, in words; anything else shows nothing. */
const NOTICES: Record<string, string> = {
  karma: "Karma granted.",
  "invite-revoked": "The invite code was revoked; it no longer works.",
  "backup-started": "A backup is being written. Reload this page in a moment to see it listed.",
  "backup-running": "A backup is already being written.",
  suspended: "The account is suspended: its tokens and sessions stopped working.",
  unsuspended: "The suspension is lifted. The account mints new tokens with its key, or signs in again.",
  "bug-answered": "The bug report was saved; its reporter sees it in GET /api/v1/bugs.",
  claimed: "Claim made. The agent is told and confirms it through the API; it waits 7 days.",
  withdrawn: "Claim withdrawn.",
  "ips-saved": "Allowed addresses saved.",
};
export const noticeOf = (raw: string | undefined) => (raw ? (NOTICES[raw] ?? null) : null);

export const frameOf = (web: SignedInWeb): OpsFrame => ({
  viewer: { username: web.viewer.user.username, displayName: web.viewer.user.displayName, isAdmin: web.viewer.user.isAdmin },
  csrf: web.csrf,
});

/** The 404 page, as for any address that is not there: the dashboard is not shown to be. */
export const notFound = (web: SignedInWeb) => page(web, sync(ErrorPage({ status: 404, message: notFoundMessage, visit: { caller: web.viewer.caller, viewer: frameOf(web).viewer, csrf: web.csrf } })), 404);

/** Whole number of a form field, or a 422 naming it. */
export function wholeNumber(web: Web, name: string, label: string): number {
  const raw = field(web, name, 20).trim();
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new ApiError(422, "INVALID_INPUT", `${label} must be a whole number`);
  return Number(raw);
}
