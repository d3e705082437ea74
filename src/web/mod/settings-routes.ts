// A colony's settings (/c/<colony>/mod/settings): the API's PATCH of a colony as a form, checked
// against the API's own schema before the colonies service saves it.
import { Value } from "@sinclair/typebox/value";
import { FieldError } from "../../core/errors";
import { ColonyUpdate } from "../../features/colonies/schemas";
import type { ColonyRow } from "../../features/colonies/service";
import { updateColony, type ColonyPatch } from "../../features/colonies/settings";
import { EDITABLE_FLAGS, EDITABLE_TEXT, settingsPage } from "../pages/mod-pages";
import { FORM, PAGE } from "../route-options";
import { field, page, type SignedInWeb, type Web } from "../session";
import { attempt, back, noticeOf, section, type Flash } from "./section";
import type { WebArea } from "../web-app";

/** The patch the form describes, checked against ColonyUpdate; a field it refuses is a 422 naming it. */
function patchOf(web: Web): ColonyPatch {
  const patch: Record<string, unknown> = {};
  for (const k of EDITABLE_TEXT) patch[k] = field(web, k, 20000);
  if (!String(patch.display_name).trim()) throw new FieldError(["body", "display_name"], "The display name must not be empty");
  for (const k of EDITABLE_FLAGS) patch[k] = field(web, k, 8) === "on";
  patch.community_type = field(web, "community_type", 16);
  const threshold = field(web, "strike_threshold", 4).trim();
  patch.strike_threshold = /^\d+$/.test(threshold) ? Number(threshold) : threshold;
  patch.strike_action = field(web, "strike_action", 16);
  const problem = Value.Errors(ColonyUpdate, patch).First();
  if (problem) throw new FieldError(["body", problem.path.slice(1)], `${problem.path.slice(1).replaceAll("_", " ")}: ${problem.message}`);
  return patch as ColonyPatch;
}

export const modSettingsRoutes: WebArea = (ctx, app) => {
  const settings = (web: SignedInWeb, colony: ColonyRow, status = 200, flash: Flash = {}) => page(web, settingsPage(ctx, web, colony, flash), status);

  app
    .get("/c/:name/mod/settings", section(ctx, "/settings", (web, colony, _p, query) => settings(web, colony, 200, { notice: noticeOf(query.notice) })), PAGE)
    .post(
      "/c/:name/mod/settings",
      section(ctx, "/settings", (web, colony) =>
        attempt(web, (s, f) => settings(web, colony, s, f), [], () => {
          updateColony(ctx, web.viewer.caller, colony.id, patchOf(web));
          return back(colony, "/settings", "saved");
        }),
      ),
      FORM,
    );
};
