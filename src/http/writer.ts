// One writer for several workers (docs/decisions.md §186). With several worker processes on one
// database, every request that may write (any method but GET, HEAD and OPTIONS) is served by one
// of them, the writer: the others pass such requests on to it over a Unix socket and hand its
// answer back. The writer keeps group commit (db/client.ts: the writes of one turn of its event
// loop commit together, as in one process), and SQLite's write lock is not fought over by every
// worker: with each worker writing, post creation ran at 0.4 times one process's rate on two
// cores (bench/history/2026-12-02-workers.md). Reads stay on the worker that took the connection.
//
// The writer trusts what arrives on its socket (a private folder only the instance's processes
// reach): the client's address in X-Colony-Peer, and the request headers that fetch adds when the
// client sent none, listed in X-Colony-Absent, which it removes again. A GET that writes (a
// conversation read marks it read) is still served where it lands, committed on its own.
//
// While no writer listens (it died and its supervisor starts it again, within a fraction of a
// second), every worker writes for itself; a request that was on its way to a writer that went
// away answers 503 SERVICE_UNAVAILABLE with Retry-After: 1 (nothing of it was committed unless the
// writer answered).
import type { Ctx } from "../core/context";
import { errorResponse } from "./errors";
import { rememberAddress } from "./client-ip";

/** Methods that never change anything (served where they land). */
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The forwarded client's address, set by the worker that passes a request on. */
const PEER_HEADER = "x-colony-peer";
/** Headers the client did not send and fetch adds (the writer removes them again). */
const ABSENT_HEADER = "x-colony-absent";
/** The headers fetch adds to a request that has none of its own. */
const ADDED_BY_FETCH = ["accept", "accept-encoding", "user-agent"] as const;

/** The writer's socket when this process should pass `request` on to it; null to serve it here. */
export function writerFor(ctx: Ctx, request: Request): string | null {
  const writer = ctx.cluster?.writer;
  if (!writer || writer === ctx.writerSocket || READ_METHODS.has(request.method)) return null;
  return writer;
}

/**
 * Passes `request` on to the writer at `socket` and answers with its answer, as it is (a body
 * still compressed, a redirect not followed, a stream streamed).
 */
export async function passToWriter(request: Request, peer: string | undefined, socket: string): Promise<Response> {
  const headers = request.headers;
  const absent = ADDED_BY_FETCH.filter((h) => !headers.has(h));
  if (absent.length) headers.set(ABSENT_HEADER, absent.join(","));
  else headers.delete(ABSENT_HEADER);
  if (peer) headers.set(PEER_HEADER, peer);
  else headers.delete(PEER_HEADER);
  try {
    return await fetch(request.url, { method: request.method, headers, body: request.body, unix: socket, redirect: "manual", decompress: false, signal: request.signal } as RequestInit);
  } catch {
    return errorResponse(503, "SERVICE_UNAVAILABLE", "The server is restarting a process; retry in a moment", {}, { "retry-after": "1" });
  }
}

/**
 * A request as it reached the writer's socket, made to look as it reached the worker that passed
 * it on: the client's address remembered for clientIp, the marking headers removed.
 */
export function asPassedOn(request: Request): Request {
  const headers = request.headers;
  const peer = headers.get(PEER_HEADER);
  if (peer) rememberAddress(request, peer);
  const absent = headers.get(ABSENT_HEADER);
  if (absent) for (const h of absent.split(",")) headers.delete(h);
  headers.delete(PEER_HEADER);
  headers.delete(ABSENT_HEADER);
  return request;
}
