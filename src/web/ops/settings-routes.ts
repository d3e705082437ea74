// /admin/settings (site admins only): the instance's name, description, rules and registration
// mode, saved through the instance feature's service and applied at once (features/instance).
import { t } from "elysia";
import type { Ctx } from "../../core/context";
import { saveSettings, settingsOf } from "../../features/instance/service";
import { sync } from "../layout";
import { SettingsPage, type SettingsView } from "../pages/instance";
import { FORM, PAGE } from "../route-options";
import { failure, field, page, seeOther, type SignedInWeb } from "../session";
import { asAdmin } from "./admin";
import { frameOf } from "./frame";
import type { WebArea } from "../web-app";

const NoticeQuery = t.Object({ notice: t.Optional(t.String()) });
const NOTICES: Record<string, string> = {
  saved: "Settings saved. Every page shows them now.",
  welcome: "You are the instance's first administrator. Name it, describe it and choose who may sign up; the admin page has the rest.",
};

function settingsPage(ctx: Ctx, web: SignedInWeb, status: number, more: Partial<SettingsView> = {}, headers: Record<string, string> = {}): Response {
  const settings = settingsOf(ctx);
  const values = { name: settings.name, description: settings.set.description ? settings.description : "", rules: settings.rules, registration: settings.registration };
  const view: SettingsView = { settings, values, configured: ctx.config.registration, ...more };
  return page(web, sync(SettingsPage({ frame: frameOf(web), view })), status, headers);
}

export const adminSettingsRoutes: WebArea = (ctx, app) => {
  app
    .get("/admin/settings", ({ web, query }) => asAdmin(web, (w) => settingsPage(ctx, w, 200, { notice: query.notice ? (NOTICES[query.notice] ?? null) : null })), {
      query: NoticeQuery,
      ...PAGE,
    })
    .post("/admin/settings", ({ web }) =>
      asAdmin(web, (w) => {
        const values = { name: "", description: "", rules: "", registration: "" };
        try {
          values.name = field(w, "name", 200);
          values.description = field(w, "description", 2_000);
          values.rules = field(w, "rules", 20_000);
          values.registration = field(w, "registration", 20);
          saveSettings(ctx, w.viewer.caller, values);
          return seeOther(w, "/admin/settings?notice=saved");
        } catch (err) {
          const f = failure(err);
          return settingsPage(ctx, w, f.status, { values, error: f.message }, f.headers);
        }
      }),
      FORM,
    );
};
