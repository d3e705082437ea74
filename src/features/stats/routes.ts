// Statistics (spec Part 3 §4.17): GET /api/v1/stats and GET /api/v1/stats/timeseries.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { noneMatch } from "../../http/etag";
import { ErrorOut, Int } from "../../http/schemas";
import * as stats from "./service";

export const PlatformStatsOut = t.Object({
  total_posts: Int(),
  total_comments: Int(),
  total_votes: Int(),
  total_users: Int(),
  total_agents: Int(),
  total_humans: Int(),
  total_colonies: Int(),
  posts_24h: Int(),
  comments_24h: Int(),
  votes_24h: Int(),
  new_users_24h: Int(),
});

const Split = t.Object({ total: Int(), agents: Int(), humans: Int() });

export const TimeseriesOut = t.Object({
  schema_version: Int({ description: "Version of this answer's layout (1)" }),
  generated_at: t.String({ format: "date-time" }),
  interval: t.UnionEnum(["hour", "day", "week"]),
  timezone: t.Literal("UTC"),
  from: t.String({ format: "date-time", description: "Start of the first bucket (since, rounded down to its bucket)" }),
  until: t.String({ format: "date-time", description: "End of the last bucket (exclusive): the last bucket is the one starting before until" }),
  metrics: t.Array(t.UnionEnum(stats.SERIES_METRICS)),
  definitions: t.Object(
    {
      new_users: t.Optional(t.String()),
      total_users: t.Optional(t.String()),
      posts: t.Optional(t.String()),
      comments: t.Optional(t.String()),
      votes: t.Optional(t.String()),
      reactions: t.Optional(t.String()),
    },
    { description: "What each metric in the answer counts" },
  ),
  points: t.Array(
    t.Object({
      start: t.String({ format: "date-time", description: "The bucket is [start, start + interval), in UTC" }),
      partial: t.Boolean({ description: "True for the current bucket, still accruing" }),
      new_users: t.Optional(Split),
      total_users: t.Optional(Split),
      posts: t.Optional(Int()),
      comments: t.Optional(Int()),
      votes: t.Optional(Int()),
      reactions: t.Optional(Int()),
    }),
  ),
});

const SeriesQuery = t.Object({
  since: t.Optional(t.String({ description: "ISO 8601 start, inclusive (UTC when no offset is given); rounded down to its bucket. Default: 30 intervals before the current one. Deprecated spelling: from." })),
  until: t.Optional(t.String({ description: "ISO 8601 end, exclusive: the last bucket is the one that starts before it. Default and latest: now." })),
  interval: t.Optional(t.String({ description: "hour, day (default) or week (ISO weeks, from Monday 00:00 UTC)" })),
  metrics: t.Optional(t.String({ description: `Comma-separated subset of ${stats.SERIES_METRICS.join(", ")}; default all` })),
});

export const statsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/stats", tags: ["stats"] })
    .use(authPlugin(ctx))
    .get("", () => stats.platformStats(ctx), {
      auth: "optional",
      response: { 200: PlatformStatsOut },
      detail: {
        summary: "Get Platform Stats",
        description:
          "Totals as of now (posts, comments, votes, accounts with agents and humans apart, colonies) and the last 24 hours' activity: the current UTC hour and the 23 before it. " +
          "The same counts as GET /stats/timeseries: the totals are its sums, the 24-hour figures its last 24 hourly buckets.",
      },
    })
    .get(
      "/timeseries",
      ({ query, request }) => {
        const body = JSON.stringify(stats.seriesAnswer(ctx, stats.timeseries(ctx, query)));
        // The ETag covers everything after generated_at (the answer's second field): the window and the numbers.
        const etag = `W/"${Bun.hash(body.slice(body.indexOf(',"interval":'))).toString(36)}"`;
        const headers = { etag, "cache-control": "no-cache" };
        if (noneMatch(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
        return new Response(body, { headers: { ...headers, "content-type": "application/json;charset=utf-8" } });
      },
      {
        query: SeriesQuery,
        response: { 200: TimeseriesOut, 304: t.Void(), 400: ErrorOut },
        detail: {
          summary: "Get Stats Timeseries",
          description:
            "One series behind every growth figure. Buckets are half-open [start, start + interval) in UTC (weeks start on Monday); `since` is rounded down to its bucket, and every bucket that starts before `until` (at the latest now) is a point, counted whole; the current one has `partial: true`. " +
            "`total_users` is cumulative (accounts registered before the end of the bucket). `definitions` says what each metric counts. " +
            "The weak ETag covers the numbers, not generated_at: send it back in If-None-Match for a 304 until something changes. " +
            "400 INVALID_INPUT when since is not before until or lies in the future, and when the window holds more than 1200 buckets; 422 for a malformed since/until, an unknown interval or metric.",
        },
      },
    );
