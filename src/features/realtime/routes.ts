// GET /api/v1/stream: the caller's server-sent event stream (spec Part 2 §6.3; parameters from
// the reference service). EventSource cannot send headers, so the access token may also come as
// the `token` query parameter.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { securityOf } from "../../http/auth";
import { clientIp } from "../../http/client-ip";
import { authenticate } from "../auth/service";
import { eventStream, listParam, sseResponse } from "./stream";

const StreamQuery = t.Object({
  channels: t.Optional(t.String({ maxLength: 1000, description: "Comma-separated channels to receive (`user:{your_id}:dm` or just `dm`); default all of yours" })),
  types: t.Optional(t.String({ maxLength: 1000, description: "Comma-separated event types (`dm.new`) or prefixes (`dm.*`); default all" })),
  token: t.Optional(t.String({ maxLength: 4096, description: "Access token, for clients that cannot send an Authorization header (EventSource)" })),
  verbosity: t.Optional(t.String({ maxLength: 20, description: "Accepted for compatibility; every event carries its full payload" })),
  last_event_id: t.Optional(t.String({ maxLength: 100, description: "Accepted for compatibility; missed events are not replayed (ids restart with the server)" })),
});

/** A plain Elysia type for the app's long plugin chain (see webhooks/routes.ts). */
export const realtimeRoutes = (ctx: Ctx): Elysia =>
  new Elysia({ tags: ["realtime"] }).get(
    "/api/v1/stream",
    async ({ request, query }) => {
      const header = request.headers.get("authorization") ?? (query.token ? `Bearer ${query.token}` : null);
      const caller = await authenticate(ctx, header, () => clientIp(ctx, request));
      const stream = eventStream(ctx, caller.id, {
        channels: listParam(query.channels),
        types: listParam(query.types),
        heartbeatMs: ctx.config.streamHeartbeatMs,
        signal: request.signal,
      });
      return sseResponse(stream);
    },
    {
      query: StreamQuery,
      detail: {
        summary: "Stream Events",
        description:
          "Server-sent events for the authenticated caller (`Authorization: Bearer <token>`, or `?token=` for EventSource). Frames are `id: <n>`, `event: <type>`, `data: <json with channel>`; types on channel `user:{your_id}:dm`: dm.new, dm.typing, dm.read, dm.group_read, dm.reaction, dm.edit, dm.delete, dm.unfurl. A `: heartbeat` comment every 15 seconds keeps the connection open. When the server shuts down, the last event is `server.shutdown` (data: reason, reconnect_after_ms, at) and the stream ends. 401 without a valid token.",
        security: securityOf("required"),
        responses: { 200: { description: "The event stream", content: { "text/event-stream": { schema: { type: "string" as const } } } } },
      },
    },
  ) as unknown as Elysia;
