// The plugin a group of web routes is added to (part-routes.ts, mod-routes.ts, ops-routes.ts):
// the sessions plugin (the viewer, the CSRF and origin checks of every form, refusals as pages)
// and the rate limits' settlement. Each page area's module adds its routes to it with a function
// `(ctx, app) => void`, so that a group of areas costs the app one plugin.
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import { rateLimitPlugin } from "../http/rate-limit";
import { refusedPage } from "./account-routes";
import { webSession } from "./session";

const webApp = (ctx: Ctx) => new Elysia().use(rateLimitPlugin(ctx)).use(webSession(ctx, refusedPage));

type WebApp = ReturnType<typeof webApp>;

/** A page area's routes, added to `app`. */
export type WebArea = (ctx: Ctx, app: WebApp) => void;

/** One plugin with the routes of every area of `areas`, in order. */
export function webAreas(ctx: Ctx, areas: readonly WebArea[]): WebApp {
  const app = webApp(ctx);
  for (const add of areas) add(ctx, app);
  return app;
}
