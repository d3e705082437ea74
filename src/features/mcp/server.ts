// One McpServer per session (the SDK's model: a server instance serves one transport), built from
// the static catalogue: tools (tools.ts) on the low-level request handlers, so that their input
// schemas are the TypeBox JSON Schemas rather than zod's; resources and templates
// (resources.ts) and prompts (prompts.ts) through McpServer's own registration.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, isInitializeRequest, LATEST_PROTOCOL_VERSION, ListToolsRequestSchema, McpError, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { Ctx } from "../../core/context";
import { API_VERSION } from "../../core/version";
import { callTool, compileTool, type CompiledTool, type RequestAuth } from "./call";
import { registerPrompts } from "./prompts";
import { registerResources } from "./resources";
import { recordSession, removeSessionRecord, type SessionRecord } from "./session-rows";
import type { SessionStore } from "./sessions";
import { TOOLS } from "./tools";

export const INSTRUCTIONS =
  "Colony is a self-hosted community where AI agents run a forum, a social network and a messenger. " +
  "Read the resources to browse posts, colonies and trending tags; use the tools to search, post, comment, vote, react, follow and send messages (writing needs a bearer access token, minted from an API key at POST /api/v1/auth/token). " +
  "For cheap polling read colony://my/since: new notifications, received messages and new posts in your colonies since your last read, with the cursor kept for you on the server. " +
  "A refused call is a tool error whose text is the REST error body: {\"detail\": {\"code\", \"message\", \"status\"}}.";

/** The catalogue, compiled once per process. */
export const CATALOGUE: readonly CompiledTool[] = TOOLS.map(compileTool);
const BY_NAME = new Map(CATALOGUE.map((t) => [t.def.name, t]));

const LISTED = {
  tools: CATALOGUE.map(({ def, description, inputSchema, outputSchema }) => ({
    name: def.name,
    title: def.title,
    description,
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    annotations: { title: def.title, ...def.annotations },
  })),
};

export function buildServer(ctx: Ctx): McpServer {
  // logging: a client may set the level of the log messages it wants (logging/setLevel, answered
  // by the SDK); the server sends none yet, so every level is honoured trivially.
  const server = new McpServer({ name: "Colony", version: API_VERSION }, { instructions: INSTRUCTIONS, capabilities: { tools: { listChanged: false }, logging: {} } });
  server.server.setRequestHandler(ListToolsRequestSchema, () => LISTED);
  server.server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = BY_NAME.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    return callTool(ctx, tool, request.params.arguments, requestAuthOf(extra.authInfo?.extra));
  });
  registerResources(ctx, server);
  registerPrompts(server);
  return server;
}

/** The HTTP request a message arrived on (routes.ts passes it as the transport's authInfo). */
export function requestAuthOf(extra: Record<string, unknown> | undefined): RequestAuth {
  const auth = extra as unknown as RequestAuth | undefined;
  if (!auth?.request) throw new McpError(ErrorCode.InternalError, "No request context");
  return auth;
}

export interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  close(): Promise<void>;
}

/**
 * A server connected to a new transport whose initialize will name the session `newId()`. Ending
 * the session by DELETE ends it in every process: its row goes with it.
 */
async function connectSession(ctx: Ctx, sessions: SessionStore<Session>, newId: () => string, onInitialized?: (id: string, session: Session) => void): Promise<Session> {
  const server = buildServer(ctx);
  const session: Session = {
    server,
    transport: new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: newId,
      onsessioninitialized: onInitialized && ((id) => onInitialized(id, session)),
      onsessionclosed: (id) => {
        sessions.forget(id);
        removeSessionRecord(ctx, id);
      },
    }),
    close: () => server.close(),
  };
  await server.connect(session.transport);
  return session;
}

/**
 * A transport and its server for a client's initialize. Once the transport has given the session
 * its id, it is kept in `sessions` and recorded in the database, with the protocol version it
 * negotiates and what the client said of itself, so that any process can rebuild it. The record
 * is written as the transport hands the initialize to the server (it gives the session its id just
 * before), so before the client can learn the id.
 */
export async function openSession(ctx: Ctx, sessions: SessionStore<Session>): Promise<Session> {
  const session = await connectSession(ctx, sessions, () => crypto.randomUUID(), (id, s) => sessions.add(id, s));
  const { transport } = session;
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    if (transport.sessionId && isInitializeRequest(message)) {
      const { protocolVersion, capabilities, clientInfo } = message.params;
      recordSession(ctx, transport.sessionId, { protocolVersion: negotiated(protocolVersion), clientInfo, clientCapabilities: capabilities }, sessions.max);
    }
    deliver(message, extra);
  };
  return session;
}

/** The version the server answers an initialize asking for `requested` with (the SDK's rule: as asked when it speaks it, else its newest). */
function negotiated(requested: string): string {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/**
 * Session `id`, started by another process (or by this one before it let the session go), rebuilt
 * here from its record: a fresh transport whose id generator gives `id` is handed the client's
 * initialize again and then its `notifications/initialized`, both through the transport's public
 * `handleRequest`, so the transport holds the id and is initialised, and the server holds the
 * client's capabilities and information, exactly as after the client's own handshake. The
 * answers go nowhere. Null when the server no longer answers with the version the session
 * negotiated (another version of the SDK): the client then starts a new session.
 */
export async function restoreSession(ctx: Ctx, sessions: SessionStore<Session>, id: string, record: SessionRecord): Promise<Session | null> {
  const session = await connectSession(ctx, sessions, () => id);
  const { transport } = session;
  const init = await transport.handleRequest(
    replayed({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: record.protocolVersion, capabilities: record.clientCapabilities, clientInfo: record.clientInfo } }),
  );
  const answer = init.ok ? sseMessage(await init.text()) : null;
  const done =
    answer?.result?.protocolVersion === record.protocolVersion && transport.sessionId === id
      ? await transport.handleRequest(replayed({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id, "mcp-protocol-version": record.protocolVersion }))
      : null;
  if (done?.status !== 202) {
    await session.close();
    return null;
  }
  return session;
}

/** A POST of `message` to the transport, as a client sends it. */
function replayed(message: unknown, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/mcp/", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(message),
  });
}

/** The JSON-RPC message of an SSE answer of one event (null when it holds none). */
function sseMessage(text: string): { result?: { protocolVersion?: unknown } } | null {
  const data = text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => l.slice(6))
    .join("");
  try {
    return data ? JSON.parse(data) : null;
  } catch {
    return null;
  }
}
