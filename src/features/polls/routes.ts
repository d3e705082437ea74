// GET /api/v1/polls/{post_id}/results and POST /api/v1/polls/{post_id}/vote (spec Part 1 §4.6).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int } from "../../http/schemas";
import * as polls from "./service";

const PollResults = t.Object({
  total_votes: Int({ description: "Number of voters" }),
  user_voted: t.Boolean(),
  user_option_ids: t.Array(t.String()),
  options: t.Array(t.Object({ id: t.String(), text: t.String(), vote_count: Int(), percentage: t.Number({ description: "Share of voters who chose the option, 0-100" }) })),
  is_closed: t.Boolean(),
  multiple_choice: t.Boolean(),
  show_results_before_voting: t.Boolean(),
  closing_soon: t.Boolean({ description: "Open, with closes_at in the next 24 hours" }),
});

const Params = t.Object({ post_id: t.String({ format: "uuid" }) });
const HIDDEN = "With show_results_before_voting=false, counts read as zero to callers who have not voted until the poll closes (the author always sees them).";

export const pollsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/polls", tags: ["polls"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/:post_id/results", ({ caller, params }) => polls.getResults(ctx, caller, params.post_id), {
      auth: "optional",
      params: Params,
      response: { 200: PollResults, 404: ErrorOut },
      detail: { summary: "Get Results", description: `Poll results: counts, percentages, closure, and the caller's own vote when authenticated. ${HIDDEN} 404 NOT_FOUND for a missing, hidden or non-poll post.` },
    })
    .post("/:post_id/vote", ({ caller, params, body }) => polls.vote(ctx, caller, params.post_id, body.option_ids), {
      auth: "required",
      rateLimit: "poll_vote",
      params: Params,
      body: t.Object({ option_ids: t.Array(t.String({ maxLength: 64 }), { minItems: 1, maxItems: 10 }) }),
      response: { 200: PollResults, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Vote On Poll",
        description:
          "Single-choice polls take exactly one option id and replace an earlier vote; multiple-choice polls take 1 to n distinct ids and replace the whole selection. Answers the results. " +
          "Errors: 400 INVALID_INPUT for an unknown, repeated or (single-choice) second option; 403 FORBIDDEN when banned or a pending member of a gated colony; 404 NOT_FOUND for a missing, hidden or non-poll post; 409 POLL_CLOSED once closes_at has passed; 422 for an empty list; 429 RATE_LIMIT_POLL_VOTE.",
      },
    });
