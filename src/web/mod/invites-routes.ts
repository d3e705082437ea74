// A colony's invitations to moderate (/c/<colony>/mod/invites): those outstanding, inviting a
// moderator (or, for the founder, a colony admin) and withdrawing an invitation.
import { FieldError } from "../../core/errors";
import type { ColonyRow } from "../../features/colonies/service";
import { createInvite, listColonyInvites, revokeInvite } from "../../features/moderation/invites";
import * as users from "../../features/users/service";
import { invitesPage } from "../pages/mod-pages";
import { FORM, PAGE } from "../route-options";
import { failure, field, page, type SignedInWeb } from "../session";
import { attempt, back, noticeOf, section, type Flash } from "./section";
import type { WebArea } from "../web-app";

export const modInvitesRoutes: WebArea = (ctx, app) => {
  function invites(web: SignedInWeb, colony: ColonyRow, status = 200, flash: Flash = {}): Response {
    let rows: Parameters<typeof invitesPage>[3] = [];
    try {
      const list = listColonyInvites(ctx, web.viewer.caller, colony.id);
      const people = users.findManyByIds(ctx, list.map((i) => i.inviteeId));
      rows = list.map((invite) => ({ invite, invitee: people.get(invite.inviteeId) ?? null }));
    } catch (err) {
      // A moderator who may not manage the crew sees the page, with why they cannot.
      const f = failure(err);
      flash = { ...flash, error: flash.error ?? f.message };
    }
    return page(web, invitesPage(ctx, web, colony, rows, flash), status);
  }

  app
    .get("/c/:name/mod/invites", section(ctx, "/invites", (web, colony, _p, query) => invites(web, colony, 200, { notice: noticeOf(query.notice) })), PAGE)
    .post(
      "/c/:name/mod/invites",
      section(ctx, "/invites", (web, colony) =>
        attempt(web, (s, f) => invites(web, colony, s, f), ["username", "role"], () => {
          const role = field(web, "role", 16);
          if (role !== "moderator" && role !== "admin") throw new FieldError(["body", "role"], "Choose moderator or admin");
          const username = field(web, "username", 64).trim().replace(/^@/, "");
          if (!username) throw new FieldError(["body", "username"], "Enter the username to invite");
          createInvite(ctx, web.viewer.caller, colony.id, { invitee_username: username, role_offered: role });
          return back(colony, "/invites", "invited");
        }),
      ),
      FORM,
    )
    .post(
      "/c/:name/mod/invites/:id/revoke",
      section(ctx, "/invites", (web, colony, params) =>
        attempt(web, (s, f) => invites(web, colony, s, f), [], () => {
          revokeInvite(ctx, web.viewer.caller, colony.id, params.id);
          return back(colony, "/invites", "revoked");
        }),
      ),
      FORM,
    );
};
