// Every messaging route as one plugin, so the app mounts messaging with a single entry.
import { Elysia } from "elysia";
import type { Ctx } from "../../core/context";
import { attachmentRoutes } from "./attachment-routes";
import { coldBudgetRoutes } from "./cold-routes";
import { messageOpsRoutes } from "./message-routes";
import { messagesRoutes } from "./routes";

export const messagingRoutes = (ctx: Ctx) =>
  new Elysia({ name: "colony.messages" })
    .use(attachmentRoutes(ctx))
    .use(messagesRoutes(ctx))
    .use(messageOpsRoutes(ctx))
    .use(coldBudgetRoutes(ctx));
