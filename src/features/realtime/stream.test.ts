// GET /api/v1/stream: real events read from the stream, in-process and over a real socket,
// heartbeats, filters, authentication, and unsubscribing when the client goes away.
import { describe, expect, test } from "bun:test";
import { dmChannel } from "../../core/realtime";
import { BASE, setup } from "../../../test/harness";
import { frame, matches } from "./stream";
import { sseReader } from "../../../test/sse";

const h = setup({ streamHeartbeatMs: 25 });

const reader = sseReader;

const open = (path: string, token?: string) => h.app.handle(new Request(`${BASE}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }));

describe("GET /api/v1/stream", () => {
  test("401 without a token, with a bad token, and with an API key", async () => {
    const a = await h.user();
    for (const res of [await open("/api/v1/stream"), await open("/api/v1/stream", "nope"), await open("/api/v1/stream", a.apiKey), await open("/api/v1/stream?token=nope")]) {
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).detail.code).toBe("AUTH_INVALID_TOKEN");
    }
    expect(h.ctx.realtime.subscribers(a.id)).toBe(0);
  });

  test("carries the caller's published events as SSE frames; unsubscribes when the client cancels", async () => {
    const a = await h.user();
    const b = await h.user();
    const res = await open("/api/v1/stream", a.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("cache-control")).toContain("no-cache");
    const s = reader(res);
    await s.next((f) => f.some((x) => x.comment?.startsWith("connected")));
    expect(h.ctx.realtime.subscribers(a.id)).toBe(1);

    expect(h.ctx.realtime.publish(b.id, dmChannel(b.id), "dm.new", { message_id: "not-for-a" })).toBe(0);
    expect(h.ctx.realtime.publish(a.id, dmChannel(a.id), "dm.new", { message_id: "m1", body: "hello" })).toBe(1);
    h.ctx.realtime.publish(a.id, dmChannel(a.id), "dm.read", { count: 3 });
    const frames = await s.next((f) => f.filter((x) => x.event).length >= 2);
    const events = frames.filter((x) => x.event);
    expect(events[0]).toEqual({ id: expect.stringMatching(/^\d+$/), event: "dm.new", data: { message_id: "m1", body: "hello", channel: `user:${a.id}:dm` } });
    expect(events[1]).toMatchObject({ event: "dm.read", data: { count: 3, channel: dmChannel(a.id) } });
    expect(Number(events[1].id)).toBe(Number(events[0].id) + 1);
    expect(JSON.stringify(frames)).not.toContain("not-for-a");

    await s.cancel();
    expect(h.ctx.realtime.subscribers(a.id)).toBe(0);
  });

  test("sends a heartbeat comment on the configured interval", async () => {
    const a = await h.user();
    const s = reader(await open("/api/v1/stream", a.token));
    const frames = await s.next((f) => f.some((x) => x.comment?.startsWith("heartbeat")));
    expect(frames.find((x) => x.comment?.startsWith("heartbeat"))!.comment).toMatch(/^heartbeat \d{4}-/);
    await s.cancel();
    expect(h.ctx.realtime.subscribers(a.id)).toBe(0);
  });

  test("accepts the token as a query parameter (EventSource) and filters by type", async () => {
    const a = await h.user();
    const s = reader(await open(`/api/v1/stream?token=${a.token}&types=dm.reaction,dm.edit`));
    await s.next((f) => f.length >= 1);
    h.ctx.realtime.publish(a.id, dmChannel(a.id), "dm.typing", { user_id: "x" });
    h.ctx.realtime.publish(a.id, dmChannel(a.id), "dm.reaction", { emoji: "fire", action: "add", total: 1 });
    const frames = await s.next((f) => f.some((x) => x.event));
    expect(frames.filter((x) => x.event).map((x) => x.event)).toEqual(["dm.reaction"]);
    await s.cancel();
  });

  test("over a real socket: events arrive and an aborted client is unsubscribed", async () => {
    const a = await h.user();
    // Settles when a's stream gives its subscription up.
    let unsubscribed!: () => void;
    const gone = new Promise<void>((resolve) => (unsubscribed = resolve));
    const hub = h.ctx.realtime;
    const subscribe = hub.subscribe.bind(hub);
    hub.subscribe = (key, ...rest) => {
      const off = subscribe(key, ...rest);
      return () => {
        off();
        if (key === a.id) unsubscribed();
      };
    };
    const server = h.app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const port = server.server!.port;
      const controller = new AbortController();
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/stream`, { headers: { authorization: `Bearer ${a.token}` }, signal: controller.signal });
      expect(res.status).toBe(200);
      const s = reader(res);
      await s.next((f) => f.length >= 1);
      expect(h.ctx.realtime.subscribers(a.id)).toBe(1);
      h.ctx.realtime.publish(a.id, dmChannel(a.id), "dm.delete", { message_id: "m9" });
      const frames = await s.next((f) => f.some((x) => x.event === "dm.delete"));
      expect(frames.find((x) => x.event === "dm.delete")!.data).toEqual({ message_id: "m9", channel: dmChannel(a.id) });
      controller.abort();
      // The server notices the closed socket on its next write (a heartbeat at the latest).
      await gone;
      expect(h.ctx.realtime.subscribers(a.id)).toBe(0);
    } finally {
      delete (hub as { subscribe?: unknown }).subscribe;
      await server.stop();
    }
  });

  test("is documented in /openapi.json and in the instructions", async () => {
    const doc = (await h.req("GET", "/openapi.json")).body;
    expect(doc.paths["/api/v1/stream"].get).toBeDefined();
    const guide = (await h.req("GET", "/api/v1/instructions")).text;
    expect(guide).toContain("/api/v1/stream");
    expect(guide).toContain("dm.new");
  });
});

describe("filters and frames", () => {
  test("channel filter by full name or last segment; type filter exact or prefix", () => {
    const ev = { channel: "user:u1:dm", type: "dm.new" };
    expect(matches(ev, {})).toBe(true);
    expect(matches(ev, { channels: ["dm"] })).toBe(true);
    expect(matches(ev, { channels: ["user:u1:dm"] })).toBe(true);
    expect(matches(ev, { channels: ["notifications"] })).toBe(false);
    expect(matches(ev, { types: ["dm.*"] })).toBe(true);
    expect(matches(ev, { types: ["dm.read"] })).toBe(false);
  });

  test("a frame is id, event and one data line", () => {
    expect(frame({ id: 7, channel: "user:u1:dm", type: "dm.edit", data: { text: "two\nlines" }, at: 0 })).toBe(
      'id: 7\nevent: dm.edit\ndata: {"text":"two\\nlines","channel":"user:u1:dm"}\n\n',
    );
  });
});

describe("server shutdown", () => {
  test("every open stream gets a last server.shutdown event and ends; a stream opened afterwards ends at once", async () => {
    const local = setup({ streamHeartbeatMs: 100_000 });
    const a = await local.user();
    const b = await local.user();
    const open = (token: string) => local.app.handle(new Request(`${BASE}/api/v1/stream`, { headers: { authorization: `Bearer ${token}` } }));
    const sa = reader(await open(a.token));
    const sb = reader(await open(b.token));
    await sa.next((f) => f.length >= 1);
    await sb.next((f) => f.length >= 1);
    expect(local.ctx.realtime.size).toBe(2);

    expect(local.ctx.realtime.closeAll()).toBe(2);
    for (const s of [sa, sb]) {
      const frames = await s.next(() => false); // reads until the stream ends
      const last = frames[frames.length - 1];
      expect(last.event).toBe("server.shutdown");
      expect(last.data).toMatchObject({ reconnect_after_ms: expect.any(Number), reason: expect.any(String) });
    }
    expect(local.ctx.realtime.size).toBe(0);

    const late = reader(await open(a.token));
    const frames = await late.next(() => false);
    expect(frames.map((f) => f.event).filter(Boolean)).toEqual(["server.shutdown"]);
    await local.close();
  });
});
