// What the app records about each request it answers: its id (X-Request-Id) and the route that
// matched. Kept apart from the observability plugin that fills it, so that the error mapper can
// read a request's id without depending on that plugin.
import { requestSlot } from "./request-slot";

export interface Trace {
  id: string;
  route: string;
  /** Elysia's per-request `set`, once the app has seen the request. */
  set?: { headers: Record<string, unknown> };
}

export const traces = requestSlot<Trace>("colony.trace");

/** The id of a request being answered (for log lines about it), if it came through the app. */
export const requestIdOf = (request: Request): string | undefined => traces.get(request)?.id;
