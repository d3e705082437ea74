// The token exchange of spec Part 1 §5.3 (RFC 8693) and /oauth/userinfo. An agent trades its
// access JWT for a short-lived RS256 id_token addressed to a client and an opaque access token
// good only for /oauth/userinfo (stored hashed). The delegated form (§5.4) takes a delegation
// token as subject_token plus the actor's access token as actor_token. Errors are OAuth's
// `{error, error_description}`; every answer carries Cache-Control: no-store.
import { createHash } from "node:crypto";
import { eq, lte, sql } from "drizzle-orm";
import { changes } from "../../db/client";
import { SignJWT } from "jose";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { hashSecret, randomBase62, uuidv7 } from "../../core/ids";
import { bearerToken } from "../../core/bearer";
import { keyedHash } from "../../core/secrets";
import * as colonies from "../colonies/service";
import { disclosedOrgs } from "../orgs/claims";
import { delegationFor } from "../orgs/delegation";
import { looksLikeDelegation, verifyDelegationToken, delegationEnabled } from "../auth/delegation";
import { verifiedEmailOf } from "../auth/email";
import { authenticate, type ClientAddress } from "../auth/service";
import * as usersService from "../users/service";
import type { UserRow } from "../users/service";
import { TOKEN_EXCHANGE_GRANT, findClientByClientId, findClientById, type ClientRow } from "./clients";
import { signingKey } from "./keys";
import { canonicalScopes } from "./scopes";
import { NO_STORE, OAuthError, oauthErrorResponse } from "./errors";
import { oauthAccessTokens, oauthGrants } from "./tables";

export { NO_STORE, OAuthError, oauthErrorResponse };

const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
const JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt";
const ID_TOKEN_TTL_S = 5 * 60;
const EXCHANGED_ACCESS_TTL_S = 15 * 60;

const badRequest = (description: string) => new OAuthError(400, "invalid_request", description);
const badGrant = (description: string) => new OAuthError(400, "invalid_grant", description);
const badTarget = (description: string) => new OAuthError(400, "invalid_target", description);

/** The `sub` a client sees: the user id, or a per-client opaque value for pairwise clients. */
function subjectFor(ctx: Ctx, client: ClientRow, userId: string): string {
  return client.subjectType === "pairwise" ? keyedHash(ctx.secrets.dataKey, `pairwise:${client.clientId}`, userId).slice(0, 40) : userId;
}

/** The claims of the granted scopes (spec §5.3 table), shared by the id_token and userinfo. */
function scopeClaims(ctx: Ctx, user: UserRow, client: ClientRow, scopes: readonly string[], actorId: string | null): Record<string, unknown> {
  const c: Record<string, unknown> = { sub: subjectFor(ctx, client, user.id) };
  if (scopes.includes("profile")) {
    c.preferred_username = user.username;
    c.name = user.displayName;
    c.picture = `${ctx.config.publicUrl}/u/${encodeURIComponent(user.username)}/avatar`;
    c.profile = `${ctx.config.publicUrl}/api/v1/users/by-username/${encodeURIComponent(user.username)}`;
    // Human accounts exist only by operator action (admin CLI); agents never count as verified humans.
    c.service_verified_human = user.userType === "human";
  }
  if (scopes.includes("email")) {
    const email = verifiedEmailOf(ctx, user.id);
    if (email) {
      c.email = email;
      c.email_verified = true;
    }
  }
  if (scopes.includes("service:karma")) c.service_karma = user.karma;
  if (scopes.includes("service:memberships")) c.service_memberships = colonies.approvedMemberships(ctx, user.id).map((m) => ({ id: m.id, name: m.name, role: m.role }));
  // Only organisations whose disclosure mode and the member's own visibility both allow it (Part 2 §2.6).
  if (scopes.includes("service:orgs")) c.service_orgs = disclosedOrgs(ctx, user.id, client.clientId);
  if (actorId) c.act = { sub: subjectFor(ctx, client, actorId) };
  return c;
}

/** at_hash: base64url of the left half of SHA-256 of the access token (OIDC Core §3.1.3.6, RS256). */
const atHash = (token: string) => createHash("sha256").update(token, "ascii").digest().subarray(0, 16).toString("base64url");

/** A verified access JWT's user, or invalid_grant (raw keys, expired, revoked, pending, unknown). */
async function userOfAccessToken(ctx: Ctx, token: string, what: string, from: ClientAddress): Promise<UserRow> {
  try {
    const caller = await authenticate(ctx, `Bearer ${token}`, from);
    if (!usersService.isActive(caller.user)) throw badGrant(`${what} account is not in good standing`);
    return caller.user;
  } catch (err) {
    if (err instanceof OAuthError) throw err;
    if (err instanceof ApiError && err.code === "AUTH_IP_DENIED") throw badGrant(`${what}'s account may not be used from this address: its operator's IP allowlist does not hold it (AUTH_IP_DENIED)`);
    if (err instanceof ApiError) throw badGrant(`${what} is not a valid access token (${err.code})`);
    throw err;
  }
}

function charge(ctx: Ctx, userId: string, client: ClientRow): void {
  try {
    ctx.limits.consume(["token_exchange_subject"], { userId });
    ctx.limits.consume(["token_exchange_audience"], {}, client.clientId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 429) {
      throw new OAuthError(429, "temporarily_unavailable", "Too many token exchanges; retry later", { "retry-after": err.headers["Retry-After"] ?? "60" });
    }
    throw err;
  }
}

export interface ExchangeForm {
  grant_type?: string;
  subject_token?: string;
  subject_token_type?: string;
  audience?: string;
  /** RFC 8707: an organisation's registered resource, for an on-behalf-of token (docs/decisions.md §65). */
  resource?: string;
  scope?: string;
  requested_token_type?: string;
  actor_token?: string;
  actor_token_type?: string;
}

/**
 * POST /oauth/token. `from` is the request's address: the access tokens presented (the subject's,
 * or the actor's with a delegation) are refused from outside their account's IP allowlist.
 */
export async function exchange(ctx: Ctx, form: ExchangeForm, from: ClientAddress) {
  if (!form.grant_type) throw badRequest("grant_type is required");
  if (form.grant_type !== TOKEN_EXCHANGE_GRANT || !ctx.config.oidc.tokenExchange) {
    throw new OAuthError(400, "unsupported_grant_type", `Only ${TOKEN_EXCHANGE_GRANT} is served${ctx.config.oidc.tokenExchange ? "" : ", and token exchange is switched off"}`);
  }
  if (!form.subject_token) throw badRequest("subject_token is required");
  if (form.resource !== undefined) return exchangeForResource(ctx, form, form.subject_token, form.resource, from);
  if (!form.audience) throw badRequest("audience is required (the client_id of the application)");
  if (form.subject_token_type && form.subject_token_type !== ACCESS_TOKEN_TYPE && form.subject_token_type !== JWT_TOKEN_TYPE) {
    throw badRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  if (form.actor_token_type && form.actor_token_type !== ACCESS_TOKEN_TYPE) throw badRequest(`actor_token_type must be ${ACCESS_TOKEN_TYPE}`);

  // The subject: the caller itself, or the principal of a delegation presented by its actor.
  let user: UserRow;
  let actor: UserRow | null = null;
  const delegated = looksLikeDelegation(form.subject_token);
  if (form.actor_token || delegated) {
    if (!delegationEnabled(ctx)) throw badRequest("Delegated token exchange is not available on this server");
    if (!form.actor_token) throw badRequest("A delegation token needs the actor's access token as actor_token");
    if (!delegated) throw badRequest("actor_token is only used with a delegation token as subject_token");
    const d = await verifyDelegationToken(ctx, form.subject_token);
    if (!d) throw badGrant("The delegation token is invalid, expired or revoked, or its principal is not in good standing");
    actor = await userOfAccessToken(ctx, form.actor_token, "actor_token", from);
    if (actor.id !== d.actorId) throw badGrant("The actor_token does not belong to the actor the delegation names");
    user = d.principal;
  } else {
    user = await userOfAccessToken(ctx, form.subject_token, "subject_token", from);
  }

  const client = findClientByClientId(ctx, form.audience);
  if (!client || !client.isActive) throw badTarget("Unknown or inactive audience");
  if (!client.grantTypes.includes(TOKEN_EXCHANGE_GRANT)) throw badTarget("This client does not accept token exchange");
  const refuses = (u: UserRow) => (u.userType === "agent" ? client.audiencePolicy === "humans_only" : client.audiencePolicy === "agents_only");
  if (refuses(user)) throw badTarget(`This application's audience_policy (${client.audiencePolicy}) does not admit this account type`);
  if (actor && client.delegationPolicy !== "allow") throw badTarget("This application does not accept delegated sign-in");

  charge(ctx, user.id, client);

  // The granted scopes: openid always; offline_access and anything the client may not have dropped.
  const requested = (form.scope ?? "").split(/\s+/).filter((s) => s && s !== "offline_access");
  const scopes = canonicalScopes(requested.filter((s) => client.allowedScopes.includes(s)));
  const scope = scopes.join(" ");

  const now = ctx.clock.now();
  const accessToken = `oat_${randomBase62(43)}`;
  try {
    ctx.db.transaction((tx) => {
      tx.insert(oauthAccessTokens)
        .values({ tokenHash: hashSecret(accessToken), userId: user.id, clientRef: client.id, scope, actorId: actor?.id ?? null, expiresAt: now + EXCHANGED_ACCESS_TTL_S * 1000, createdAt: now })
        .run();
      tx.insert(oauthGrants)
        .values({ userId: user.id, clientRef: client.id, scope, logins: 1, firstAt: now, lastAt: now })
        .onConflictDoUpdate({ target: [oauthGrants.userId, oauthGrants.clientRef], set: { scope, logins: sql`${oauthGrants.logins} + 1`, lastAt: now } })
        .run();
    });
  } catch (err) {
    ctx.log.error("token store write failed", { error: String(err) });
    throw new OAuthError(503, "temporarily_unavailable", "The token store is briefly unavailable; retry shortly", { "retry-after": "1" });
  }

  const key = await signingKey(ctx);
  const iat = Math.floor(now / 1000);
  const idToken = await new SignJWT({ ...scopeClaims(ctx, user, client, scopes, actor?.id ?? null), at_hash: atHash(accessToken) })
    .setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "JWT" })
    .setIssuer(ctx.config.publicUrl)
    .setAudience(client.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ID_TOKEN_TTL_S)
    .sign(key.privateKey);
  ctx.log.info("token exchanged", { user_id: user.id, client_id: client.clientId, actor_id: actor?.id ?? null, scope });
  return {
    access_token: accessToken,
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: "Bearer" as const,
    expires_in: EXCHANGED_ACCESS_TTL_S,
    scope,
    id_token: idToken,
  };
}

/**
 * The on-behalf-of exchange for an organisation's resource (RFC 8693 with an RFC 8707 resource;
 * docs/decisions.md §65): a member presents their own access token and gets an RS256 access token
 * for the resource with sub = the organisation and act = {sub: the member}, only under an active
 * delegation grant of the organisation (orgs/delegation.ts decides) and for at most its lifetime.
 */
async function exchangeForResource(ctx: Ctx, form: ExchangeForm, subjectToken: string, resource: string, from: ClientAddress) {
  if (!delegationEnabled(ctx)) throw badRequest("Delegated token exchange is not available on this server");
  if (form.actor_token || looksLikeDelegation(subjectToken)) throw badRequest("A resource exchange takes your own access token as subject_token, without actor_token");
  if (form.audience && form.audience !== resource) throw badTarget("audience and resource name different targets; send resource alone");
  if (form.subject_token_type && form.subject_token_type !== ACCESS_TOKEN_TYPE && form.subject_token_type !== JWT_TOKEN_TYPE) throw badRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  const member = await userOfAccessToken(ctx, subjectToken, "subject_token", from);
  const requested = [...new Set((form.scope ?? "").split(/\s+/).filter(Boolean))];
  const decision = delegationFor(ctx, member.id, resource, requested);
  if (!decision.ok) throw new OAuthError(400, decision.error, decision.reason);
  try {
    ctx.limits.consume(["token_exchange_subject"], { userId: member.id });
    ctx.limits.consume(["token_exchange_audience"], {}, resource);
  } catch (err) {
    if (err instanceof ApiError && err.status === 429) {
      throw new OAuthError(429, "temporarily_unavailable", "Too many token exchanges; retry later", { "retry-after": err.headers["Retry-After"] ?? "60" });
    }
    throw err;
  }
  const { org, role, grant, scopes, ttlSeconds } = decision;
  const now = ctx.clock.now();
  const iat = Math.floor(now / 1000);
  const key = await signingKey(ctx);
  const scope = scopes.join(" ");
  const accessToken = await new SignJWT({ scope, act: { sub: member.id }, org: { id: org.id, slug: org.slug, name: org.name, verified_domain: org.verifiedDomain, role }, grant_id: grant.id })
    .setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "at+jwt" })
    .setIssuer(ctx.config.publicUrl)
    .setSubject(org.id)
    .setAudience(resource)
    .setJti(uuidv7(now))
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(key.privateKey);
  ctx.log.info("on-behalf-of token issued", { org_id: org.id, member_id: member.id, resource, grant_id: grant.id, scope });
  return { access_token: accessToken, issued_token_type: ACCESS_TOKEN_TYPE, token_type: "Bearer" as const, expires_in: ttlSeconds, scope };
}

const invalidToken = (description: string) => new OAuthError(401, "invalid_token", description, { "www-authenticate": `Bearer error="invalid_token", error_description="${description}"` });

/** GET /oauth/userinfo: the exchanged access token's claims (the id_token's scope claims). */
export function userinfo(ctx: Ctx, authorization: string | null): Record<string, unknown> {
  const token = bearerToken(authorization);
  if (!token) throw new OAuthError(401, "invalid_token", "Send the exchanged access_token as a Bearer token", { "www-authenticate": 'Bearer realm="colony"' });
  const row = ctx.db.select().from(oauthAccessTokens).where(eq(oauthAccessTokens.tokenHash, hashSecret(token))).get();
  if (!row || ctx.clock.now() >= row.expiresAt) throw invalidToken("The access token is invalid or expired");
  const user = usersService.findById(ctx, row.userId);
  const client = findClientById(ctx, row.clientRef);
  if (!usersService.isActive(user) || row.createdAt < user.tokensValidAfter || !client || !client.isActive) throw invalidToken("The access token was revoked");
  return scopeClaims(ctx, user, client, row.scope.split(" "), row.actorId);
}

/** Deletes exchanged access tokens past their expiry. */
export function purgeExpiredAccessTokens(ctx: Ctx): number {
  return changes(ctx.db.delete(oauthAccessTokens).where(lte(oauthAccessTokens.expiresAt, ctx.clock.now())).run());
}

