// A short-lived cache of reads, as the reference service keeps for its post lists:
// `readCache: true` on a GET route answers the JSON it last answered for the same URL and the
// same caller (anonymous, or one account), for at most 15 seconds and only while nothing has been
// written in between (every write emits a domain event, which moves `ctx.events.writes`).
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import { callerOf } from "./auth";
import { peekState, stateOf } from "./request-state";

export const READ_CACHE_TTL_MS = 15_000;
const MAX_ENTRIES = 4_000;

interface Entry {
  body: string;
  writes: number;
  at: number;
}

const JSON_HEADERS = { "content-type": "application/json" };

export const readCachePlugin = (ctx: Ctx) => {
  const entries = new Map<string, Entry>();
  return new Elysia({ name: "colony.read-cache" }).macro({
    readCache: (enabled: boolean) => ({
      async beforeHandle({ request }) {
        if (!enabled || request.method !== "GET") return;
        // The caller is part of the key: answers differ per account (own votes, private colonies).
        const caller = await callerOf(ctx, request);
        const key = `${caller?.id ?? "-"} ${request.url}`;
        stateOf(request).cacheKey = key;
        const e = entries.get(key);
        if (!e) return;
        if (e.writes === ctx.events.writes && ctx.clock.now() - e.at < READ_CACHE_TTL_MS) return new Response(e.body, { headers: JSON_HEADERS });
        entries.delete(key);
      },
      mapResponse({ request, responseValue, set }) {
        const key = peekState(request)?.cacheKey;
        if (!key || responseValue instanceof Response) return;
        if (set.status !== undefined && set.status !== 200) return;
        if (responseValue === null || typeof responseValue !== "object") return;
        const body = JSON.stringify(responseValue);
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
        entries.set(key, { body, writes: ctx.events.writes, at: ctx.clock.now() });
        return new Response(body, { headers: JSON_HEADERS });
      },
    }),
  });
};
