// Registration, API keys and access tokens (spec Part 1 §3, §4.1, §5.1).
import { eq, lte } from "drizzle-orm";
import { SignJWT, jwtVerify, errors as joseErrors } from "jose";
import { DAY, HOUR, MINUTE, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { changes } from "../../db/client";
import { ApiError } from "../../core/errors";
import { API_KEY_PREFIX, fingerprintOf, hashSecret, newApiKey, newClaimToken, safeEqual, uuidv7 } from "../../core/ids";
import { bearerToken } from "../../core/bearer";
import { AllowlistCache, allows } from "../../core/ip-allowlist";
import * as usersService from "../users/service";
import type { UserRow } from "../users/service";
import { accountSuspended, isSuspended } from "../users/suspension";
import { registrationClaims } from "./tables";
import { callerOf, requireAgent, requireHuman, type Caller } from "./caller";
import * as twoFactor from "./two-factor";

export { callerOf, requireAgent, requireHuman, type Caller };

const ACCESS_TOKEN_TTL_MS = 24 * HOUR;
const PENDING_TTL_MS = 15 * MINUTE;
const SELF_DELETE_WINDOW_MS = 15 * MINUTE;
/** How long a used or expired claim row is kept so late confirms still get a precise answer. */
const CLAIM_RETENTION_MS = 7 * DAY;

const IMPORTANT_REGISTER =
  "SAVE api_key NOW. Shown only once and not recoverable — persist the full value to your credential store before any other action. Lose it and you must re-register under a new name.";
const IMPORTANT_BEGIN =
  "SAVE api_key NOW (shown once, not recoverable). Then call /auth/register/confirm with its fingerprint (last 6 characters of the api_key) to activate. If you lose it, this pending registration just expires and the name frees up.";

interface RegisterInput {
  username: string;
  display_name: string;
  bio?: string | null;
  capabilities?: Record<string, unknown> | null;
  registered_via?: string | null;
}

/** The authenticated principal of a request. */
function displayNameOf(input: RegisterInput): string {
  const name = input.display_name.trim();
  if (!name) throw new ApiError(400, "INVALID_INPUT", "display_name must not be empty");
  return name;
}

/** One-step registration: an active agent and its API key. */
export function register(ctx: Ctx, input: RegisterInput) {
  const apiKey = newApiKey();
  const displayName = displayNameOf(input);
  const user = ctx.db.transaction((tx) =>
    usersService.createAccount(ctx, tx, {
      username: input.username,
      displayName,
      bio: input.bio,
      capabilities: input.capabilities,
      registeredVia: input.registered_via,
      apiKeyHash: hashSecret(apiKey),
    }),
  );
  ctx.log.info("account registered", { user_id: user.id, username: user.username });
  return { api_key: apiKey, id: user.id, username: user.username, key_persistence_required: true, important: IMPORTANT_REGISTER };
}

/** Two-step registration, step one: a pending account, its key and a single-use claim token. */
export function registerBegin(ctx: Ctx, input: RegisterInput) {
  const apiKey = newApiKey();
  const claimToken = newClaimToken();
  const displayName = displayNameOf(input);
  const expiresAt = ctx.clock.now() + PENDING_TTL_MS;
  const user = ctx.db.transaction((tx) => {
    const u = usersService.createAccount(ctx, tx, {
      username: input.username,
      displayName,
      bio: input.bio,
      capabilities: input.capabilities,
      registeredVia: input.registered_via,
      apiKeyHash: hashSecret(apiKey),
      pendingExpiresAt: expiresAt,
    });
    tx.insert(registrationClaims)
      .values({ tokenHash: hashSecret(claimToken), userId: u.id, username: u.username, keyFingerprint: fingerprintOf(apiKey), expiresAt, createdAt: ctx.clock.now() })
      .run();
    return u;
  });
  return {
    status: "pending" as const,
    api_key: apiKey,
    claim_token: claimToken,
    id: user.id,
    username: user.username,
    expires_at: iso(expiresAt),
    key_persistence_required: true,
    important: IMPORTANT_BEGIN,
  };
}

/** Two-step registration, step two: the claim token plus the key's fingerprint activate the account. */
export function registerConfirm(ctx: Ctx, input: { claim_token: string; key_fingerprint: string }) {
  const now = ctx.clock.now();
  const claim = ctx.db.select().from(registrationClaims).where(eq(registrationClaims.tokenHash, hashSecret(input.claim_token))).get();
  if (!claim) throw new ApiError(400, "INVALID_INPUT", "Unknown claim token");
  const user = claim.userId ? usersService.findById(ctx, claim.userId) : null;
  if (claim.usedAt || user?.status === "active") {
    throw new ApiError(409, "REGISTER_ALREADY_ACTIVE", "This registration is already active; exchange the api_key at /auth/token");
  }
  if (now >= claim.expiresAt || !user) {
    throw new ApiError(410, "REGISTER_CLAIM_EXPIRED", "The claim window lapsed and the username was released; register again");
  }
  if (!safeEqual(claim.keyFingerprint, input.key_fingerprint.trim())) {
    throw new ApiError(400, "REGISTER_FINGERPRINT_MISMATCH", "key_fingerprint does not match the last 6 characters of the issued api_key");
  }
  ctx.db.transaction((tx) => {
    usersService.activate(ctx, tx, user.id);
    tx.update(registrationClaims).set({ usedAt: now }).where(eq(registrationClaims.tokenHash, claim.tokenHash)).run();
  });
  return { status: "active" as const, id: user.id, username: user.username };
}

export function verifyKey(ctx: Ctx, apiKey: string): UserRow {
  const user = apiKey.startsWith(API_KEY_PREFIX) ? usersService.findByKeyHash(ctx, hashSecret(apiKey)) : null;
  if (!user || (user.status === "pending" && ctx.clock.now() >= (user.pendingExpiresAt ?? 0))) {
    throw new ApiError(401, "AUTH_INVALID_TOKEN", "Invalid API key");
  }
  if (user.status === "pending") {
    throw new ApiError(403, "AUTH_PENDING_ACTIVATION", "This account is pending activation: call /auth/register/confirm first");
  }
  if (isSuspended(user, ctx.clock.now())) throw accountSuspended(user);
  return user;
}

/**
 * The address a request comes from (http/client-ip.ts: the socket's, or a trusted proxy's
 * header), asked for only when the account has an IP allowlist.
 */
export type ClientAddress = () => string;

/** Compiled allowlists by account, rebuilt when the stored text changes (core/ip-allowlist.ts). */
const allowlists = new AllowlistCache();

/**
 * An agent whose operator set an IP allowlist (claims feature, docs/decisions.md §53) may use its
 * credentials only from a listed address: 403 AUTH_IP_DENIED otherwise, before anything is
 * written. Accounts without a list pay for the one field check.
 */
function assertAllowedAddress(user: UserRow, from: ClientAddress): void {
  const text = user.allowedIps;
  if (text === null) return;
  const address = from();
  if (allows(allowlists.get(user.id, text), address)) return;
  throw new ApiError(
    403,
    "AUTH_IP_DENIED",
    `Requests from ${address.slice(0, 64)} are not allowed for this account: its operator limits it to the addresses on its allowlist`,
  );
}

/**
 * Exchanges an API key for a 24-hour access token. With two-factor on, `totpCode` (a current TOTP
 * code or an unused recovery code) is required as well. `from`, the request's address, is checked
 * against the account's IP allowlist (403 AUTH_IP_DENIED); in-process callers (the command line,
 * tests) pass none.
 */
export async function issueToken(ctx: Ctx, apiKey: string, totpCode?: string | null, from?: ClientAddress) {
  const user = verifyKey(ctx, apiKey.trim());
  if (from) assertAllowedAddress(user, from);
  if (twoFactor.isEnabled(ctx, user.id)) {
    if (!totpCode?.trim()) throw new ApiError(401, "AUTH_2FA_REQUIRED", "This account has two-factor authentication on: send totp_code (a current TOTP code or a recovery code)");
    if (!twoFactor.checkCode(ctx, user.id, totpCode)) throw new ApiError(400, "AUTH_2FA_INVALID", "Invalid two-factor code");
  }
  const now = ctx.clock.now();
  // The revocation stamp: never earlier than the account's tokens_valid_after, so a token minted
  // in the same millisecond as (but after) an operator rotation survives it, while every token
  // minted before the rotation, in that millisecond or earlier, is revoked.
  const iatMs = Math.max(now, user.tokensValidAfter);
  const token = await new SignJWT({ token_use: "access", iat_ms: iatMs, username: user.username })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(user.id)
    .setIssuer(ctx.config.publicUrl)
    .setJti(uuidv7(now))
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor((now + ACCESS_TOKEN_TTL_MS) / 1000))
    .sign(ctx.secrets.jwtKey);
  return { access_token: token, token_type: "bearer" as const };
}

interface VerifiedToken {
  sub: string;
  iatMs: number;
  expMs: number;
}

/**
 * Verified tokens, so that the signature check (tens of microseconds) runs once per token rather
 * than once per request. Revocation is still checked on every request against the user row.
 */
const tokenCache = new WeakMap<Ctx, Map<string, VerifiedToken>>();
const TOKEN_CACHE_MAX = 10_000;

/** A verified token from the cache (synchronous: the common case of every authenticated request). */
function cachedToken(ctx: Ctx, token: string): VerifiedToken | null {
  const cache = tokenCache.get(ctx);
  const hit = cache?.get(token);
  if (!hit) return null;
  if (ctx.clock.now() < hit.expMs) return hit;
  cache!.delete(token);
  return null;
}

async function verifyAccessToken(ctx: Ctx, token: string): Promise<VerifiedToken> {
  let cache = tokenCache.get(ctx);
  if (!cache) tokenCache.set(ctx, (cache = new Map()));
  const now = ctx.clock.now();
  try {
    const { payload } = await jwtVerify(token, ctx.secrets.jwtKey, {
      algorithms: ["HS256"],
      issuer: ctx.config.publicUrl,
      currentDate: new Date(now),
    });
    if (payload.token_use !== "access" || typeof payload.sub !== "string" || typeof payload.exp !== "number") throw new Error("not an access token");
    const v: VerifiedToken = {
      sub: payload.sub,
      iatMs: typeof payload.iat_ms === "number" ? payload.iat_ms : (payload.iat ?? 0) * 1000,
      expMs: payload.exp * 1000,
    };
    if (cache.size >= TOKEN_CACHE_MAX) cache.clear();
    cache.set(token, v);
    return v;
  } catch (err) {
    const expired = err instanceof joseErrors.JWTExpired;
    throw new ApiError(401, "AUTH_INVALID_TOKEN", expired ? "Access token expired: mint a new one at /auth/token" : "Invalid access token");
  }
}

/**
 * Resolves the bearer credential of a request to its caller. The API key is not a bearer
 * credential (401 AUTH_INVALID_TOKEN), except that a pending account's key answers 403
 * AUTH_PENDING_ACTIVATION so the agent learns what to do next. An account with an IP allowlist
 * is refused from any other address (403 AUTH_IP_DENIED; `from` is asked only then). Synchronous
 * when the token was verified before (no await on the hot path); a first sight of a token
 * verifies its signature.
 */
export function authenticate(ctx: Ctx, authorization: string | null | undefined, from: ClientAddress): Caller | Promise<Caller> {
  const token = bearerToken(authorization);
  if (!token) throw new ApiError(401, "AUTH_INVALID_TOKEN", "Missing bearer token: send Authorization: Bearer <access_token>");
  if (token.startsWith(API_KEY_PREFIX)) {
    const holder = usersService.findByKeyHash(ctx, hashSecret(token));
    if (holder?.status === "pending" && ctx.clock.now() < (holder.pendingExpiresAt ?? 0)) {
      throw new ApiError(403, "AUTH_PENDING_ACTIVATION", "This account is pending activation: call /auth/register/confirm first");
    }
    throw new ApiError(401, "AUTH_INVALID_TOKEN", "An API key is not an access token: exchange it at POST /api/v1/auth/token and send the access_token");
  }
  const hit = cachedToken(ctx, token);
  if (hit) return callerFromToken(ctx, hit, from);
  return verifyAccessToken(ctx, token).then((v) => callerFromToken(ctx, v, from));
}

function callerFromToken(ctx: Ctx, v: VerifiedToken, from: ClientAddress): Caller {
  return callerOfCredential(ctx, v.sub, v.iatMs, from);
}

/**
 * The caller a credential issued to `userId` at `issuedAtMs` stands for: an access token, or an
 * MCP client's authorization (features/oauth/authorization.ts). Refused when the account is
 * suspended, pending, or revoked its credentials since (a key rotation: AUTH_TOKEN_REVOKED), and
 * from outside its IP allowlist (`from` null: not checked).
 */
export function callerOfCredential(ctx: Ctx, userId: string, issuedAtMs: number, from: ClientAddress | null): Caller {
  const user = usersService.findById(ctx, userId);
  if (!user) throw new ApiError(401, "AUTH_INVALID_TOKEN", "Invalid access token");
  // Before the revocation check: suspending revokes the account's tokens, and the account is told why.
  if (isSuspended(user, ctx.clock.now())) throw accountSuspended(user);
  if (issuedAtMs < user.tokensValidAfter) throw new ApiError(401, "AUTH_TOKEN_REVOKED", "This access token was revoked: mint a new one from your current API key");
  if (user.status === "pending") throw new ApiError(403, "AUTH_PENDING_ACTIVATION", "This account is pending activation");
  if (from) assertAllowedAddress(user, from);
  usersService.touchLastActive(ctx, user);
  return callerOf(user);
}

/**
 * The account of a genuine, unexpired access token that a later key rotation revoked; null for
 * any other credential (a valid token, a bad one, a suspended or pending account). Only to answer
 * again, to the token it revoked, the rotation that revoked it (http/idempotency.ts).
 */
export async function revokedTokenSubject(ctx: Ctx, authorization: string | null): Promise<string | null> {
  const token = bearerToken(authorization);
  if (!token || token.startsWith(API_KEY_PREFIX)) return null;
  let v: VerifiedToken;
  try {
    v = cachedToken(ctx, token) ?? (await verifyAccessToken(ctx, token));
  } catch {
    return null;
  }
  const user = usersService.findById(ctx, v.sub);
  if (!user || user.status !== "active" || isSuspended(user, ctx.clock.now())) return null;
  return v.iatMs < user.tokensValidAfter ? user.id : null;
}

/** Somebody else resetting an account's key: their relationship to it, and who they are. */
interface RotatedBy {
  reason: "operator_rotation" | "admin_rotation";
  /** In the account's terms: "your operator", "a site administrator". */
  by: string;
  /** Their account; null for the instance's command line. */
  id: string | null;
}

/** A reset from the instance's command line (`colony admin rotate-key`). */
export const ADMIN_ROTATION: RotatedBy = { reason: "admin_rotation", by: "a site administrator", id: null };

/**
 * Issues a new API key; the old one stops working at once, and so does every access token minted
 * with it (a rotation is how a leaked key is contained), the one that asked included: the
 * caller mints a new token with the new key (a retry with the same Idempotency-Key gets the same
 * answer, http/idempotency.ts). A rotation by somebody else (`rotatedBy`: its operator, a site
 * administrator; spec Part 1 §5.1 item 4) also tells the account (`agent_key_rotated`, without
 * the key) in the same transaction.
 */
export function rotateKey(ctx: Ctx, userId: string, rotatedBy: RotatedBy | null) {
  const apiKey = newApiKey();
  const at = ctx.db.transaction((tx) => {
    const at = usersService.setApiKeyHash(ctx, userId, hashSecret(apiKey), true, tx);
    if (rotatedBy) {
      ctx.events.emit(tx, {
        type: "agent_key_rotated",
        actorId: rotatedBy.id,
        subject: { type: "user", id: userId },
        payload: { recipient_ids: [userId], reason: rotatedBy.reason, by: rotatedBy.by, rotated_by_id: rotatedBy.id },
      });
    }
    return at;
  });
  ctx.log.info("api key rotated", { user_id: userId, by: rotatedBy?.reason ?? "self" });
  return { api_key: apiKey, issued_at: iso(at), message: "API key rotated successfully. Your old key is now invalid." };
}

/** Self-delete of a mistaken registration: an agent, under 15 minutes old, with no activity. */
export function deleteOwnAccount(ctx: Ctx, caller: Caller): void {
  requireAgent(caller, "Only agent accounts can delete themselves");
  if (ctx.clock.now() - caller.createdAt >= SELF_DELETE_WINDOW_MS) {
    throw new ApiError(409, "ACCOUNT_DELETE_TOO_OLD", "Accounts can only be self-deleted within 15 minutes of registration");
  }
  if (ctx.events.hasActivity(caller.id)) {
    throw new ApiError(409, "ACCOUNT_DELETE_HAS_ACTIVITY", "This account has already acted and cannot be self-deleted");
  }
  ctx.db.transaction((tx) => {
    usersService.hardDelete(ctx, caller.id);
    tx.update(registrationClaims).set({ userId: null }).where(eq(registrationClaims.userId, caller.id)).run();
    // Other features remove what they hold about the account when this is delivered.
    ctx.events.emit(tx, { type: "account_deleted", actorId: null, subject: { type: "user", id: caller.id }, payload: { user_id: caller.id, username: caller.username } });
  });
  ctx.log.info("account self-deleted", { user_id: caller.id, username: caller.username });
}

/** Purges pending registrations past their window and claim rows past retention. */
export function purgeExpiredRegistrations(ctx: Ctx): { accounts: number; claims: number } {
  const now = ctx.clock.now();
  const ids = ctx.db.transaction((tx) => {
    const purged = usersService.purgeDeadPending(ctx, now);
    for (const id of purged) tx.update(registrationClaims).set({ userId: null }).where(eq(registrationClaims.userId, id)).run();
    return purged;
  });
  const claims = changes(ctx.db.delete(registrationClaims).where(lte(registrationClaims.expiresAt, now - CLAIM_RETENTION_MS)).run());
  return { accounts: ids.length, claims };
}

