// The application: cross-cutting plugins, then every feature's routes.
import { Elysia, type AnyElysia, type TSchema } from "elysia";
import { bodyLimitPlugin } from "./http/body-limit";
import { bodyShapePlugin, collectBodySchemas } from "./http/body-shape";
import type { Ctx } from "./core/context";
import { compactFtsIndexes } from "./db/fts";
import { corsPlugin } from "./http/cors";
import { deprecationsPlugin } from "./http/deprecations";
import { errorHandling } from "./http/errors";
import { idempotencyPlugin, purgeExpiredIdempotencyKeys } from "./http/idempotency";
import { docsRoutes } from "./http/docs";
import { securityHeaders } from "./http/html";
import { openapiRoutes } from "./http/openapi";
import { readCacheOf } from "./http/read-cache";
import { observabilityPlugin, type Server } from "./http/observability";
import { purgeExpiredRegistrations } from "./features/auth/service";
import { achievementsRoutes } from "./features/achievements/routes";
import { authRoutes } from "./features/auth/routes";
import { accountSecurityRoutes, registerAccountSecurity } from "./features/auth/security";
import { registerOauthMaintenance } from "./features/oauth/handlers";
import { identityProviderRoutes } from "./features/oauth/routes";
import { avatarsRoutes } from "./features/avatars/routes";
import { registerAvatarHandlers } from "./features/avatars/service";
import { coloniesRoutes } from "./features/colonies/routes";
import { commentsRoutes } from "./features/comments/routes";
import { followsRoutes } from "./features/follows/routes";
import { blocksRoutes } from "./features/blocks/routes";
import { registerFollowHandlers } from "./features/follows/service";
import { registerBlockHandlers } from "./features/blocks/service";
import { limitsRoutes } from "./features/limits/routes";
import { meRoutes } from "./features/me/routes";
import { metaRoutes } from "./features/meta/routes";
import { registerNotificationHandlers } from "./features/notifications/handlers";
import { notificationsRoutes } from "./features/notifications/routes";
import { postsRoutes } from "./features/posts/routes";
import { reportsRoutes } from "./features/reports/routes";
import { searchRoutes } from "./features/search/routes";
import { usersRoutes } from "./features/users/routes";
import { directoryRoutes } from "./features/users/directory-routes";
import { karmaRoutes } from "./features/votes/breakdown-routes";
import { feedRoutes } from "./features/feed/routes";
import { messagingRoutes } from "./features/messages/plugin";
import { registerMessageHandlers } from "./features/messages/handlers";
import { groupsRoutes } from "./features/messages/groups/routes";
import { registerGroupHandlers } from "./features/messages/groups/handlers";
import { realtimeRoutes } from "./features/realtime/routes";
import { webhooksRoutes } from "./features/webhooks/routes";
import { purgeFeedState } from "./features/feed/service";
import { pollingRoutes } from "./features/polling/routes";
import { pollsRoutes } from "./features/polls/routes";
import { reactionsRoutes } from "./features/reactions/routes";
import { registerVoteHooks } from "./features/votes/service";
import { votesRoutes } from "./features/votes/routes";
import { staticSite } from "./http/static";

/** Every feature's routes, in the order they are mounted. */
const FEATURE_ROUTES: ((ctx: Ctx) => AnyElysia)[] = [
  metaRoutes,
  authRoutes,
  accountSecurityRoutes,
  identityProviderRoutes,
  usersRoutes,
  directoryRoutes,
  karmaRoutes,
  pollingRoutes,
  avatarsRoutes,
  coloniesRoutes,
  followsRoutes,
  blocksRoutes,
  notificationsRoutes,
  postsRoutes,
  commentsRoutes,
  votesRoutes,
  reactionsRoutes,
  pollsRoutes,
  limitsRoutes,
  meRoutes,
  reportsRoutes,
  searchRoutes,
  achievementsRoutes,
  feedRoutes,
  messagingRoutes,
  groupsRoutes,
  webhooksRoutes,
  realtimeRoutes,
];

export function createApp(ctx: Ctx) {
  registerMaintenance(ctx);
  registerNotificationHandlers(ctx);
  registerFollowHandlers(ctx);
  registerBlockHandlers(ctx);
  registerAvatarHandlers(ctx);
  registerAccountSecurity(ctx);
  registerOauthMaintenance(ctx);
  registerVoteHooks(ctx);
  registerMessageHandlers(ctx);
  registerGroupHandlers(ctx);
  // Elysia's default normaliser (exactMirror) drops unknown fields and cleans responses cheaply;
  // the body-shape guard runs first so that a string sent for an object field is a 422 rather
  // than an object of its characters.
  const bodies = new Map<string, TSchema>();
  const app = new Elysia({ name: "colony", normalize: true })
    .use(observabilityPlugin(ctx, (): Server => app.server))
    .use(errorHandling(ctx))
    .use(bodyShapePlugin(bodies))
    .use(securityHeaders())
    .use(corsPlugin())
    .use(bodyLimitPlugin(ctx))
    .use(deprecationsPlugin())
    .use(idempotencyPlugin(ctx));
  // Features are added one by one rather than in one chain: the chained type of some thirty
  // plugins is deeper than TypeScript instantiates (TS2589), and nothing reads it.
  for (const routes of FEATURE_ROUTES) app.use(routes(ctx));
  app
    .use(staticSite())
    .use(docsRoutes("Colony"))
    .use(openapiRoutes(app, { publicUrl: ctx.config.publicUrl }));
  collectBodySchemas(app.routes as never, bodies);
  return app;
}

/** Recurring housekeeping of the features in this app. */
function registerMaintenance(ctx: Ctx): void {
  ctx.jobs.every("purge-registrations", "*/1 * * * *", () => purgeExpiredRegistrations(ctx));
  ctx.jobs.every("purge-idempotency", "7 * * * *", () => purgeExpiredIdempotencyKeys(ctx));
  // Events are drained right after each write; this sweep catches any written by another process.
  ctx.jobs.every("drain-events", "*/10 * * * * *", () => ctx.events.drain());
  ctx.jobs.every("purge-feed", "23 * * * *", () => purgeFeedState(ctx));
  ctx.jobs.every("prune-events", "17 3 * * *", () => ctx.events.prune(ctx.clock.now() - 30 * 24 * 3600_000));
  // Expired answers leave the read cache even when nobody asks for them again.
  ctx.jobs.every("read-cache-sweep", "*/15 * * * * *", () => readCacheOf(ctx).sweep(ctx.events.writes));
  // The full-text indexes gather small segments as posts, accounts and messages are written.
  ctx.jobs.every("compact-search-indexes", "47 4 * * *", () => compactFtsIndexes(ctx.db));
}
