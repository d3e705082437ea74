// The `auth` macro: `auth: "required"` resolves `caller` or answers 401/403; `auth: "optional"`
// resolves `caller` to null for anonymous requests (a bad token is still a 401). Each mode also
// writes the route's security requirement into its OpenAPI `detail`; a route without the macro is
// documented as public (http/openapi.ts).
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import { authenticate, revokedTokenSubject, type Caller } from "../features/auth/service";
import { clientIp } from "./client-ip";
import { requestSlot } from "./request-slot";

export type { Caller };

/** Each request's caller, resolved once (null: anonymous). */
const callers = requestSlot<Caller | null>("colony.caller");

type AuthMode = "required" | "optional";

/** The OpenAPI security scheme of bearer access tokens (the reference service's name). */
export const BEARER_SCHEME = "HTTPBearer";

/** The OpenAPI security requirement of each mode: optional also allows no credentials (`{}`). */
export const securityOf = (mode: AuthMode): Record<string, string[]>[] => (mode === "required" ? [{ [BEARER_SCHEME]: [] }] : [{}, { [BEARER_SCHEME]: [] }]);

/**
 * Resolves (once per request) the caller of a request carrying a bearer token; null when it has
 * none. Synchronous when the token was seen before; throws (or rejects) the 401/403 otherwise,
 * 403 AUTH_IP_DENIED included when the account's IP allowlist does not hold the request's address
 * (the socket's, or a trusted proxy's header: http/client-ip.ts).
 */
export function callerOf(ctx: Ctx, request: Request): Caller | null | Promise<Caller | null> {
  const known = callers.get(request);
  if (known !== undefined) return known;
  const header = request.headers.get("authorization");
  if (!header) {
    callers.set(request, null);
    return null;
  }
  const result = authenticate(ctx, header, () => clientIp(ctx, request));
  const keep = (c: Caller | null) => {
    callers.set(request, c);
    return c;
  };
  return result instanceof Promise ? result.then(keep) : keep(result);
}

/**
 * Records the caller of a request resolved from a credential this module does not read (an MCP
 * client's OAuth token, features/mcp/routes.ts): later callerOf calls of the request answer it.
 */
export function rememberCaller(request: Request, caller: Caller): void {
  callers.set(request, caller);
}

/** The caller, or null for anonymous requests and bad credentials (for cross-cutting plugins). */
export async function callerOrNull(ctx: Ctx, request: Request): Promise<Caller | null> {
  try {
    return await callerOf(ctx, request);
  } catch {
    return null;
  }
}

/**
 * The account of the genuine access token a request carries when a rotation of the account's key
 * revoked it; null otherwise (features/auth/service.ts revokedTokenSubject). For the idempotent
 * replay of that rotation only (http/idempotency.ts).
 */
export const revokedTokenOwner = (ctx: Ctx, request: Request): Promise<string | null> => revokedTokenSubject(ctx, request.headers.get("authorization"));

export const authPlugin = (ctx: Ctx) =>
  new Elysia({ name: "colony.auth" }).macro({
    auth: (mode: AuthMode) => {
      const resolved = (caller: Caller | null, request: Request): { caller: Caller } => {
        if (mode === "required" && !caller) authenticate(ctx, null, () => clientIp(ctx, request)); // throws the 401
        return { caller: caller as Caller };
      };
      return {
        detail: { security: securityOf(mode) },
        // Not an async function: a known token resolves without a second turn of the queue.
        resolve({ request }): { caller: Caller } | Promise<{ caller: Caller }> {
          const caller = callerOf(ctx, request);
          return caller instanceof Promise ? caller.then((c) => resolved(c, request)) : resolved(caller, request);
        },
      };
    },
  });
