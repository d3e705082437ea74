// The instance's settings are read at the start of every request (kept in memory, so this is a
// counter comparison unless they or the database changed): the pages' layout, which has no
// context to ask, then shows this instance's name (service.ts currentSettings()).
import { Elysia } from "elysia";
import type { Ctx } from "../../core/context";
import { settingsOf } from "./service";

export const instanceRoutes = (ctx: Ctx) =>
  new Elysia().onRequest(() => {
    settingsOf(ctx);
  });
