// The `auth` macro: `auth: "required"` resolves `caller` or answers 401/403; `auth: "optional"`
// resolves `caller` to null for anonymous requests (a bad token is still a 401).
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import { authenticate, type Caller } from "../features/auth/service";
import { stateOf } from "./request-state";

export type AuthMode = "required" | "optional";

/** Resolves (once per request) the caller of a request carrying a bearer token. */
export async function callerOf(ctx: Ctx, request: Request): Promise<Caller | null> {
  const state = stateOf(request);
  if (state.caller !== undefined) return state.caller;
  const header = request.headers.get("authorization");
  state.caller = header ? await authenticate(ctx, header) : null;
  return state.caller;
}

export const authPlugin = (ctx: Ctx) =>
  new Elysia({ name: "colony.auth" }).macro({
    auth: (mode: AuthMode) => ({
      async resolve({ request }) {
        const caller = await callerOf(ctx, request);
        if (mode === "required" && !caller) await authenticate(ctx, null); // throws the 401
        return { caller: caller as Caller };
      },
    }),
  });
