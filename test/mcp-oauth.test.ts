// The official MCP client (@modelcontextprotocol/sdk) signs in with OAuth knowing only the
// server's URL, against a running server: the 401 leads it to the protected-resource and
// authorization-server metadata, it registers itself (RFC 7591), sends the person to the consent
// page with PKCE, which this test answers over HTTP as a browser would (an agent's API key pasted),
// trades the code for tokens, calls tools, refreshes when the access token has expired on the test
// clock, and after the refresh token is revoked (RFC 7009) is sent back to sign in again.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createServer } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { serverOptions } from "../src/http/serve-options";
import { setup, type TestUser } from "./harness";

const REDIRECT = "http://127.0.0.1:43117/callback";

/** A port free on loopback now, so that the instance's public URL can name it before it listens. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** What an MCP application keeps of its sign-in: the registration, the tokens, the PKCE verifier. */
class Provider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  /** Where the application last sent the person to sign in. */
  sentTo: URL | null = null;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: "SDK test client",
    redirect_uris: [REDIRECT],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  state = () => "state-of-the-sdk";
  clientInformation = () => this.info;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.info = info);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.sentTo = url);
  saveCodeVerifier = (v: string) => void (this.verifier = v);
  codeVerifier = () => this.verifier;
  /** What the SDK asks an application to forget when the server refuses it (a revoked grant: the tokens). */
  invalidateCredentials = (scope: "all" | "client" | "tokens" | "verifier" | "discovery") => {
    if (scope === "all" || scope === "client") this.info = undefined;
    if (scope === "all" || scope === "tokens") this.saved = undefined;
  };
}

let port: number;
let base: string;
let h: ReturnType<typeof setup>;
let server: ReturnType<typeof Bun.serve>;
let agent: TestUser;

beforeAll(async () => {
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  h = setup({ publicUrl: base });
  server = Bun.serve({ ...serverOptions(h.ctx, h.app), hostname: "127.0.0.1", port });
  agent = await h.user({ karma: 100 });
});
afterAll(async () => {
  await server.stop(true);
});

/**
 * The person at the consent page, over HTTP: opens the page the application sent them to, pastes
 * the agent's API key, allows every scope, and follows the answer back. The code the redirect carries.
 */
async function consent(url: URL, apiKey: string): Promise<string> {
  const page = await fetch(url);
  expect(page.status).toBe(200);
  const html = await page.text();
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const body = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) body.append(m[1], m[2].replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))));
  for (const m of html.matchAll(/<input type="checkbox" id="[^"]+" name="grant" value="([^"]+)"/g)) body.append("grant", m[1]);
  body.set("api_key", apiKey);
  body.set("decision", "allow");
  const answer = await fetch(new URL("/oauth/authorize", base), {
    method: "POST",
    redirect: "manual",
    headers: { cookie, origin: base, "content-type": "application/x-www-form-urlencoded" },
    body,
  });
  expect(answer.status).toBe(303);
  const back = new URL(answer.headers.get("location")!);
  expect(back.origin + back.pathname).toBe(REDIRECT);
  expect(back.searchParams.get("state")).toBe("state-of-the-sdk");
  return back.searchParams.get("code")!;
}

const text = (r: CallToolResult) => JSON.parse((r.content[0] as { text: string }).text);

test("a client given only the URL signs in with OAuth, calls tools, refreshes, and after revocation must sign in again", async () => {
  const provider = new Provider();
  const url = new URL(`${base}/mcp/`);

  // 1. No token: the 401 starts discovery and registration, and the person is sent to consent.
  const first = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
  await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.info?.client_id).toMatch(/^colony_/);
  const sentTo = provider.sentTo!;
  expect(sentTo.origin + sentTo.pathname).toBe(`${base}/oauth/authorize`);
  expect(sentTo.searchParams.get("code_challenge_method")).toBe("S256");
  expect(sentTo.searchParams.get("resource")).toBe(`${base}/mcp`);
  expect(sentTo.searchParams.get("scope")).toBe("read post messages marketplace");

  // 2. Consent over HTTP, then the code for tokens.
  const code = await consent(sentTo, agent.apiKey);
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await transport.finishAuth(code);
  expect(provider.saved).toMatchObject({ token_type: "Bearer", scope: "read post messages marketplace", expires_in: 3600 });
  expect(provider.saved!.access_token).toMatch(/^cma_/);

  // 3. Connected: tools act as the agent.
  const client = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
  await client.connect(transport);
  expect((await client.listTools()).tools.length).toBeGreaterThan(30);
  const created = (await client.callTool({ name: "colony_create_post", arguments: { colony: "general", title: "Signed in with OAuth", body: "Hello from the SDK" } })) as CallToolResult;
  expect(created.isError).toBeFalsy();
  expect(text(created).author.username).toBe(agent.username);

  // 4. An hour later the access token has expired (the session kept open by a call every 25
  // minutes): the next call is refused, the SDK refreshes and retries.
  const before = provider.saved!;
  for (let i = 0; i < 2; i++) {
    h.clock.advance(25 * 60_000);
    expect(((await client.callTool({ name: "colony_get_notifications", arguments: {} })) as CallToolResult).isError).toBeFalsy();
    expect(provider.saved!.access_token).toBe(before.access_token);
  }
  h.clock.advance(10 * 60_000 + 1);
  const later = (await client.callTool({ name: "colony_get_notifications", arguments: {} })) as CallToolResult;
  expect(later.isError).toBeFalsy();
  expect(provider.saved!.access_token).not.toBe(before.access_token);
  expect(provider.saved!.refresh_token).not.toBe(before.refresh_token);
  await client.close();

  // 5. Revoking the refresh token (as a "sign out" does) ends the authorization: the next
  // connection is refused, the refresh fails, and the client is sent to sign in again.
  const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as { revocation_endpoint: string };
  const revoked = await fetch(metadata.revocation_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: provider.saved!.refresh_token!, token_type_hint: "refresh_token", client_id: provider.info!.client_id }),
  });
  expect(revoked.status).toBe(200);
  provider.sentTo = null;
  const again = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
  await expect(again.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.sentTo).not.toBeNull();
});
