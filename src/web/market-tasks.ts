// A paid task's page and its forms (/marketplace/tasks/<post id>): bid, accept, reject and
// withdraw a bid, check the invoice's payment, mark the task complete, close and reopen the
// listing. Each form calls the marketplace service as the signed-in person, charged to the API
// route's rate limit, and answers 303 back to the task; a refusal shows the task again with the
// service's message and status (the bid form keeping what was typed).
import type { Ctx } from "../core/context";
import type { Caller } from "../features/auth/caller";
import * as market from "../features/marketplace/service";
import { MAX_BUDGET_SATS, MIN_SATS } from "../features/posts/content";
import * as posts from "../features/posts/service";
import * as users from "../features/users/service";
import { field } from "./session";
import { formAction, idOr404, noticeOf, satsField } from "./market-shared";
import { metaNumber, taskHref } from "./pages/market";
import { TaskPage, type TaskView } from "./pages/market-task";
import { servePage } from "./respond";
import { FORM, PAGE } from "./route-options";
import type { Visit } from "./visit";
import type { WebArea } from "./web-app";

const BIDS_SHOWN = 100;

const NOTICES: Record<string, string> = {
  bid: "Your bid is placed: the task's author is told.",
  withdrawn: "Your bid is withdrawn.",
  accepted: "Bid accepted: the other pending bids were rejected. Pay the invoice below.",
  rejected: "Bid rejected: the bidder is told.",
  checked: "The wallet was asked about the payment.",
  completed: "Task completed: the worker's payout is on its way.",
  closed: "The listing is closed to new bids.",
  reopened: "The listing takes bids again.",
};

/** The task page's facts as `caller` may see them; 404 for a post that is not a visible paid task. */
export function taskView(ctx: Ctx, caller: Caller | null, id: string): TaskView {
  // listBids answers 404 for anything but a paid task the caller can see: asked first.
  const bids = market.listBids(ctx, caller, id, { limit: BIDS_SHOWN, offset: 0 });
  const { post, colony } = posts.getVisiblePost(ctx, caller, id);
  const payment = market.paymentOf(ctx, caller, id);
  const people = users.findManyByIds(ctx, [post.authorId, ...bids.items.map((b) => b.bidderId), ...(payment ? [payment.bid.bidderId] : [])]);
  // The form's bounds only help the person: the service checks the amount itself.
  const min = Math.max(MIN_SATS, metaNumber(post, "budget_min_sats") ?? MIN_SATS);
  const max = metaNumber(post, "budget_max_sats") ?? MAX_BUDGET_SATS;
  return { post, colony, author: people.get(post.authorId), bids: bids.items, bidders: people, totalBids: bids.total, payment, range: { min, max } };
}

export const marketTaskRoutes: WebArea = (ctx, app) => {
  const page = (visit: Visit, id: string, flash: Parameters<typeof TaskPage>[2] = {}) => TaskPage(visit, taskView(ctx, visit.caller, id), flash);

  /** Closes or reopens a task's listing; another kind of listing is not a task (404) here. */
  const closeTask = (caller: Caller, id: string, close: boolean) => {
    market.listBids(ctx, caller, id, { limit: 1, offset: 0 });
    market.setListingClosed(ctx, caller, id, close);
  };

  /** A form of the task `rawId`: `act` calls the service and names the notice of the 303. */
  const taskForm = (web: Parameters<typeof formAction>[1], request: Request, rawId: string, limits: string[], act: (caller: Caller, id: string) => string | Promise<string>, values: string[] = []) => {
    let id: string;
    try {
      id = idOr404(rawId);
    } catch {
      id = "";
    }
    const back = taskHref(id || encodeURIComponent(rawId));
    return formAction(ctx, web, request, {
      back,
      limits,
      act: async (w) => {
        const notice = await act(w.viewer.caller, idOr404(rawId));
        return `${back}?notice=${notice}#${notice === "bid" || notice === "withdrawn" || notice === "rejected" ? "bids" : "task-title"}`;
      },
      again: (visit, error) => page(visit, id, { error, values: Object.fromEntries(values.map((n) => [n, (web.form.get(n) ?? "").slice(0, 5000)])) }),
    });
  };

  app
    .get(
      "/marketplace/tasks/:id",
      ({ request, params, query }) => servePage(ctx, request, () => ({ key: null, render: (visit) => page(visit, idOr404(params.id), { notice: noticeOf(query, NOTICES) }) })),
      PAGE,
    )
    .post(
      "/marketplace/tasks/:id/bid",
      ({ web, request, params }) =>
        taskForm(
          web,
          request,
          params.id,
          ["bid"],
          (caller, id) => {
            market.placeBid(ctx, caller, id, { bid_amount_sats: satsField(web, "amount_sats", "Your price"), bid_description: field(web, "description", 5000) });
            return "bid";
          },
          ["amount_sats", "description"],
        ),
      FORM,
    )
    .post(
      "/marketplace/tasks/:id/bids/:bid/accept",
      ({ web, request, params }) =>
        taskForm(web, request, params.id, ["bid_accept"], async (caller, id) => {
          await market.acceptBid(ctx, caller, id, idOr404(params.bid));
          return "accepted";
        }),
      FORM,
    )
    .post(
      "/marketplace/tasks/:id/bids/:bid/reject",
      ({ web, request, params }) =>
        taskForm(web, request, params.id, [], (caller, id) => {
          market.rejectBid(ctx, caller, id, idOr404(params.bid));
          return "rejected";
        }),
      FORM,
    )
    .post(
      "/marketplace/tasks/:id/bids/:bid/withdraw",
      ({ web, request, params }) =>
        taskForm(web, request, params.id, [], (caller, id) => {
          market.withdrawBid(ctx, caller, id, idOr404(params.bid));
          return "withdrawn";
        }),
      FORM,
    )
    .post(
      "/marketplace/tasks/:id/check",
      ({ web, request, params }) =>
        taskForm(web, request, params.id, ["task_payment_check"], async (caller, id) => {
          await market.checkPayment(ctx, caller, id);
          return "checked";
        }),
      FORM,
    )
    .post(
      "/marketplace/tasks/:id/complete",
      ({ web, request, params }) =>
        taskForm(web, request, params.id, [], (caller, id) => {
          market.completeTask(ctx, caller, id);
          return "completed";
        }),
      FORM,
    )
    .post(
      "/marketplace/tasks/:id/close",
      ({ web, request, params }) =>
        taskForm(web, request, params.id, ["listing_close"], (caller, id) => {
          closeTask(caller, id, true);
          return "closed";
        }),
      FORM,
    )
    .post(
      "/marketplace/tasks/:id/reopen",
      ({ web, request, params }) =>
        taskForm(web, request, params.id, ["listing_close"], (caller, id) => {
          closeTask(caller, id, false);
          return "reopened";
        }),
      FORM,
    );
};
