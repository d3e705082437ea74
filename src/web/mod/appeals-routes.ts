// A colony's ban appeals (/c/<colony>/mod/appeals): the appeals waiting for a decision, each
// accepted (the ban is lifted) or rejected, with a note the member is told.
import { FieldError } from "../../core/errors";
import { pendingAppeals, resolveAppeal } from "../../features/colonies/appeals";
import type { ColonyRow } from "../../features/colonies/service";
import { appealsPage } from "../pages/mod-pages";
import { FORM, PAGE } from "../route-options";
import { field, page, type SignedInWeb } from "../session";
import { attempt, back, noticeOf, section, type Flash } from "./section";
import type { WebArea } from "../web-app";

export const modAppealsRoutes: WebArea = (ctx, app) => {
  const appeals = (web: SignedInWeb, colony: ColonyRow, status = 200, flash: Flash = {}) => page(web, appealsPage(ctx, web, colony, pendingAppeals(ctx, web.viewer.caller, colony.id), flash), status);

  app
    .get("/c/:name/mod/appeals", section(ctx, "/appeals", (web, colony, _p, query) => appeals(web, colony, 200, { notice: noticeOf(query.notice) })), PAGE)
    .post(
      "/c/:name/mod/appeals/:id",
      section(ctx, "/appeals", (web, colony, params) =>
        attempt(web, (s, f) => appeals(web, colony, s, f), [], () => {
          const decision = field(web, "decision", 8);
          if (decision !== "accept" && decision !== "reject") throw new FieldError(["body", "decision"], "Choose to accept or reject the appeal");
          resolveAppeal(ctx, web.viewer.caller, colony.id, params.id, { accept: decision === "accept", note: field(web, "note", 1000).trim() || null });
          return back(colony, "/appeals", "appeal");
        }),
      ),
      FORM,
    );
};
