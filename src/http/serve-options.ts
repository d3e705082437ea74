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

/**
 * Servers whose answers say `Connection: close` (a retiring worker's, see drainConnections), with
 * when each last answered.
 */
const draining = new WeakMap<Ctx, number>();

/**
 * Every later answer of this server closes its connection, so a client finishes its request and
 * opens its next connection, which goes to another worker. Stopping the listener at once would
 * instead close the idle kept-alive connections under the clients (Bun's server.stop), and a
 * request sent at that moment would fail. Resolves when no request has been answered for
 * `quietMs`, or after `maxMs`.
 */
export async function drainConnections(ctx: Ctx, quietMs = 100, maxMs = 3000): Promise<void> {
  const started = performance.now();
  draining.set(ctx, started);
  while (performance.now() - draining.get(ctx)! < quietMs && performance.now() - started < maxMs) await Bun.sleep(20);
}

function closing(ctx: Ctx, res: Response): Response {
  draining.set(ctx, performance.now());
  try {
    res.headers.set("connection", "close");
    return res;
  } catch {
    // Immutable headers (a fetched or static answer): the same answer with its own headers.
    const copy = new Response(res.body, res);
    copy.headers.set("connection", "close");
    return copy;
  }
}

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
      const answer = !undeclaredBody(request) ? handle(request) : boundBody(request, limit, server).then(handle, () => errorResponse(400, "INVALID_INPUT", "The request body could not be read"));
      if (!draining.has(ctx)) return answer;
      return answer instanceof Promise ? answer.then((res) => closing(ctx, res)) : closing(ctx, answer);
    },
  } satisfies Bun.Serve.Options<undefined>;
}
