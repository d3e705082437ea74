// The MCP endpoint (issue 16): `/mcp/` (and `/mcp`) speaks Streamable HTTP through the official
// SDK's Web-standard transport, in this app and on its port. A POST without `Mcp-Session-Id`
// starts a session (only an `initialize` keeps one); every other request names its session,
// and an unknown or expired one is 404 as the transport answers it. DELETE ends a session.
// Sessions work whichever serving process a request lands on: the database says whether a
// session is open (session-rows.ts), and a process that does not hold it rebuilds it from its
// record (server.ts restoreSession). The bearer token rides on every request and is resolved per
// call, as on the REST routes.
import { Elysia } from "elysia";
import type { Ctx } from "../../core/context";
import { isLoopbackAddress, LOOPBACK_HOSTNAMES } from "../../core/loopback";
import { bearerToken } from "../../core/bearer";
import { ApiError } from "../../core/errors";
import { callerOf, rememberCaller } from "../../http/auth";
import { clientIp } from "../../http/client-ip";
import { callerOfCredential } from "../auth/service";
import { MCP_ACCESS_PREFIX, mcpGrantOf } from "../oauth/authorization";
import type { RequestAuth } from "./call";
import type { Session } from "./server";
import { sessionOpen, sessionRecord } from "./session-rows";
import { sessionsOf } from "./sessions";

/**
 * The MCP server (the SDK, zod, every tool's schemas), loaded by the first request to /mcp rather
 * than at start-up: most instances' starts never need it.
 */
let serverModule: Promise<typeof import("./server")> | null = null;
const mcpServer = () => (serverModule ??= import("./server"));

/** The transport's own JSON-RPC error body (status, code and message as the SDK writes them; `data` as the REST body of a refusal). */
function rpcError(status: number, code: number, message: string, data?: unknown): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message, ...(data === undefined ? {} : { data }) }, id: null }), { status, headers: { "content-type": "application/json" } });
}


/**
 * The host names a request to /mcp may name in its Host and Origin headers (DNS-rebinding
 * protection, MCP transports §security): the public URL's, and the loopback names when the
 * server listens on loopback. A web page on another name whose DNS was pointed at this server
 * cannot reach the tools of a local agent this way. Ports are not compared: a proxy or a
 * container's port mapping changes them, and the attack needs a foreign name.
 */
function mcpHosts(ctx: Ctx): Set<string> {
  const names = new Set([new URL(ctx.config.publicUrl).hostname.toLowerCase()]);
  const host = ctx.config.host;
  if (LOOPBACK_HOSTNAMES.has(host) || isLoopbackAddress(host)) for (const n of LOOPBACK_HOSTNAMES) names.add(n);
  return names;
}

/** The host name of a URL, lower-cased; null when it does not parse. */
function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

export const mcpRoutes = (ctx: Ctx) => {
  const hosts = mcpHosts(ctx);
  /** A 403 for a request whose Host or Origin names a host this server does not answer to. */
  function rebound(request: Request): Response | null {
    // A request made in process (no socket) carries no Host header: its URL's host stands in.
    const host = hostnameOf(`http://${request.headers.get("host") ?? new URL(request.url).host}`);
    if (!host || !hosts.has(host)) return rpcError(403, -32000, "Forbidden: the Host header names a host this server does not answer to");
    const origin = request.headers.get("origin");
    if (origin === null) return null;
    const name = hostnameOf(origin);
    return name && hosts.has(name) ? null : rpcError(403, -32000, "Forbidden: requests from this Origin are not accepted");
  }

  const sessions = sessionsOf<Session>(ctx);
  /** Sessions being rebuilt here, so that requests arriving together share one rebuild. */
  const restoring = new Map<string, Promise<Session | null>>();

  /** The session `id` names if it is open: the one held here, or rebuilt from its record. */
  async function sessionFor(id: string): Promise<Session | null> {
    if (!sessionOpen(ctx, id, sessions.idleMs)) {
      // Ended or expired, maybe in another process: this process lets its copy go too.
      sessions.end(id);
      return null;
    }
    const held = sessions.get(id);
    if (held) return held;
    let pending = restoring.get(id);
    if (!pending) {
      pending = (async () => {
        const record = sessionRecord(ctx, id);
        const session = record && (await (await mcpServer()).restoreSession(ctx, sessions, id, record));
        if (session) sessions.add(id, session);
        return session;
      })().finally(() => restoring.delete(id));
      restoring.set(id, pending);
    }
    return pending;
  }

  const resourceMetadata = `${ctx.config.publicUrl}/.well-known/oauth-protected-resource/mcp`;
  /**
   * 401 with the challenge that starts an MCP client's OAuth sign-in (RFC 9728 §5.1): where the
   * resource's metadata is, and for a token that was sent, why it is refused.
   */
  function unauthorized(reason: string | null): Response {
    const challenge = reason === null ? `Bearer resource_metadata="${resourceMetadata}"` : `Bearer error="invalid_token", error_description="${reason.replace(/["\\]/g, "")}", resource_metadata="${resourceMetadata}"`;
    const res = rpcError(401, -32001, reason ?? "Unauthorized: send a bearer token (an OAuth access token for this endpoint, or an access token of the API)");
    res.headers.set("www-authenticate", challenge);
    return res;
  }

  /**
   * Who a request comes from, checked before anything else: an OAuth client's token (bound to this
   * endpoint, with its scopes), an access token of the API (every scope), or none when the
   * instance serves /mcp/ anonymously. The caller is remembered for the tools and resources.
   */
  async function credentialOf(request: Request): Promise<{ scopes: RequestAuth["scopes"] } | Response> {
    const header = request.headers.get("authorization");
    if (!header) return ctx.config.mcpAnonymous ? { scopes: null } : unauthorized(null);
    const token = bearerToken(header);
    try {
      if (token?.startsWith(MCP_ACCESS_PREFIX)) {
        const grant = mcpGrantOf(ctx, token);
        if (!grant) return unauthorized("The access token is invalid, expired or revoked");
        rememberCaller(request, callerOfCredential(ctx, grant.userId, grant.approvedAt, () => clientIp(ctx, request)));
        return { scopes: grant.scopes };
      }
      await callerOf(ctx, request);
      return { scopes: null };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.status === 401) return unauthorized(err.message);
      return rpcError(err.status, -32001, `${err.code}: ${err.message}`, { detail: { code: err.code, message: err.message, status: err.status, ...err.extra } });
    }
  }

  async function handle(request: Request): Promise<Response> {
    const refused = rebound(request);
    if (refused) return refused;
    const credential = await credentialOf(request);
    if (credential instanceof Response) return credential;
    const authInfo = { token: "", clientId: "colony", scopes: [], extra: { request, ip: clientIp(ctx, request), scopes: credential.scopes } satisfies RequestAuth };
    const id = request.headers.get("mcp-session-id");
    if (id) {
      const session = await sessionFor(id);
      if (!session) return rpcError(404, -32001, "Session not found");
      return session.transport.handleRequest(request, { authInfo });
    }
    if (request.method !== "POST") return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
    const session: Session = await (await mcpServer()).openSession(ctx, sessions);
    const res = await session.transport.handleRequest(request, { authInfo });
    // Anything but an initialize is refused by the fresh transport; only a started session is kept.
    if (!session.transport.sessionId) await session.close();
    return res;
  }

  const options = { parse: "none" as const, detail: { hide: true } };
  const route = ({ request }: { request: Request }) => handle(request);
  return new Elysia({ name: "colony.mcp" })
    .post("/mcp", route, options)
    .get("/mcp", route, options)
    .delete("/mcp", route, options)
    .post("/mcp/", route, options)
    .get("/mcp/", route, options)
    .delete("/mcp/", route, options);
};
