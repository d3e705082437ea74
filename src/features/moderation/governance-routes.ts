// Colony governance's routes (spec Part 2 §4.1 icon and header, §4.2 invitations, ownership
// transfers and move-out), plugged into app.ts as one feature. Modmail is mounted with the queue
// (app.ts).
import type { AnyElysia } from "elysia";
import type { Ctx } from "../../core/context";
import { invitesRoutes } from "./invites-routes";
import { mediaRoutes } from "./media-routes";
import { moveOutRoutes } from "./move-out-routes";
import { transfersRoutes } from "./transfers-routes";

export const governanceRoutes = (ctx: Ctx): AnyElysia[] => [invitesRoutes(ctx), transfersRoutes(ctx), mediaRoutes(ctx), moveOutRoutes(ctx)];
