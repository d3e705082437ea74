// The server-sent event stream of one user (spec Part 2 §6.3): what `ctx.realtime` publishes for
// the user, as `id:` / `event:` / `data:` frames, with a heartbeat comment so proxies and clients
// keep the connection open. Closing the stream (client gone, request aborted) unsubscribes.
// The web pages' stream (web/live-routes.ts) is the same stream over more keys, with a filter of
// its own, its session checked at each heartbeat and the unread count as its first event.
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import type { RealtimeEvent } from "../../core/realtime";

interface StreamOptions {
  /** Channel filter: full names (`user:{id}:dm`) or their last segment (`dm`); empty = all. */
  channels?: string[];
  /** Event type filter: exact types (`dm.new`) or prefixes (`dm.*`); empty = all. */
  types?: string[];
  heartbeatMs: number;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /** A further filter on each event (after channels and types): false leaves it out. */
  accept?: (ev: RealtimeEvent) => boolean;
  /**
   * Asked at every heartbeat: false ends the stream with a `session.ended` event first (a web session
   * that was signed out or ran out while the stream was open).
   */
  alive?: () => boolean;
  /** Frames sent right after the stream opens (the web stream's current unread count). */
  opening?: () => string;
}

/** Splits a comma-separated filter parameter. */
export const listParam = (raw: string | undefined | null): string[] =>
  (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export function matches(ev: Pick<RealtimeEvent, "channel" | "type">, opts: Pick<StreamOptions, "channels" | "types">): boolean {
  const channels = opts.channels ?? [];
  const types = opts.types ?? [];
  if (channels.length && !channels.some((c) => c === ev.channel || c === ev.channel.split(":").pop())) return false;
  if (types.length && !types.some((t) => t === ev.type || (t.endsWith(".*") && ev.type.startsWith(t.slice(0, -1))))) return false;
  return true;
}

/** One SSE frame; `data` is the event's JSON with its channel. */
export const frame = (ev: RealtimeEvent) => `id: ${ev.id}\nevent: ${ev.type}\ndata: ${JSON.stringify({ ...ev.data, channel: ev.channel })}\n\n`;

const heartbeatFrame = (nowMs: number) => `: heartbeat ${iso(nowMs)}\n\n`;

/** How long a client should wait before reconnecting after the server announced its shutdown. */
const SHUTDOWN_RETRY_MS = 5000;

/** The last frame of every open stream when the server shuts down. */
const shutdownFrame = (nowMs: number) =>
  `retry: ${SHUTDOWN_RETRY_MS}\nevent: server.shutdown\ndata: ${JSON.stringify({ reason: "the server is shutting down", reconnect_after_ms: SHUTDOWN_RETRY_MS, at: iso(nowMs) })}\n\n`;

/** A frame without an id: state sent as the stream opens or ends, not a published event. */
export const stateFrame = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * The stream of what the hub publishes under `keys`: a user id (the user's channels), and for the
 * web's live stream also `webKey(user)` and a `postTopic(post)`.
 */
export function eventStream(ctx: Ctx, keys: string | readonly string[], opts: StreamOptions): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let closed = false;
  let cleanup = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      const onAbort = () => {
        cleanup();
        try {
          controller.close();
        } catch {}
      };
      // Server shutdown: say so, then end the stream, so that the server can finish draining.
      const onShutdown = () => {
        write(shutdownFrame(ctx.clock.now()));
        onAbort();
      };
      const listener = (ev: RealtimeEvent) => {
        if (matches(ev, opts) && (!opts.accept || opts.accept(ev))) write(frame(ev));
      };
      // One shutdown callback however many keys: the first subscription carries it.
      const unsubscribes = [keys].flat().map((key, i) => ctx.realtime.subscribe(key, listener, i === 0 ? onShutdown : undefined));
      const beat = () => {
        let alive = true;
        try {
          alive = !opts.alive || opts.alive();
        } catch {
          // The check could not run (the database is closing): end the stream, and the client reconnects.
          return onAbort();
        }
        if (!alive) {
          write(stateFrame("session.ended", { reason: "the session has ended", at: iso(ctx.clock.now()) }));
          return onAbort();
        }
        write(heartbeatFrame(ctx.clock.now()));
      };
      const timer = setInterval(beat, opts.heartbeatMs);
      cleanup = () => {
        if (closed) return;
        closed = true;
        for (const unsubscribe of unsubscribes) unsubscribe();
        clearInterval(timer);
        opts.signal?.removeEventListener("abort", onAbort);
      };
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      if (ctx.realtime.closed) return onShutdown();
      // Reconnect after 3 s; the comment flushes the headers to the client at once.
      write(`retry: 3000\n: connected ${iso(ctx.clock.now())}\n\n`);
      if (opts.opening) write(opts.opening());
    },
    cancel() {
      cleanup();
    },
  });
}

/** The answer that carries an event stream (`cacheControl`: the API's no-cache, the web's no-store; `cookies` set with it). */
export function sseResponse(stream: ReadableStream, cacheControl = "no-cache, no-transform", cookies: readonly string[] = []): Response {
  const headers = new Headers({ "content-type": "text/event-stream; charset=utf-8", "cache-control": cacheControl, "x-accel-buffering": "no" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(stream, { headers });
}
