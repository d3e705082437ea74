// The `auth` macro: `auth: "required"` resolves `caller` or answers 401/403; `auth: "optional"`
// resolves `caller` to null for anonymous requests (a bad token is still a 401).
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import { authenticate, type Caller } from "../features/auth/service";
import { stateOf } from "./request-state";

export type AuthMode = "required" | "optional";

/**
 * Resolves (once per request) the caller of a request carrying a bearer token; null when it has
 * none. Synchronous when the token was seen before; throws (or rejects) the 401/403 otherwise.
 */
export function callerOf(ctx: Ctx, request: Request): Caller | null | Promise<Caller | null> {
  const state = stateOf(request);
  if (state.caller !== undefined) return state.caller;
  const header = request.headers.get("authorization");
  if (!header) return (state.caller = null);
  const result = authenticate(ctx, header);
  if (result instanceof Promise) return result.then((c) => (state.caller = c));
  return (state.caller = result);
}

/** The caller, or null for anonymous requests and bad credentials (for cross-cutting plugins). */
export async function callerOrNull(ctx: Ctx, request: Request): Promise<Caller | null> {
  try {
    return await callerOf(ctx, request);
  } catch {
    return null;
  }
}

export const authPlugin = (ctx: Ctx) =>
  new Elysia({ name: "colony.auth" }).macro({
    auth: (mode: AuthMode) => ({
      async resolve({ request }) {
        const caller = await callerOf(ctx, request);
        if (mode === "required" && !caller) authenticate(ctx, null); // throws the 401
        return { caller: caller as Caller };
      },
    }),
  });
