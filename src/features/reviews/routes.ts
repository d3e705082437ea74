// Reviews (spec Part 3 §4.3): review a finished task or order, reply once, read a user's
// reviews and their summary.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin, type Caller } from "../../http/auth";
import { paged, pagedSchema, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable, Uuid, IntInput } from "../../http/schemas";
import * as reviews from "./service";
import { ReviewOut, reviewOut, reviewsOut } from "./views";

const PAGING = { max: 100, default: 20 };
const ReviewCreate = t.Object({
  rating: IntInput({ minimum: 1, maximum: 5, description: "Star rating 1-5" }),
  comment: t.Optional(Nullable(t.String({ maxLength: 2000, description: "Optional, at most 2000 characters; blank is none" }))),
});
const ReplyCreate = t.Object({ body: t.String({ minLength: 1, maxLength: 2000, description: "The ratee's public answer, 1-2000 characters; one per review, never changed" }) });
const UserParams = t.Object({ username: t.String({ minLength: 1, maxLength: 64, description: "The reviewed user: a username or a user ID" }) });
const Summary = t.Object({
  user_id: Uuid,
  count: Int(),
  average: Nullable(t.Number(), { description: "The mean rating to two decimals; null when there is no review" }),
  histogram: t.Object(
    { "1": Int(), "2": Int(), "3": Int(), "4": Int(), "5": Int() },
    { description: "How many reviews gave each rating, keyed by the rating as a string" },
  ),
});
const CREATE_ERRORS = "404 NOT_FOUND for an unknown one; 403 FORBIDDEN for anyone but its two parties; 409 CONFLICT when you already reviewed it. The ratee is told (review_received).";
/** The options both review routes share (their params and detail differ). */
const CREATE = {
  auth: "required",
  rateLimit: "review",
  body: ReviewCreate,
  response: { 201: ReviewOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
} as const;

function created(ctx: Ctx, set: { status?: number | string }, caller: Caller, type: reviews.ReviewSubjectType, id: string, body: reviews.ReviewInput) {
  set.status = 201;
  return reviewOut(ctx, reviews.createReview(ctx, caller, type, id, body), caller.id);
}

export const reviewsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/reviews", tags: ["reviews"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/bids/:bid_id", ({ caller, params, body, set }) => created(ctx, set, caller, "bid", params.bid_id, body), {
      ...CREATE,
      params: t.Object({ bid_id: Uuid }),
      detail: {
        summary: "Review Bid",
        description: `Review a paid task's deal: its author rates the accepted bidder, the bidder rates the author. Needs the bid accepted and the task completed (400 INVALID_INPUT before). ${CREATE_ERRORS}`,
      },
    })
    .post("/orders/:order_id", ({ caller, params, body, set }) => created(ctx, set, caller, "order", params.order_id, body), {
      ...CREATE,
      params: t.Object({ order_id: Uuid }),
      detail: {
        summary: "Review Order",
        description: `Review an order: the buyer rates the seller, the seller the buyer. Needs the order delivered or in any payout state (400 INVALID_INPUT before). ${CREATE_ERRORS}`,
      },
    })
    .post(
      "/:review_id/reply",
      ({ caller, params, body, set }) => {
        set.status = 201;
        return reviewOut(ctx, reviews.reply(ctx, caller, params.review_id, body.body), caller.id);
      },
      {
        auth: "required",
        rateLimit: "review",
        params: t.Object({ review_id: Uuid }),
        body: ReplyCreate,
        response: { 201: ReviewOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Reply To Review",
          description: "The person a review is about answers it publicly, once: the reply never changes (a second is 409 CONFLICT). 404 NOT_FOUND for an unknown review; 403 FORBIDDEN for anyone but the ratee; 400 INVALID_INPUT for a blank body. The rater is told (review_replied).",
        },
      },
    )
    .get(
      "/users/:username",
      ({ caller, params, query }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = reviews.listReceived(ctx, params.username, page);
        return paged(reviewsOut(ctx, items, caller?.id ?? null), total, page);
      },
      {
        auth: "optional",
        params: UserParams,
        query: t.Object(pagingQuery(PAGING)),
        response: { 200: pagedSchema(ReviewOut), 400: ErrorOut, 404: ErrorOut },
        detail: { summary: "List User Reviews", description: "The reviews a user received, newest first, paged. 404 USER_NOT_FOUND for an unknown user." },
      },
    )
    .get("/users/:username/summary", ({ params }) => reviews.summary(ctx, params.username), {
      params: UserParams,
      response: { 200: Summary, 404: ErrorOut },
      detail: {
        summary: "User Review Summary",
        description: "A user's rating as ratee: how many reviews, their mean to two decimals (null when there is none) and how many gave each rating. 404 USER_NOT_FOUND for an unknown user.",
      },
    });
