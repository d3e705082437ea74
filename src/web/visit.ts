// Who is reading a page. Every page asks visitOf(): a visit with a live session cookie
// (web/session.ts) is the signed-in person, and pages call the feature services as that account's
// API caller would; any other visit is anonymous (caller null). A signed-in visit is never served
// from the anonymous page cache (respond.tsx).
import type { Ctx } from "../core/context";
import type { Caller } from "../features/auth/caller";
import { unreadCount } from "../features/notifications/service";
import { moderatesSomething } from "./moderates";
import { parseCookies, sessionCookieName, webOf } from "./session";

/** What the layout shows of a signed-in person. */
interface Viewer {
  username: string;
  displayName: string | null;
  isAdmin: boolean;
  /** Unread notifications, shown in the header (docs/decisions.md §157). */
  unread?: number;
  /** Whether the header links to the moderation pages. */
  moderates?: boolean;
}

export interface Visit {
  /** The caller the feature services are asked as; null for an anonymous reader. */
  caller: Caller | null;
  viewer: Viewer | null;
  /** The CSRF token of the visit's forms (signed-in visits only). */
  csrf?: string;
}

export const ANONYMOUS: Visit = { caller: null, viewer: null };

export function visitOf(ctx: Ctx, request: Request): Visit {
  // Most page reads carry no session: answered without reading any cookie's session.
  if (!parseCookies(request.headers.get("cookie")).has(sessionCookieName(ctx))) return ANONYMOUS;
  const web = webOf(ctx, request);
  if (!web.viewer) return ANONYMOUS;
  const { user, caller } = web.viewer;
  return { caller, viewer: { username: user.username, displayName: user.displayName, isAdmin: user.isAdmin, unread: unreadCount(ctx, user.id), moderates: moderatesSomething(ctx, user) }, csrf: web.csrf };
}
