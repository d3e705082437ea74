// Per-request facts shared between the cross-cutting plugins (auth, rate limits, idempotency).
import type { Charge } from "../core/limits";
import type { Caller } from "../features/auth/service";

export interface RequestState {
  caller?: Caller | null;
  charges?: Charge[];
  idempotency?: { userId: string; key: string };
  deprecatedParams?: string[];
  deprecatedValues?: string[];
}

const states = new WeakMap<Request, RequestState>();

export function stateOf(request: Request): RequestState {
  let s = states.get(request);
  if (!s) states.set(request, (s = {}));
  return s;
}
