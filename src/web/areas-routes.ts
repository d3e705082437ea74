// The web pages of the colony wikis, forecasts, debates, the calendar (/events), time capsules and
// /stats: one plugin (web-app.ts) with each area's routes.
import type { Ctx } from "../core/context";
import { capsuleWebRoutes } from "./capsule-routes";
import { debateWebRoutes } from "./debate-routes";
import { eventWebRoutes } from "./event-routes";
import { forecastWebRoutes } from "./forecast-routes";
import { statsWebRoutes } from "./stats-routes";
import { webAreas } from "./web-app";
import { wikiWebRoutes } from "./wiki-routes";

export const areasWebRoutes = (ctx: Ctx) => webAreas(ctx, [wikiWebRoutes, forecastWebRoutes, debateWebRoutes, eventWebRoutes, capsuleWebRoutes, statsWebRoutes]);
