// Tips on the web: /post/<id>/tip (and /comment/<id>/tip) shows a post's (a comment's) paid tips
// (the tips service's stats) and the form that asks the tips service for an invoice as the
// signed-in person (charged to the API's tip limits); /marketplace/tips/<id> shows the tip and, to the tipper while it waits, its invoice,
// with the check form. The tips API has no read of one tip but its check (tipper or recipient,
// anyone else 404), so that is what the tip's page calls.
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import type { Caller } from "../features/auth/caller";
import * as comments from "../features/comments/service";
import * as posts from "../features/posts/service";
import * as tips from "../features/tips/service";
import * as users from "../features/users/service";
import { formAction, idOr404, noticeOf, notFoundPage, satsField } from "./market-shared";
import { tipHref } from "./pages/market";
import { commentTipFormHref, TipFormPage, tipFormHref, TipPage } from "./pages/market-tips";
import { servePage, webErrorPage } from "./respond";
import { FORM, PAGE } from "./route-options";
import { failure, isSignedIn, page, toSignIn } from "./session";
import { visitOf, type Visit } from "./visit";
import type { WebArea } from "./web-app";

const TIP_NOTICES: Record<string, string> = {
  created: "Pay the invoice below to send your tip.",
  checked: "The wallet was asked about the payment.",
};

function tipFormPage(ctx: Ctx, visit: Visit, id: string, flash: Parameters<typeof TipFormPage>[2] = {}): string {
  const stats = tips.postStats(ctx, visit.caller, id);
  const { post } = posts.getVisiblePost(ctx, visit.caller, id);
  const author = users.findById(ctx, post.authorId) ?? undefined;
  return TipFormPage(
    visit,
    { post, commentId: null, authorId: post.authorId, author, totalTips: stats.total_tips, totalSats: stats.total_sats, min: tips.MIN_TIP_SATS, max: tips.MAX_TIP_SATS },
    flash,
  );
}

function commentTipFormPage(ctx: Ctx, visit: Visit, id: string, flash: Parameters<typeof TipFormPage>[2] = {}): string {
  const stats = tips.commentStats(ctx, visit.caller, id);
  const { comment, post } = comments.getVisibleComment(ctx, visit.caller, id);
  const author = users.findById(ctx, comment.authorId) ?? undefined;
  return TipFormPage(
    visit,
    { post, commentId: comment.id, authorId: comment.authorId, author, totalTips: stats.total_tips, totalSats: stats.total_sats, min: tips.MIN_TIP_SATS, max: tips.MAX_TIP_SATS },
    flash,
  );
}

async function tipPage(ctx: Ctx, visit: Visit & { caller: Caller }, id: string, flash: Parameters<typeof TipPage>[2] = {}): Promise<string> {
  const tip = await tips.checkTip(ctx, visit.caller, id);
  let post: posts.PostRow | null = null;
  try {
    post = posts.getVisiblePost(ctx, visit.caller, tip.postId).post;
  } catch {
    // A post gone since: the tip stands without its title.
  }
  return TipPage(visit, { tip, post, recipient: users.findById(ctx, tip.recipientId) ?? undefined }, flash);
}

export const marketTipRoutes: WebArea = (ctx, app) => {
  app
    .get("/post/:id/tip", ({ request, params }) => servePage(ctx, request, () => ({ key: null, render: (visit) => tipFormPage(ctx, visit, idOr404(params.id)) })), PAGE)
    .post(
      "/post/:id/tip",
      ({ web, request, params }) =>
        formAction(ctx, web, request, {
          back: tipFormHref(encodeURIComponent(params.id)),
          limits: ["tip", "tip_global"],
          act: async (w) => `${tipHref((await tips.tipPost(ctx, w.viewer.caller, idOr404(params.id), satsField(w, "amount_sats", "The tip"))).id)}?notice=created`,
          again: (visit, error) => tipFormPage(ctx, visit, idOr404(params.id), { error, values: { amount_sats: (web.form.get("amount_sats") ?? "").slice(0, 12) } }),
        }),
      FORM,
    )
    .get("/comment/:id/tip", ({ request, params }) => servePage(ctx, request, () => ({ key: null, render: (visit) => commentTipFormPage(ctx, visit, idOr404(params.id)) })), PAGE)
    .post(
      "/comment/:id/tip",
      ({ web, request, params }) =>
        formAction(ctx, web, request, {
          back: commentTipFormHref(encodeURIComponent(params.id)),
          limits: ["tip", "tip_global"],
          act: async (w) => `${tipHref((await tips.tipComment(ctx, w.viewer.caller, idOr404(params.id), satsField(w, "amount_sats", "The tip"))).id)}?notice=created`,
          again: (visit, error) => commentTipFormPage(ctx, visit, idOr404(params.id), { error, values: { amount_sats: (web.form.get("amount_sats") ?? "").slice(0, 12) } }),
        }),
      FORM,
    )
    .get(
      "/marketplace/tips/:id",
      async ({ web, request, params, query }) => {
        if (!isSignedIn(web)) return toSignIn(web, tipHref(encodeURIComponent(params.id)));
        // Not through servePage: a wallet that does not answer is its own 502 page, not a failed page.
        const visit = visitOf(ctx, request) as Visit & { caller: Caller };
        try {
          return page(web, await tipPage(ctx, visit, idOr404(params.id), { notice: noticeOf(query, TIP_NOTICES) }));
        } catch (err) {
          const f = failure(err);
          return f.status === 404 ? notFoundPage(ctx, web) : webErrorPage(ctx, web, f.status, f.message);
        }
      },
      PAGE,
    )
    .post(
      "/marketplace/tips/:id/check",
      ({ web, request, params }) =>
        formAction(ctx, web, request, {
          back: tipHref(encodeURIComponent(params.id)),
          act: async (w) => {
            const id = idOr404(params.id);
            await tips.checkTip(ctx, w.viewer.caller, id);
            return `${tipHref(id)}?notice=checked`;
          },
          again: () => {
            throw new ApiError(502, "UPSTREAM_FAILURE", "The Lightning wallet did not answer. Nothing was changed; try again.");
          },
        }),
      FORM,
    );
};
