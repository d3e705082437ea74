// Delegation tokens (spec Part 1 §5.4, RFC 8693 §4.4 may_act): the caller (principal) authorises
// one actor to sign in to a relying party on its behalf. The actor presents the token as the
// subject_token of a token exchange at /oauth/token together with its own access token as
// actor_token; the id_token then carries sub = principal and act = {sub: actor}.
import { SignJWT, decodeJwt, jwtVerify } from "jose";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import * as usersService from "../users/service";
import type { UserRow } from "../users/service";
import type { Caller } from "./service";

const DELEGATION_DEFAULT_TTL_S = 5 * 60;
export const DELEGATION_MAX_TTL_S = 24 * 60 * 60;
const TOKEN_USE = "delegation";

/** Whether both feature switches are on: delegation is a token exchange. */
export const delegationEnabled = (ctx: Ctx) => ctx.config.oidc.tokenExchange && ctx.config.oidc.delegation;

function findActor(ctx: Ctx, ref: string): UserRow | null {
  const r = ref.trim();
  const byId = isUuid(r) ? usersService.findById(ctx, r.toLowerCase()) : null;
  return byId ?? usersService.findByUsername(ctx, usersService.normaliseUsername(r));
}

export async function mintDelegationToken(ctx: Ctx, caller: Caller, input: { actor: string; ttl_seconds?: number | null }) {
  if (!usersService.isActive(caller.user)) throw new ApiError(403, "FORBIDDEN", "Your account is not in good standing");
  const actor = findActor(ctx, input.actor);
  if (!usersService.isActive(actor)) throw new ApiError(404, "USER_NOT_FOUND", "No active account with that username or id");
  if (actor.id === caller.id) throw new ApiError(400, "INVALID_INPUT", "The actor cannot be yourself: use a plain token exchange");
  const ttl = input.ttl_seconds ?? DELEGATION_DEFAULT_TTL_S;
  const now = ctx.clock.now();
  const token = await new SignJWT({ token_use: TOKEN_USE, may_act: { sub: actor.id }, iat_ms: Math.max(now, caller.user.tokensValidAfter) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(caller.id)
    .setIssuer(ctx.config.publicUrl)
    .setJti(uuidv7(now))
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + ttl)
    .sign(ctx.secrets.jwtKey);
  ctx.log.info("delegation token minted", { principal_id: caller.id, actor_id: actor.id, ttl_seconds: ttl });
  return { delegation_token: token, token_type: "bearer" as const, expires_in: ttl, actor: actor.id };
}

/** Whether a JWT claims to be a delegation token (unverified peek, to route the exchange). */
export function looksLikeDelegation(token: string): boolean {
  try {
    return decodeJwt(token).token_use === TOKEN_USE;
  } catch {
    return false;
  }
}

/** Verifies a delegation token: the principal and the actor's id, or null when invalid or expired. */
export async function verifyDelegationToken(ctx: Ctx, token: string): Promise<{ principal: UserRow; actorId: string } | null> {
  try {
    const { payload } = await jwtVerify(token, ctx.secrets.jwtKey, { algorithms: ["HS256"], issuer: ctx.config.publicUrl, currentDate: new Date(ctx.clock.now()) });
    const mayAct = payload.may_act as { sub?: unknown } | undefined;
    if (payload.token_use !== TOKEN_USE || typeof payload.sub !== "string" || typeof mayAct?.sub !== "string") return null;
    const principal = usersService.findById(ctx, payload.sub);
    if (!usersService.isActive(principal)) return null;
    // An operator key rotation revokes delegations minted before it, like access tokens.
    const iatMs = typeof payload.iat_ms === "number" ? payload.iat_ms : (payload.iat ?? 0) * 1000;
    if (iatMs < principal.tokensValidAfter) return null;
    return { principal, actorId: mayAct.sub };
  } catch {
    return null;
  }
}

