// The dashboard's invite codes (registration by invitation, docs/decisions.md §149): making one
// (the code shown on the answer, once) and revoking one.
import { createInvite, revokeInvite } from "../../features/sessions/invites";
import { ById, FORM } from "../route-options";
import { seeOther } from "../session";
import { adminPage, adminRefused, asAdmin } from "./admin";
import { wholeNumber } from "./frame";
import type { WebArea } from "../web-app";

export const adminInvitesRoutes: WebArea = (ctx, app) => {
  app
    .post(
      "/admin/invites",
      ({ web }) =>
        asAdmin(web, (w) => {
          try {
            const out = createInvite(ctx, w.viewer.caller, wholeNumber(w, "days", "Days"));
            return adminPage(ctx, w, 200, {}, { newInvite: { code: out.code, url: out.signup_url, expiresAt: out.expires_at } });
          } catch (err) {
            return adminRefused(ctx, w, err);
          }
        }),
      FORM,
    )
    .post(
      "/admin/invites/:id/revoke",
      ({ web, params }) =>
        asAdmin(web, (w) => {
          try {
            revokeInvite(ctx, w.viewer.caller, params.id);
            return seeOther(w, "/admin?notice=invite-revoked#ops-invites");
          } catch (err) {
            return adminRefused(ctx, w, err);
          }
        }),
      { params: ById, ...FORM },
    );
};
