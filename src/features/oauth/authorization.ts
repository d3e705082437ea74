// The authorization-code grant that signs MCP clients in (MCP authorization, revision 2025-06-18;
// docs/decisions.md §190): the authorization request's checks, the consent's one-time code, the
// token endpoint's code (PKCE S256 only) and refresh grants, revocation (RFC 7009), and the
// access tokens /mcp/ accepts. Every token is bound to the MCP endpoint (RFC 8707): the REST API
// refuses it. Codes, access and refresh tokens are random values stored as their SHA-256; a
// refresh token works once, and presenting a used one again revokes its whole authorization
// (the token was copied: OAuth 2.0 Security BCP §4.14).
import { createHash } from "node:crypto";
import { and, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { hashSecret, randomBase62, safeEqual, uuidv7 } from "../../core/ids";
import { changes } from "../../db/client";
import { AUTHORIZATION_CODE_GRANT, findClientByClientId, type ClientRow } from "./clients";
import { OAuthError } from "./errors";
import { MCP_SCOPES, canonicalMcpScopes, isMcpScope, isScope, type McpScope } from "./scopes";
import { oauthAuthorizations, oauthClients, oauthCredentials, oauthGrants } from "./tables";

export const MCP_ACCESS_PREFIX = "cma_";
const REFRESH_PREFIX = "cmr_";
const CODE_PREFIX = "cmc_";
const CODE_TTL_MS = 2 * 60_000;
export const MCP_ACCESS_TTL_S = 60 * 60;
const REFRESH_TTL_MS = 30 * 24 * 3_600_000;
/** A client registered anonymously and never authorized is deleted after this long. */
export const UNUSED_CLIENT_MS = 24 * 3_600_000;
/** last_used_at is written at most this often for one authorization. */
const TOUCH_EVERY_MS = 60_000;

type AuthorizationRow = typeof oauthAuthorizations.$inferSelect;

/** The MCP endpoint as a resource indicator: `<public URL>/mcp`, which covers `/mcp/` too. */
export const mcpResource = (ctx: Ctx) => `${ctx.config.publicUrl}/mcp`;
/** Whether `raw` names the MCP endpoint (with or without its trailing slash). */
const isMcpResource = (ctx: Ctx, raw: string) => raw === mcpResource(ctx) || raw === `${mcpResource(ctx)}/`;

// ---------------------------------------------------------------------------------------------
// The authorization request (GET /oauth/authorize)

export interface AuthorizationRequest {
  client: ClientRow;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  /** What the client asked for, `read` included; the consent page may narrow it. */
  scopes: McpScope[];
  resource: string;
}

/**
 * A refused authorization request. With `redirect` the client is told at its redirect URI (RFC
 * 6749 §4.1.2.1); without (an unknown client or a redirect URI it did not register) the person
 * is told on the page and nothing is sent anywhere.
 */
export interface AuthorizationRefusal {
  error: string;
  description: string;
  redirect: string | null;
}

const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The parameters of an authorization request, as the query or the consent form carries them. */
export const AUTHORIZE_PARAMS = ["response_type", "client_id", "redirect_uri", "state", "scope", "code_challenge", "code_challenge_method", "resource"] as const;
export type AuthorizeParams = Partial<Record<(typeof AUTHORIZE_PARAMS)[number], string>>;

/** The redirect URI with the answer's parameters (and `iss`, RFC 9207) in its query. */
export function redirectWith(ctx: Ctx, redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries({ ...params, iss: ctx.config.publicUrl })) if (v !== null) url.searchParams.set(k, v);
  return url.href;
}

/** Checks an authorization request; the request to show on the consent page, or the refusal. */
export function checkAuthorizationRequest(ctx: Ctx, p: AuthorizeParams): { ok: true; request: AuthorizationRequest } | ({ ok: false } & AuthorizationRefusal) {
  const here = (error: string, description: string) => ({ ok: false as const, error, description, redirect: null });
  const client = p.client_id ? findClientByClientId(ctx, p.client_id) : null;
  if (!client || !client.isActive) return here("invalid_client", "This application is not registered here (unknown client_id).");
  let redirectUri: string;
  if (p.redirect_uri) {
    if (!client.redirectUris.includes(p.redirect_uri)) return here("invalid_request", "The redirect_uri is not one this application registered.");
    redirectUri = p.redirect_uri;
  } else if (client.redirectUris.length === 1) redirectUri = client.redirectUris[0];
  else return here("invalid_request", "redirect_uri is required: this application registered several.");
  const state = p.state ?? null;
  const back = (error: string, description: string) => ({ ok: false as const, error, description, redirect: redirectWith(ctx, redirectUri, { error, error_description: description, state }) });
  if (p.response_type !== "code") return back("unsupported_response_type", "Only response_type=code is served");
  if (!client.grantTypes.includes(AUTHORIZATION_CODE_GRANT)) return back("unauthorized_client", "This client did not register the authorization_code grant");
  if (!p.code_challenge || !PKCE_CHALLENGE.test(p.code_challenge)) return back("invalid_request", "PKCE is required: send code_challenge (S256, 43 characters of base64url)");
  if (p.code_challenge_method !== "S256") return back("invalid_request", "code_challenge_method must be S256");
  const resource = p.resource ?? mcpResource(ctx);
  if (!isMcpResource(ctx, resource)) return back("invalid_target", `The only resource served is ${mcpResource(ctx)}`);
  const asked = (p.scope ?? "").split(" ").filter(Boolean);
  const unknown = asked.find((s) => !isMcpScope(s) && !isScope(s));
  if (unknown) return back("invalid_scope", `Unknown scope "${unknown.slice(0, 40)}"; the scopes are ${MCP_SCOPES.join(", ")}`);
  // The identity provider's scopes (openid, profile…) belong to the token exchange: not granted here.
  const scopes = canonicalMcpScopes(asked.length ? asked.filter(isMcpScope) : MCP_SCOPES);
  return { ok: true, request: { client, redirectUri, state, codeChallenge: p.code_challenge, scopes, resource: mcpResource(ctx) } };
}

/**
 * The consent: an authorization for `userId` approved by `approvedBy` with `scopes` (`read`
 * always), and the redirect carrying its one-time code.
 */
export function approve(ctx: Ctx, request: AuthorizationRequest, userId: string, approvedBy: string, scopes: readonly string[]): string {
  const now = ctx.clock.now();
  const code = CODE_PREFIX + randomBase62(43);
  const authorization: AuthorizationRow = {
    id: uuidv7(now),
    clientRef: request.client.id,
    userId,
    approvedBy,
    scope: canonicalMcpScopes(scopes.filter(isMcpScope)).join(" "),
    resource: request.resource,
    createdAt: now,
    lastUsedAt: now,
    revokedAt: null,
  };
  ctx.db.transaction((tx) => {
    tx.insert(oauthAuthorizations).values(authorization).run();
    tx.insert(oauthCredentials)
      .values({ hash: hashSecret(code), kind: "code", authorizationId: authorization.id, codeChallenge: request.codeChallenge, redirectUri: request.redirectUri, expiresAt: now + CODE_TTL_MS, createdAt: now })
      .run();
  });
  ctx.log.info("oauth authorization approved", { authorization_id: authorization.id, client_id: request.client.clientId, user_id: userId, approved_by: approvedBy, scope: authorization.scope });
  return redirectWith(ctx, request.redirectUri, { code, state: request.state });
}

// ---------------------------------------------------------------------------------------------
// Client authentication at the token and revocation endpoints (RFC 6749 §2.3)

export interface ClientCredentials {
  client_id?: string;
  client_secret?: string;
}

const invalidClient = (description: string, basic: boolean) =>
  new OAuthError(401, "invalid_client", description, basic ? { "www-authenticate": 'Basic realm="colony"' } : {});

/** The client a request authenticates as: HTTP Basic, client_secret in the form, or a public client's client_id alone. */
export function authenticateClient(ctx: Ctx, authorization: string | null, form: ClientCredentials): ClientRow {
  let id = form.client_id;
  let secret = form.client_secret;
  const basic = authorization?.toLowerCase().startsWith("basic ") ?? false;
  if (basic) {
    const decoded = Buffer.from(authorization!.slice(6).trim(), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw invalidClient("Malformed HTTP Basic credentials", true);
    let basicId: string;
    try {
      basicId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "));
    } catch {
      throw invalidClient("Malformed HTTP Basic credentials", true);
    }
    if (id && id !== basicId) throw invalidClient("client_id differs from the Basic credentials", true);
    id = basicId;
  }
  if (!id) throw invalidClient("Name the client: client_id, or HTTP Basic credentials", basic);
  const client = findClientByClientId(ctx, id);
  if (!client || !client.isActive) throw invalidClient("Unknown or inactive client", basic);
  if (client.secretHash) {
    if (!secret || !safeEqual(hashSecret(secret), client.secretHash)) throw invalidClient("Client authentication failed", basic);
  } else if (client.tokenEndpointAuthMethod !== "none") {
    throw invalidClient(`This client authenticates by ${client.tokenEndpointAuthMethod}, which the token endpoint does not serve`, basic);
  }
  return client;
}

// ---------------------------------------------------------------------------------------------
// The token endpoint's grants

export interface GrantForm {
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
  refresh_token?: string;
  scope?: string;
  resource?: string;
}

const badGrant = (description: string) => new OAuthError(400, "invalid_grant", description);
const badRequest = (description: string) => new OAuthError(400, "invalid_request", description);

type CredentialRow = typeof oauthCredentials.$inferSelect;

function credential(ctx: Ctx, value: string): CredentialRow | null {
  return ctx.db.select().from(oauthCredentials).where(eq(oauthCredentials.hash, hashSecret(value))).get() ?? null;
}

function authorizationById(ctx: Ctx, id: string): AuthorizationRow | null {
  return ctx.db.select().from(oauthAuthorizations).where(eq(oauthAuthorizations.id, id)).get() ?? null;
}

/** Ends an authorization: its codes and tokens are deleted at once. Returns whether it was live. */
function endAuthorization(ctx: Ctx, id: string, why: string): boolean {
  const now = ctx.clock.now();
  const ended = ctx.db.transaction((tx) => {
    tx.delete(oauthCredentials).where(eq(oauthCredentials.authorizationId, id)).run();
    return changes(tx.update(oauthAuthorizations).set({ revokedAt: now }).where(and(eq(oauthAuthorizations.id, id), isNull(oauthAuthorizations.revokedAt))).run()) > 0;
  });
  if (ended) ctx.log.info("oauth authorization revoked", { authorization_id: id, reason: why });
  return ended;
}

/**
 * Whether the account an authorization acts as may still use it: throws the ApiError of the
 * refusal (auth/service.ts callerOfCredential with the request's address).
 */
export type AccountStanding = (userId: string, approvedAt: number) => void;

function issueTokens(ctx: Ctx, authorization: AuthorizationRow, scope: string) {
  const now = ctx.clock.now();
  const access = MCP_ACCESS_PREFIX + randomBase62(43);
  const refresh = REFRESH_PREFIX + randomBase62(43);
  ctx.db
    .insert(oauthCredentials)
    .values([
      { hash: hashSecret(access), kind: "access", authorizationId: authorization.id, expiresAt: now + MCP_ACCESS_TTL_S * 1000, createdAt: now },
      { hash: hashSecret(refresh), kind: "refresh", authorizationId: authorization.id, expiresAt: now + REFRESH_TTL_MS, createdAt: now },
    ])
    .run();
  return { access_token: access, token_type: "Bearer" as const, expires_in: MCP_ACCESS_TTL_S, refresh_token: refresh, scope };
}

/** The authorization a credential names, live, of this client and for this resource; invalid_grant otherwise. */
function liveAuthorization(ctx: Ctx, row: CredentialRow, client: ClientRow, form: GrantForm, standing: AccountStanding): AuthorizationRow {
  const authorization = authorizationById(ctx, row.authorizationId);
  if (!authorization || authorization.revokedAt !== null) throw badGrant("This grant was revoked");
  if (authorization.clientRef !== client.id) throw badGrant("This grant was issued to another client");
  if (form.resource !== undefined && !isMcpResource(ctx, form.resource)) throw new OAuthError(400, "invalid_target", `The only resource served is ${mcpResource(ctx)}`);
  try {
    standing(authorization.userId, authorization.createdAt);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code !== "AUTH_TOKEN_REVOKED") throw badGrant(`The account may not be used now (${err.code}): ${err.message}`);
    endAuthorization(ctx, authorization.id, "account_revoked");
    throw badGrant("The account revoked its credentials (a key rotation) since this grant was approved: sign in again");
  }
  return authorization;
}

/** grant_type=authorization_code with PKCE (RFC 7636, S256). A code used twice revokes what it issued. */
export function tokenFromCode(ctx: Ctx, client: ClientRow, form: GrantForm, standing: AccountStanding) {
  if (!form.code) throw badRequest("code is required");
  if (!form.code_verifier) throw badRequest("code_verifier is required (PKCE)");
  if (!PKCE_VERIFIER.test(form.code_verifier)) throw badRequest("code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~");
  const row = credential(ctx, form.code);
  if (!row || row.kind !== "code") throw badGrant("Unknown authorization code");
  if (row.usedAt !== null) {
    endAuthorization(ctx, row.authorizationId, "code_reused");
    throw badGrant("This authorization code was already used; the tokens it gave were revoked");
  }
  if (ctx.clock.now() >= row.expiresAt) throw badGrant("This authorization code expired");
  const authorization = liveAuthorization(ctx, row, client, form, standing);
  if (form.redirect_uri !== undefined && form.redirect_uri !== row.redirectUri) throw badGrant("redirect_uri differs from the authorization request's");
  const challenge = createHash("sha256").update(form.code_verifier, "ascii").digest("base64url");
  if (!safeEqual(challenge, row.codeChallenge ?? "")) throw badGrant("code_verifier does not match the code_challenge");
  return useOnce(ctx, row, () => issueTokens(ctx, authorization, authorization.scope), "This authorization code was already used");
}

/** grant_type=refresh_token: a new access token and a new refresh token; the old refresh token is spent. */
export function tokenFromRefresh(ctx: Ctx, client: ClientRow, form: GrantForm, standing: AccountStanding) {
  if (!form.refresh_token) throw badRequest("refresh_token is required");
  const row = credential(ctx, form.refresh_token);
  if (!row || row.kind !== "refresh") throw badGrant("Unknown refresh token");
  const authorization = liveAuthorization(ctx, row, client, form, standing);
  if (row.usedAt !== null) {
    endAuthorization(ctx, authorization.id, "refresh_token_reused");
    ctx.log.warn("oauth refresh token reused: authorization revoked", { authorization_id: authorization.id, client_id: client.clientId });
    throw badGrant("This refresh token was already used: the authorization is revoked, sign in again");
  }
  if (ctx.clock.now() >= row.expiresAt) throw badGrant("This refresh token expired");
  const granted = authorization.scope.split(" ");
  let scope = authorization.scope;
  if (form.scope !== undefined) {
    const asked = form.scope.split(" ").filter(Boolean);
    if (asked.some((s) => !granted.includes(s))) throw new OAuthError(400, "invalid_scope", "A refresh may only narrow the scopes granted");
    scope = canonicalMcpScopes(asked).join(" ");
  }
  return useOnce(ctx, row, () => issueTokens(ctx, authorization, scope), "This refresh token was already used");
}

/** Marks a code or refresh token used and issues, in one transaction; a second request racing it gets invalid_grant. */
function useOnce<T>(ctx: Ctx, row: CredentialRow, issue: () => T, raced: string): T {
  const now = ctx.clock.now();
  return ctx.db.transaction(() => {
    const won = changes(ctx.db.update(oauthCredentials).set({ usedAt: now }).where(and(eq(oauthCredentials.hash, row.hash), isNull(oauthCredentials.usedAt))).run());
    if (!won) throw badGrant(raced);
    ctx.db.update(oauthAuthorizations).set({ lastUsedAt: now }).where(eq(oauthAuthorizations.id, row.authorizationId)).run();
    return issue();
  });
}

/**
 * RFC 7009: revokes `token` if this client holds it. A refresh token ends its whole authorization,
 * an access token only itself. Unknown tokens, and other clients' tokens, change nothing (200 either way).
 */
export function revokeToken(ctx: Ctx, client: ClientRow, token: string): void {
  const row = credential(ctx, token);
  if (!row || row.kind === "code") return;
  const authorization = authorizationById(ctx, row.authorizationId);
  if (!authorization || authorization.clientRef !== client.id) return;
  if (row.kind === "refresh") endAuthorization(ctx, authorization.id, "revoked_by_client");
  else ctx.db.delete(oauthCredentials).where(eq(oauthCredentials.hash, row.hash)).run();
}

// ---------------------------------------------------------------------------------------------
// The resource server's side: what an access token presented at /mcp/ grants

export interface McpGrant {
  authorizationId: string;
  userId: string;
  approvedAt: number;
  scopes: McpScope[];
}

/** The grant of a live, unexpired MCP access token; null for anything else. */
export function mcpGrantOf(ctx: Ctx, token: string): McpGrant | null {
  if (!token.startsWith(MCP_ACCESS_PREFIX)) return null;
  const now = ctx.clock.now();
  const row = ctx.db
    .select({ expiresAt: oauthCredentials.expiresAt, kind: oauthCredentials.kind, a: oauthAuthorizations })
    .from(oauthCredentials)
    .innerJoin(oauthAuthorizations, eq(oauthAuthorizations.id, oauthCredentials.authorizationId))
    .where(eq(oauthCredentials.hash, hashSecret(token)))
    .get();
  if (!row || row.kind !== "access" || now >= row.expiresAt || row.a.revokedAt !== null) return null;
  if (now - row.a.lastUsedAt >= TOUCH_EVERY_MS) ctx.db.update(oauthAuthorizations).set({ lastUsedAt: now }).where(eq(oauthAuthorizations.id, row.a.id)).run();
  return { authorizationId: row.a.id, userId: row.a.userId, approvedAt: row.a.createdAt, scopes: row.a.scope.split(" ").filter(isMcpScope) };
}

// ---------------------------------------------------------------------------------------------
// Connected clients (settings) and clean-up

export interface Connection {
  id: string;
  clientName: string;
  clientId: string;
  userId: string;
  approvedBy: string;
  scopes: string[];
  createdAt: number;
  lastUsedAt: number;
}

/** The live authorizations acting as `userId` or approved by them, most recently used first. */
export function connectionsOf(ctx: Ctx, userId: string): Connection[] {
  return ctx.db
    .select({ a: oauthAuthorizations, name: oauthClients.name, clientId: oauthClients.clientId })
    .from(oauthAuthorizations)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthAuthorizations.clientRef))
    .where(and(isNull(oauthAuthorizations.revokedAt), or(eq(oauthAuthorizations.userId, userId), eq(oauthAuthorizations.approvedBy, userId))))
    .all()
    .sort((x, y) => y.a.lastUsedAt - x.a.lastUsedAt)
    .map(({ a, name, clientId }) => ({ id: a.id, clientName: name, clientId, userId: a.userId, approvedBy: a.approvedBy, scopes: a.scope.split(" "), createdAt: a.createdAt, lastUsedAt: a.lastUsedAt }));
}

/** Revokes one of `userId`'s connections (acting as them or approved by them); false when there is none. */
export function revokeConnection(ctx: Ctx, userId: string, id: string): boolean {
  const a = authorizationById(ctx, id);
  if (!a || a.revokedAt !== null || (a.userId !== userId && a.approvedBy !== userId)) return false;
  return endAuthorization(ctx, a.id, "revoked_in_settings");
}

/**
 * The hourly clean-up: expired codes and tokens, spent refresh tokens, authorizations left with
 * no refresh token (expired or revoked), and clients registered anonymously (RFC 7591) that no
 * one authorized within a day of registering and that hold no live authorization.
 */
export function purgeAuthorizations(ctx: Ctx): { credentials: number; authorizations: number; clients: number } {
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    // Spent refresh tokens stay until they expire: presenting one again is how a copy is detected.
    const credentials = changes(tx.delete(oauthCredentials).where(lte(oauthCredentials.expiresAt, now)).run());
    const orphaned = sql`not exists (select 1 from ${oauthCredentials} where ${oauthCredentials.authorizationId} = ${oauthAuthorizations.id} and ${oauthCredentials.kind} = 'refresh')`;
    const authorizations = changes(tx.delete(oauthAuthorizations).where(and(lt(oauthAuthorizations.createdAt, now - CODE_TTL_MS), orphaned)).run());
    const unused = tx
      .select({ id: oauthClients.id })
      .from(oauthClients)
      .where(
        and(
          isNull(oauthClients.ownerId),
          lt(oauthClients.createdAt, now - UNUSED_CLIENT_MS),
          sql`not exists (select 1 from ${oauthAuthorizations} where ${oauthAuthorizations.clientRef} = ${oauthClients.id})`,
          sql`not exists (select 1 from ${oauthGrants} where ${oauthGrants.clientRef} = ${oauthClients.id})`,
        ),
      )
      .all()
      .map((r) => r.id);
    const clients = unused.length ? changes(tx.delete(oauthClients).where(inArray(oauthClients.id, unused)).run()) : 0;
    return { credentials, authorizations, clients };
  });
}

