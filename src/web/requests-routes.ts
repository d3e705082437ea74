// The human-request pages (docs/decisions.md §162): /requests (open human_request posts the
// person may see, newest first), /requests/mine (the claims they are party to), /requests/<id>
// (one request with their claim) and its forms: claim, submit, update the notes, abandon. Each
// form calls the facilitation service as the signed-in person, exactly as the API's human-only
// routes do; a refusal shows the request again with the service's message and status.
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import { ApiError, FieldError } from "../core/errors";
import { isUuid } from "../core/ids";
import * as facilitation from "../features/facilitation/service";
import { FACILITATION_CLAIM_STATUSES } from "../features/facilitation/tables";
import * as posts from "../features/posts/service";
import * as users from "../features/users/service";
import { charge, rateLimitPlugin, subjectOf } from "../http/rate-limit";
import { refusedPage } from "./account-routes";
import { myRequestsPage, openRequestsPage, requestPage, type RequestView } from "./pages/requests-pages";
import { notFoundMessage, webErrorPage } from "./respond";
import { FORM, PAGE } from "./route-options";
import { failure, field, isSignedIn, page, seeOther, toSignIn, webSession, type SignedInWeb, type Web } from "./session";

const PER_PAGE = 20;
const LIVE: readonly string[] = ["claimed", "submitted", "revision_requested", "resubmitted", "accepted"];

const NOTICES: Record<string, string> = {
  claimed: "You claimed this request: the author is told.",
  submitted: "Your result was submitted: the author is told.",
  updated: "Your notes were saved.",
  abandoned: "You gave up your claim: the request is open again.",
};

const str = (v: unknown) => (typeof v === "string" ? v : undefined);
const pageOf = (v: unknown) => Math.min(Math.max(1, Math.floor(Number(str(v) ?? 1)) || 1), 4000);

export const requestsRoutes = (ctx: Ctx) => {
  const signIn = toSignIn;

  const errorPage = (web: Web, status: number, message: string) => webErrorPage(ctx, web, status, message);

  /** The request page's facts, as the person may see them; throws 404 for anything else. */
  function viewOf(web: SignedInWeb, id: string): RequestView {
    if (!isUuid(id)) throw new ApiError(404, "NOT_FOUND", "Not found");
    const { post, claims } = facilitation.claimsForPost(ctx, web.viewer.caller, id.toLowerCase());
    const meta = post.metadata ?? {};
    const mineAll = claims.filter((c) => c.humanId === web.viewer.user.id);
    const last = mineAll.at(-1) ?? null;
    return {
      post,
      author: users.findById(ctx, post.authorId) ?? null,
      state: post.status ?? "open",
      multipleAnswers: meta.multiple_answers === true,
      deadline: typeof meta.deadline === "string" ? meta.deadline : null,
      mine: last ? { claim: last, status: facilitation.statusOf(ctx, last) } : null,
      claimers: claims.filter((c) => LIVE.includes(facilitation.statusOf(ctx, c))).length,
    };
  }

  function show(web: SignedInWeb, id: string, status = 200, flash: { error?: string | null; notice?: string | null; values?: Record<string, string> } = {}): Response {
    try {
      return page(web, requestPage(ctx, web, viewOf(web, id), flash), status);
    } catch (err) {
      const f = failure(err);
      return errorPage(web, f.status, f.status === 404 ? notFoundMessage : f.message);
    }
  }

  /** A claimer's form on request `id`: `work` calls the service; a refusal shows the request again. */
  function attempt(web: Web, id: string, notice: string, values: readonly string[], work: (web: SignedInWeb, id: string) => void): Response {
    const path = `/requests/${encodeURIComponent(id)}`;
    if (!isSignedIn(web)) return signIn(web, path);
    if (!isUuid(id)) return errorPage(web, 404, notFoundMessage);
    try {
      work(web, id.toLowerCase());
      return seeOther(web, `${path}?notice=${notice}`);
    } catch (err) {
      const f = failure(err);
      if (f.status === 404) return errorPage(web, 404, notFoundMessage);
      return show(web, id, f.status, { error: f.message, values: Object.fromEntries(values.map((n) => [n, (web.form.get(n) ?? "").slice(0, 20000)])) });
    }
  }

  return new Elysia()
    .use(rateLimitPlugin(ctx))
    .use(webSession(ctx, refusedPage))
    .get(
      "/requests",
      ({ web, query }) => {
        if (!isSignedIn(web)) return signIn(web, "/requests");
        const n = pageOf(query.page);
        const r = posts.listPosts(ctx, web.viewer.caller, { post_type: "human_request", status: "open", sort: "newest" }, { limit: PER_PAGE, offset: (n - 1) * PER_PAGE, page: n });
        const authors = users.findManyByIds(ctx, [...new Set(r.items.map((p) => p.authorId))]);
        return page(web, openRequestsPage(ctx, web, r.items, authors, n, r.has_more, { notice: NOTICES[str(query.notice) ?? ""] ?? null }));
      },
      PAGE,
    )
    .get(
      "/requests/mine",
      ({ web, query }) => {
        if (!isSignedIn(web)) return signIn(web, "/requests/mine");
        const n = pageOf(query.page);
        const raw = str(query.status) ?? "";
        const status = (FACILITATION_CLAIM_STATUSES as readonly string[]).includes(raw) ? (raw as facilitation.ClaimStatus) : null;
        const r = facilitation.listClaims(ctx, web.viewer.caller, { status: status ?? undefined }, { limit: PER_PAGE, offset: (n - 1) * PER_PAGE, page: n });
        const rows = r.items.map((claim) => {
          let post = null;
          try {
            post = posts.getVisiblePost(ctx, web.viewer.caller, claim.postId).post;
          } catch {
            // A request the person can no longer see is listed without its title.
          }
          return { claim, status: facilitation.statusOf(ctx, claim), post, mine: claim.humanId === web.viewer.user.id };
        });
        return page(web, myRequestsPage(ctx, web, rows, status, n, n * PER_PAGE < r.total));
      },
      PAGE,
    )
    .get("/requests/:id", ({ web, params, query }) => (isSignedIn(web) ? show(web, params.id, 200, { notice: NOTICES[str(query.notice) ?? ""] ?? null }) : signIn(web, `/requests/${encodeURIComponent(params.id)}`)), PAGE)
    .post(
      "/requests/:id/claim",
      ({ web, params, request }) =>
        attempt(web, params.id, "claimed", [], (w, id) => {
          // The API route's limit, charged to the same account.
          charge(ctx, request, subjectOf(w.viewer.caller, w.client.ip), ["facilitation_claim"]);
          facilitation.claim(ctx, w.viewer.caller, id);
        }),
      FORM,
    )
    .post(
      "/requests/:id/submit",
      ({ web, params }) =>
        attempt(web, params.id, "submitted", ["result", "hours_spent"], (w, id) => {
          const result = field(w, "result", facilitation.RESULT_MAX);
          const rawHours = field(w, "hours_spent", 16).trim();
          const hours = rawHours ? Number(rawHours) : null;
          if (hours !== null && (!Number.isFinite(hours) || hours < 0 || hours > facilitation.HOURS_MAX)) throw new FieldError(["body", "hours_spent"], `Hours spent must be a number from 0 to ${facilitation.HOURS_MAX}`);
          facilitation.submit(ctx, w.viewer.caller, id, { result, hours_spent: hours });
        }),
      FORM,
    )
    .post("/requests/:id/update", ({ web, params }) => attempt(web, params.id, "updated", ["notes"], (w, id) => facilitation.updateNotes(ctx, w.viewer.caller, id, field(w, "notes", facilitation.NOTES_MAX))), FORM)
    .post("/requests/:id/abandon", ({ web, params }) => attempt(web, params.id, "abandoned", [], (w, id) => facilitation.abandon(ctx, w.viewer.caller, id)), FORM);
};
