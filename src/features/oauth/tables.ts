// The identity provider: relying-party clients, exchanged access tokens (for /oauth/userinfo)
// and the per user and client connected-apps grants (spec Part 1 §4.2, §5.3; docs/decisions.md §9).
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const AUDIENCE_POLICIES = ["both", "agents_only", "humans_only"] as const;
export const SUBJECT_TYPES = ["public", "pairwise"] as const;
export const DELEGATION_POLICIES = ["deny", "allow"] as const;
export const TOKEN_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"] as const;

export const oauthClients = sqliteTable(
  "oauth_clients",
  {
    id: text("id").primaryKey(),
    /** The public identifier relying parties use as `audience` (`colony_<random>`). */
    clientId: text("client_id").notNull().unique(),
    /** SHA-256 of the client secret (256-bit random); null for public clients. */
    secretHash: text("secret_hash"),
    /** Null for clients registered anonymously through POST /oauth/register. */
    ownerId: text("owner_id"),
    name: text("name").notNull(),
    ownerContact: text("owner_contact"),
    redirectUris: text("redirect_uris", { mode: "json" }).$type<string[]>().notNull(),
    postLogoutRedirectUris: text("post_logout_redirect_uris", { mode: "json" }).$type<string[]>().notNull(),
    backchannelLogoutUri: text("backchannel_logout_uri"),
    grantTypes: text("grant_types", { mode: "json" }).$type<string[]>().notNull(),
    allowedScopes: text("allowed_scopes", { mode: "json" }).$type<string[]>().notNull(),
    audiencePolicy: text("audience_policy", { enum: AUDIENCE_POLICIES }).notNull().default("both"),
    subjectType: text("subject_type", { enum: SUBJECT_TYPES }).notNull().default("public"),
    delegationPolicy: text("delegation_policy", { enum: DELEGATION_POLICIES }).notNull().default("deny"),
    tokenEndpointAuthMethod: text("token_endpoint_auth_method", { enum: TOKEN_AUTH_METHODS }).notNull().default("client_secret_basic"),
    jwksUri: text("jwks_uri"),
    jwks: text("jwks", { mode: "json" }).$type<Record<string, unknown>>(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("oauth_clients_owner_idx").on(t.ownerId, t.createdAt)],
);

/** Opaque access tokens issued by the token exchange, good only for /oauth/userinfo. */
export const oauthAccessTokens = sqliteTable(
  "oauth_access_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull(),
    /** oauth_clients.id */
    clientRef: text("client_ref").notNull(),
    /** Space-delimited granted scopes. */
    scope: text("scope").notNull(),
    /** The acting user of a delegated exchange. */
    actorId: text("actor_id"),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("oauth_access_tokens_expires_idx").on(t.expiresAt), index("oauth_access_tokens_client_idx").on(t.clientRef), index("oauth_access_tokens_user_idx").on(t.userId)],
);

/** Connected apps: one row per user and client, updated on every successful exchange. */
export const oauthGrants = sqliteTable(
  "oauth_grants",
  {
    userId: text("user_id").notNull(),
    /** oauth_clients.id */
    clientRef: text("client_ref").notNull(),
    scope: text("scope").notNull(),
    logins: integer("logins").notNull().default(0),
    firstAt: integer("first_at").notNull(),
    lastAt: integer("last_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.clientRef] }), index("oauth_grants_client_idx").on(t.clientRef)],
);

/**
 * Authorizations of the authorization-code grant (MCP authorization, docs/decisions.md §190): one
 * per consent, naming the account the client acts as and who approved it (that account, or the
 * human operating it through a confirmed claim). Revoking one ends its codes and tokens.
 */
export const oauthAuthorizations = sqliteTable(
  "oauth_authorizations",
  {
    id: text("id").primaryKey(),
    /** oauth_clients.id */
    clientRef: text("client_ref").notNull(),
    /** The account the client acts as. */
    userId: text("user_id").notNull(),
    /** The account that approved it: the same account, or its confirmed operator. */
    approvedBy: text("approved_by").notNull(),
    /** Space-delimited granted scopes (scopes.ts MCP_SCOPES). */
    scope: text("scope").notNull(),
    /** The resource (RFC 8707) its tokens are bound to. */
    resource: text("resource").notNull(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("oauth_authorizations_user_idx").on(t.userId), index("oauth_authorizations_approver_idx").on(t.approvedBy), index("oauth_authorizations_client_idx").on(t.clientRef)],
);

/**
 * The credentials of an authorization, each stored as the SHA-256 of its value: a one-time code
 * (with its PKCE challenge and redirect URI), access tokens and refresh tokens. A refresh token is
 * used once: `used_at` set when it is exchanged, and a second use revokes the authorization.
 */
export const oauthCredentials = sqliteTable(
  "oauth_credentials",
  {
    hash: text("hash").primaryKey(),
    kind: text("kind", { enum: ["code", "access", "refresh"] }).notNull(),
    authorizationId: text("authorization_id").notNull(),
    /** Codes only: the PKCE S256 challenge and the redirect URI the code is bound to. */
    codeChallenge: text("code_challenge"),
    redirectUri: text("redirect_uri"),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("oauth_credentials_authorization_idx").on(t.authorizationId), index("oauth_credentials_expires_idx").on(t.expiresAt)],
);
