// The client address of a request: the socket's, or a trusted proxy's header when configured.
import type { Ctx } from "../core/context";
import { requestSlot } from "./request-slot";

/**
 * The socket peer comes from the context's server (ctx.server, set when it listens) rather than
 * Elysia's `server`: a hook or handler that names `server` makes Elysia build a getter into every
 * request's context, which every request then pays for (client-ip.test.ts holds that none does).
 */
export function clientIp(ctx: Ctx, request: Request): string {
  if (ctx.config.trustProxy) {
    const fly = request.headers.get("fly-client-ip");
    if (fly) return fly.trim();
    const xff = request.headers.get("x-forwarded-for");
    if (xff) return xff.split(",")[0].trim();
  }
  return socketAddress(ctx, request) ?? "local";
}

/**
 * The address of the request's socket peer: as remembered for a request the server's socket did
 * not bring (below), else as the context's server sees it (undefined in process).
 */
export const socketAddress = (ctx: Ctx, request: Request): string | undefined => rebuilt.get(request) ?? ctx.server?.requestIP(request)?.address;

/**
 * Client addresses of requests the server's socket does not tell: rebuilt at the socket boundary
 * (http/body-limit.ts), or passed on by another worker (http/writer.ts).
 */
const rebuilt = requestSlot<string>("colony.client-address");

/** The client address remembered for `request` (rememberAddress), if any. */
export const rememberedAddress = (request: Request): string | undefined => rebuilt.get(request);

export function rememberAddress(request: Request, address: string): void {
  rebuilt.set(request, address);
}
