// Tips (spec Part 3 §4.4): tip a post or a comment over Lightning, check a tip, per-target stats,
// and the list of paid tips.
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable, IntInput } from "../../http/schemas";
import { personRefs } from "../users/views";
import * as tips from "./service";

const PAGING = { max: 100, default: 50 };

const TipInvoiceOut = t.Object({
  tip_id: t.String(),
  payment_request: t.String({ description: "BOLT11 invoice to pay" }),
  payment_hash: t.String(),
  amount_sats: Int(),
  status: t.String({ description: "pending" }),
  expires_at: t.String({ format: "date-time", description: "When the invoice stops being payable" }),
});
const TipStatusOut = t.Object({
  tip_id: t.String(),
  status: t.String({ description: "pending, paid, expired or failed" }),
  amount_sats: Int(),
  paid_at: Nullable(t.String({ format: "date-time" })),
});
const Person = t.Object({ id: t.String(), username: t.String(), display_name: t.String() });
const TipListItem = t.Object({
  id: t.String(),
  amount_sats: Int(),
  tipper: Nullable(Person),
  recipient: Person,
  post_id: Nullable(t.String()),
  post_title: Nullable(t.String()),
  comment_id: Nullable(t.String()),
  paid_at: Nullable(t.String({ format: "date-time" })),
});
const TipListOut = t.Object({ total: Int(), offset: Int(), limit: Int(), has_more: t.Boolean(), tips: t.Array(TipListItem) });
const AmountQuery = t.Object({
  amount_sats: IntInput({ minimum: tips.MIN_TIP_SATS, maximum: tips.MAX_TIP_SATS, description: `${tips.MIN_TIP_SATS}-${tips.MAX_TIP_SATS} sats, required` }),
});

const invoiceOut = (tip: tips.TipRow) => ({
  tip_id: tip.id,
  payment_request: tip.paymentRequest,
  payment_hash: tip.paymentHash,
  amount_sats: tip.amountSats,
  status: tip.status,
  expires_at: iso(tip.expiresAt),
});

const CREATE_DESCRIPTION =
  "Returns a BOLT11 invoice of the platform's wallet for the caller to pay. Once paid (seen by POST /tips/{tip_id}/check or the server's poller) the tip is `paid`, the author is told (tip_received) and 95 % of it is paid out to their lightning address (platform_fee_bps 500). " +
  "400 INVALID_INPUT for tipping yourself or an author without a lightning address; 404 when you cannot see the content; 422 for an amount outside 21-100000; 502 UPSTREAM_FAILURE when the wallet does not answer (nothing is recorded). Rate limited: 10 an hour per user (tip) and 100 an hour across the instance (tip_global).";

/** The answer of both tip routes: 201 with the invoice. */
function created(set: { status?: number | string }, tip: tips.TipRow) {
  set.status = 201;
  return invoiceOut(tip);
}

const createOptions = {
  auth: "required" as const,
  rateLimit: ["tip", "tip_global"],
  query: AmountQuery,
  response: { 201: TipInvoiceOut, 400: ErrorOut, 404: ErrorOut, 429: ErrorOut, 502: ErrorOut },
};

export const tipsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/tips", tags: ["tips"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/post/:post_id", async ({ caller, params, query, set }) => created(set, await tips.tipPost(ctx, caller, params.post_id, query.amount_sats)), {
      ...createOptions,
      params: t.Object({ post_id: t.String({ maxLength: 64 }) }),
      detail: { summary: "Tip Post", description: `Tip a post's author. ${CREATE_DESCRIPTION}` },
    })
    .post("/comment/:comment_id", async ({ caller, params, query, set }) => created(set, await tips.tipComment(ctx, caller, params.comment_id, query.amount_sats)), {
      ...createOptions,
      params: t.Object({ comment_id: t.String({ maxLength: 64 }) }),
      detail: { summary: "Tip Comment", description: `Tip a comment's author. ${CREATE_DESCRIPTION}` },
    })
    .post(
      "/:tip_id/check",
      async ({ caller, params }) => {
        const tip = await tips.checkTip(ctx, caller, params.tip_id);
        return { tip_id: tip.id, status: tip.status, amount_sats: tip.amountSats, paid_at: iso(tip.paidAt) };
      },
      {
        auth: "required",
        params: t.Object({ tip_id: t.String({ maxLength: 64 }) }),
        response: { 200: TipStatusOut, 404: ErrorOut, 502: ErrorOut },
        detail: {
          summary: "Check Tip Status",
          description:
            "The tip's status: pending (awaiting payment), paid, expired (the invoice lapsed unpaid) or failed. A pending tip asks the wallet first (502 UPSTREAM_FAILURE when it does not answer). Only the tipper and the recipient may check; anyone else gets 404 NOT_FOUND.",
        },
      },
    )
    .get(
      "/post/:post_id/stats",
      ({ caller, params }) => tips.postStats(ctx, caller, params.post_id),
      {
        auth: "optional",
        params: t.Object({ post_id: t.String({ maxLength: 64 }) }),
        response: { 200: t.Object({ post_id: t.String(), total_tips: Int(), total_sats: Int() }), 404: ErrorOut },
        detail: { summary: "Get Post Tip Stats", description: "Paid tips on the post itself (tips on its comments are counted on each comment). 404 for a post you cannot see." },
      },
    )
    .get(
      "/comment/:comment_id/stats",
      ({ caller, params }) => tips.commentStats(ctx, caller, params.comment_id),
      {
        auth: "optional",
        params: t.Object({ comment_id: t.String({ maxLength: 64 }) }),
        response: { 200: t.Object({ comment_id: t.String(), total_tips: Int(), total_sats: Int() }), 404: ErrorOut },
        detail: { summary: "Get Comment Tip Stats", description: "Paid tips on the comment. 404 for a comment you cannot see." },
      },
    )
    .get(
      "",
      ({ caller, query }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = tips.listTips(ctx, caller, query, page);
        const person = personRefs(ctx, [...new Set(items.flatMap((r) => [r.tip.tipperId, r.tip.recipientId]))]);
        return {
          total,
          offset: page.offset,
          limit: page.limit,
          has_more: page.offset + items.length < total,
          tips: items.map(({ tip, postTitle }) => ({
            id: tip.id,
            amount_sats: tip.amountSats,
            tipper: person(tip.tipperId),
            recipient: person(tip.recipientId),
            post_id: tip.postId,
            post_title: postTitle,
            comment_id: tip.commentId,
            paid_at: iso(tip.paidAt),
          })),
        };
      },
      {
        auth: "optional",
        query: t.Object({
          ...pagingQuery(PAGING),
          tipper: t.Optional(t.String({ maxLength: 64, description: "The tipper's username or id" })),
          recipient: t.Optional(t.String({ maxLength: 64, description: "The recipient's username or id" })),
          post_id: t.Optional(t.String({ maxLength: 64, description: "Tips on this post and on its comments" })),
          comment_id: t.Optional(t.String({ maxLength: 64, description: "Tips on this comment" })),
        }),
        response: { 200: TipListOut, 400: ErrorOut, 404: ErrorOut },
        detail: {
          summary: "List Tips",
          description:
            "Paid tips, newest first; the filters combine with AND. `post_id` is the tipped post, or the post of a tipped comment. Only tips on content you may read now: a private colony's to its approved members. An unknown tipper or recipient is 404 USER_NOT_FOUND.",
        },
      },
    );
