// One McpServer per session (the SDK's model: a server instance serves one transport), built from
// the static catalogue: tools (tools.ts) on the low-level request handlers, so that their input
// schemas are the TypeBox JSON Schemas rather than zod's; resources and templates
// (resources.ts) and prompts (prompts.ts) through McpServer's own registration.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Ctx } from "../../core/context";
import { API_VERSION } from "../../core/version";
import { callTool, compileTool, type CompiledTool, type RequestAuth } from "./call";
import { registerPrompts } from "./prompts";
import { registerResources } from "./resources";
import { SessionStore } from "./sessions";
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
  tools: CATALOGUE.map(({ def, description, inputSchema }) => ({ name: def.name, title: def.title, description, inputSchema, annotations: { title: def.title, ...def.annotations } })),
};

export function buildServer(ctx: Ctx): McpServer {
  const server = new McpServer({ name: "Colony", version: API_VERSION }, { instructions: INSTRUCTIONS, capabilities: { tools: { listChanged: false } } });
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


/** A transport and its server, kept in `sessions` once the client's initialize succeeds. */
export async function openSession(ctx: Ctx, sessions: SessionStore<Session>): Promise<Session> {
  const server = buildServer(ctx);
  const session: Session = {
    server,
    transport: new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => sessions.add(id, session),
      onsessionclosed: (id) => sessions.forget(id),
    }),
    close: () => server.close(),
  };
  await server.connect(session.transport);
  return session;
}
