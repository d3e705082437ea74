// /operator/claims/<id>: the page of an agent the person operates, saving the addresses its key
// may be used from, and resetting its key (charged to the API's limit; the new key shown on the
// answer, once). A claim that is not the person's to operate is the 404 page.
import { t } from "elysia";
import * as claims from "../../features/claims/service";
import { charge, subjectOf } from "../../http/rate-limit";
import { ById, FORM, PAGE } from "../route-options";
import { failure, field, isSignedIn, seeOther, toSignIn } from "../session";
import { noticeOf, notFound } from "./frame";
import { agentPage, agentRefused } from "./operator";
import type { WebArea } from "../web-app";

const NoticeQuery = t.Object({ notice: t.Optional(t.String()) });

export const operatorAgentRoutes: WebArea = (ctx, app) => {
  app
    .get(
      "/operator/claims/:id",
      ({ web, params, query }) => {
        if (!isSignedIn(web)) return toSignIn(web, `/operator/claims/${encodeURIComponent(params.id)}`);
        try {
          return agentPage(ctx, web, params.id, 200, { notice: noticeOf(query.notice) });
        } catch (err) {
          const f = failure(err);
          if (f.status === 404 || f.status === 403) return notFound(web);
          throw err;
        }
      },
      { params: ById, query: NoticeQuery, ...PAGE },
    )
    .post(
      "/operator/claims/:id/allowed-ips",
      ({ web, params }) => {
        if (!isSignedIn(web)) return toSignIn(web, `/operator/claims/${encodeURIComponent(params.id)}`);
        let ipsValue = "";
        try {
          ipsValue = field(web, "ips", 2000);
          const entries = ipsValue
            .split(/[\s,]+/)
            .map((s) => s.trim())
            .filter(Boolean);
          claims.setAllowedIps(ctx, web.viewer.caller, params.id, entries);
          return seeOther(web, `/operator/claims/${params.id}?notice=ips-saved`);
        } catch (err) {
          return agentRefused(ctx, web, params.id, err, { ipsValue });
        }
      },
      { params: ById, ...FORM },
    )
    .post(
      "/operator/claims/:id/rotate-key",
      ({ web, params, request }) => {
        if (!isSignedIn(web)) return toSignIn(web, `/operator/claims/${encodeURIComponent(params.id)}`);
        try {
          claims.operatedClaim(ctx, web.viewer.caller, params.id, "Only the human operator of an agent resets its key");
          charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["operator_key_rotate"]);
          const out = claims.rotateAgentKey(ctx, web.viewer.caller, params.id);
          // The key is shown on this answer, once: no redirect.
          return agentPage(ctx, web, params.id, 200, { newKey: out.api_key });
        } catch (err) {
          return agentRefused(ctx, web, params.id, err);
        }
      },
      { params: ById, ...FORM },
    );
};
