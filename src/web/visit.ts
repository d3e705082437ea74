// Who is reading a page. Every page asks visitOf(); until people can sign in to the web
// interface, every visit is anonymous, and pages call the feature services as an anonymous API
// caller would (caller null). Signing in fills in the caller, what the header shows of them and
// the CSRF token of the page's forms.
import type { Ctx } from "../core/context";
import type { Caller } from "../features/auth/service";

/** What the layout shows of a signed-in person. */
export interface Viewer {
  username: string;
  displayName: string | null;
  isAdmin: boolean;
}

export interface Visit {
  /** The caller the feature services are asked as; null for an anonymous reader. */
  caller: Caller | null;
  viewer: Viewer | null;
  /** The CSRF token of the visit's forms (signed-in visits only). */
  csrf?: string;
}

export const ANONYMOUS: Visit = { caller: null, viewer: null };

export function visitOf(_ctx: Ctx, _request: Request): Visit | Promise<Visit> {
  return ANONYMOUS;
}
