// /mod: the colonies the signed-in person moderates, with their open items and pending appeals,
// and the invitations to moderate they received, which they accept or decline here.
import { pendingAppealCount } from "../../features/colonies/appeals";
import { findColony } from "../../features/colonies/service";
import { acceptInvite, declineInvite, listReceived } from "../../features/moderation/invites";
import { openCounts } from "../../features/moderation/queue-store";
import { MOD_QUEUE_SOURCES } from "../../features/moderation/tables";
import { moderatedColonies } from "../moderates";
import { modHomePage } from "../pages/mod-pages";
import { FORM, PAGE } from "../route-options";
import { failure, isSignedIn, page, seeOther, toSignIn, type SignedInWeb } from "../session";
import { noticeOf, notFound, type Flash } from "./section";
import type { WebArea } from "../web-app";

export const modHomeRoutes: WebArea = (ctx, app) => {
  function home(web: SignedInWeb, status = 200, flash: Flash = {}): Response {
    const rows = moderatedColonies(ctx, web.viewer.user.id).map((c) => {
      const counts = openCounts(ctx, c.id);
      return { colony: c, open: MOD_QUEUE_SOURCES.reduce((n, s) => n + counts[s], 0), appeals: pendingAppealCount(ctx, c.id) };
    });
    const received = listReceived(ctx, web.viewer.caller).flatMap((invite) => {
      const colony = findColony(ctx, invite.colonyId);
      return colony ? [{ invite, colony }] : [];
    });
    return page(web, modHomePage(ctx, web, rows, received, flash), status);
  }

  app
    .get("/mod", ({ web, query }) => (isSignedIn(web) ? home(web, 200, { notice: noticeOf(query.notice) }) : toSignIn(web, "/mod")), PAGE)
    .post(
      "/mod/invites/:id/:answer",
      ({ web, params }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/mod");
        if (params.answer !== "accept" && params.answer !== "decline") return notFound(ctx, web);
        try {
          if (params.answer === "accept") acceptInvite(ctx, web.viewer.caller, params.id);
          else declineInvite(ctx, web.viewer.caller, params.id);
          return seeOther(web, `/mod?notice=${params.answer === "accept" ? "accepted" : "declined"}`);
        } catch (err) {
          const f = failure(err);
          return home(web, f.status, { error: f.message });
        }
      },
      FORM,
    );
};
