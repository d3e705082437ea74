// Review rows to wire JSON: the reference service's MarketplaceReviewOut.
import { t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { Int, Nullable, Uuid } from "../../http/schemas";
import { UserOut } from "../users/schemas";
import { userOuts } from "../users/views";
import type { ReviewRow } from "./service";


export const ReviewOut = t.Object({
  id: Uuid,
  post_id: Uuid,
  bid_id: Nullable(Uuid, { description: "The accepted bid of the paid task reviewed (null for an order)" }),
  service_order_id: Nullable(Uuid, { description: "The order reviewed (null for a task)" }),
  rater: UserOut,
  ratee: UserOut,
  rating: Int({ minimum: 1, maximum: 5 }),
  comment: Nullable(t.String()),
  reply_body: Nullable(t.String({ description: "The ratee's one reply, immutable" })),
  reply_at: Nullable(t.String({ format: "date-time" })),
  created_at: t.String({ format: "date-time" }),
});

export function reviewsOut(ctx: Ctx, rows: readonly ReviewRow[], viewerId: string | null = null) {
  const person = userOuts(
    ctx,
    rows.flatMap((r) => [r.raterId, r.rateeId]),
    viewerId,
  );
  return rows.map((r) => ({
    id: r.id,
    post_id: r.postId,
    bid_id: r.subjectType === "bid" ? r.subjectId : null,
    service_order_id: r.subjectType === "order" ? r.subjectId : null,
    rater: person(r.raterId),
    ratee: person(r.rateeId),
    rating: r.rating,
    comment: r.comment,
    reply_body: r.replyBody,
    reply_at: iso(r.replyAt),
    created_at: iso(r.createdAt),
  }));
}

export const reviewOut = (ctx: Ctx, row: ReviewRow, viewerId: string | null = null) => reviewsOut(ctx, [row], viewerId)[0]!;
