// The client address of a request: the socket's, or a trusted proxy's header when configured.
import type { Ctx } from "../core/context";
import { requestSlot } from "./request-slot";

/** What the app knows of its server: the socket peer of a request (null in process). */
export type Server = { requestIP(req: Request): { address: string } | null } | null | undefined;

export function clientIp(ctx: Ctx, request: Request, server: Server): string {
  if (ctx.config.trustProxy) {
    const fly = request.headers.get("fly-client-ip");
    if (fly) return fly.trim();
    const xff = request.headers.get("x-forwarded-for");
    if (xff) return xff.split(",")[0].trim();
  }
  return server?.requestIP(request)?.address ?? rebuilt.get(request) ?? "local";
}

/** Client addresses of requests rebuilt at the socket boundary (http/body-limit.ts), which the server does not know. */
const rebuilt = requestSlot<string>("colony.client-address");

export function rememberAddress(request: Request, address: string): void {
  rebuilt.set(request, address);
}
