// Per-request facts shared between the cross-cutting plugins (auth, rate limits, idempotency).
import { ElysiaCustomStatusResponse, StatusMap } from "elysia";
import type { Charge } from "../core/limits";
import { requestSlot } from "./request-slot";

export interface RequestState {
  charges?: Charge[];
  idempotency?: { userId: string; key: string };
  /** Set by the read cache for a cacheable GET: where its answer is stored. */
  cacheKey?: string;
  /** The read scopes of that answer and their write counts before the handler ran. */
  cacheDeps?: readonly string[];
  cacheStamp?: string;
}

const states = requestSlot<RequestState>("colony.request-state");

/** The request's state if a plugin recorded any (never allocates: the read path of every request). */
export const peekState = (request: Request): RequestState | undefined => states.get(request);

export function stateOf(request: Request): RequestState {
  let s = states.get(request);
  if (!s) states.set(request, (s = {}));
  return s;
}

/**
 * The status a response value will be sent with: a Response's own status, the code of
 * `status(…)`, else `set.status` (a number or a status name such as "Created").
 */
export function responseStatus(value: unknown, set: { status?: number | string }): number {
  if (value instanceof Response) return value.status;
  if (value instanceof ElysiaCustomStatusResponse) return Number(value.code);
  const s = set.status;
  if (typeof s === "number") return s;
  if (typeof s === "string") return (StatusMap as Record<string, number>)[s] ?? 200;
  return 200;
}

/** Whether a lifecycle hook runs for a request that ended in an error (not a helper function). */
export const isErrorContext = (error: unknown): boolean => error !== undefined && error !== null && typeof error !== "function";
