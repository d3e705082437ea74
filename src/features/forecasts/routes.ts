// Forecasts (spec Part 3 §4.8): create, list, read, resolve, calibration, leaderboard.
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { paged, pagedSchema, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable, OptionalEnum, Uuid } from "../../http/schemas";
import { PersonRefOut } from "../users/schemas";
import { personRefs } from "../users/views";
import * as forecasts from "./service";

const PAGING = { max: 100, default: 20 };
const BOARD_PAGING = { max: 50, default: 20 };
const Person = PersonRefOut;
const ForecastOut = t.Object({
  id: Uuid,
  author: Person,
  title: t.String(),
  body: Nullable(t.String()),
  probability: t.Number(),
  resolution_date: t.String({ format: "date" }),
  status: t.String({ description: "open, resolved_yes, resolved_no or voided" }),
  resolved_at: Nullable(t.String({ format: "date-time" })),
  resolved_by_id: Nullable(Uuid),
  created_at: t.String({ format: "date-time" }),
});
const Calibration = t.Object({
  user: Person,
  total_resolved: Int(),
  brier_score: Nullable(t.Number()),
  correct_count: Int(),
  buckets: t.Array(t.Object({ range_low: t.Number(), range_high: t.Number(), predicted_avg: t.Number(), actual_rate: t.Number(), count: Int() })),
});
const Leaderboard = t.Object({
  entries: t.Array(t.Object({ user: Person, brier_score: t.Number(), total_resolved: Int(), correct_count: Int() })),
  min_resolved: Int(),
});
const IdParams = t.Object({ forecast_id: Uuid });

function forecastsOut(ctx: Ctx, rows: forecasts.ForecastRow[]) {
  const person = personRefs(
    ctx,
    rows.map((r) => r.userId),
  );
  return rows.map((f) => ({
    id: f.id,
    author: person(f.userId),
    title: f.title,
    body: f.body,
    probability: f.probability,
    resolution_date: f.resolutionDate,
    status: f.status,
    resolved_at: iso(f.resolvedAt),
    resolved_by_id: f.resolvedById,
    created_at: iso(f.createdAt),
  }));
}

export const forecastsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/forecasts", tags: ["forecasts"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post(
      "",
      ({ caller, body, set }) => {
        set.status = 201;
        return forecastsOut(ctx, [forecasts.createForecast(ctx, caller, body)])[0]!;
      },
      {
        auth: "required",
        rateLimit: "forecast_create",
        body: t.Object({
          title: t.String({ minLength: 10, maxLength: 300 }),
          body: t.Optional(Nullable(t.String({ maxLength: 5000 }))),
          probability: t.Number({ minimum: 0.01, maximum: 0.99, description: "The probability of yes, 0.01-0.99" }),
          resolution_date: t.String({ maxLength: 10, description: "YYYY-MM-DD, after today (UTC)" }),
        }),
        response: { 201: ForecastOut, 400: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Create Forecast",
          description: "A public yes/no prediction. resolution_date must be after today (UTC), else 400 INVALID_INPUT; if it passes unresolved you are notified (forecast_resolution_due). Rate limited (forecast_create, 10 an hour).",
        },
      },
    )
    .get(
      "",
      ({ query }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = forecasts.listForecasts(ctx, query, page);
        return paged(forecastsOut(ctx, items), total, page);
      },
      {
        query: t.Object({
          ...pagingQuery(PAGING),
          status: OptionalEnum(forecasts.LIST_STATUSES, { description: "open, resolved_yes, resolved_no, voided, or resolved (both outcomes)" }),
          author_id: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "A user's id or username" })),
          sort: OptionalEnum(forecasts.SORTS, { description: "newest (default), resolution_date (soonest first), probability (highest first)" }),
        }),
        response: { 200: pagedSchema(ForecastOut), 404: ErrorOut },
        detail: { summary: "List Forecasts", description: "Forecasts with filters; author_id takes an id or a username (404 USER_NOT_FOUND when unknown)." },
      },
    )
    .get(
      "/calibration/:user_id",
      ({ params }) => {
        const c = forecasts.calibration(ctx, params.user_id);
        return { ...c, user: personRefs(ctx, [c.user.id])(c.user.id) };
      },
      {
        params: t.Object({ user_id: t.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Calibration, 404: ErrorOut },
        detail: {
          summary: "Forecast Calibration",
          description:
            "A user's (id or username) record over their yes/no-resolved forecasts (voided ones left out): total_resolved; correct_count, a forecast above 0.5 that resolved yes or below 0.5 that resolved no (exactly 0.5 calls neither); brier_score, the mean of (probability - outcome)², lower is better, null before the first resolution; buckets, the forecasts grouped by probability in tenths ([0.0, 0.1) … [0.9, 1.0]), each with its average probability and the share that resolved yes, only buckets that hold a forecast, lowest first.",
        },
      },
    )
    .get(
      "/leaderboard/top",
      ({ query }) => {
        const page = resolvePage(query, BOARD_PAGING);
        const rows = forecasts.leaderboard(ctx, page);
        const person = personRefs(
          ctx,
          rows.map((r) => r.userId),
        );
        return {
          entries: rows.map((r) => ({ user: person(r.userId), brier_score: r.brier, total_resolved: r.n, correct_count: r.correct })),
          min_resolved: forecasts.MIN_RESOLVED,
        };
      },
      {
        query: t.Object(pagingQuery(BOARD_PAGING)),
        response: Leaderboard,
        detail: { summary: "Forecast Leaderboard", description: `The best-calibrated forecasters, lowest Brier score first (more resolutions first on a tie); only those with at least ${forecasts.MIN_RESOLVED} yes/no resolutions.` },
      },
    )
    .get("/:forecast_id", ({ params }) => forecastsOut(ctx, [forecasts.getForecast(ctx, params.forecast_id)])[0]!, {
      params: IdParams,
      response: { 200: ForecastOut, 404: ErrorOut },
      detail: { summary: "Get Forecast", description: "One forecast. 404 NOT_FOUND." },
    })
    .post("/:forecast_id/resolve", ({ caller, params, body }) => forecastsOut(ctx, [forecasts.resolveForecast(ctx, caller, params.forecast_id, body.outcome)])[0]!, {
      auth: "required",
      rateLimit: "forecast_resolve",
      params: IdParams,
      body: t.Object({ outcome: t.UnionEnum(forecasts.OUTCOMES, { description: "yes, no or void (voided is the same as void)" }) }),
      response: { 200: ForecastOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Resolve Forecast",
        description: "Resolve an open forecast, once: its author or a site admin (403 FORBIDDEN for others); an already resolved one is 400 INVALID_INPUT. Rate limited (forecast_resolve, 20 an hour).",
      },
    });
