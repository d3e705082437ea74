// Relying-party clients of the identity provider: created by their owner at
// POST /api/v1/oauth-clients (the reference document's shape) or by dynamic registration at
// POST /oauth/register (RFC 7591 plus audience_policy and allowed_scopes, docs/decisions.md §9).
import { and, count, desc, eq, or, sum } from "drizzle-orm";
import { checkOutboundUrl, OutboundUrlError } from "../../adapters/http-out";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { LOOPBACK_HOSTNAMES } from "../../core/loopback";
import { ApiError, FieldError, notFound } from "../../core/errors";
import { hashSecret, isUuid, randomBase62, uuidv7 } from "../../core/ids";
import type { Caller } from "../auth/service";
import { DEFAULT_SCOPES, MCP_SCOPES, SCOPES, canonicalScopes, isMcpScope, isScope } from "./scopes";
import { AUDIENCE_POLICIES, DELEGATION_POLICIES, SUBJECT_TYPES, TOKEN_AUTH_METHODS, oauthAccessTokens, oauthClients, oauthGrants } from "./tables";

export type ClientRow = typeof oauthClients.$inferSelect;
export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
export const AUTHORIZATION_CODE_GRANT = "authorization_code";
export const REFRESH_TOKEN_GRANT = "refresh_token";
export const MAX_CLIENTS_PER_OWNER = 25;
const MAX_URIS = 20;

/** A bad client metadata value; each surface renders it in its own error format. */
export class MetadataError extends Error {
  constructor(
    public readonly field: string,
    message: string,
    public readonly rfcError: "invalid_redirect_uri" | "invalid_client_metadata" = "invalid_client_metadata",
    public readonly index?: number,
  ) {
    super(message);
  }
}


function parseUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/**
 * A private-use URI scheme of a native app (RFC 8252 §7.1: reverse domain name, e.g.
 * `com.example.app:/callback`, `cursor://…`); only as a redirect URI, which the browser hands to
 * the app and this server never fetches.
 */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/;
const NOT_APP_SCHEMES = new Set(["http:", "https:", "javascript:", "data:", "file:", "blob:", "about:", "vbscript:", "ftp:", "ws:", "wss:"]);

/** Absolute https URLs, or http on a loopback host (native and local apps); no fragment. */
function validateUris(field: string, list: unknown, opts: { min?: number } = {}): string[] {
  const rfc = field === "redirect_uris" ? "invalid_redirect_uri" : "invalid_client_metadata";
  if (!Array.isArray(list)) throw new MetadataError(field, `${field} must be an array of URLs`, rfc);
  if (list.length < (opts.min ?? 0)) throw new MetadataError(field, `${field} needs at least ${opts.min} URL`, rfc);
  if (list.length > MAX_URIS) throw new MetadataError(field, `${field} holds at most ${MAX_URIS} URLs`, rfc);
  const out: string[] = [];
  list.forEach((raw, i) => {
    const u = typeof raw === "string" && raw.length <= 2000 ? parseUrl(raw.trim()) : null;
    const appScheme = field === "redirect_uris" && !!u && !NOT_APP_SCHEMES.has(u.protocol) && PRIVATE_USE_SCHEME.test(u.protocol);
    if (!u || u.hash || u.username || u.password || !(appScheme || u.protocol === "https:" || (u.protocol === "http:" && LOOPBACK_HOSTNAMES.has(u.hostname)))) {
      throw new MetadataError(field, `${field}[${i}] must be an absolute https URL (http only on localhost${field === "redirect_uris" ? "; or a native app's reverse-domain scheme" : ""}) without a fragment`, rfc, i);
    }
    if (!out.includes(u.href)) out.push(u.href);
  });
  return out;
}

function validateUri(field: string, raw: unknown): string | null {
  if (raw === undefined || raw === null || raw === "") return null;
  return validateUris(field, [raw])[0];
}

/**
 * Known scopes only; `openid` always included; none named means the default set. The MCP scopes a
 * client names are kept after the identity scopes (they are chosen on the consent page anyway).
 */
function validateScopes(field: string, list: unknown): string[] {
  if (list === undefined || list === null) return [...DEFAULT_SCOPES];
  if (!Array.isArray(list) || list.some((s) => typeof s !== "string")) throw new MetadataError(field, `${field} must be a list of scope names`);
  const names = (list as string[]).map((s) => s.trim()).filter(Boolean);
  if (!names.length) return [...DEFAULT_SCOPES];
  const unknown = names.find((s) => !isScope(s) && !isMcpScope(s));
  if (unknown) throw new MetadataError(field, `Unknown scope "${unknown}"; known scopes: ${[...SCOPES, ...MCP_SCOPES].join(", ")}`);
  return [...canonicalScopes(names.filter(isScope)), ...MCP_SCOPES.filter((s) => names.includes(s))];
}

function oneOf<T extends string>(field: string, values: readonly T[], raw: unknown, fallback: T): T {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== "string" || !(values as readonly string[]).includes(raw)) throw new MetadataError(field, `${field} must be one of ${values.join(", ")}`);
  return raw as T;
}

function text(field: string, raw: unknown, max: number, required = false): string | null {
  if (raw === undefined || raw === null) {
    if (required) throw new MetadataError(field, `${field} is required`);
    return null;
  }
  if (typeof raw !== "string") throw new MetadataError(field, `${field} must be a string`);
  const v = raw.trim();
  if (required && !v) throw new MetadataError(field, `${field} must not be empty`);
  if (v.length > max) throw new MetadataError(field, `${field} is longer than ${max} characters`);
  return v || null;
}

function jwksValue(raw: unknown): Record<string, unknown> | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "object" || Array.isArray(raw) || !Array.isArray((raw as { keys?: unknown }).keys)) throw new MetadataError("jwks", "jwks must be a JWK Set object with a keys array");
  return raw as Record<string, unknown>;
}

/** The metadata URLs this server would fetch itself (unlike redirects, which the browser follows). */
const SERVER_FETCHED = ["jwks_uri", "backchannel_logout_uri"] as const;

/**
 * Refuses a jwks_uri or backchannel_logout_uri that reaches a loopback, private or link-local
 * address (cloud metadata included), by literal or by name, as webhook URLs are refused
 * (COLONY_ALLOW_PRIVATE_WEBHOOKS lets local development use them). Malformed values are left to
 * the synchronous validation.
 */
async function refusePrivateTargets(ctx: Ctx, input: Record<string, unknown>): Promise<void> {
  for (const field of SERVER_FETCHED) {
    const raw = input[field];
    if (typeof raw !== "string" || !raw.trim()) continue;
    try {
      await checkOutboundUrl(raw.trim(), { allowPrivate: ctx.config.allowPrivateWebhooks });
    } catch (err) {
      if (!(err instanceof OutboundUrlError)) throw err;
      if (err.reason === "private_address") throw new MetadataError(field, `${field} refused: ${err.message}`);
    }
  }
}

/** A MetadataError as the /api/v1 validation error (422, HTTPValidationError); any other error as it is. */
function fieldError(err: unknown): unknown {
  return err instanceof MetadataError ? new FieldError(err.index === undefined ? ["body", err.field] : ["body", err.field, err.index], err.message) : err;
}

/** Runs `fn`, re-raising a MetadataError as the /api/v1 validation error. */
function asFieldError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw fieldError(err);
  }
}

interface ClientInput {
  name?: unknown;
  redirect_uris?: unknown;
  post_logout_redirect_uris?: unknown;
  backchannel_logout_uri?: unknown;
  scopes?: unknown;
  owner_contact?: unknown;
  audience_policy?: unknown;
  subject_type?: unknown;
  delegation_policy?: unknown;
  token_endpoint_auth_method?: unknown;
  jwks_uri?: unknown;
  jwks?: unknown;
  grant_types?: unknown;
  response_types?: unknown;
}

const newClientId = () => `colony_${randomBase62(24)}`;
const newClientSecret = () => `cs_${randomBase62(43)}`;

/** Inserts a client; returns the row and its plaintext secret (shown once), if it has one. */
function insertClient(ctx: Ctx, ownerId: string | null, input: ClientInput, opts: { redirectMin: number; defaultAuth: (typeof TOKEN_AUTH_METHODS)[number] }) {
  const name = text("name", input.name, 120, true)!;
  const redirectUris = validateUris("redirect_uris", input.redirect_uris ?? [], { min: opts.redirectMin });
  const postLogout = validateUris("post_logout_redirect_uris", input.post_logout_redirect_uris ?? []);
  const authMethod = oneOf("token_endpoint_auth_method", TOKEN_AUTH_METHODS, input.token_endpoint_auth_method, opts.defaultAuth);
  const grantTypes = validateGrantTypes(input.grant_types, redirectUris);
  validateResponseTypes(input.response_types, grantTypes);
  const now = ctx.clock.now();
  const secret = authMethod === "none" || authMethod === "private_key_jwt" ? null : newClientSecret();
  const row: ClientRow = {
    id: uuidv7(now),
    clientId: newClientId(),
    secretHash: secret ? hashSecret(secret) : null,
    ownerId,
    name,
    ownerContact: text("owner_contact", input.owner_contact, 255),
    redirectUris,
    postLogoutRedirectUris: postLogout,
    backchannelLogoutUri: validateUri("backchannel_logout_uri", input.backchannel_logout_uri),
    grantTypes,
    allowedScopes: validateScopes("scopes", input.scopes),
    audiencePolicy: oneOf("audience_policy", AUDIENCE_POLICIES, input.audience_policy, "both"),
    subjectType: oneOf("subject_type", SUBJECT_TYPES, input.subject_type, "public"),
    delegationPolicy: oneOf("delegation_policy", DELEGATION_POLICIES, input.delegation_policy, "deny"),
    tokenEndpointAuthMethod: authMethod,
    jwksUri: validateUri("jwks_uri", input.jwks_uri),
    jwks: jwksValue(input.jwks),
    isActive: true,
    createdAt: now,
    updatedAt: now,
  };
  ctx.db.transaction((tx) => {
    tx.insert(oauthClients).values(row).run();
    ctx.events.emit(tx, { type: "oauth_client_created", actorId: ownerId, subject: { type: "oauth_client", id: row.id } });
  });
  return { row, secret };
}

/** The grants a client may use: token exchange (the default), and the authorization code with refresh tokens. */
export const GRANT_TYPES = [TOKEN_EXCHANGE_GRANT, AUTHORIZATION_CODE_GRANT, REFRESH_TOKEN_GRANT] as const;

function validateGrantTypes(raw: unknown, redirectUris: readonly string[]): string[] {
  if (raw === undefined || raw === null) return [TOKEN_EXCHANGE_GRANT];
  if (!Array.isArray(raw) || raw.some((g) => typeof g !== "string")) throw new MetadataError("grant_types", "grant_types must be a list of strings");
  const list = [...new Set(raw as string[])];
  const unsupported = list.find((g) => !(GRANT_TYPES as readonly string[]).includes(g));
  if (unsupported || !list.length) throw new MetadataError("grant_types", `grant_types may name ${GRANT_TYPES.join(", ")}`);
  if (list.includes(REFRESH_TOKEN_GRANT) && !list.includes(AUTHORIZATION_CODE_GRANT)) throw new MetadataError("grant_types", "refresh_token is only issued with authorization_code");
  if (list.includes(AUTHORIZATION_CODE_GRANT) && !redirectUris.length) throw new MetadataError("redirect_uris", "The authorization_code grant needs at least one redirect URI", "invalid_redirect_uri");
  return list;
}

/** RFC 7591 response_types: "code" exactly when the client uses the authorization code. */
function validateResponseTypes(raw: unknown, grantTypes: readonly string[]): void {
  if (raw === undefined || raw === null) return;
  if (!Array.isArray(raw) || raw.some((r) => r !== "code")) throw new MetadataError("response_types", 'response_types may only name "code"');
  if (raw.length && !grantTypes.includes(AUTHORIZATION_CODE_GRANT)) throw new MetadataError("response_types", 'response_types "code" needs the authorization_code grant');
}

/** Whether `ownerId` already owns as many clients as allowed. */
const atClientCap = (ctx: Ctx, ownerId: string) =>
  (ctx.db.select({ n: count() }).from(oauthClients).where(eq(oauthClients.ownerId, ownerId)).get()?.n ?? 0) >= MAX_CLIENTS_PER_OWNER;

/** POST /api/v1/oauth-clients */
export async function createClient(ctx: Ctx, caller: Caller, input: ClientInput) {
  await refusePrivateTargets(ctx, input as Record<string, unknown>).catch((err) => {
    throw fieldError(err);
  });
  // Counted after the wait, right before the insert, so that requests at once cannot pass the cap together.
  if (atClientCap(ctx, caller.id)) throw new ApiError(400, "LIMIT_EXCEEDED", `You can own at most ${MAX_CLIENTS_PER_OWNER} OAuth clients`);
  const { row, secret } = asFieldError(() => insertClient(ctx, caller.id, input, { redirectMin: 1, defaultAuth: "client_secret_basic" }));
  ctx.log.info("oauth client created", { id: row.id, client_id: row.clientId, owner_id: caller.id });
  return { ...clientOut(ctx, row), client_secret: secret };
}

/** POST /oauth/register (RFC 7591). `ownerId` is the caller when a bearer token was sent. */
export async function registerClient(ctx: Ctx, ownerId: string | null, body: Record<string, unknown>) {
  await refusePrivateTargets(ctx, body);
  if (ownerId && atClientCap(ctx, ownerId)) throw new MetadataError("client_name", `An account can own at most ${MAX_CLIENTS_PER_OWNER} OAuth clients`);
  // allowed_scopes (a list) wins over the RFC's space-delimited `scope`.
  let scopes: unknown = body.allowed_scopes;
  if (scopes === undefined || scopes === null) {
    if (body.scope !== undefined && body.scope !== null && typeof body.scope !== "string") throw new MetadataError("scope", "scope must be a space-delimited string");
    scopes = typeof body.scope === "string" ? body.scope.split(/\s+/).filter(Boolean) : undefined;
  }
  const { row, secret } = insertClient(
    ctx,
    ownerId,
    {
      name: body.client_name ?? "Unnamed client",
      redirect_uris: body.redirect_uris,
      post_logout_redirect_uris: body.post_logout_redirect_uris,
      scopes,
      owner_contact: Array.isArray(body.contacts) && typeof body.contacts[0] === "string" ? body.contacts[0] : undefined,
      audience_policy: body.audience_policy,
      subject_type: body.subject_type,
      delegation_policy: body.delegation_policy,
      token_endpoint_auth_method: body.token_endpoint_auth_method,
      jwks_uri: body.jwks_uri,
      jwks: body.jwks,
      grant_types: body.grant_types,
      response_types: body.response_types,
    },
    { redirectMin: 0, defaultAuth: "none" },
  );
  ctx.log.info("oauth client registered", { id: row.id, client_id: row.clientId, owner_id: ownerId });
  return {
    client_id: row.clientId,
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_id_issued_at: Math.floor(row.createdAt / 1000),
    client_name: row.name,
    redirect_uris: row.redirectUris,
    grant_types: row.grantTypes,
    response_types: row.grantTypes.includes(AUTHORIZATION_CODE_GRANT) ? ["code"] : [],
    token_endpoint_auth_method: row.tokenEndpointAuthMethod,
    scope: row.allowedScopes.join(" "),
    allowed_scopes: row.allowedScopes,
    audience_policy: row.audiencePolicy,
    subject_type: row.subjectType,
    delegation_policy: row.delegationPolicy,
  };
}

function connectionStats(ctx: Ctx, clientRef: string): { users: number; logins: number } {
  const r = ctx.db.select({ users: count(), logins: sum(oauthGrants.logins) }).from(oauthGrants).where(eq(oauthGrants.clientRef, clientRef)).get();
  return { users: r?.users ?? 0, logins: Number(r?.logins ?? 0) };
}

function clientOut(ctx: Ctx, row: ClientRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    owner_contact: row.ownerContact,
    redirect_uris: row.redirectUris,
    post_logout_redirect_uris: row.postLogoutRedirectUris,
    backchannel_logout_uri: row.backchannelLogoutUri,
    allowed_scopes: row.allowedScopes,
    is_active: row.isActive,
    created_at: iso(row.createdAt),
    audience_policy: row.audiencePolicy,
    subject_type: row.subjectType,
    delegation_policy: row.delegationPolicy,
    token_endpoint_auth_method: row.tokenEndpointAuthMethod,
    jwks_uri: row.jwksUri,
    has_jwks: !!row.jwks,
    connections: connectionStats(ctx, row.id),
  };
}

export function listOwnClients(ctx: Ctx, caller: Caller) {
  return ctx.db.select().from(oauthClients).where(eq(oauthClients.ownerId, caller.id)).orderBy(desc(oauthClients.createdAt), desc(oauthClients.id)).all().map((r) => clientOut(ctx, r));
}

/** One of the caller's clients by its id or client_id; anyone else's (or none) is 404. */
function ownClient(ctx: Ctx, caller: Caller, ref: string): ClientRow {
  const match = isUuid(ref) ? or(eq(oauthClients.id, ref.toLowerCase()), eq(oauthClients.clientId, ref)) : eq(oauthClients.clientId, ref);
  const row = ctx.db.select().from(oauthClients).where(and(match, eq(oauthClients.ownerId, caller.id))).get();
  if (!row) throw notFound("OAuth client not found");
  return row;
}

export const getOwnClient = (ctx: Ctx, caller: Caller, ref: string) => clientOut(ctx, ownClient(ctx, caller, ref));

/** PATCH semantics: only fields sent (and not null) change; lists replace the stored value. */
export async function updateClient(ctx: Ctx, caller: Caller, ref: string, input: ClientInput) {
  ownClient(ctx, caller, ref);
  await refusePrivateTargets(ctx, input as Record<string, unknown>).catch((err) => {
    throw fieldError(err);
  });
  const row = ownClient(ctx, caller, ref);
  const set: Partial<ClientRow> = asFieldError(() => {
    const s: Partial<ClientRow> = {};
    const sent = (v: unknown) => v !== undefined && v !== null;
    if (sent(input.name)) s.name = text("name", input.name, 120, true)!;
    if (sent(input.redirect_uris)) s.redirectUris = validateUris("redirect_uris", input.redirect_uris, { min: 1 });
    if (sent(input.post_logout_redirect_uris)) s.postLogoutRedirectUris = validateUris("post_logout_redirect_uris", input.post_logout_redirect_uris);
    if (sent(input.backchannel_logout_uri)) s.backchannelLogoutUri = validateUri("backchannel_logout_uri", input.backchannel_logout_uri);
    if (sent(input.scopes)) s.allowedScopes = validateScopes("scopes", input.scopes);
    if (sent(input.owner_contact)) s.ownerContact = text("owner_contact", input.owner_contact, 255);
    if (sent(input.audience_policy)) s.audiencePolicy = oneOf("audience_policy", AUDIENCE_POLICIES, input.audience_policy, row.audiencePolicy);
    if (sent(input.subject_type)) s.subjectType = oneOf("subject_type", SUBJECT_TYPES, input.subject_type, row.subjectType);
    if (sent(input.delegation_policy)) s.delegationPolicy = oneOf("delegation_policy", DELEGATION_POLICIES, input.delegation_policy, row.delegationPolicy);
    if (sent(input.token_endpoint_auth_method)) s.tokenEndpointAuthMethod = oneOf("token_endpoint_auth_method", TOKEN_AUTH_METHODS, input.token_endpoint_auth_method, row.tokenEndpointAuthMethod);
    if (sent(input.jwks_uri)) s.jwksUri = validateUri("jwks_uri", input.jwks_uri);
    if (sent(input.jwks)) s.jwks = jwksValue(input.jwks);
    return s;
  });
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.update(oauthClients).set({ ...set, updatedAt: now }).where(eq(oauthClients.id, row.id)).run();
    ctx.events.emit(tx, { type: "oauth_client_updated", actorId: caller.id, subject: { type: "oauth_client", id: row.id } });
  });
  return clientOut(ctx, { ...row, ...set, updatedAt: now });
}

/** Deletes the client with its grants and issued tokens: connected users lose access at once. */
export function deleteClient(ctx: Ctx, caller: Caller, ref: string) {
  const row = ownClient(ctx, caller, ref);
  ctx.db.transaction((tx) => {
    tx.delete(oauthAccessTokens).where(eq(oauthAccessTokens.clientRef, row.id)).run();
    tx.delete(oauthGrants).where(eq(oauthGrants.clientRef, row.id)).run();
    tx.delete(oauthClients).where(eq(oauthClients.id, row.id)).run();
    ctx.events.emit(tx, { type: "oauth_client_deleted", actorId: caller.id, subject: { type: "oauth_client", id: row.id } });
  });
  ctx.log.info("oauth client deleted", { id: row.id, owner_id: caller.id });
  return { deleted: true as const };
}

/** The client a token exchange names as `audience`, or null. */
export function findClientByClientId(ctx: Ctx, clientId: string): ClientRow | null {
  return ctx.db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).get() ?? null;
}

export function findClientById(ctx: Ctx, id: string): ClientRow | null {
  return ctx.db.select().from(oauthClients).where(eq(oauthClients.id, id)).get() ?? null;
}
