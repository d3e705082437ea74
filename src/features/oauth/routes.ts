// The identity provider's public surface (spec Part 1 §4.2, §5.3): discovery, the key set, the
// token exchange, userinfo and dynamic client registration (RFC 7591, docs/decisions.md §9).
import { Elysia, t, type AnyElysia } from "elysia";
import type { Ctx } from "../../core/context";
import { callerOrNull, securityOf } from "../../http/auth";
import { clientIp } from "../../http/client-ip";
import { rateLimitPlugin } from "../../http/rate-limit";
import { callerOfCredential } from "../auth/service";
import { authenticateClient, mcpResource, revokeToken, tokenFromCode, tokenFromRefresh, type ClientCredentials, type GrantForm } from "./authorization";
import { AUTHORIZATION_CODE_GRANT, MetadataError, REFRESH_TOKEN_GRANT, TOKEN_EXCHANGE_GRANT, registerClient } from "./clients";
import { oauthClientsRoutes } from "./clients-routes";
import { NO_STORE, OAuthError, exchange, oauthErrorResponse, userinfo, type ExchangeForm } from "./exchange";
import { signingKey } from "./keys";
import { MCP_SCOPES, SCOPES } from "./scopes";
import { SUBJECT_TYPES } from "./tables";

/** The OAuth endpoints answer RFC-shaped JSON of their own (documented here, not validated). */
const oauthJson = (description: string) => ({ description, content: { "application/json": { schema: { type: "object" as const } } } });

const EXCHANGE_FORM = {
  type: "object" as const,
  required: ["grant_type", "subject_token"],
  properties: Object.fromEntries(
    ["grant_type", "subject_token", "subject_token_type", "audience", "resource", "scope", "requested_token_type", "actor_token", "actor_token_type"].map((name) => [name, { type: "string" as const }]),
  ),
};

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/** Answers `run`'s result as JSON with no-store, or the OAuth error body it threw. */
async function oauthAnswer(run: () => unknown): Promise<Response> {
  try {
    return json(await run(), 200, NO_STORE);
  } catch (err) {
    if (err instanceof OAuthError) return oauthErrorResponse(err);
    throw err;
  }
}

const FORM_FIELDS = [
  ...["grant_type", "subject_token", "subject_token_type", "audience", "resource", "scope", "requested_token_type", "actor_token", "actor_token_type"],
  ...["code", "redirect_uri", "code_verifier", "refresh_token", "client_id", "client_secret", "token", "token_type_hint"],
] as const;
type TokenForm = ExchangeForm & GrantForm & ClientCredentials & { token?: string; token_type_hint?: string };

/** Reads the form-encoded body; a parameter sent twice is invalid (RFC 6749 §3.2). */
async function readForm(request: Request): Promise<TokenForm> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") throw new OAuthError(400, "invalid_request", "The body must be application/x-www-form-urlencoded");
  const params = new URLSearchParams(await request.text());
  const form: Record<string, string> = {};
  if (params.size > 64) throw new OAuthError(400, "invalid_request", "Too many parameters");
  for (const name of FORM_FIELDS) {
    const all = params.getAll(name);
    if (all.length > 1) throw new OAuthError(400, "invalid_request", `${name} was sent more than once`);
    if (all.length === 1 && all[0] !== "") form[name] = all[0];
  }
  return form;
}

/** RFC 8414: the authorization server of MCP clients (the authorization code with PKCE, refresh, registration, revocation). */
function authorizationServerMetadata(ctx: Ctx) {
  const base = ctx.config.publicUrl;
  const auth = ["none", "client_secret_basic", "client_secret_post"];
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    scopes_supported: [...MCP_SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: [AUTHORIZATION_CODE_GRANT, REFRESH_TOKEN_GRANT, ...(ctx.config.oidc.tokenExchange ? [TOKEN_EXCHANGE_GRANT] : [])],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: auth,
    revocation_endpoint_auth_methods_supported: auth,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/api/v1/instructions`,
  };
}

/** RFC 9728: the MCP endpoint as a protected resource. */
function protectedResourceMetadata(ctx: Ctx) {
  return {
    resource: mcpResource(ctx),
    authorization_servers: [ctx.config.publicUrl],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Colony MCP",
    resource_documentation: `${ctx.config.publicUrl}/api/v1/instructions`,
  };
}

/** The identity provider: the public OAuth/OIDC routes and the owner's client management. */
export const identityProviderRoutes = (ctx: Ctx): AnyElysia[] => [oauthRoutes(ctx), oauthClientsRoutes(ctx)];

const oauthRoutes = (ctx: Ctx) => {
  const protectedResource = () => json(protectedResourceMetadata(ctx), 200, { "cache-control": "public, max-age=3600" });
  return new Elysia({ tags: ["oidc"] })
    .use(rateLimitPlugin(ctx))
    .get("/.well-known/oauth-authorization-server", () => json(authorizationServerMetadata(ctx), 200, { "cache-control": "public, max-age=3600" }), {
      detail: { summary: "OAuth Authorization Server Metadata", description: "RFC 8414 metadata of the authorization server that signs MCP clients in: the authorization code with PKCE (S256), refresh tokens, dynamic registration and revocation." },
    })
    .get("/.well-known/oauth-protected-resource", protectedResource, {
      detail: { summary: "OAuth Protected Resource Metadata", description: "RFC 9728 metadata of the MCP endpoint: its resource identifier, the authorization server and the scopes." },
    })
    .get("/.well-known/oauth-protected-resource/mcp", protectedResource, {
      detail: { summary: "OAuth Protected Resource Metadata (MCP)", description: "RFC 9728 metadata at the path of the MCP endpoint (the same document)." },
    })
    .post(
      "/oauth/revoke",
      async ({ request }) => {
        try {
          const form = await readForm(request);
          const client = authenticateClient(ctx, request.headers.get("authorization"), form);
          if (!form.token) throw new OAuthError(400, "invalid_request", "token is required");
          revokeToken(ctx, client, form.token);
          return new Response(null, { status: 200, headers: NO_STORE });
        } catch (err) {
          if (err instanceof OAuthError) return oauthErrorResponse(err);
          throw err;
        }
      },
      {
        parse: "none",
        detail: {
          requestBody: { required: true, content: { "application/x-www-form-urlencoded": { schema: { type: "object", required: ["token"], properties: { token: { type: "string" }, token_type_hint: { type: "string" }, client_id: { type: "string" }, client_secret: { type: "string" } } } } } },
          responses: { 200: { description: "Revoked, or nothing to revoke" }, 400: oauthJson("`invalid_request`"), 401: oauthJson("`invalid_client`") },
          summary: "Token Revocation",
          description: "RFC 7009: a refresh token ends its whole authorization (every token of that sign-in); an access token only itself. The client authenticates as at the token endpoint. 200 with an empty body, also for unknown tokens.",
        },
      },
    )
    .get(
      "/.well-known/openid-configuration",
      () => {
        const base = ctx.config.publicUrl;
        return json(
          {
            issuer: base,
            token_endpoint: `${base}/oauth/token`,
            userinfo_endpoint: `${base}/oauth/userinfo`,
            jwks_uri: `${base}/.well-known/jwks.json`,
            registration_endpoint: `${base}/oauth/register`,
            scopes_supported: [...SCOPES],
            grant_types_supported: ctx.config.oidc.tokenExchange ? [TOKEN_EXCHANGE_GRANT] : [],
            response_types_supported: [],
            subject_types_supported: [...SUBJECT_TYPES],
            id_token_signing_alg_values_supported: ["RS256"],
            token_endpoint_auth_methods_supported: ["none"],
            claims_supported: ["sub", "iss", "aud", "exp", "iat", "at_hash", "act", "preferred_username", "name", "picture", "profile", "service_verified_human", "email", "email_verified", "service_karma", "service_memberships", "service_orgs"],
          },
          200,
          { "cache-control": "public, max-age=3600" },
        );
      },
      { detail: { summary: "OpenID Configuration", description: "Discovery document of the identity provider (token exchange only; there is no authorization endpoint)." } },
    )
    .get(
      "/.well-known/jwks.json",
      async () => json({ keys: [(await signingKey(ctx)).publicJwk] }, 200, { "cache-control": "public, max-age=3600" }),
      { detail: { summary: "JSON Web Key Set", description: "The RS256 public keys that sign id_tokens, addressed by `kid`." } },
    )
    .post(
      "/oauth/token",
      ({ request }) =>
        oauthAnswer(async () => {
          const form = await readForm(request);
          const from = () => clientIp(ctx, request);
          if (form.grant_type !== AUTHORIZATION_CODE_GRANT && form.grant_type !== REFRESH_TOKEN_GRANT) return exchange(ctx, form, from);
          const client = authenticateClient(ctx, request.headers.get("authorization"), form);
          if (!client.grantTypes.includes(form.grant_type)) throw new OAuthError(400, "unauthorized_client", `This client did not register the ${form.grant_type} grant`);
          const standing = (userId: string, approvedAt: number) => void callerOfCredential(ctx, userId, approvedAt, from);
          return form.grant_type === AUTHORIZATION_CODE_GRANT ? tokenFromCode(ctx, client, form, standing) : tokenFromRefresh(ctx, client, form, standing);
        }),
      {
        parse: "none",
        detail: {
          requestBody: { required: true, content: { "application/x-www-form-urlencoded": { schema: EXCHANGE_FORM } } },
          responses: { 200: oauthJson("The exchanged token"), 400: oauthJson("Invalid request, grant or target (`error`, `error_description`)"), 429: oauthJson("Too many requests"), 503: oauthJson("Temporarily unavailable") },
          summary: "Token",
          description:
            "The token endpoint, form-encoded. grant_type=authorization_code (with code, code_verifier (PKCE S256), redirect_uri, resource, and the client's authentication: client_id alone for public clients, HTTP Basic or client_secret for confidential ones) or grant_type=refresh_token (refresh_token, optional narrower scope): 200 `{access_token, token_type: Bearer, expires_in: 3600, refresh_token, scope}`, an access token good only at /mcp/ and a refresh token that works once (a second use revokes the authorization). " +
            "RFC 8693 token exchange, form-encoded: grant_type=urn:ietf:params:oauth:grant-type:token-exchange, subject_token (your access JWT, or a delegation token together with actor_token), audience (the client_id), optional scope (openid always included; offline_access and scopes the client may not have are dropped). 200 `{access_token, issued_token_type, token_type: Bearer, expires_in: 900, scope, id_token}`. " +
            "With resource (RFC 8707) naming an organisation's registered resource instead of audience: an on-behalf-of access token for that resource (an RS256 JWT, typ at+jwt: sub the organisation, act.sub you, aud the resource), issued only under an active delegation grant of the organisation for your role that allows every scope asked (none asked: the grant's scopes); 200 `{access_token, issued_token_type, token_type: Bearer, expires_in, scope}`, no id_token. " +
            "Errors `{error, error_description}`: invalid_request, invalid_grant, invalid_target, invalid_scope, unauthorized_client, unsupported_grant_type (400), invalid_client (401), temporarily_unavailable (429, 503).",
        },
      },
    )
    .get(
      "/oauth/userinfo",
      ({ request }) => oauthAnswer(() => userinfo(ctx, request.headers.get("authorization"))),
      {
        detail: {
          summary: "UserInfo",
          description: "The claims of an exchanged access token (Bearer): the id_token's claims for its scopes. 401 invalid_token otherwise.",
          // The token read here is an access token exchanged through /oauth/token.
          security: securityOf("required"),
          responses: { 200: oauthJson("The claims"), 401: oauthJson("Missing, invalid, expired or revoked token (`invalid_token`)") },
        },
      },
    )
    .post(
      "/oauth/register",
      async ({ body, request }) => {
        const caller = await callerOrNull(ctx, request);
        try {
          if (!body || typeof body !== "object" || Array.isArray(body)) throw new MetadataError("body", "The body must be a JSON object of client metadata");
          return json(await registerClient(ctx, caller?.id ?? null, body as Record<string, unknown>), 201, NO_STORE);
        } catch (err) {
          if (err instanceof MetadataError) return json({ error: err.rfcError, error_description: err.message }, 400, NO_STORE);
          throw err;
        }
      },
      {
        rateLimit: "oauth_register",
        body: t.Unknown({ description: "RFC 7591 client metadata: client_name, redirect_uris, grant_types, token_endpoint_auth_method, scope, contacts, plus audience_policy (both, agents_only, humans_only), allowed_scopes, subject_type and delegation_policy" }),
        detail: {
          // Anonymous, or owned by the caller when a bearer token comes with it.
          security: securityOf("optional"),
          responses: { 201: oauthJson("The registered client, with client_id (and client_secret)"), 400: oauthJson("`invalid_redirect_uri` or `invalid_client_metadata`") },
          summary: "Dynamic Client Registration",
          description:
            "RFC 7591 registration of a relying party. No authentication needed; with a bearer token the client is owned by the caller (it then appears under /api/v1/oauth-clients). 201 with client_id (and client_secret unless token_endpoint_auth_method is none, the default); 400 `{error: invalid_redirect_uri | invalid_client_metadata, error_description}`.",
        },
      },
    );
};
