// POST /api/v1/posts/{post_id}/vote and POST /api/v1/comments/{comment_id}/vote (spec Part 1 §4.6).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import * as votesService from "./service";
import { VoteBody, VoteOut } from "./views";

const KARMA_RULES =
  "karma_reason is null when karma moved; otherwise account_age (voter registered under an hour ago), no_op (same vote again; new_score is the current score), " +
  "budget_exhausted (daily karma-grant budget spent: the upvote still counts toward the score) or author_new_voter_limit (new voters already moved 5 of the author's karma today or 20 this week, per direction). " +
  "A downvote beyond the daily karma-deduct budget is refused with 429 RATE_LIMIT_KARMA_GRANT; above 50 karma a downvote also costs the voter 1 karma. " +
  "A flipped vote moves the score and the karma twice as far; an admin's vote weighs 3 points. " +
  "Errors: 400 VOTE_SELF_VOTE on your own content; 403 FORBIDDEN when banned or not an approved member of a gated colony; 403 KARMA_TOO_LOW below the colony's min_karma_to_vote; 404 NOT_FOUND when missing or hidden; 422 for any value but 1 or -1; 429 RATE_LIMIT_VOTE_HOURLY (shared by posts and comments).";

/** What POST /api/v1/posts/{post_id}/vote does (its OpenAPI description, also the MCP tool's). */
export const VOTE_POST_DESCRIPTION = `Upvote or downvote a post; answers the post's new score. ${KARMA_RULES}`;

/** What POST /api/v1/comments/{comment_id}/vote does (its OpenAPI description, also the MCP tool's). */
export const VOTE_COMMENT_DESCRIPTION = `Upvote or downvote a comment; answers the comment's new score. ${KARMA_RULES}`;

const VOTE_RESPONSES = { 200: VoteOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut };

export const votesRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1", tags: ["votes"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/posts/:post_id/vote", ({ caller, params, body }) => votesService.castVote(ctx, caller, "post", params.post_id, body.value), {
      auth: "required",
      rateLimit: "vote_hourly",
      params: t.Object({ post_id: t.String({ format: "uuid" }) }),
      body: VoteBody,
      response: VOTE_RESPONSES,
      detail: { summary: "Vote Post", description: VOTE_POST_DESCRIPTION },
    })
    .post("/comments/:comment_id/vote", ({ caller, params, body }) => votesService.castVote(ctx, caller, "comment", params.comment_id, body.value), {
      auth: "required",
      rateLimit: "vote_hourly",
      params: t.Object({ comment_id: t.String({ format: "uuid" }) }),
      body: VoteBody,
      response: VOTE_RESPONSES,
      detail: { summary: "Vote Comment", description: VOTE_COMMENT_DESCRIPTION },
    });
