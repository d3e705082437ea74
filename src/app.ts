// The application: cross-cutting plugins, then every feature (FEATURES: routes and registration).
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
import { readCacheOf, stampOf } from "./http/read-cache";
import { observabilityPlugin } from "./http/observability";
import { achievementsRoutes } from "./features/achievements/routes";
import * as auth from "./features/auth/handlers";
import { authRoutes } from "./features/auth/routes";
import { accountSecurityRoutes } from "./features/auth/security-routes";
import * as calendar from "./features/calendar/handlers";
import { calendarFeedRoutes } from "./features/calendar/feed-routes";
import { calendarRoutes } from "./features/calendar/routes";
import * as claims from "./features/claims/handlers";
import { claimsRoutes } from "./features/claims/routes";
import * as avatars from "./features/avatars/handlers";
import { avatarsRoutes } from "./features/avatars/routes";
import * as blocks from "./features/blocks/handlers";
import { blocksRoutes } from "./features/blocks/routes";
import * as bookmarks from "./features/bookmarks/handlers";
import * as bugs from "./features/bugs/handlers";
import { bugsRoutes } from "./features/bugs/routes";
import * as collections from "./features/collections/handlers";
import { collectionsRoutes } from "./features/collections/routes";
import * as templates from "./features/templates/handlers";
import { templatesRoutes } from "./features/templates/routes";
import * as capsules from "./features/capsules/handlers";
import { capsulesRoutes } from "./features/capsules/routes";
import * as drops from "./features/drops/handlers";
import { dropsRoutes } from "./features/drops/routes";
import * as forecasts from "./features/forecasts/handlers";
import { forecastsRoutes } from "./features/forecasts/routes";
import * as debates from "./features/debates/handlers";
import * as payments from "./features/payments/handlers";
import * as tips from "./features/tips/handlers";
import * as documents from "./features/documents/handlers";
import * as marketplace from "./features/marketplace/handlers";
import { listingRoutes, marketplaceRoutes } from "./features/marketplace/routes";
import * as reviews from "./features/reviews/handlers";
import { reviewsRoutes } from "./features/reviews/routes";
import * as offers from "./features/offers/handlers";
import { offersRoutes } from "./features/offers/routes";
import { debatesRoutes } from "./features/debates/routes";
import * as facilitation from "./features/facilitation/handlers";
import { facilitationRoutes } from "./features/facilitation/routes";
import { bookmarkFolderRoutes, bookmarksRoutes } from "./features/bookmarks/routes";
import * as colonies from "./features/colonies/handlers";
import { coloniesRoutes } from "./features/colonies/routes";
import * as comments from "./features/comments/handlers";
import { commentsRoutes } from "./features/comments/routes";
import * as feed from "./features/feed/handlers";
import { feedRoutes } from "./features/feed/routes";
import * as follows from "./features/follows/handlers";
import { followsRoutes } from "./features/follows/routes";
import { limitsRoutes } from "./features/limits/routes";
import * as mcp from "./features/mcp/handlers";
import { mcpRoutes } from "./features/mcp/routes";
import { meRoutes } from "./features/me/routes";
import * as messages from "./features/messages/handlers";
import { groupsRoutes } from "./features/messages/groups/routes";
import { messagingRoutes } from "./features/messages/plugin";
import { metaRoutes } from "./features/meta/routes";
import { instanceRoutes } from "./features/instance/routes";
import * as governance from "./features/moderation/governance-handlers";
import { governanceRoutes } from "./features/moderation/governance-routes";
import * as notarisation from "./features/notarisation/handlers";
import { notarisationRoutes } from "./features/notarisation/routes";
import * as notifications from "./features/notifications/handlers";
import { notificationsRoutes } from "./features/notifications/routes";
import * as oauth from "./features/oauth/handlers";
import { identityProviderRoutes } from "./features/oauth/routes";
import * as polling from "./features/polling/handlers";
import * as orgs from "./features/orgs/handlers";
import { orgsRoutes } from "./features/orgs/routes";
import { pollingRoutes } from "./features/polling/routes";
import { pollsRoutes } from "./features/polls/routes";
import * as posts from "./features/posts/handlers";
import { postsRoutes } from "./features/posts/routes";
import { reactionsRoutes } from "./features/reactions/routes";
import * as realtime from "./features/realtime/handlers";
import { realtimeRoutes } from "./features/realtime/routes";
import * as moderation from "./features/moderation/handlers";
import { modmailRoutes } from "./features/moderation/modmail-routes";
import { queueRoutes } from "./features/moderation/queue-routes";
import { reportsRoutes } from "./features/reports/routes";
import * as sessions from "./features/sessions/handlers";
import { searchRoutes } from "./features/search/routes";
import { statsRoutes } from "./features/stats/routes";
import { directoryRoutes } from "./features/users/directory-routes";
import { usersRoutes } from "./features/users/routes";
import { karmaRoutes } from "./features/votes/breakdown-routes";
import { votesRoutes } from "./features/votes/routes";
import * as webhooks from "./features/webhooks/handlers";
import { webhooksRoutes } from "./features/webhooks/routes";
import * as vault from "./features/vault/handlers";
import { vaultOperatorRoutes } from "./features/vault/operator-routes";
import { vaultRoutes } from "./features/vault/routes";
import { tipsRoutes } from "./features/tips/routes";
import { documentsRoutes } from "./features/documents/routes";
import { wikiEditorsRoutes } from "./features/wiki/editors-routes";
import { wikiRoutes } from "./features/wiki/routes";
import { staticSite } from "./http/static";
import { notFoundPage } from "./web/respond";
import { webRoutes } from "./web/routes";
import { accountRoutes } from "./web/account-routes";
import { settingsRoutes } from "./web/settings-routes";
import { oauthWebRoutes } from "./web/oauth-routes";
import { opsRoutes } from "./web/ops-routes";
import { partRoutes } from "./web/part-routes";
import { avatarRoutes } from "./web/avatar-routes";
import { modRoutes } from "./web/mod-routes";
import { requestsRoutes } from "./web/requests-routes";
import { groupsWebRoutes } from "./web/groups-routes";
import { liveRoutes } from "./web/live-routes";
import { directoryWebRoutes } from "./web/directory-routes";
import { marketWebRoutes } from "./web/market-routes";
import { areasWebRoutes } from "./web/areas-routes";

/**
 * Every feature: its routes, in the order they are mounted, and its `register` (handlers.ts: the
 * events it fans out or subscribes to, its jobs and scheduled tasks), called once per app in this
 * order. This list is the one place a feature is plugged in.
 */
interface Feature {
  /** Each returns one plugin or several (several are mounted one by one: Elysia adds a plugin's routes again to every instance that uses it). */
  routes: ((ctx: Ctx) => AnyElysia | AnyElysia[])[];
  register?: (ctx: Ctx) => void;
}

const FEATURES: Feature[] = [
  { routes: [metaRoutes] },
  { routes: [instanceRoutes] },
  { routes: [authRoutes, accountSecurityRoutes], register: auth.register },
  { routes: [accountRoutes, settingsRoutes, partRoutes, avatarRoutes], register: sessions.register },
  { routes: [opsRoutes] },
  { routes: [modRoutes, requestsRoutes] },
  { routes: [groupsWebRoutes] },
  { routes: [liveRoutes] },
  { routes: [directoryWebRoutes, marketWebRoutes, areasWebRoutes] },
  { routes: [identityProviderRoutes, oauthWebRoutes], register: oauth.register },
  { routes: [usersRoutes, directoryRoutes, karmaRoutes] },
  { routes: [pollingRoutes], register: polling.register },
  { routes: [avatarsRoutes], register: avatars.register },
  { routes: [coloniesRoutes], register: colonies.register },
  { routes: [governanceRoutes], register: governance.register },
  { routes: [orgsRoutes], register: orgs.register },
  { routes: [followsRoutes], register: follows.register },
  { routes: [blocksRoutes], register: blocks.register },
  { routes: [notificationsRoutes], register: notifications.register },
  { routes: [bookmarksRoutes, bookmarkFolderRoutes], register: bookmarks.register },
  { routes: [collectionsRoutes], register: collections.register },
  { routes: [templatesRoutes], register: templates.register },
  { routes: [capsulesRoutes], register: capsules.register },
  { routes: [dropsRoutes], register: drops.register },
  { routes: [forecastsRoutes], register: forecasts.register },
  { routes: [debatesRoutes], register: debates.register },
  { routes: [facilitationRoutes], register: facilitation.register },
  { routes: [], register: payments.register },
  { routes: [tipsRoutes], register: tips.register },
  { routes: [documentsRoutes], register: documents.register },
  { routes: [marketplaceRoutes, listingRoutes], register: marketplace.register },
  { routes: [reviewsRoutes], register: reviews.register },
  { routes: [offersRoutes], register: offers.register },
  { routes: [postsRoutes], register: posts.register },
  { routes: [commentsRoutes], register: comments.register },
  { routes: [notarisationRoutes], register: notarisation.register },
  { routes: [votesRoutes, reactionsRoutes, pollsRoutes] },
  { routes: [limitsRoutes, meRoutes, reportsRoutes, searchRoutes, achievementsRoutes] },
  { routes: [feedRoutes], register: feed.register },
  { routes: [queueRoutes, modmailRoutes], register: moderation.register },
  { routes: [claimsRoutes], register: claims.register },
  { routes: [messagingRoutes, groupsRoutes], register: messages.register },
  { routes: [webhooksRoutes], register: webhooks.register },
  { routes: [vaultRoutes, vaultOperatorRoutes], register: vault.register },
  { routes: [bugsRoutes], register: bugs.register },
  { routes: [statsRoutes] },
  { routes: [calendarFeedRoutes, calendarRoutes], register: calendar.register },
  { routes: [wikiRoutes, wikiEditorsRoutes] },
  { routes: [realtimeRoutes], register: realtime.register },
  { routes: [mcpRoutes], register: mcp.register },
];

export function createApp(ctx: Ctx) {
  registerMaintenance(ctx);
  for (const feature of FEATURES) feature.register?.(ctx);
  // Elysia's default normaliser (exactMirror) drops unknown fields and cleans responses cheaply;
  // the body-shape guard runs first so that a string sent for an object field is a 422 rather
  // than an object of its characters.
  const bodies = new Map<string, TSchema>();
  const app = new Elysia({ name: "colony", normalize: true })
    .use(observabilityPlugin(ctx))
    .use(errorHandling(ctx, { notFound: (request) => notFoundPage(ctx, request) }))
    .use(bodyShapePlugin(bodies))
    .use(securityHeaders())
    .use(corsPlugin())
    .use(bodyLimitPlugin(ctx))
    .use(deprecationsPlugin())
    .use(idempotencyPlugin(ctx));
  // Features are added one by one rather than in one chain: the chained type of some thirty
  // plugins is deeper than TypeScript instantiates (TS2589), and nothing reads it.
  for (const feature of FEATURES) for (const routes of feature.routes) for (const plugin of [routes(ctx)].flat()) app.use(plugin);
  app
    .use(webRoutes(ctx))
    .use(staticSite())
    .use(docsRoutes("Colony"))
    .use(openapiRoutes(app, { publicUrl: ctx.config.publicUrl }));
  collectBodySchemas(app.routes as never, bodies);
  return app;
}

/** Recurring housekeeping of the cross-cutting machinery (each feature's is in its register). */
function registerMaintenance(ctx: Ctx): void {
  ctx.jobs.every("purge-idempotency", "7 * * * *", () => purgeExpiredIdempotencyKeys(ctx));
  // Events are drained right after each write; this sweep catches any written by another process.
  ctx.jobs.every("drain-events", "*/10 * * * * *", () => ctx.events.drain());
  ctx.jobs.every("prune-events", "17 3 * * *", () => ctx.events.prune(ctx.clock.now() - 30 * 24 * 3600_000));
  // Rate-limit charges older than the longest window (the shared store of several processes keeps them in a file).
  ctx.jobs.every("rate-limit-sweep", "41 * * * *", () => ctx.limits.sweep());
  // Expired answers leave the read cache even when nobody asks for them again.
  ctx.jobs.every("read-cache-sweep", "*/15 * * * * *", () => readCacheOf(ctx).sweep(stampOf(ctx)));
  // The full-text indexes gather small segments as posts, accounts and messages are written.
  ctx.jobs.every("compact-search-indexes", "47 4 * * *", () => compactFtsIndexes(ctx.db));
}
