// The iCalendar feeds (docs/decisions.md §105): GET /api/v1/events.ics, GET
// /api/v1/colonies/{colony_id}/events.ics, and the secret feed key that lets a calendar app,
// which cannot send a bearer token, subscribe to the events only its owner may see.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { iso } from "../../core/clock";
import { authPlugin, type Caller } from "../../http/auth";
import { noneMatch } from "../../http/etag";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import { feedViewer, renderFeed } from "./feed";
import * as calendar from "./service";

const FeedQuery = t.Object({
  key: t.Optional(t.String({ maxLength: 100, description: "Your secret feed key (POST /api/v1/events/feed-key): adds the events of private colonies you belong to" })),
});

const calendarAnswer = {
  200: { description: "The events as an iCalendar object (RFC 5545)", content: { "text/calendar": { schema: { type: "string" as const } } } },
  304: { description: "Not Modified: the feed has not changed since the ETag sent in If-None-Match" },
};

const FeedKeyOut = t.Object({
  key: t.String({ description: "The secret; shown once. Anyone holding the address can read what you can: keep it private, and replace it if it leaks." }),
  feed_url: t.String({ description: "Every event you may see" }),
  colony_feed_url: t.String({ description: "One colony's events: put the colony's id in place of {colony_id}" }),
  created_at: t.String({ format: "date-time" }),
});

/** The feed as a text/calendar answer with a strong ETag; 304 when If-None-Match names it. */
function calendarResponse(request: Request, body: string, filename: string): Response {
  const etag = `"${Bun.hash(body).toString(36)}"`;
  const headers: Record<string, string> = { etag, "cache-control": "private, no-cache" };
  if (noneMatch(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  return new Response(body, { headers: { ...headers, "content-type": "text/calendar; charset=utf-8", "content-disposition": `inline; filename="${filename}"` } });
}

const feedUrls = (ctx: Ctx, key: string) => {
  const base = ctx.config.publicUrl.replace(/\/+$/, "");
  return { feed_url: `${base}/api/v1/events.ics?key=${key}`, colony_feed_url: `${base}/api/v1/colonies/{colony_id}/events.ics?key=${key}` };
};

export const calendarFeedRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1", tags: ["events"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/events.ics", ({ caller, query, request }) => calendarResponse(request, renderFeed(ctx, feedViewer(ctx, query.key, caller as Caller | null), null), "events.ics"), {
      auth: "optional",
      query: FeedQuery,
      detail: {
        summary: "Events Calendar Feed",
        description:
          "Every event you may see as an iCalendar feed (text/calendar, RFC 5545) to subscribe to from a calendar app: upcoming ones and those over for less than a year (at most 2,000). " +
          "Without credentials, only public events; with `?key=` (your feed key) or a bearer token, also those of the private colonies you belong to. An unknown or replaced key is 401. Supports If-None-Match (304).",
        responses: calendarAnswer,
      },
    })
    .get(
      "/colonies/:colony_id/events.ics",
      ({ caller, params, query, request }) => calendarResponse(request, renderFeed(ctx, feedViewer(ctx, query.key, caller as Caller | null), params.colony_id), "colony-events.ics"),
      {
        auth: "optional",
        params: t.Object({ colony_id: t.String({ description: "The colony's id (or name)" }) }),
        query: FeedQuery,
        detail: {
          tags: ["events", "colonies"],
          summary: "Colony Events Calendar Feed",
          description: "One colony's events as an iCalendar feed, as GET /api/v1/events.ics. 404 for a colony you cannot read (a private colony needs `?key=` or a bearer token of a member).",
          responses: { ...calendarAnswer, 404: { description: "Not Found", content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorOut" } } } } },
        },
      },
    )
    .post(
      "/events/feed-key",
      ({ caller, set }) => {
        const { key, createdAt } = calendar.issueFeedKey(ctx, caller);
        set.status = 201;
        return { key, ...feedUrls(ctx, key), created_at: iso(createdAt) };
      },
      {
        auth: "required",
        rateLimit: "event_feed_key",
        response: { 201: FeedKeyOut, 429: ErrorOut },
        detail: {
          summary: "Create Calendar Feed Key",
          description:
            "A secret key for your private iCalendar feed addresses, for calendar apps that cannot send a bearer token; shown once. Asking again replaces it (the old addresses stop working). " +
            "The key reads events only: it cannot act as you. 10 an hour.",
        },
      },
    )
    .delete(
      "/events/feed-key",
      ({ caller, set }) => {
        calendar.revokeFeedKey(ctx, caller);
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "event_feed_key",
        response: { 204: t.Void(), 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "Revoke Calendar Feed Key", description: "Retire your feed key: its addresses answer 401 from now on. 404 NOT_FOUND when you have none." },
      },
    );
