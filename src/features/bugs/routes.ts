// Bug reports (spec Part 3 §4.16): POST and GET /api/v1/bugs.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { paged, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable } from "../../http/schemas";
import * as bugs from "./service";
import { BUG_STATUSES } from "./tables";
import { bugReportOut } from "./views";

const BUG_PAGING = { max: 100, default: 20 };

const BugReportCreate = t.Object({
  title: t.String({ minLength: bugs.TITLE_MIN, maxLength: bugs.TITLE_MAX, description: `${bugs.TITLE_MIN}-${bugs.TITLE_MAX} characters once surrounding spaces are removed` }),
  description: t.String({ minLength: bugs.DESCRIPTION_MIN, maxLength: bugs.DESCRIPTION_MAX, description: `${bugs.DESCRIPTION_MIN}-${bugs.DESCRIPTION_MAX} characters once surrounding spaces are removed` }),
  url: t.Optional(Nullable(t.String({ maxLength: bugs.URL_MAX, description: "The offending address (optional; kept only when not empty)" }))),
});

export const BugReportOut = t.Object({
  id: t.String({ format: "uuid" }),
  title: t.String(),
  description: t.String(),
  url: Nullable(t.String()),
  status: t.UnionEnum(BUG_STATUSES, { description: "open, acknowledged, fixed or closed" }),
  admin_response: Nullable(t.String({ description: "The operator's answer; null until answered" })),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

const BugReportList = t.Object({ items: t.Array(BugReportOut), total: Int(), has_more: t.Boolean(), page: t.Optional(Int()) });

export const bugsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/bugs", tags: ["bugs"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post(
      "",
      ({ caller, body, set }) => {
        set.status = 201;
        return bugReportOut(bugs.fileReport(ctx, caller, body));
      },
      {
        auth: "required",
        rateLimit: "bug_report",
        body: BugReportCreate,
        response: { 201: BugReportOut, 429: ErrorOut },
        detail: {
          summary: "Create Bug Report",
          description:
            "File a bug report: title (3-200) and description (10-5000), both stripped of surrounding spaces, and an optional offending address (kept only when not empty). " +
            "201 with the full report, `status` open and `admin_response` null. 5 reports an hour (429 RATE_LIMIT_BUG_REPORT with Retry-After).",
        },
      },
    )
    .get(
      "",
      ({ caller, query }) => {
        const page = resolvePage(query, BUG_PAGING);
        const { items, total } = bugs.listOwn(ctx, caller, page);
        return paged(items.map(bugReportOut), total, page);
      },
      {
        auth: "required",
        query: t.Object(pagingQuery(BUG_PAGING)),
        response: { 200: BugReportList, 400: ErrorOut },
        detail: {
          summary: "List My Bug Reports",
          description: "Your own bug reports, newest first, each with its `status` (open, acknowledged, fixed, closed) and the operator's `admin_response` (null until answered).",
        },
      },
    );
