// The first run (features/instance/setup.ts): /setup for a browser on this machine (a loopback
// connection, no proxy in between: the test /metrics uses), /setup/<token> for whoever holds the
// link the server printed when it started. Either makes the first site admin and signs them in,
// then goes on to the instance's settings; once an administrator exists both are the 404 page.
import { t } from "elysia";
import type { Ctx } from "../../core/context";
import { awaitingFirstAdmin, createFirstAdmin, setupTokenValid, SETUP_PATH } from "../../features/instance/setup";
import { isOperatorRequest } from "../../http/observability";
import { sync } from "../layout";
import { SetupPage, type SetupView } from "../pages/instance";
import { notFoundMessage, webErrorPage } from "../respond";
import { FORM, PAGE } from "../route-options";
import { failure, field, page, seeOther, sessionCookie, type Web } from "../session";
import type { WebArea } from "../web-app";

const Token = t.Object({ token: t.String() });

/** Whether this request may see the first run's page (`token`: the one its address carries). */
function admitted(ctx: Ctx, request: Request, token: string | null): boolean {
  if (!awaitingFirstAdmin(ctx)) return false;
  return token === null ? isOperatorRequest(ctx, request) : setupTokenValid(ctx, token);
}

const setupPage = (web: Web, view: SetupView, status = 200, headers: Record<string, string> = {}) => page(web, sync(SetupPage({ csrf: web.csrf, view })), status, headers);

export const setupRoutes: WebArea = (ctx, app) => {
  const show = (web: Web, request: Request, token: string | null) => {
    if (!admitted(ctx, request, token)) return webErrorPage(ctx, web, 404, notFoundMessage);
    return setupPage(web, { action: token === null ? SETUP_PATH : `${SETUP_PATH}/${token}`, values: { username: "", display_name: "" } });
  };
  const create = async (web: Web, request: Request, token: string | null) => {
    if (!admitted(ctx, request, token)) return webErrorPage(ctx, web, 404, notFoundMessage);
    const values = { username: "", display_name: "" };
    try {
      values.username = field(web, "username", 100);
      values.display_name = field(web, "display_name", 200);
      const out = await createFirstAdmin(ctx, { ...values, password: field(web, "password", 1024) }, web.client);
      return seeOther(web, "/admin/settings?notice=welcome", [sessionCookie(ctx, out.token)]);
    } catch (err) {
      const f = failure(err);
      return setupPage(web, { action: token === null ? SETUP_PATH : `${SETUP_PATH}/${token}`, values, error: f.message }, f.status, f.headers);
    }
  };
  app
    .get(SETUP_PATH, ({ web, request }) => show(web, request, null), PAGE)
    .get(`${SETUP_PATH}/:token`, ({ web, request, params }) => show(web, request, params.token), { params: Token, ...PAGE })
    .post(SETUP_PATH, ({ web, request }) => create(web, request, null), FORM)
    .post(`${SETUP_PATH}/:token`, ({ web, request, params }) => create(web, request, params.token), { params: Token, ...FORM });
};
