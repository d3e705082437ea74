// A short-lived cache of reads, as the reference service keeps for its post lists:
// `readCache` on a GET route answers the JSON it last answered for the same request and the same
// caller (anonymous, or one account), for at most 15 seconds and only while nothing it shows has
// been written since. What a read shows is named by read scopes: every cached read depends on
// "forum" unless its route names narrower ones (a colony's post list: `colony:<id>`); every write
// emits a domain event, and core/domain-events.ts READ_SCOPES says which scopes each event
// touches (a direct message touches none, a comment touches "forum" and its colony).
//
// The cache is bounded in bytes (COLONY_READ_CACHE_BYTES, one budget per server shared by every
// cached route), least recently used entries go first, and no single answer may take more than an
// eighth of the budget. The key is the route's pattern, its path parameters and its query as the
// route validated it (Elysia drops parameters the route does not declare), so a client adding
// `&x=<anything>` reaches the same entry instead of filling the cache. Expired entries are
// dropped by a sweep (the read-cache-sweep task) as well as when they are next asked for.
import type { Static, TSchema } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { Clock } from "../core/clock";
import type { Ctx } from "../core/context";
import { callerOf } from "./auth";
import { peekState, stateOf } from "./request-state";

export const READ_CACHE_TTL_MS = 15_000;
/** Bytes of bookkeeping per entry beyond its key and body (the Map slot, the entry object). */
const ENTRY_OVERHEAD = 96;

interface Entry {
  /** An encoded answer, or a value a page keeps (web/pages/post.tsx's comment lists) with its size given. */
  body: Uint8Array | object;
  bytes: number;
  /** The read scopes the answer depends on, and their write counts when it was computed. */
  deps: readonly string[];
  stamp: string;
  at: number;
}

/** The current write counts of some read scopes, as one comparable string. */
type StampOf = (deps: readonly string[]) => string;

const JSON_HEADERS = { "content-type": "application/json" };
const encoder = new TextEncoder();

/** A byte-bounded least-recently-used map of answers, each valid while its scopes see no write. */
export class ReadCache {
  private entries = new Map<string, Entry>();
  private used = 0;

  constructor(
    readonly budget: number,
    private clock: Clock,
    private ttlMs = READ_CACHE_TTL_MS,
  ) {}

  /** Bytes held (keys, bodies and bookkeeping). */
  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string, stampOf: StampOf): Uint8Array | undefined {
    return this.value<Uint8Array>(key, stampOf);
  }

  /** An entry stored with keep() (or set()), while fresh. */
  value<T extends object>(key: string, stampOf: StampOf): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (e.stamp !== stampOf(e.deps) || this.clock.now() - e.at >= this.ttlMs) {
      this.used -= e.bytes;
      return undefined;
    }
    this.entries.set(key, e); // most recently used goes last
    return e.body as T;
  }

  /** Stores an answer unless it alone would take more than an eighth of the budget. */
  set(key: string, body: Uint8Array, deps: readonly string[], stamp: string): void {
    this.keep(key, body, body.byteLength, deps, stamp);
  }

  /** Stores a value that holds about `size` bytes, under the same rules as an answer. */
  keep(key: string, body: Uint8Array | object, size: number, deps: readonly string[], stamp: string): void {
    const bytes = size + key.length * 2 + ENTRY_OVERHEAD;
    if (bytes > this.budget / 8) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.used -= old.bytes;
    }
    for (const [k, e] of this.entries) {
      if (this.used + bytes <= this.budget) break;
      this.entries.delete(k);
      this.used -= e.bytes;
    }
    this.entries.set(key, { body, bytes, deps, stamp, at: this.clock.now() });
    this.used += bytes;
  }

  /** Drops every expired or outdated entry; returns how many. */
  sweep(stampOf: StampOf): number {
    const now = this.clock.now();
    let n = 0;
    for (const [k, e] of this.entries) {
      if (e.stamp === stampOf(e.deps) && now - e.at < this.ttlMs) continue;
      this.entries.delete(k);
      this.used -= e.bytes;
      n++;
    }
    return n;
  }
}

const caches = new WeakMap<Ctx, ReadCache>();

/** The server's read cache (one per context, shared by every route that declares readCache). */
export function readCacheOf(ctx: Ctx): ReadCache {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new ReadCache(ctx.config.readCacheBytes, ctx.clock)));
  return cache;
}

/** The part of the key that names the answer: route pattern, path parameters and validated query. */
export function requestKey(route: string, params: Record<string, unknown> | undefined, query: Record<string, unknown> | undefined): string {
  let key = route;
  if (params) for (const k of Object.keys(params).sort()) key += `\u0001${k}=${String(params[k])}`;
  key += "?";
  if (query) for (const k of Object.keys(query).sort()) if (query[k] !== undefined) key += `\u0001${k}=${String(query[k])}`;
  return key;
}

/** The stamp function of a server: the write counts of the scopes, joined. */
export const stampOf =
  (ctx: Ctx): StampOf =>
  (deps) => {
    let stamp = "";
    for (const d of deps) stamp += `${ctx.events.version(d)},`;
    return stamp;
  };

/** What a route's cached answers depend on: every forum write, unless the route says less. */
type ReadScopes = true | ((request: { params: Record<string, unknown>; query: Record<string, unknown> }) => readonly string[]);
const FORUM_ONLY: readonly string[] = ["forum"];

/**
 * A cacheable route's 200 answer serialised by the route (http/answer.ts: no response cleaning or
 * check by Elysia; the route's tests hold every answer to its schema), kept by the read cache
 * when the request was looked up in it.
 */
export function cachedJsonAnswer<S extends TSchema>(ctx: Ctx, request: Request, _schema: S, body: Static<S>): Response {
  return keptAnswer(readCacheOf(ctx), peekState(request), body);
}

/** `value` as a JSON answer, kept under the request's cache key when it was looked up in the cache. */
function keptAnswer(cache: ReadCache, state: ReturnType<typeof peekState>, value: unknown): Response {
  const text = JSON.stringify(value);
  // Kept as bytes (what the budget counts); an answer that is not kept goes out as the string.
  if (!state?.cacheKey) return new Response(text, { headers: JSON_HEADERS });
  const body = encoder.encode(text);
  cache.set(state.cacheKey, body, state.cacheDeps!, state.cacheStamp!);
  return new Response(body, { headers: JSON_HEADERS });
}

export const readCachePlugin = (ctx: Ctx) => {
  const cache = readCacheOf(ctx);
  const stamp = stampOf(ctx);
  return new Elysia({ name: "colony.read-cache" }).macro({
    readCache: (scopes: ReadScopes | false) => ({
      async beforeHandle({ request, route, params, query }) {
        if (!scopes || cache.budget <= 0 || request.method !== "GET") return;
        // The caller is part of the key: answers differ per account (own votes, private colonies).
        const caller = await callerOf(ctx, request);
        const key = `${caller?.id ?? "-"} ${requestKey(route, params as Record<string, unknown>, query as Record<string, unknown>)}`;
        const deps = scopes === true ? FORUM_ONLY : scopes({ params: params as Record<string, unknown>, query: query as Record<string, unknown> });
        const state = stateOf(request);
        state.cacheKey = key;
        // Taken before the handler reads: a write landing while it runs makes this answer stale at once.
        state.cacheDeps = deps;
        state.cacheStamp = stamp(deps);
        const body = cache.get(key, stamp);
        if (body) return new Response(body, { headers: JSON_HEADERS });
      },
      mapResponse({ request, responseValue, set }) {
        const state = peekState(request);
        if (!state?.cacheKey || responseValue instanceof Response) return;
        if (set.status !== undefined && set.status !== 200) return;
        if (responseValue === null || typeof responseValue !== "object") return;
        return keptAnswer(cache, state, responseValue);
      },
    }),
  });
};
