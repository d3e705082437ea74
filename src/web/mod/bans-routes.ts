// A colony's bans (/c/<colony>/mod/bans): the members banned, banning one for a while or for good,
// and lifting a ban.
import { FieldError } from "../../core/errors";
import { banFromColony, listBans, unbanFromColony } from "../../features/colonies/bans";
import type { ColonyRow } from "../../features/colonies/service";
import { bansPage } from "../pages/mod-pages";
import { FORM, PAGE } from "../route-options";
import { field, page, type SignedInWeb } from "../session";
import { attempt, back, noticeOf, section, type Flash } from "./section";
import type { WebArea } from "../web-app";

export const modBansRoutes: WebArea = (ctx, app) => {
  const bans = (web: SignedInWeb, colony: ColonyRow, status = 200, flash: Flash = {}) =>
    page(web, bansPage(ctx, web, colony, listBans(ctx, web.viewer.caller, colony.id, { limit: 100, offset: 0 }).items, flash), status);

  app
    .get("/c/:name/mod/bans", section(ctx, "/bans", (web, colony, _p, query) => bans(web, colony, 200, { notice: noticeOf(query.notice) })), PAGE)
    .post(
      "/c/:name/mod/bans",
      section(ctx, "/bans", (web, colony) =>
        attempt(web, (s, f) => bans(web, colony, s, f), ["username", "duration_days", "reason"], () => {
          const days = field(web, "duration_days", 4);
          const username = field(web, "username", 64).trim().replace(/^@/, "");
          if (!username) throw new FieldError(["body", "username"], "Enter the username of the member to ban");
          banFromColony(ctx, web.viewer.caller, colony.id, username, { durationDays: days ? Number(days) : null, reason: field(web, "reason", 500).trim() || null });
          return back(colony, "/bans", "banned");
        }),
      ),
      FORM,
    )
    .post(
      "/c/:name/mod/bans/:user/unban",
      section(ctx, "/bans", (web, colony, params) =>
        attempt(web, (s, f) => bans(web, colony, s, f), [], () => {
          unbanFromColony(ctx, web.viewer.caller, colony.id, params.user);
          return back(colony, "/bans", "unbanned");
        }),
      ),
      FORM,
    );
};
