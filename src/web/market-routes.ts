// The web pages of the marketplace: /marketplace (paid tasks, with the API's filters),
// /marketplace/offers and /marketplace/documents, and through the route files beside this one a
// new listing (market-new.ts), a task with its bids and payment (market-tasks.ts), an offer and
// its orders (market-orders.ts), documents and their purchases (market-documents.ts), tips on
// posts and comments (market-tips.ts) and the invoices' live status (market-invoices.ts). Pages call the feature services as the reader
// (anonymous, or the signed-in person's caller), exactly as the API's routes do; every form is
// a POST with the session's CSRF token answered 303 back to its page, a refusal shows the page
// again with the service's status and message. Marketplace pages are never kept in the anonymous
// page cache: bids, orders and payments change them without any forum write.
import type { Ctx } from "../core/context";
import * as colonies from "../features/colonies/service";
import * as documents from "../features/documents/service";
import * as market from "../features/marketplace/service";
import { PAID_TASK_CATEGORY } from "../features/posts/content";
import * as posts from "../features/posts/service";
import { TASK_STATUSES } from "../features/posts/tables";
import * as users from "../features/users/service";
import { marketDocumentRoutes } from "./market-documents";
import { marketInvoiceRoutes } from "./market-invoices";
import { marketNewRoutes } from "./market-new";
import { marketOrderRoutes } from "./market-orders";
import { oneOf, pageOf, PER_PAGE, strings } from "./market-shared";
import { marketTaskRoutes } from "./market-tasks";
import { marketTipRoutes } from "./market-tips";
import { DocumentsPage, OffersPage, TasksPage, type ListRefs, type TaskFilters } from "./pages/market";
import { servePage } from "./respond";
import { PAGE } from "./route-options";
import { webAreas, type WebArea } from "./web-app";

const TASK_OPTIONS = { category: PAID_TASK_CATEGORY, status: TASK_STATUSES, sort: posts.TASK_SORTS } as const;

const refsOf = (ctx: Ctx, rows: posts.PostRow[]): ListRefs => ({
  authors: users.findManyByIds(
    ctx,
    rows.map((r) => r.authorId),
  ),
  colonies: colonies.colonyLabels(
    ctx,
    rows.map((r) => r.colonyId),
  ),
});

/** The three lists. */
const marketListRoutes: WebArea = (ctx, app) => {
  app
    .get(
      "/marketplace",
      ({ request, query }) =>
        servePage(ctx, request, () => {
          const q = strings(query);
          // A filter value the API would not take is no filter, as a filter that does not bind is ignored there.
          const filters: TaskFilters = { category: oneOf(q.category, TASK_OPTIONS.category), status: oneOf(q.status, TASK_OPTIONS.status), sort: oneOf(q.sort, TASK_OPTIONS.sort) || "newest" };
          const n = pageOf(q.page);
          return {
            key: null,
            render: (visit) => {
              const f: posts.TaskListFilters = {
                category: filters.category || undefined,
                status: (filters.status || undefined) as posts.TaskListFilters["status"],
                sort: filters.sort as posts.TaskListFilters["sort"],
              };
              const r = market.listTasks(ctx, visit.caller, f, { limit: PER_PAGE, offset: (n - 1) * PER_PAGE, page: n });
              return TasksPage(visit, { items: r.items, bidCounts: r.bidCounts, refs: refsOf(ctx, r.items), filters, options: TASK_OPTIONS, page: n, hasMore: n * PER_PAGE < r.total });
            },
          };
        }),
      PAGE,
    )
    .get(
      "/marketplace/offers",
      ({ request, query }) =>
        servePage(ctx, request, () => {
          const n = pageOf(strings(query).page);
          return {
            key: null,
            render: (visit) => {
              const r = posts.listPosts(ctx, visit.caller, { post_type: "paid_offer", sort: "newest" }, { limit: PER_PAGE, offset: (n - 1) * PER_PAGE, page: n });
              return OffersPage(visit, { items: r.items, refs: refsOf(ctx, r.items), page: n, hasMore: r.has_more });
            },
          };
        }),
      PAGE,
    )
    .get(
      "/marketplace/documents",
      ({ request, query }) =>
        servePage(ctx, request, () => {
          const s = strings(query);
          const q = (s.q ?? "").trim().slice(0, 200);
          const n = pageOf(s.page);
          return {
            key: null,
            render: (visit) => {
              const r = documents.listDocuments(ctx, { q }, { limit: PER_PAGE, offset: (n - 1) * PER_PAGE, page: n });
              return DocumentsPage(visit, {
                items: r.items,
                sellers: users.findManyByIds(
                  ctx,
                  r.items.map((d) => d.sellerId),
                ),
                q,
                page: n,
                hasMore: n * PER_PAGE < r.total,
              });
            },
          };
        }),
      PAGE,
    );
};

export const marketWebRoutes = (ctx: Ctx) => webAreas(ctx, [marketListRoutes, marketNewRoutes, marketTaskRoutes, marketOrderRoutes, marketDocumentRoutes, marketTipRoutes, marketInvoiceRoutes]);
