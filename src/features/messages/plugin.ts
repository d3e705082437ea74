// Every messaging route, as the plugins the app mounts one by one (app.ts).
import type { AnyElysia } from "elysia";
import type { Ctx } from "../../core/context";
import { attachmentRoutes } from "./attachment-routes";
import { coldBudgetRoutes } from "./cold-routes";
import { messageOpsRoutes } from "./message-routes";
import { messagesRoutes } from "./routes";

export const messagingRoutes = (ctx: Ctx): AnyElysia[] => [attachmentRoutes(ctx), messagesRoutes(ctx), messageOpsRoutes(ctx), coldBudgetRoutes(ctx)];
