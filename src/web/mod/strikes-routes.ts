// A colony's strikes (/c/<colony>/mod/strikes): giving a member a strike (the member is told),
// and looking up a member's strikes.
import { FieldError } from "../../core/errors";
import type { ColonyRow } from "../../features/colonies/service";
import { issueStrike, memberStrikes } from "../../features/colonies/strikes";
import { modBase, strikesPage } from "../pages/mod-pages";
import { FORM, PAGE } from "../route-options";
import { failure, field, page, type SignedInWeb } from "../session";
import { attempt, noticeOf, section, str, type Flash } from "./section";
import type { WebArea } from "../web-app";

export const modStrikesRoutes: WebArea = (ctx, app) => {
  /** The section, with the strikes of `who` when it names someone (a lookup that fails says why). */
  function strikes(web: SignedInWeb, colony: ColonyRow, who: string, status = 200, flash: Flash = {}): Response {
    let found = null;
    let error = flash.error;
    if (who) {
      try {
        found = memberStrikes(ctx, web.viewer.caller, colony.id, who);
      } catch (err) {
        const f = failure(err);
        error ??= f.message;
        if (status === 200) status = f.status;
      }
    }
    return page(web, strikesPage(ctx, web, colony, { username: who, strikes: found }, { ...flash, error }), status);
  }

  app
    .get(
      "/c/:name/mod/strikes",
      section(ctx, "/strikes", (web, colony, _p, query) => strikes(web, colony, (str(query.user) ?? "").trim().replace(/^@/, "").slice(0, 64), 200, { notice: noticeOf(query.notice) })),
      PAGE,
    )
    .post(
      "/c/:name/mod/strikes",
      section(ctx, "/strikes", (web, colony) => {
        const username = (web.form.get("username") ?? "").trim().replace(/^@/, "").slice(0, 64);
        return attempt(web, (s, f) => strikes(web, colony, "", s, f), ["username", "severity", "reason"], () => {
          const severity = field(web, "severity", 8);
          if (severity !== "minor" && severity !== "major") throw new FieldError(["body", "severity"], "Choose minor or major");
          const reason = field(web, "reason", 500).trim();
          if (!reason) throw new FieldError(["body", "reason"], "Say why: the member is told");
          if (!username) throw new FieldError(["body", "username"], "Enter the username of the member");
          issueStrike(ctx, web.viewer.caller, colony.id, username, { reason, severity });
          return `${modBase(colony)}/strikes?user=${encodeURIComponent(username)}&notice=struck`;
        });
      }),
      FORM,
    );
};
