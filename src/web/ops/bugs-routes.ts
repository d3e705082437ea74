// The dashboard's bug reports inbox: answering a report, its status and the answer its reporter
// reads through the API.
import { ApiError } from "../../core/errors";
import * as bugs from "../../features/bugs/service";
import { BUG_STATUSES, type BugStatus } from "../../features/bugs/statuses";
import { ById, FORM } from "../route-options";
import { field, seeOther } from "../session";
import { adminRefused, asAdmin } from "./admin";
import type { WebArea } from "../web-app";

export const adminBugsRoutes: WebArea = (ctx, app) => {
  app
    .post(
      "/admin/bugs/:id",
      ({ web, params }) =>
        asAdmin(web, (w) => {
          try {
            const status = field(w, "status", 20);
            if (!(BUG_STATUSES as readonly string[]).includes(status)) throw new ApiError(422, "INVALID_INPUT", `The status must be one of ${BUG_STATUSES.join(", ")}`);
            // An empty answer clears it (the CLI's --clear-response).
            bugs.answerReport(ctx, params.id, { status: status as BugStatus, response: field(w, "response", 5000).trim() });
            return seeOther(w, "/admin?notice=bug-answered#ops-bugs");
          } catch (err) {
            return adminRefused(ctx, w, err);
          }
        }),
      { params: ById, ...FORM },
    );
};
