// Shared helpers of the MCP tests (not a test file itself): the app listening on loopback, and
// the official SDK client connected to it with a bearer token.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Harness } from "../../../test/harness";
import { serverOptions } from "../../http/serve-options";

export interface Listening {
  url: URL;
  stop(): Promise<void>;
}

/** The harness's app (or any app and its context) on 127.0.0.1 and a free port, served as `colony serve` serves it. */
export function listen(h: Pick<Harness, "ctx" | "app">): Listening {
  const server = Bun.serve({ ...serverOptions(h.ctx, h.app), hostname: "127.0.0.1", port: 0 });
  const url = new URL(`http://127.0.0.1:${server.port}/mcp/`);
  return { url, stop: async () => void (await server.stop(true)) };
}

export interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Calls a tool and parses its text: { error: true, body } for a tool error. */
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; body: any; result: CallToolResult }>;
  /** Reads a resource and parses its JSON. */
  read(uri: string): Promise<any>;
  close(): Promise<void>;
}

/** The SDK's own client, connected with `token` (none: anonymous); `fetch` sends its requests (default: the global fetch). */
export async function connect(url: URL, token?: string | null, fetch?: FetchLike): Promise<Connected> {
  const client = new Client({ name: "colony-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, { ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}), ...(fetch ? { fetch } : {}) });
  await client.connect(transport);
  return {
    client,
    transport,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = (result.content[0] as { text: string }).text;
      return { isError: result.isError === true, body: text ? JSON.parse(text) : undefined, result };
    },
    async read(uri) {
      const r = await client.readResource({ uri });
      return JSON.parse((r.contents[0] as { text: string }).text);
    },
    close: () => client.close(),
  };
}

/** A raw JSON-RPC POST to the endpoint (for what the SDK client does not let a test do wrong). */
export async function rpc(url: URL, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC message of a response, whether sent as JSON or as one SSE event. */
export async function messageOf(res: Response): Promise<any> {
  const text = await res.text();
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const data = text
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => l.slice(6))
      .join("");
    return JSON.parse(data);
  }
  return JSON.parse(text);
}

export const initialize = (protocolVersion: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
