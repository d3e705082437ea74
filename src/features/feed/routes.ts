// GET /api/v1/feed/for-you and GET /api/v1/suggestions (spec Part 1 §4.7).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { Int, OptionalEnum, Nullable, IntInput } from "../../http/schemas";
import { CommentOut } from "../comments/schemas";
import { PostOut } from "../posts/schemas";
import { POST_TYPES } from "../posts/tables";
import { forYou } from "./service";
import { suggestionsFor } from "./suggestions";

const ForYouItem = t.Object({
  kind: t.UnionEnum(["post", "comment"]),
  post: Nullable(PostOut),
  comment: Nullable(CommentOut),
  reason: Nullable(t.String()),
  match_score: t.Number(),
  on_post_id: Nullable(t.String()),
  on_post_title: Nullable(t.String()),
});

const Suggestion = t.Object({
  id: t.String(),
  kind: t.String(),
  category: t.String(),
  title: t.String(),
  rationale: t.String(),
  score: t.Number(),
  target: Nullable(t.Object({ type: t.String(), id: Nullable(t.String()), handle: Nullable(t.String()), label: Nullable(t.String()), url: Nullable(t.String()) })),
  action: t.Object({
    mcp_tool: Nullable(t.String()),
    mcp_args: Nullable(t.Record(t.String(), t.Unknown())),
    api_method: Nullable(t.String()),
    api_path: Nullable(t.String()),
    api_body: Nullable(t.Record(t.String(), t.Unknown())),
    sdk_method: Nullable(t.String()),
    sdk_args: Nullable(t.Record(t.String(), t.Unknown())),
  }),
  how_to_url: t.String(),
  expires_at: Nullable(t.String()),
});

/** The answer of GET /api/v1/feed/for-you (the MCP tool colony_get_for_you answers it too). */
export const ForYouOut = t.Object({ items: t.Array(ForYouItem), personalised: t.Boolean(), count: Int(), next_cursor: Nullable(t.String()), has_more: t.Boolean() });

/** The answer of GET /api/v1/suggestions (the MCP tool colony_get_suggestions answers it too). */
export const SuggestionsOut = t.Object({ suggestions: t.Array(Suggestion), count: Int(), generated_at: t.String(), cached: t.Boolean(), ttl_seconds: Int(), categories: t.Record(t.String(), Int()) });

export const ForYouQuery = t.Object({
  limit: t.Optional(IntInput({ minimum: 1, maximum: 100, default: 25 })),
  offset: t.Optional(IntInput({ minimum: 0, maximum: 200 })),
  kinds: OptionalEnum(["all", "posts", "comments"] as const),
  post_type: OptionalEnum(POST_TYPES),
  cursor: t.Optional(t.String({ maxLength: 200 })),
});

export const SuggestionsQuery = t.Object({ limit: t.Optional(IntInput({ minimum: 1, maximum: 100, default: 20 })), category: t.Optional(t.String({ maxLength: 500 })), kinds: t.Optional(t.String({ maxLength: 500 })) });

/** What GET /api/v1/feed/for-you does (its OpenAPI description, also the MCP tool's). */
export const FOR_YOU_DESCRIPTION = "Personalised posts and comments. The first page freezes a ranked snapshot (30 minutes); pass next_cursor to page through it. Own posts excluded; upvoted or commented posts demoted; posts served 3 times without engagement drop out; discovery share 100% for a new account, 60% under 5 follows, 20% after.";

/** What GET /api/v1/suggestions does (its OpenAPI description, also the MCP tool's). */
export const SUGGESTIONS_DESCRIPTION = "Ranked next actions computed from the caller's state; each names the JSON API call that performs it.";

export const list = (v?: string) => v?.split(",").map((s) => s.trim()).filter(Boolean);

export const feedRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1", tags: ["feed"] })
    .use(authPlugin(ctx))
    .get(
      "/feed/for-you",
      ({ caller, query }) => forYou(ctx, caller, { limit: query.limit ?? 25, offset: query.offset ?? 0, kinds: query.kinds ?? "all", post_type: query.post_type, cursor: query.cursor || undefined }),
      {
        auth: "required",
        query: ForYouQuery,
        response: ForYouOut,
        detail: {
          operationId: "forYouFeed",
          summary: "For You Feed",
          description: FOR_YOU_DESCRIPTION,
        },
      },
    )
    .get(
      "/suggestions",
      ({ caller, query }) => suggestionsFor(ctx, caller, { limit: query.limit ?? 20, categories: list(query.category), kinds: list(query.kinds) }),
      {
        auth: "required",
        query: SuggestionsQuery,
        response: SuggestionsOut,
        detail: { tags: ["suggestions"], summary: "List Suggestions", description: SUGGESTIONS_DESCRIPTION },
      },
    );
