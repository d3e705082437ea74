// The options of the server's Bun.serve: `colony serve` (server.ts) and the tests that drive the
// app over a real socket use the same ones.
import type { AnyElysia } from "elysia";
import type { Ctx, SocketPeers } from "../core/context";
import { groupSettling } from "../db/client";
import { boundBody, undeclaredBody } from "./body-limit";
import { errorResponse } from "./errors";
import { asPassedOn, passToWriter, writerFor } from "./writer";

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
  const serveHere = requestHandler(ctx, app);
  const answered = answering(ctx);
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
      // With several workers, what may write is served by the writer (http/writer.ts).
      const writer = writerFor(ctx, request);
      return answered(writer ? passToWriter(request, server.requestIP(request)?.address, writer) : serveHere(request, server));
    },
  } satisfies Bun.Serve.Options<undefined>;
}

/** The options of the writer's own socket, on which the other workers pass on their writes (http/writer.ts). */
export function writerSocketOptions(ctx: Ctx, app: AnyElysia, socket: string) {
  const serveHere = requestHandler(ctx, app);
  const answered = answering(ctx);
  return {
    unix: socket,
    maxRequestBodySize: BUN_BODY_LIMIT,
    fetch: (request: Request): Response | Promise<Response> => answered(serveHere(asPassedOn(request), null)),
  } satisfies Bun.Serve.Options<undefined>;
}

/**
 * A server's answers as sent, once each is ready: after the group commit its writes may have
 * joined (db/client.ts), and saying `Connection: close` when the worker retires meanwhile.
 */
function answering(ctx: Ctx): (answer: Response | Promise<Response>) => Response | Promise<Response> {
  const finish = (res: Response): Response | Promise<Response> => {
    const settling = groupSettling(ctx.db);
    if (settling) return settling.then(() => (draining.has(ctx) ? closing(ctx, res) : res));
    return draining.has(ctx) ? closing(ctx, res) : res;
  };
  return (answer) => (answer instanceof Promise ? answer.then(finish) : finish(answer));
}

/**
 * Serves one request in this process: what other processes committed is looked at first, and a
 * body of undeclared length is read within the limit.
 */
function requestHandler(ctx: Ctx, app: AnyElysia) {
  const handle = app.fetch;
  const limit = ctx.config.maxBodyBytes;
  return (request: Request, peers: SocketPeers | null): Response | Promise<Response> => {
    // What other processes committed is seen before this request reads (core/events.ts follow()).
    ctx.events.sync();
    return !undeclaredBody(request) ? handle(request) : boundBody(request, limit, peers).then(handle, () => errorResponse(400, "INVALID_INPUT", "The request body could not be read"));
  };
}
