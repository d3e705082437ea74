// Listing on the marketplace from the web: /marketplace/new (a paid task or a service offer,
// created through the posts service as POST /api/v1/posts creates them, metadata and all, charged
// to the same limit) and the person's Lightning address (the users service's profile update, as
// PUT /api/v1/users/me), which the posts service requires before an offer is listed.
import type { Ctx } from "../core/context";
import { ApiError, FieldError } from "../core/errors";
import * as colonies from "../features/colonies/service";
import * as posts from "../features/posts/service";
import * as users from "../features/users/service";
import { formAction, strings } from "./market-shared";
import { offerHref, taskHref } from "./pages/market";
import { NewListingPage, type ListingKind } from "./pages/market-new";
import { FORM, PAGE } from "./route-options";
import { field, isSignedIn, page, toSignIn, type SignedInWeb, type Web } from "./session";
import { visitOf, type Visit } from "./visit";
import type { WebArea } from "./web-app";

const kindOf = (v: string | undefined): ListingKind => (v === "offer" ? "offer" : "task");

const FIELDS = ["colony", "title", "body", "budget_min_sats", "budget_max_sats", "category", "deliverable_type", "deadline", "listed_rate_sats", "delivery_days"];

const NOTICES: Record<string, string> = { address: "Your Lightning address is saved." };

/** A whole number of a form field, or undefined when left empty; anything else is a 422 naming it. */
function optionalInteger(web: Web, name: string): number | undefined {
  const raw = field(web, name, 12).trim();
  if (!raw) return undefined;
  if (!/^\d+$/.test(raw)) throw new FieldError(["body", name], `${name.replaceAll("_", " ")} must be a whole number`);
  return Number(raw);
}

/** The listing's metadata as POST /api/v1/posts takes it; the posts service checks it. */
function metadataOf(web: Web, kind: ListingKind): Record<string, unknown> {
  const category = field(web, "category", 40) || undefined;
  if (kind === "offer") return { listed_rate_sats: optionalInteger(web, "listed_rate_sats"), category, delivery_days: optionalInteger(web, "delivery_days") };
  const deadline = field(web, "deadline", 10).trim();
  if (deadline && !/^\d{4}-\d{2}-\d{2}$/.test(deadline)) throw new FieldError(["body", "deadline"], "The deadline is a date (YYYY-MM-DD)");
  return {
    budget_min_sats: optionalInteger(web, "budget_min_sats"),
    budget_max_sats: optionalInteger(web, "budget_max_sats"),
    category,
    deliverable_type: field(web, "deliverable_type", 40) || undefined,
    // A date means the end of that day, in UTC.
    deadline: deadline ? `${deadline}T23:59:59Z` : undefined,
  };
}

export const marketNewRoutes: WebArea = (ctx, app) => {
  const form = (visit: Visit, web: SignedInWeb, kind: ListingKind, values: Record<string, string>, flash: { notice?: string | null; error?: string | null } = {}) =>
    NewListingPage(
      visit,
      {
        kind,
        colonies: colonies.listColonies(ctx, web.viewer.caller, {}, { limit: 100, offset: 0 }).items,
        lightningAddress: users.findById(ctx, web.viewer.user.id)?.lightningAddress ?? null,
        values,
      },
      flash,
    );
  const typed = (web: Web) => Object.fromEntries(FIELDS.map((n) => [n, (web.form.get(n) ?? "").slice(0, 50_000)]));

  app
    .get(
      "/marketplace/new",
      ({ web, request, query }) => {
        const q = strings(query);
        const kind = kindOf(q.kind);
        if (!isSignedIn(web)) return toSignIn(web, `/marketplace/new?kind=${kind}`);
        const notice = q.notice && Object.hasOwn(NOTICES, q.notice) ? NOTICES[q.notice] : null;
        return page(web, form(visitOf(ctx, request), web, kind, {}, { notice }));
      },
      PAGE,
    )
    .post(
      "/marketplace/new",
      ({ web, request }) => {
        const kind = kindOf(web.form.get("kind") ?? undefined);
        return formAction(ctx, web, request, {
          back: `/marketplace/new?kind=${kind}`,
          limits: ["create_post"],
          act: (w) => {
            const row = posts.createPost(ctx, w.viewer.caller, {
              colony: field(w, "colony", 100),
              post_type: kind === "task" ? "paid_task" : "paid_offer",
              title: field(w, "title", 300),
              body: field(w, "body", 50_000),
              metadata: metadataOf(w, kind),
              client: "web",
            });
            return kind === "task" ? taskHref(row.id) : offerHref(row.id);
          },
          again: (visit, error) => {
            if (!isSignedIn(web)) throw new ApiError(401, "AUTH_REQUIRED", error);
            return form(visit, web, kind, typed(web), { error });
          },
        });
      },
      FORM,
    )
    .post(
      "/marketplace/payout-address",
      ({ web, request }) => {
        const kind = kindOf(web.form.get("kind") ?? undefined);
        return formAction(ctx, web, request, {
          back: `/marketplace/new?kind=${kind}`,
          act: (w) => {
            users.updateProfile(ctx, users.findById(ctx, w.viewer.user.id)!, { lightning_address: field(w, "lightning_address", 255) });
            return `/marketplace/new?kind=${kind}&notice=address`;
          },
          again: (visit, error) => {
            if (!isSignedIn(web)) throw new ApiError(401, "AUTH_REQUIRED", error);
            return form(visit, web, kind, {}, { error });
          },
        });
      },
      FORM,
    );
};
