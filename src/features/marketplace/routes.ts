// Marketplace (spec Part 3 §4.1): the task list, bids, accept and reject, the task's payment and
// its completion; and POST /posts/{post_id}/close and /reopen for listings (tasks and offers).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { paged, pagedSchema, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Nullable, OptionalEnum, IntInput } from "../../http/schemas";
import { PAID_TASK_CATEGORY } from "../posts/content";
import { PostIdParams, PostOut, StatusOut } from "../posts/schemas";
import { TASK_SORTS } from "../posts/service";
import { TASK_STATUSES } from "../posts/tables";
import { onePostOut } from "../posts/views";
import * as market from "./service";
import { BidOut, bidOut, bidsOut, PaymentOut, paymentOut, PaymentStatusOut, paymentStatusOut, TaskOut, tasksOut } from "./views";

const TASK_PAGING = { max: 100, default: 20 };
const BID_PAGING = { max: 100, default: 50 };
const BidParams = t.Object({ post_id: t.String({ format: "uuid" }), bid_id: t.String({ format: "uuid" }) });
const BidCreate = t.Object({
  bid_amount_sats: IntInput({ minimum: 1, maximum: market.MAX_BID_SATS, description: "Within the task's budget range and at least 21 sats; 21 to 100,000,000 when it declares no budget" }),
  bid_description: t.String({ minLength: market.MIN_DESCRIPTION, maxLength: 5000, description: "Your pitch, 10-5000 characters" }),
});
/** What reject and withdraw share (their detail differs). */
const BID_ACTION = { auth: "required", params: BidParams, response: { 200: BidOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut } } as const;
const TASK_404 = "404 NOT_FOUND when the post does not exist, is not a paid_task or is not visible to you.";

export const marketplaceRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/marketplace", tags: ["marketplace"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get(
      "/tasks",
      ({ caller, query }) => {
        const page = resolvePage(query, TASK_PAGING);
        const { items, total, bidCounts } = market.listTasks(ctx, caller, query, page);
        return paged(tasksOut(ctx, items, bidCounts, caller?.id ?? null), total, page);
      },
      {
        auth: "optional",
        // docs/decisions.md §13: a filter sent empty does not bind.
        transform: ({ query }: { query: Record<string, unknown> }) => {
          for (const [k, v] of Object.entries(query)) if (v === "") delete query[k];
        },
        query: t.Object({
          category: OptionalEnum(PAID_TASK_CATEGORY, { description: "metadata.category of the task" }),
          status: OptionalEnum(TASK_STATUSES, { description: "The task's workflow status" }),
          sort: OptionalEnum(TASK_SORTS, { description: "newest (default; `new` is its deprecated spelling), top (score) or budget (budget_max_sats, tasks without a budget last)" }),
          ...pagingQuery(TASK_PAGING),
        }),
        response: { 200: pagedSchema(TaskOut), 400: ErrorOut },
        detail: {
          summary: "List Marketplace Tasks",
          description:
            "Listed paid tasks you may read, closed listings left out. Each item is the post with its budget (budget_min_sats, budget_max_sats, null when not declared), category, deliverable_type, deadline and bid_count; `status` is the workflow (open, bidding, accepted, paid, completed) and `accepting_submissions` / `closed_at` say whether it takes bids. No authentication needed; with a token, tasks of private colonies you belong to are included.",
        },
      },
    )
    .post(
      "/:post_id/bid",
      ({ caller, params, body, set }) => {
        set.status = 201;
        return bidOut(ctx, market.placeBid(ctx, caller, params.post_id, body), caller.id);
      },
      {
        auth: "required",
        rateLimit: "bid",
        params: PostIdParams,
        body: BidCreate,
        response: { 201: BidOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Submit Bid",
          description: `Bid on a paid task: the amount within its budget range and at least 21 sats (21 to 100,000,000 without a budget), a description of at least 10 characters. 400 INVALID_INPUT for an amount out of range, your own task, or a task no longer open or bidding; 400 CONFLICT when the listing is closed; 409 CONFLICT when you already have a pending bid (withdraw it first). ${TASK_404} The first bid moves the task to bidding; its author is told (bid_received).`,
        },
      },
    )
    .get(
      "/:post_id/bids",
      ({ caller, params, query }) => {
        const page = resolvePage(query, BID_PAGING);
        const { items, total } = market.listBids(ctx, caller, params.post_id, page);
        return paged(bidsOut(ctx, items, caller?.id ?? null), total, page);
      },
      {
        auth: "optional",
        params: PostIdParams,
        query: t.Object(pagingQuery(BID_PAGING)),
        response: { 200: pagedSchema(BidOut), 400: ErrorOut, 404: ErrorOut },
        detail: { summary: "List Bids", description: `Every bid on a task (pending, accepted, rejected, withdrawn), newest first, for anyone who can see the task. ${TASK_404}` },
      },
    )
    .post("/:post_id/bid/:bid_id/accept", async ({ caller, params }) => bidOut(ctx, await market.acceptBid(ctx, caller, params.post_id, params.bid_id), caller.id), {
      auth: "required",
      rateLimit: "bid_accept",
      params: BidParams,
      response: { 200: BidOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut, 502: ErrorOut },
      detail: {
        summary: "Accept Bid",
        description: `The task's author accepts a pending bid: the other pending bids are rejected (bid_rejected), the task moves to accepted and a Lightning invoice for the bid's amount is issued (GET …/payment shows it; bid_accepted tells the bidder). The invoice is asked of the wallet first: 502 UPSTREAM_FAILURE when it fails, and nothing changes. Accepting again is 400 CONFLICT and issues no second invoice, except once the invoice lapsed unpaid: then a new one is issued. 403 FORBIDDEN for anyone but the author; 400 INVALID_INPUT for a bid that is not pending; 404 NOT_FOUND for a bid of another task. ${TASK_404}`,
      },
    })
    .post("/:post_id/bid/:bid_id/reject", ({ caller, params }) => bidOut(ctx, market.rejectBid(ctx, caller, params.post_id, params.bid_id), caller.id), {
      ...BID_ACTION,
      detail: {
        summary: "Reject Bid",
        description: `The task's author rejects one pending bid; the listing stays open for others and the bidder is told (bid_rejected). 403 FORBIDDEN for anyone but the author; 400 INVALID_INPUT for a bid that is not pending. ${TASK_404}`,
      },
    })
    .post("/:post_id/bid/:bid_id/withdraw", ({ caller, params }) => bidOut(ctx, market.withdrawBid(ctx, caller, params.post_id, params.bid_id), caller.id), {
      ...BID_ACTION,
      detail: {
        summary: "Withdraw Bid",
        description: `The bidder takes back their pending bid (withdrawn, for good); they may bid again. 403 FORBIDDEN for anyone but the bidder; 400 INVALID_INPUT for a bid that is not pending. ${TASK_404}`,
      },
    })
    .get(
      "/:post_id/payment",
      ({ caller, params }) => {
        const p = market.paymentOf(ctx, caller, params.post_id);
        return p ? paymentOut(ctx, p, caller?.id ?? null) : null;
      },
      {
        auth: "optional",
        params: PostIdParams,
        response: { 200: Nullable(PaymentOut), 404: ErrorOut },
        detail: {
          summary: "Get Payment",
          description: `The task's payment once a bid is accepted (null before): the Lightning invoice its author pays, its status and, after completion, the worker's payout. ${TASK_404}`,
        },
      },
    )
    .post("/:post_id/payment/check", async ({ caller, params }) => paymentStatusOut(await market.checkPayment(ctx, caller, params.post_id)), {
      auth: "optional",
      rateLimit: ["task_payment_check", "task_payment_check_ip"],
      params: PostIdParams,
      response: { 200: PaymentStatusOut, 404: ErrorOut, 429: ErrorOut, 502: ErrorOut },
      detail: {
        summary: "Check Payment Status",
        description: `Asks the wallet about the task's invoice now (a background poller does the same): once paid, the task moves to paid and its author and worker are told (payment_received), exactly once however often it is seen. 404 NOT_FOUND before a bid is accepted; 502 UPSTREAM_FAILURE when the wallet does not answer. ${TASK_404}`,
      },
    })
    .post(
      "/:post_id/complete",
      ({ caller, params }) => {
        market.completeTask(ctx, caller, params.post_id);
        return { status: "completed" };
      },
      {
        auth: "required",
        params: PostIdParams,
        response: { 200: StatusOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut },
        detail: {
          summary: "Mark Task Complete",
          description: `The task's author confirms the work of a paid task: it moves to completed, the worker's payout (95 %, platform_fee_bps 500) is sent to their Lightning address and they are told (task_completed). 400 INVALID_INPUT unless the task is paid; 403 FORBIDDEN for anyone but the author. ${TASK_404}`,
        },
      },
    );

/** What close and reopen share (their detail differs). */
const LISTING_ACTION = { auth: "required", rateLimit: "listing_close", params: PostIdParams, response: { 200: PostOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut } } as const;
const LISTING_REFUSALS = "400 INVALID_INPUT for another post type; 403 FORBIDDEN for anyone but the author; 404 NOT_FOUND for a post you cannot see.";

/** POST /posts/{post_id}/close and /reopen (spec §4.1, tagged with the posts as the reference has them). */
export const listingRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/posts", tags: ["posts"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/:post_id/close", ({ caller, params }) => onePostOut(ctx, market.setListingClosed(ctx, caller, params.post_id, true), caller.id), {
      ...LISTING_ACTION,
      detail: {
        summary: "Close Post",
        description:
          `The author closes a marketplace listing (paid_task or paid_offer): new bids and orders are refused with 400 CONFLICT; existing ones go on, and the task's status does not change (accepting_submissions turns false). Idempotent: closing a closed listing answers it unchanged, closed_at kept. The author's webhooks hear listing_closed. ${LISTING_REFUSALS}`,
      },
    })
    .post("/:post_id/reopen", ({ caller, params }) => onePostOut(ctx, market.setListingClosed(ctx, caller, params.post_id, false), caller.id), {
      ...LISTING_ACTION,
      detail: {
        summary: "Reopen Post",
        description:
          `The author reopens a closed listing: closed_at is cleared and it takes bids or orders again. Idempotent: reopening an open listing answers it unchanged. The author's webhooks hear listing_reopened. ${LISTING_REFUSALS}`,
      },
    });
