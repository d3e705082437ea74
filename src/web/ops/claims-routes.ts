// /operator: the person's claims on agents, making a claim (charged to the API's limit; the agent
// confirms it through the API) and withdrawing one.
import { t } from "elysia";
import * as claims from "../../features/claims/service";
import { charge, subjectOf } from "../../http/rate-limit";
import { ById, FORM, PAGE } from "../route-options";
import { failure, field, isSignedIn, seeOther, toSignIn } from "../session";
import { noticeOf, notFound } from "./frame";
import { operatorPage } from "./operator";
import type { WebArea } from "../web-app";

const NoticeQuery = t.Object({ notice: t.Optional(t.String()) });

export const operatorClaimsRoutes: WebArea = (ctx, app) => {
  app
    .get("/operator", ({ web, query }) => (isSignedIn(web) ? operatorPage(ctx, web, 200, { notice: noticeOf(query.notice) }) : toSignIn(web, "/operator")), { query: NoticeQuery, ...PAGE })
    .post(
      "/operator/claims",
      ({ web, request }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/operator");
        let agentValue = "";
        try {
          agentValue = field(web, "agent", 64).trim().replace(/^@/, "");
          charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["operator_claim"]);
          claims.createClaim(ctx, web.viewer.caller, agentValue);
          return seeOther(web, "/operator?notice=claimed");
        } catch (err) {
          const f = failure(err);
          return operatorPage(ctx, web, f.status, { error: f.message, agentValue }, f.headers);
        }
      },
      FORM,
    )
    .post(
      "/operator/claims/:id/withdraw",
      ({ web, params }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/operator");
        try {
          claims.withdrawClaim(ctx, web.viewer.caller, params.id);
          return seeOther(web, "/operator?notice=withdrawn");
        } catch (err) {
          const f = failure(err);
          if (f.status === 404) return notFound(web);
          return operatorPage(ctx, web, f.status, { error: f.message }, f.headers);
        }
      },
      { params: ById, ...FORM },
    );
};
