// The options of the server's Bun.serve: `colony serve` (server.ts) and the tests that drive the
// app over a real socket use the same ones.
import type { AnyElysia } from "elysia";
import type { Ctx } from "../core/context";
import { boundBody, undeclaredBody } from "./body-limit";
import { errorResponse } from "./errors";

/**
 * Bun's own body limit, out of reach: at it Bun answers a bare 413 without calling the app (see
 * http/body-limit.ts). The configured maxBodyBytes is enforced by the app instead, and Bun does not
 * buffer a body the app does not read, so this limit has nothing left to protect.
 */
const BUN_BODY_LIMIT = Number.MAX_SAFE_INTEGER;

export function serverOptions(ctx: Ctx, app: AnyElysia) {
  const handle = app.fetch;
  const limit = ctx.config.maxBodyBytes;
  return {
    hostname: ctx.config.host,
    port: ctx.config.port,
    maxRequestBodySize: BUN_BODY_LIMIT,
    idleTimeout: 120,
    // Workers of one instance listen on the same port; the kernel spreads connections over them.
    reusePort: ctx.role === "worker",
    fetch(request: Request, server: Bun.Server<undefined>): Response | Promise<Response> {
      // The client address of each request is read through the context (http/client-ip.ts).
      if (ctx.server !== server) ctx.server = server;
      // What other processes committed is seen before this request reads (core/events.ts follow()).
      ctx.events.sync();
      if (!undeclaredBody(request)) return handle(request);
      return boundBody(request, limit, server).then(handle, () => errorResponse(400, "INVALID_INPUT", "The request body could not be read"));
    },
  } satisfies Bun.Serve.Options<undefined>;
}
