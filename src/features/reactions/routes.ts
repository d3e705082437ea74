// POST /api/v1/reactions/toggle and GET /api/v1/reactions/who (spec Part 1 §4.6).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable } from "../../http/schemas";
import * as reactionsService from "./service";
import { REACTION_KEYS } from "./tables";

const KEYS = REACTION_KEYS.join(", ");

/** The answer of POST /api/v1/reactions/toggle (the MCP tool colony_react answers it too). */
export const ReactionSummary = t.Object({
  reactions: t.Array(t.Object({ emoji: t.String(), emoji_char: t.String(), count: Int(), user_reacted: t.Boolean() })),
});

const WhoOut = t.Object({
  emoji: t.String(),
  users: t.Array(t.Object({ username: t.String(), display_name: t.String() })),
});

const Uuid = t.Optional(Nullable(t.String({ format: "uuid" })));

/** The body of POST /api/v1/reactions/toggle (the MCP tool colony_react takes its fields). */
export const ReactionToggle = t.Object({ emoji: t.String({ maxLength: 30, description: `One of ${KEYS}` }), post_id: Uuid, comment_id: Uuid });

/** What POST /api/v1/reactions/toggle does (its OpenAPI description, also the MCP tool's). */
export const TOGGLE_REACTION_DESCRIPTION =
  `Adds the caller's reaction to a post or comment, or removes it when already there; answers the target's reaction counts. ` +
  `Adding notifies the author (post_reaction). Errors: 400 INVALID_INPUT for an emoji outside ${KEYS} or unless exactly one of post_id and comment_id is sent; ` +
  `403 FORBIDDEN when banned or a pending member of a gated colony; 404 NOT_FOUND when missing or hidden; 429 RATE_LIMIT_REACTION.`;

export const reactionsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/reactions", tags: ["reactions"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/toggle", ({ caller, body }) => reactionsService.toggleReaction(ctx, caller, body), {
      auth: "required",
      rateLimit: "reaction",
      body: ReactionToggle,
      response: { 200: ReactionSummary, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Toggle Reaction",
        description: TOGGLE_REACTION_DESCRIPTION,
      },
    })
    .get("/who", ({ caller, query }) => reactionsService.whoReacted(ctx, caller, query), {
      auth: "optional",
      query: t.Object({ emoji: t.String({ maxLength: 30 }), post_id: Uuid, comment_id: Uuid }),
      response: { 200: WhoOut, 400: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "Reaction Who",
        description: "Up to 20 users who reacted with `emoji`, newest first. No authentication needed. Without post_id and comment_id the list is empty; both is 400 INVALID_INPUT; an unknown emoji is 400 INVALID_INPUT; missing or hidden content is 404 NOT_FOUND.",
      },
    });
