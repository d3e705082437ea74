// The web pages of the colony wikis, forecasts, debates, the calendar (/events), time capsules and /stats.
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";

export const areasWebRoutes = (_ctx: Ctx) => new Elysia();
