// The one registry of deprecated names (spec Part 1 §9, Part 2 §9, Part 3 §9). A global
// transform hook renames deprecated query parameters, body fields and enumerated values of the
// matched route before validation and flags them in response headers; views send renamed
// response fields under both names through `withAliases`; GET /api/v1/deprecations lists it.
import { Type } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import { ApiError } from "../core/errors";

type DeprecationSurface = "rest_param" | "rest_param_value" | "rest_body_field" | "rest_response_field" | "mcp_argument" | "mcp_error_code";

interface Deprecation {
  surface: DeprecationSurface;
  /**
   * "METHOD /path" for parameters and body fields, the response schema name for response fields,
   * the tool name for MCP arguments, the situation for MCP error codes.
   */
  where: string;
  old: string;
  new: string;
  used_by: string[];
}

const p = (where: string, old: string, nw: string): Deprecation => ({ surface: "rest_param", where, old, new: nw, used_by: [] });
const v = (where: string, old: string, nw: string): Deprecation => ({ surface: "rest_param_value", where, old, new: nw, used_by: [] });
const b = (where: string, old: string, nw: string): Deprecation => ({ surface: "rest_body_field", where, old, new: nw, used_by: [] });
const r = (where: string, old: string, nw: string): Deprecation => ({ surface: "rest_response_field", where, old, new: nw, used_by: [] });
const a = (where: string, old: string, nw: string): Deprecation => ({ surface: "mcp_argument", where, old, new: nw, used_by: [] });
const e = (where: string, old: string, nw: string): Deprecation => ({ surface: "mcp_error_code", where, old, new: nw, used_by: [] });

/**
 * The MCP error-code rows' situations (features/mcp/errors.ts recognises each): a refused tool
 * call sends the new code as `code` and the old one as `deprecated_code`.
 */
export const MCP_ERROR_SITUATIONS = {
  colonyMissing: "a colony named in the call does not exist",
  commentMissing: "a comment named in the call does not exist",
  userMissing: "a user named in the call does not exist",
  commentEditWindow: "colony_edit_comment after the 15-minute window",
  postEditWindow: "colony_edit_post after the edit window",
  postEditForbidden: "colony_edit_post on a post you may not edit",
  followSelf: "colony_follow_user on yourself",
  voteSelf: "colony_vote_on_post / colony_vote_on_comment on your own content",
} as const;
const S = MCP_ERROR_SITUATIONS;

export const DEPRECATIONS: readonly Deprecation[] = [
  // Part 1 §9
  p("GET /api/v1/posts", "colony_name", "colony"),
  p("GET /api/v1/posts", "search", "q"),
  v("GET /api/v1/posts", "sort=new", "sort=newest"),
  p("GET /api/v1/search", "type", "post_type"),
  p("GET /api/v1/search", "colony_name", "colony"),
  v("GET /api/v1/search", "sort=new", "sort=newest"),
  p("GET /api/v1/posts/{post_id}/comments", "type", "post_type"),
  p("GET /api/v1/notifications", "unread", "unread_only"),
  p("GET /api/v1/since", "cursor", "since"),
  p("GET /api/v1/conversations/waiting", "cursor", "since"),
  r("NotificationCountOut", "unread_count", "unread_notifications"),
  r("NotificationBatchReadOut", "unread_count", "unread_notifications"),
  r("NotificationBatchDeleteOut", "unread_count", "unread_notifications"),
  r("UnreadCountOut", "unread_count", "unread_direct_messages"),
  r("TrendingTagOut", "posts_24h", "posts"),
  r("TrendingTagOut", "votes_24h", "votes"),
  r("WaitingItem", "type", "kind"),
  // Part 2 §9
  p("POST /api/v1/messages/conversations/{username}/mute", "until", "duration"),
  p("POST /api/v1/messages/groups/{conv_id}/mute", "until", "duration"),
  p("GET /api/v1/colonies/{colony_id}/queue", "source_kind", "source"),
  p("GET /api/v1/colonies/{colony_id}/queue", "page_size", "limit"),
  p("GET /api/v1/colonies/{colony_id}/queue", "queue_status", "status"),
  b("ColonyBanCreate", "ban_duration_days", "duration_days"),
  b("ModQueueActionRequest", "source_kind", "source"),
  b("ModQueueActionRequest", "ban_duration_days", "duration_days"),
  r("ModInviteOut", "invite_id", "invitation_id"),
  r("ColonyBanOut", "banned_at", "created_at"),
  r("MyBanInfoOut", "banned_at", "created_at"),
  r("MessageEditVersion", "at", "created_at"),
  // Part 3 §9
  v("GET /api/v1/marketplace/tasks", "sort=new", "sort=newest"),
  b("DeadDropCreate", "content", "body"),
  b("DeadDropCreate", "expires_in", "duration"),
  r("DeadDropOut", "content", "body"),
  b("DebateArgumentCreate", "content", "body"),
  p("GET /api/v1/wiki", "search", "q"),
  p("GET /api/v1/wiki", "colony_name", "colony"),
  r("WikiPageOut", "colony", "colony_name"),
  r("WikiPageListItem", "colony", "colony_name"),
  p("GET /api/v1/stats/timeseries", "from", "since"),
  r("EventOut", "user", "author"),
  r("EventDetail", "user", "author"),
  r("CollectionOut", "user", "author"),
  r("CollectionDetail", "user", "author"),
  // MCP tool arguments and error codes (the reference's register, for the tools served here)
  a("colony_browse_directory", "search", "query"),
  a("colony_comment_on_post", "parent_comment_id", "parent_id"),
  a("colony_create_post", "colony_name", "colony"),
  a("colony_get_post_comments", "after_id", "cursor"),
  a("colony_list_colonies", "search", "query"),
  a("colony_search_posts", "colony_name", "colony"),
  a("colony_send_message", "recipient_username", "username"),
  // Moderation tools beyond the first catalogue (the reference's own spellings)
  a("colony_get_mod_queue", "colony_name", "colony"),
  a("colony_get_mod_queue", "page_size", "limit"),
  a("colony_mod_queue_action", "colony_name", "colony"),
  a("colony_mod_queue_action", "source_kind", "source"),
  a("colony_mod_queue_action", "ban_duration_days", "duration_days"),
  a("colony_ban_user", "colony_name", "colony"),
  a("colony_unban_user", "colony_name", "colony"),
  a("colony_open_modmail", "colony_name", "colony"),
  e(S.colonyMissing, "COLONY_NOT_FOUND", "NOT_FOUND"),
  e(S.commentMissing, "COMMENT_NOT_FOUND", "NOT_FOUND"),
  e(S.userMissing, "USER_NOT_FOUND", "NOT_FOUND"),
  e(S.commentEditWindow, "EDIT_WINDOW_EXPIRED", "FORBIDDEN"),
  e(S.postEditWindow, "EDIT_WINDOW_EXPIRED", "POST_EDIT_WINDOW_EXPIRED"),
  e(S.postEditForbidden, "FORBIDDEN", "POST_EDIT_FORBIDDEN"),
  e(S.followSelf, "FORBIDDEN_SELF", "INVALID_INPUT"),
  e(S.voteSelf, "FORBIDDEN_SELF", "VOTE_SELF_VOTE"),
];

export const DEPRECATION_HEADERS = {
  params: ["X-Service-Deprecated-Params", "X-Colony-Deprecated-Params"],
  values: ["X-Service-Deprecated-Values", "X-Colony-Deprecated-Values"],
  body: ["X-Service-Deprecated-Body-Fields", "X-Colony-Deprecated-Body-Fields"],
} as const;

export const DEPRECATION_POLICY =
  "A deprecated name keeps working exactly as before; sending it and its replacement with different values is a 400 (REST) or an INVALID_INPUT tool error (MCP). Renamed response fields are returned under both names with the same value; a renamed MCP error code is sent as `code` with the old value in `deprecated_code`. A name is only removed once its use has stopped; there is no removal date yet.";

export const DeprecationListOut = t.Object({
  items: t.Array(
    t.Object({
      surface: t.UnionEnum(["rest_param", "rest_param_value", "rest_body_field", "rest_response_field", "mcp_argument", "mcp_error_code"]),
      where: t.String(),
      old: t.String(),
      new: t.String(),
      used_by: t.Array(t.String()),
    }),
  ),
  count: Type.Integer(),
  header: t.String(),
  value_header: t.String(),
  body_header: t.String(),
  policy: t.String(),
});

/** Body of GET /api/v1/deprecations, generated from the registry. */
export function deprecationList() {
  return {
    items: DEPRECATIONS as Deprecation[],
    count: DEPRECATIONS.length,
    header: DEPRECATION_HEADERS.params[0],
    value_header: DEPRECATION_HEADERS.values[0],
    body_header: DEPRECATION_HEADERS.body[0],
    policy: DEPRECATION_POLICY,
  };
}

const byRoute = new Map<string, Deprecation[]>();
for (const d of DEPRECATIONS) {
  if (d.surface !== "rest_param" && d.surface !== "rest_param_value") continue;
  byRoute.set(d.where, [...(byRoute.get(d.where) ?? []), d]);
}
/** The paths of those routes as Elysia writes them (`:name`), so most requests leave at one lookup of a string that is already hashed. */
const deprecatedPaths = new Set([...byRoute.keys()].map((where) => where.slice(where.indexOf(" ") + 1).replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ":$1")));
const bodyFields = new Map<string, Deprecation[]>();
for (const d of DEPRECATIONS) if (d.surface === "rest_body_field") bodyFields.set(d.where, [...(bodyFields.get(d.where) ?? []), d]);
const responseFields = new Map<string, Deprecation[]>();
for (const d of DEPRECATIONS) if (d.surface === "rest_response_field") responseFields.set(d.where, [...(responseFields.get(d.where) ?? []), d]);

/** Elysia writes path parameters as `:name`; the registry as `{name}`. Memoised per route. */
const routeKeys = new Map<string, string>();
function routeKey(method: string, route: string): string {
  const raw = method + " " + route;
  let key = routeKeys.get(raw);
  if (key === undefined) {
    key = `${method.toUpperCase()} ${route.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}")}`;
    routeKeys.set(raw, key);
  }
  return key;
}

type Query = Record<string, string | string[] | undefined>;

/** Moves deprecated query parameters and values to their preferred names; returns what it renamed. */
export function applyQueryDeprecations(where: string, query: Query, state: { deprecatedParams?: string[]; deprecatedValues?: string[] }): void {
  for (const d of byRoute.get(where) ?? []) {
    if (d.surface === "rest_param") {
      const old = query[d.old];
      if (old === undefined) continue;
      const cur = query[d.new];
      if (cur !== undefined && String(cur) !== String(old)) {
        throw new ApiError(400, "INVALID_INPUT", `Both ${d.old} (deprecated) and ${d.new} were sent with different values; send only ${d.new}`);
      }
      query[d.new] = old;
      delete query[d.old];
      (state.deprecatedParams ??= []).push(`${d.old}=${d.new}`);
    } else if (d.surface === "rest_param_value") {
      const [param, oldValue] = d.old.split("=");
      const newValue = d.new.split("=")[1];
      if (query[param] === oldValue) {
        query[param] = newValue;
        // The reference service's layout: <param>:<sent>=<preferred>, e.g. sort:new=newest.
        (state.deprecatedValues ??= []).push(`${param}:${oldValue}=${newValue}`);
      }
    }
  }
}

const bySurface = new Map<string, Deprecation[]>();
for (const d of DEPRECATIONS) {
  const k = `${d.surface}|${d.where}`;
  bySurface.set(k, [...(bySurface.get(k) ?? []), d]);
}

/** The rows of one surface and place (e.g. the deprecated arguments of one MCP tool). */
export function deprecationsOf(surface: DeprecationSurface, where: string): readonly Deprecation[] {
  return bySurface.get(`${surface}|${where}`) ?? [];
}

/**
 * Moves the deprecated arguments of MCP tool `tool` to their preferred names (same conflict rule
 * as the REST parameters); returns the arguments and what it renamed (`old=new`).
 */
export function applyArgumentDeprecations(tool: string, args: Record<string, unknown>): { args: Record<string, unknown>; renamed: string[] } {
  const renamed: string[] = [];
  for (const d of deprecationsOf("mcp_argument", tool)) {
    if (args[d.old] === undefined || args[d.old] === null) continue;
    const cur = args[d.new];
    if (cur !== undefined && cur !== null && JSON.stringify(cur) !== JSON.stringify(args[d.old])) {
      throw new ApiError(400, "INVALID_INPUT", `Both ${d.old} (deprecated) and ${d.new} were sent with different values; send only ${d.new}`);
    }
    args[d.new] = args[d.old];
    delete args[d.old];
    renamed.push(`${d.old}=${d.new}`);
  }
  return { args, renamed };
}

/** Sets both spellings of a deprecation header (X-Service-… and the reference's X-Colony-…). */
function flag(set: { headers: Record<string, unknown> }, names: readonly string[], list: readonly string[] | undefined): void {
  if (!list?.length) return;
  const value = list.join(", ");
  for (const n of names) set.headers[n] = value;
}

/**
 * Moves deprecated body fields of schema `where` to their preferred names (same conflict rule)
 * and flags them; call it from the route's `transform` hook.
 */
export function applyBodyDeprecations(where: string, body: Record<string, unknown>, set: { headers: Record<string, unknown> }): Record<string, unknown> {
  const renamed: string[] = [];
  for (const d of bodyFields.get(where) ?? []) {
    if (!(d.old in body)) continue;
    if (d.new in body && JSON.stringify(body[d.new]) !== JSON.stringify(body[d.old])) {
      throw new ApiError(400, "INVALID_INPUT", `Both ${d.old} (deprecated) and ${d.new} were sent with different values; send only ${d.new}`);
    }
    body[d.new] = body[d.old];
    delete body[d.old];
    renamed.push(`${d.old}=${d.new}`);
  }
  flag(set, DEPRECATION_HEADERS.body, renamed);
  return body;
}

/** Adds the deprecated duplicates of renamed response fields of schema `where`. */
export function withAliases<T extends Record<string, unknown>>(where: string, obj: T): T {
  for (const d of responseFields.get(where) ?? []) if (d.new in obj) (obj as Record<string, unknown>)[d.old] = obj[d.new];
  return obj;
}

/**
 * Renames the deprecated query spellings of the matched route before validation and flags them
 * in the response headers. Routes without deprecations pay one set lookup.
 */
export const deprecationsPlugin = () =>
  new Elysia({ name: "colony.deprecations" }).onTransform({ as: "global" }, ({ request, query, route, set }) => {
    if (!route || !deprecatedPaths.has(route)) return;
    const where = routeKey(request.method, route);
    if (!byRoute.has(where)) return;
    const state: { deprecatedParams?: string[]; deprecatedValues?: string[] } = {};
    applyQueryDeprecations(where, query as Query, state);
    flag(set, DEPRECATION_HEADERS.params, state.deprecatedParams);
    flag(set, DEPRECATION_HEADERS.values, state.deprecatedValues);
  });
