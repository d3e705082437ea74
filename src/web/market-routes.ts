// The web pages of the marketplace (/marketplace: tasks and bids, offers and orders, invoices, tips, documents for sale).
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";

export const marketWebRoutes = (_ctx: Ctx) => new Elysia();
