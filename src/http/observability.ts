// What operators see of the traffic: a request id on every response, one access-log line and the
// request metrics per request, and GET /metrics.
//
// The plugin wraps the app's fetch (Elysia's `wrap`), so it sees every response the app makes:
// routed answers, errors, unknown routes and the 413 of the body-size check, which answers
// before routing. The matched route pattern is picked up by a global mapResponse hook, which
// runs for routed answers and errors; anything else is logged under UNMATCHED.
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import { requestId, safeEqual } from "../core/ids";
import { bearerToken } from "../core/bearer";
import { clientIp, socketAddress } from "./client-ip";
import { isLoopbackAddress } from "../core/loopback";
import { corsHeadersFor } from "./cors";
import { errorResponse } from "./errors";
import { requestIdOf, traces, type Trace } from "./trace";

export { requestIdOf };

export const REQUEST_ID_HEADER = "x-request-id";
/** Which worker answered, on every answer of a worker process (`colony serve --workers N`). */
export const WORKER_HEADER = "x-colony-worker";
/** Route label of requests that matched no route (or were answered before routing). */
export const UNMATCHED = "unmatched";

/** A client's X-Request-Id is kept when it is 1 to 128 of these characters; otherwise replaced. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;


/** Headers a proxy adds: a request carrying one came through a proxy, whatever its socket says. */
const FORWARDING_HEADERS = ["x-forwarded-for", "fly-client-ip", "forwarded", "x-real-ip"];


/**
 * Whether a request may see operator-only answers (/metrics, the details of /health): its socket
 * peer is a loopback address and it carries no proxy header (a reverse proxy on the same host
 * connects from loopback too), or it presents the configured metrics token as a bearer token.
 * A request that did not come through a socket (no server) is not local.
 */
export function isOperatorRequest(ctx: Ctx, request: Request): boolean {
  const token = ctx.config.metricsToken;
  if (token) {
    const presented = bearerToken(request.headers.get("authorization"));
    if (presented !== null && safeEqual(presented, token)) return true;
  }
  for (const h of FORWARDING_HEADERS) if (request.headers.has(h)) return false;
  const address = socketAddress(ctx, request);
  return address !== undefined && isLoopbackAddress(address);
}

const round2 = (ms: number) => Math.round(ms * 100) / 100;

export const observabilityPlugin = (ctx: Ctx) => {
  const plugin = new Elysia({ name: "colony.observability" });
  const worker = ctx.role === "worker" ? String(ctx.worker) : "";

  // The response's own headers are never read or written here: touching `Response.headers`
  // makes Bun build a Headers object it otherwise skips, on every answer. The
  // id goes out through Elysia's `set.headers`, which every answer of the app carries (the CORS
  // headers take the same way).
  const finish = (request: Request, trace: Trace, start: number, res: Response): Response => {
    const ms = performance.now() - start;
    const status = res.status;
    ctx.metrics.requests.record(request.method, trace.route, status, ms / 1000);
    // The line is not even built when the log level leaves it out (the client address alone is a
    // call into Bun's requestIP).
    if (ctx.config.accessLog && (ctx.config.logLevel === "info" || ctx.config.logLevel === "debug")) {
      const length = trace.set?.headers["content-length"];
      ctx.log.access({
        method: request.method,
        route: trace.route,
        status,
        duration_ms: round2(ms),
        // Known when the app declares it or the status has no body (left out otherwise): Bun
        // adds the length of other bodies as it sends them, after this point.
        bytes: length !== undefined ? Number(length) : status === 204 || status === 304 ? 0 : undefined,
        request_id: trace.id,
        ip: clientIp(ctx, request),
      });
    }
    return res;
  };

  type Handler = (request: Request) => Response | Promise<Response>;
  const observe = (handle: Handler): Handler => (request) => {
    const start = performance.now();
    const given = request.headers.get(REQUEST_ID_HEADER);
    const trace: Trace = { id: given !== null && SANE_REQUEST_ID.test(given) ? given : requestId(ctx.clock.now()), route: UNMATCHED };
    traces.set(request, trace);
    const res = handle(request);
    return res instanceof Promise ? res.then((r) => finish(request, trace, start, r)) : finish(request, trace, start, res);
  };
  let inner: Function | null = null;
  let outer: Handler | null = null;

  return (
    plugin
      // Elysia calls this per request with the app's handler and calls what it returns.
      .wrap((handle) => (handle === inner && outer ? outer : (outer = observe((inner = handle) as unknown as Handler))))
      // The first hook of every request, answered early (413) or not. It also gives a browser's
      // cross-origin request its CORS headers (http/cors.ts): cheaper than a hook of their own.
      .onRequest(({ request, set }) => {
        corsHeadersFor(request, set.headers);
        const trace = traces.get(request);
        if (!trace) return;
        trace.set = set;
        set.headers[REQUEST_ID_HEADER] = trace.id;
        if (worker) set.headers[WORKER_HEADER] = worker;
      })
      // Destructured: Elysia reads a hook's parameters to decide what each route prepares.
      .mapResponse({ as: "global" }, ({ request, route }) => {
        const trace = traces.get(request);
        if (trace && route) trace.route = route;
      })
      .get(
        "/metrics",
        async ({ request }) => {
          if (!isOperatorRequest(ctx, request)) return errorResponse(404, "NOT_FOUND", "Not found");
          return new Response(await ctx.metrics.text(), { headers: { "content-type": ctx.metrics.contentType } });
        },
        { detail: { hide: true } },
      )
  );
};
