// The request body limit (setting maxBodyBytes, COLONY_MAX_BODY_BYTES): a body over it is answered
// 413 PAYLOAD_TOO_LARGE in the API's error shape, and nothing of the request runs.
//
// Bun.serve's own limit (maxRequestBodySize) cannot give that answer. A declared Content-Length
// over it gets a bare `413 Request Entity Too Large` before the app is called; a chunked body that
// grows past it makes the body stream fail and Bun writes a bare `413 Payload Too Large` in place
// of whatever the app answers. So serve-options.ts sets Bun's limit out of reach and the limit is
// kept here, before any route runs:
//  - a declared Content-Length over the limit is refused by this plugin's onRequest hook;
//  - a body without a declared length (Transfer-Encoding: chunked) is read at the socket boundary
//    by `boundBody` (called from serverOptions' fetch), its bytes counted, and reading stops as
//    soon as they pass the limit: the app then gets the request marked oversized, which onRequest
//    refuses the same way. Within the limit the app gets the request with those bytes as its body
//    and their Content-Length, so every parser and every route sees a declared length.
// Reading chunked bodies up front rather than as Elysia parses them covers the routes that read
// their body themselves and those with an optional body, whose parse errors Elysia swallows.
// A 413 carries `Connection: close`: Bun then closes the connection after the answer instead of
// reading the rest of a body nobody will use.
import { Elysia } from "elysia";
import type { Ctx, SocketPeers } from "../core/context";
import { rememberAddress, rememberedAddress } from "./client-ip";
import { errorResponse } from "./errors";

/** Requests rebuilt by boundBody whose body passed the limit. */
const oversized = new WeakSet<Request>();

export function payloadTooLarge(limit: number): Response {
  return errorResponse(413, "PAYLOAD_TOO_LARGE", `Request body over ${limit} bytes`, {}, { connection: "close" });
}

/**
 * `request` as the app should see it when its body has no declared length: its body read in full
 * when within `limit` bytes, or no body and marked oversized when it passes the limit (reading
 * stops there). The rebuilt request keeps the socket's client address for clientIp.
 */
export async function boundBody(request: Request, limit: number, server?: SocketPeers | null): Promise<Request> {
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let over = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      over = true;
      reader.cancel().catch(() => {});
      break;
    }
    chunks.push(value);
  }
  const headers = new Headers(request.headers);
  headers.delete("transfer-encoding");
  let rebuilt: Request;
  if (over) {
    rebuilt = new Request(request.url, { method: request.method, headers, signal: request.signal });
    oversized.add(rebuilt);
  } else {
    headers.set("content-length", String(size));
    rebuilt = new Request(request.url, { method: request.method, headers, body: Buffer.concat(chunks, size), signal: request.signal });
  }
  const address = rememberedAddress(request) ?? server?.requestIP(request)?.address;
  if (address) rememberAddress(rebuilt, address);
  return rebuilt;
}

/** Whether `request` has a body whose length is not declared (boundBody reads those). */
export const undeclaredBody = (request: Request): boolean => request.body !== null && !request.headers.has("content-length");

/** The 413 of a request whose declared Content-Length is over `limit` or that boundBody found oversized. */
function refusalOf(request: Request, limit: number): Response | undefined {
  const length = request.headers.get("content-length");
  if (length !== null ? Number(length) > limit : oversized.has(request)) return payloadTooLarge(limit);
}

/**
 * Refuses a declared Content-Length over the limit, and a request boundBody found oversized.
 * Synchronous, and written so that Elysia sees it is: Elysia reads each hook's source text and
 * awaits any hook that returns a call's result directly (`return f(…)`), which costs every
 * request a turn of the microtask queue (body-limit.test.ts holds that it is not awaited).
 */
export const bodyLimitPlugin = (ctx: Ctx) =>
  new Elysia({ name: "colony.body-limit" }).onRequest(({ request }) => {
    const refusal = refusalOf(request, ctx.config.maxBodyBytes);
    if (refusal) return refusal;
  });
