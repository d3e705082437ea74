// Forecasts on the web (/forecasts…): the list (status and order as the API filters them), one
// forecast, a new one, resolving it, a person's calibration and the leaderboard, each the
// forecasts service's answer. A form checks what the API's schema checks (title and body
// lengths, the probability from 0.01 to 0.99, here asked as a percentage) and the service
// everything else: the title's minimum, a resolution date after today, who resolves, and once.
import { DAY, iso } from "../core/clock";
import type { Ctx } from "../core/context";
import { FieldError } from "../core/errors";
import * as forecasts from "../features/forecasts/service";
import * as users from "../features/users/service";
import { formAction, idOr404, noticeOf, pageOf, readingPage, str, typed } from "./area-kit";
import { calibrationPage, forecastHref, forecastListPage, forecastPage, leaderboardPage, newForecastPage, type ForecastFormValues } from "./pages/forecasts";
import { FORM, PAGE } from "./route-options";
import { field, toSignIn, type SignedInWeb } from "./session";
import type { Visit } from "./visit";
import type { WebArea } from "./web-app";

const PER_PAGE = 20;
const BOARD_PER_PAGE = 20;

const NOTICES: Record<string, string> = {
  created: "Your forecast is published.",
  resolved: "The forecast is resolved.",
};

/** A percentage typed in the form as the API's probability (0.01 to 0.99), or a 422 naming the field. */
export function probabilityOf(raw: string): number {
  const s = raw.trim().replace(/%$/, "").trim();
  const n = /^\d{1,2}(?:\.\d{1,2})?$/.test(s) ? Number(s) / 100 : NaN;
  if (!(n >= 0.01 && n <= 0.99)) throw new FieldError(["body", "probability"], "The probability is a percentage from 1 to 99");
  return n;
}

export const forecastWebRoutes: WebArea = (ctx, app) => {
  const tomorrow = () => iso(ctx.clock.now() + DAY).slice(0, 10);

  function view(visit: Visit, id: string, flash: { notice?: string | null; error?: string | null } = {}): string {
    const f = forecasts.getForecast(ctx, idOr404(id));
    const people = users.findManyByIds(ctx, [f.userId, ...(f.resolvedById ? [f.resolvedById] : [])]);
    const caller = visit.caller;
    return forecastPage(visit, {
      forecast: f,
      author: people.get(f.userId),
      resolvedBy: f.resolvedById ? people.get(f.resolvedById) : undefined,
      // The date has passed once its UTC day is over.
      due: f.resolutionDate < iso(ctx.clock.now()).slice(0, 10),
      // The button is shown to whom the service lets resolve; the service decides on the post.
      mayResolve: caller !== null && (caller.id === f.userId || caller.isAdmin),
      flash,
    });
  }

  const values = (w: SignedInWeb): ForecastFormValues => ({ title: typed(w, "title"), body: typed(w, "body"), probability: typed(w, "probability", 10), resolution_date: typed(w, "resolution_date", 10) });

  app
    .get(
      "/forecasts",
      ({ request, query }) =>
        readingPage(ctx, request, (visit) => {
          const rawStatus = str(query.status) ?? "";
          const status = (forecasts.LIST_STATUSES as readonly string[]).includes(rawStatus) ? (rawStatus as (typeof forecasts.LIST_STATUSES)[number]) : undefined;
          const rawSort = str(query.sort) ?? "";
          const sort = (forecasts.SORTS as readonly string[]).includes(rawSort) ? (rawSort as (typeof forecasts.SORTS)[number]) : "newest";
          const paging = pageOf(query.page, PER_PAGE);
          const r = forecasts.listForecasts(ctx, { status, sort }, paging);
          return forecastListPage(visit, {
            items: r.items,
            authors: users.findManyByIds(ctx, r.items.map((f) => f.userId)),
            status: status ?? "",
            sort,
            page: paging.page!,
            hasMore: paging.offset + r.items.length < r.total,
            total: r.total,
            flash: { notice: noticeOf(NOTICES, query.notice) },
          });
        }),
      PAGE,
    )
    .get(
      "/forecasts/new",
      ({ web, request }) => {
        if (!web.viewer) return toSignIn(web, "/forecasts/new");
        return readingPage(ctx, request, (visit) => newForecastPage(visit, { title: "", body: "", probability: "", resolution_date: "" }, tomorrow()));
      },
      PAGE,
    )
    .post(
      "/forecasts/new",
      ({ web, request }) =>
        formAction(
          ctx,
          web,
          request,
          "/forecasts/new",
          ["forecast_create"],
          (w) => {
            const f = forecasts.createForecast(ctx, w.viewer.caller, {
              title: field(w, "title", 300),
              body: field(w, "body", 5000),
              probability: probabilityOf(field(w, "probability", 10)),
              resolution_date: field(w, "resolution_date", 10).trim(),
            });
            return `${forecastHref(f.id)}?notice=created`;
          },
          (visit, error) => newForecastPage(visit, values(web as SignedInWeb), tomorrow(), error),
        ),
      FORM,
    )
    .get(
      "/forecasts/leaderboard",
      ({ request, query }) =>
        readingPage(ctx, request, (visit) => {
          const paging = pageOf(query.page, BOARD_PER_PAGE, 50);
          // One more than a page tells whether there is a next one.
          const rows = forecasts.leaderboard(ctx, { limit: paging.limit + 1, offset: paging.offset });
          const shown = rows.slice(0, paging.limit);
          const people = users.findManyByIds(ctx, shown.map((r) => r.userId));
          return leaderboardPage(visit, {
            entries: shown.map((r) => ({ user: people.get(r.userId), brier: r.brier, n: r.n, correct: r.correct })),
            minResolved: forecasts.MIN_RESOLVED,
            page: paging.page!,
            hasMore: rows.length > paging.limit,
            offset: paging.offset,
          });
        }),
      PAGE,
    )
    .get(
      "/forecasts/people/:username",
      ({ request, params }) =>
        readingPage(ctx, request, (visit) => {
          const c = forecasts.calibration(ctx, params.username.slice(0, 64));
          const recent = forecasts.listForecasts(ctx, { author_id: c.user.id }, { limit: 10, offset: 0 }).items;
          return calibrationPage(visit, { user: c.user, totalResolved: c.total_resolved, brier: c.brier_score, correct: c.correct_count, buckets: c.buckets, recent });
        }),
      PAGE,
    )
    .get("/forecasts/:id", ({ request, params, query }) => readingPage(ctx, request, (visit) => view(visit, params.id, { notice: noticeOf(NOTICES, query.notice) })), PAGE)
    .post(
      "/forecasts/:id/resolve",
      ({ web, request, params }) =>
        formAction(
          ctx,
          web,
          request,
          forecastHref(params.id),
          ["forecast_resolve"],
          (w) => {
            const outcome = field(w, "outcome", 10);
            if (outcome !== "yes" && outcome !== "no" && outcome !== "void") throw new FieldError(["body", "outcome"], "The outcome is yes, no or void");
            const f = forecasts.resolveForecast(ctx, w.viewer.caller, idOr404(params.id), outcome);
            return `${forecastHref(f.id)}?notice=resolved`;
          },
          (visit, error) => view(visit, params.id, { error }),
        ),
      FORM,
    );
};
