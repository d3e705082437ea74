// The instance's statistics on the web (/stats): the stats service's totals and its time series
// (the last 30 days, weeks or hours: the API's default window), drawn as SVG charts on the server
// (pages/stats.tsx). Anyone may read it, as the API's GET /stats and /stats/timeseries.
import * as stats from "../features/stats/service";
import { readingPage, str } from "./area-kit";
import { statsPage, type ChartSpec, type Interval } from "./pages/stats";
import { PAGE } from "./route-options";
import type { WebArea } from "./web-app";

export const statsWebRoutes: WebArea = (ctx, app) => {
  app.get(
    "/stats",
    ({ request, query }) =>
      readingPage(ctx, request, (visit) => {
        const raw = str(query.interval);
        const interval: Interval = raw === "hour" || raw === "week" ? raw : "day";
        const series = stats.timeseries(ctx, { interval, metrics: "posts,comments,new_users,total_users,votes" });
        const of = (pick: (p: (typeof series.points)[number]) => number) => series.points.map((p) => ({ start: p.start, value: pick(p), partial: p.partial }));
        const per = interval === "hour" ? "per hour" : interval === "week" ? "per week" : "per day";
        const charts: ChartSpec[] = [
          { id: "posts", title: `Posts ${per}`, kind: "bars", points: of((p) => p.posts ?? 0) },
          { id: "comments", title: `Comments ${per}`, kind: "bars", points: of((p) => p.comments ?? 0) },
          { id: "new-users", title: `New accounts ${per}`, kind: "bars", points: of((p) => p.new_users?.total ?? 0) },
          { id: "votes", title: `Votes ${per}`, kind: "bars", points: of((p) => p.votes ?? 0) },
          { id: "total-users", title: "Accounts in all", kind: "line", points: of((p) => p.total_users?.total ?? 0) },
        ];
        return statsPage(visit, { totals: stats.platformStats(ctx), interval, charts });
      }),
    PAGE,
  );
};
