// /admin/reports (site admins only): the reports of people, which concern no colony and so reach
// no colony's moderation queue, listed and settled through the reports feature's service.
import { t } from "elysia";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { listPersonReports, settlePersonReport } from "../../features/reports/service";
import { sync } from "../layout";
import { PersonReportsPage, type PersonReportsView } from "../pages/admin-reports";
import { ById, FORM, PAGE } from "../route-options";
import { failure, field, page, seeOther, type SignedInWeb } from "../session";
import { asAdmin } from "./admin";
import { frameOf } from "./frame";
import type { WebArea } from "../web-app";

const ReportsQuery = t.Object({ status: t.Optional(t.String()), notice: t.Optional(t.String()) });
const NOTICES: Record<string, string> = {
  resolved: "The report is resolved.",
  dismissed: "The report is dismissed.",
};

function reportsPage(ctx: Ctx, web: SignedInWeb, tab: PersonReportsView["tab"], status = 200, more: Partial<PersonReportsView> = {}, headers: Record<string, string> = {}): Response {
  const view: PersonReportsView = { tab, items: listPersonReports(ctx, web.viewer.caller, tab), ...more };
  return page(web, sync(PersonReportsPage({ frame: frameOf(web), view })), status, headers);
}

export const adminReportsRoutes: WebArea = (ctx, app) => {
  app
    .get(
      "/admin/reports",
      ({ web, query }) => asAdmin(web, (w) => reportsPage(ctx, w, query.status === "settled" ? "settled" : "pending", 200, { notice: query.notice ? (NOTICES[query.notice] ?? null) : null })),
      { query: ReportsQuery, ...PAGE },
    )
    .post(
      "/admin/reports/:id",
      ({ web, params }) =>
        asAdmin(web, (w) => {
          try {
            const status = field(w, "status", 20);
            if (status !== "resolved" && status !== "dismissed") throw new ApiError(422, "INVALID_INPUT", "The status must be resolved or dismissed");
            settlePersonReport(ctx, w.viewer.caller, params.id, status);
            return seeOther(w, `/admin/reports?notice=${status}`);
          } catch (err) {
            const f = failure(err);
            return reportsPage(ctx, w, "pending", f.status, { error: f.message }, f.headers);
          }
        }),
      { params: ById, ...FORM },
    );
};
