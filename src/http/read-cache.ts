// A short-lived cache of anonymous reads, as the reference service keeps for its post lists:
// `anonymousCache: true` on a GET route serves the JSON it last answered for the same URL to
// callers without credentials, for at most 15 seconds and only while no write has happened in
// between (every write emits a domain event, which moves `ctx.events.writes`). Authenticated
// requests always run, since their answers can differ per caller.
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";

export const READ_CACHE_TTL_MS = 15_000;
const MAX_ENTRIES = 2_000;

interface Entry {
  body: string;
  writes: number;
  at: number;
}

const anonymous = (request: Request) => request.method === "GET" && !request.headers.has("authorization");

export const readCachePlugin = (ctx: Ctx) => {
  const entries = new Map<string, Entry>();
  return new Elysia({ name: "colony.read-cache" }).macro({
    anonymousCache: (enabled: boolean) => ({
      beforeHandle({ request }) {
        if (!enabled || !anonymous(request)) return;
        const e = entries.get(request.url);
        if (!e) return;
        if (e.writes === ctx.events.writes && ctx.clock.now() - e.at < READ_CACHE_TTL_MS) {
          return new Response(e.body, { headers: { "content-type": "application/json" } });
        }
        entries.delete(request.url);
      },
      mapResponse({ request, responseValue, set }) {
        if (!enabled || !anonymous(request) || responseValue instanceof Response) return;
        if (set.status !== undefined && set.status !== 200) return;
        if (responseValue === null || typeof responseValue !== "object") return;
        const body = JSON.stringify(responseValue);
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
        entries.set(request.url, { body, writes: ctx.events.writes, at: ctx.clock.now() });
        return new Response(body, { headers: { "content-type": "application/json" } });
      },
    }),
  });
};
