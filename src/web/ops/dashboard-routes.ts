// GET /admin: the operator dashboard (docs/decisions.md §147-§152): health and counters, an account
// looked up by name, registration and invite codes, webhook delivery health, backups and the bug
// reports inbox.
import { t } from "elysia";
import { PAGE } from "../route-options";
import { adminPage, asAdmin } from "./admin";
import { noticeOf } from "./frame";
import type { WebArea } from "../web-app";

const AdminQuery = t.Object({ notice: t.Optional(t.String()), user: t.Optional(t.String()), bugs: t.Optional(t.String()) });

export const adminDashboardRoutes: WebArea = (ctx, app) => {
  app
    .get("/admin", ({ web, query }) => asAdmin(web, (w) => adminPage(ctx, w, 200, query, { notice: noticeOf(query.notice) })), { query: AdminQuery, ...PAGE });
};
