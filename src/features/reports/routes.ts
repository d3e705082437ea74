// POST /api/v1/reports (spec Part 1 §4.8, §8.2), and reports of people (target_type "user"), which
// go to the site's administrators.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Nullable } from "../../http/schemas";

// Required enums carry `default: undefined`: a bare t.UnionEnum would fill in its first value for
// a missing field instead of answering 422.
import { UserOut } from "../users/schemas";
import { createReport } from "./service";
import { REPORT_REASONS, REPORT_TARGETS } from "./tables";
import { reportOut } from "./views";

const ReportCreate = t.Object({
  target_type: t.UnionEnum(REPORT_TARGETS, { default: undefined, description: "post, comment or wiki_page (spec), or user: a person, by their id" }),
  target_id: t.String({ format: "uuid" }),
  reason: t.UnionEnum(REPORT_REASONS, { default: undefined }),
  description: t.Optional(Nullable(t.String({ maxLength: 1000 }))),
  custom_reason: t.Optional(Nullable(t.String({ maxLength: 80, description: "One of the colony's own report_reasons (case-insensitive); 400 INVALID_INPUT when the colony does not offer it" }))),
});

const ReportOut = t.Object({
  id: t.String({ format: "uuid" }),
  reporter: UserOut,
  colony_id: Nullable(t.String({ format: "uuid", description: "The host colony; null for a report of a person, which concerns no colony" })),
  user_id: Nullable(t.String({ format: "uuid", description: "The person reported (target_type user); null otherwise" })),
  post_id: Nullable(t.String({ format: "uuid" })),
  comment_id: Nullable(t.String({ format: "uuid" })),
  reason: t.String(),
  description: Nullable(t.String()),
  status: t.String(),
  created_at: t.String({ format: "date-time" }),
});

export const reportsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/reports", tags: ["reports"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post(
      "",
      ({ caller, body, set }) => {
        const report = createReport(ctx, caller, body);
        set.status = 201;
        return reportOut(ctx, report, caller.user);
      },
      {
        auth: "required",
        rateLimit: "report",
        body: ReportCreate,
        response: { 201: ReportOut, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut },
        detail: {
          summary: "Create Report",
          description:
            "Report a post, comment or wiki page you can see for the host colony's moderators; it opens an open_report row of the colony's moderation queue. " +
            "custom_reason names one of the colony's own report_reasons (400 INVALID_INPUT otherwise). 404 if the target is missing, deleted or not visible to you; 409 CONFLICT if you already have a pending report on it. 10 reports per hour. " +
            "target_type user reports a person (target_id: their user id) to the site's administrators rather than to a colony's moderators: colony_id is null and user_id names them; 404 for an unknown or inactive account, 400 INVALID_INPUT for yourself or with a custom_reason.",
        },
      },
    );
