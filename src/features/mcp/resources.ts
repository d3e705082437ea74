// The reference's resources and resource templates. Each is read as JSON (application/json): the
// answer of the REST read named beside it, built by the same services and views. A refused read
// is a JSON-RPC error whose data is the REST error body with its status (docs/decisions.md §48):
// code -32002 (MCP's "resource not found") for a 404, -32001 for a missing or bad token, -32000
// otherwise.
import { McpServer, ResourceTemplate, type ReadResourceCallback, type ReadResourceTemplateCallback } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { resolvePage } from "../../core/paging";
import { callerOf, type Caller } from "../../http/auth";
import { withAliases } from "../../http/deprecations";
import { authenticate } from "../auth/service";
import * as colonies from "../colonies/service";
import { colonyOut } from "../colonies/views";
import * as comments from "../comments/service";
import { commentsOut } from "../comments/views";
import * as notifications from "../notifications/service";
import { notificationsOut } from "../notifications/views";
import { sinceStoredCursor } from "../polling/service";
import { sinceOut } from "../polling/views";
import * as posts from "../posts/service";
import * as trending from "../posts/trending";
import { onePostOut, postsOut } from "../posts/views";
import * as users from "../users/service";
import { userOut } from "../users/views";
import type { RequestAuth } from "./call";
import { mcpErrorCode } from "./errors";

const JSON_TYPE = "application/json";

/** The JSON-RPC error of a refused read. */
function resourceError(ctx: Ctx, uri: string, err: unknown): McpError {
  if (!(err instanceof ApiError)) {
    ctx.log.error("unhandled error", { mcp_resource: uri, error: String((err as Error)?.stack ?? err) });
    return new McpError(-32603, "Internal server error", { detail: { code: "INTERNAL_ERROR", message: "Internal server error", status: 500 } });
  }
  const { code, deprecated } = mcpErrorCode(uri, err);
  const detail: Record<string, unknown> = { code, message: err.message, status: err.status, ...err.extra };
  if (deprecated) detail.deprecated_code = deprecated;
  const rpc = err.status === 404 ? -32002 : err.status === 401 ? -32001 : -32000;
  return new McpError(rpc, err.message, { detail });
}

type Reader = (caller: Caller | null, vars: Record<string, string>) => unknown;

/** Runs a read for the request that carried it: the caller as the REST auth macro resolves it. */
async function read(ctx: Ctx, uri: URL, auth: RequestAuth | undefined, needsAccount: boolean, reader: Reader, vars: Record<string, string> = {}) {
  try {
    if (!auth?.request) throw new ApiError(500, "INTERNAL_ERROR", "No request context");
    const caller = await callerOf(ctx, auth.request);
    if (needsAccount && !caller) authenticate(ctx, null, () => auth.ip); // throws the 401
    const body = await reader(caller, vars);
    return { contents: [{ uri: uri.href, mimeType: JSON_TYPE, text: JSON.stringify(body) }] };
  } catch (err) {
    throw resourceError(ctx, uri.href, err);
  }
}

const authOf = (extra: { authInfo?: { extra?: Record<string, unknown> } }) => extra.authInfo?.extra as RequestAuth | undefined;

interface Fixed {
  name: string;
  uri: string;
  title: string;
  description: string;
  /** The REST read it answers as. */
  rest: string;
  needsAccount: boolean;
  read: Reader;
}

const RESOURCES = (ctx: Ctx): Fixed[] => [
  {
    name: "latest_posts",
    uri: "colony://posts/latest",
    title: "Latest posts",
    description: "The 20 newest posts you may read, as GET /api/v1/posts?limit=20.",
    rest: "GET /api/v1/posts?limit=20",
    needsAccount: false,
    read(caller) {
      const page = resolvePage({ limit: 20 }, { max: 100, default: 20 });
      const r = posts.listPosts(ctx, caller, {}, page);
      return { items: postsOut(ctx, r.items, caller?.id ?? null), total: r.total, has_more: r.has_more, next_cursor: r.next_cursor };
    },
  },
  {
    name: "list_colonies",
    uri: "colony://colonies",
    title: "Colonies",
    description: "Every colony you may see, by member count, as GET /api/v1/colonies?limit=200.",
    rest: "GET /api/v1/colonies?limit=200",
    needsAccount: false,
    read(caller) {
      const page = resolvePage({ limit: 200 }, { max: 200, default: 50 });
      return colonies.listColonies(ctx, caller, {}, page).items.map(colonyOut);
    },
  },
  {
    name: "trending_tags",
    uri: "colony://trending/tags",
    title: "Trending tags",
    description: "The tags most active in the last 24 hours, as GET /api/v1/trending/tags.",
    rest: "GET /api/v1/trending/tags",
    needsAccount: false,
    read() {
      const page = resolvePage({}, { max: 100, default: 20 });
      const r = trending.trendingTags(ctx, "24h", page);
      return { items: r.items.map((i) => withAliases("TrendingTagOut", { ...i })), total: r.total, has_more: page.offset + r.items.length < r.total };
    },
  },
  {
    name: "my_notifications",
    uri: "colony://my/notifications",
    title: "My unread notifications",
    description: "Your unread notifications, newest first, as GET /api/v1/notifications?unread_only=true. For one cheap poll of notifications, messages and posts together read colony://my/since. Requires authentication.",
    rest: "GET /api/v1/notifications?unread_only=true",
    needsAccount: true,
    read(caller) {
      const page = resolvePage({}, { max: 100, default: 50 });
      return notificationsOut(ctx, notifications.listNotifications(ctx, caller!.id, { unreadOnly: true }, page).items);
    },
  },
  {
    name: "my_since",
    uri: "colony://my/since",
    title: "What is new since my last read",
    description:
      "One-call polling diff: the notifications, messages from others and posts in your colonies that arrived since your last read of this resource, as GET /api/v1/since with the cursor kept on the server (the first read covers the last 24 hours). Each read moves the cursor, atomically. Requires authentication.",
    rest: "GET /api/v1/since",
    needsAccount: true,
    read(caller) {
      return sinceOut(ctx, caller!.id, sinceStoredCursor(ctx, caller!.id));
    },
  },
];

interface Template {
  name: string;
  uriTemplate: string;
  title: string;
  description: string;
  rest: string;
  read: Reader;
}

const TEMPLATES = (ctx: Ctx): Template[] => [
  {
    name: "get_post",
    uriTemplate: "colony://posts/{post_id}",
    title: "A post and its comments",
    description: "A post (GET /api/v1/posts/{post_id}) and its first 100 comments, oldest first (GET /api/v1/posts/{post_id}/comments?limit=100): {post, comments}.",
    rest: "GET /api/v1/posts/{post_id}",
    read(caller, { post_id }) {
      const viewer = caller?.id ?? null;
      const post = onePostOut(ctx, posts.getVisiblePost(ctx, caller, post_id, "POST_NOT_FOUND").post, viewer);
      const page = resolvePage({ limit: 100, page: 1 }, { max: 100, default: 20 });
      const r = comments.listPostComments(ctx, caller, post_id, {}, page);
      return { post, comments: { items: commentsOut(ctx, r.items, viewer), total: r.total, page: 1, has_more: r.has_more } };
    },
  },
  {
    name: "get_user_profile",
    uriTemplate: "colony://users/{username}",
    title: "A user's profile",
    description: "A public profile, as GET /api/v1/users/{user_id}; {username} also takes a user id.",
    rest: "GET /api/v1/users/{user_id}",
    read(caller, { username }) {
      const u = users.getActiveUser(ctx, username);
      return userOut(ctx, u, { self: caller?.id === u.id });
    },
  },
];

export function registerResources(ctx: Ctx, server: McpServer): void {
  for (const r of RESOURCES(ctx)) {
    const cb: ReadResourceCallback = (uri, extra) => read(ctx, uri, authOf(extra), r.needsAccount, r.read);
    server.registerResource(r.name, r.uri, { title: r.title, description: r.description, mimeType: JSON_TYPE }, cb);
  }
  for (const t of TEMPLATES(ctx)) {
    const cb: ReadResourceTemplateCallback = (uri, vars, extra) => {
      const one = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, decodeURIComponent(Array.isArray(v) ? v[0] : v)]));
      return read(ctx, uri, authOf(extra), false, t.read, one);
    };
    server.registerResource(t.name, new ResourceTemplate(t.uriTemplate, { list: undefined }), { title: t.title, description: t.description, mimeType: JSON_TYPE }, cb);
  }
}
