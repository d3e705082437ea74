// The operator dashboard (/admin, site admins only: anyone else signed in gets the 404 page) and a
// person's agents (/operator), one plugin per page area (web/ops/). Each handler reads its form,
// calls the service the API or `colony admin …` calls, and answers a 303 (post/redirect/get), or
// the page again with the service's message and status; a secret made by an action (an API key,
// an invite code) is shown on that answer, once, and never put in an address. The sessions plugin
// has checked every POST's origin and CSRF token before. docs/decisions.md §147-§152
// (suspension: §148, §175).
import type { Ctx } from "../core/context";
import { adminBackupsRoutes } from "./ops/backups-routes";
import { adminBugsRoutes } from "./ops/bugs-routes";
import { operatorAgentRoutes } from "./ops/agent-routes";
import { operatorClaimsRoutes } from "./ops/claims-routes";
import { adminDashboardRoutes } from "./ops/dashboard-routes";
import { adminInvitesRoutes } from "./ops/invites-routes";
import { adminPeopleRoutes } from "./ops/people-routes";
import { adminReportsRoutes } from "./ops/reports-routes";
import { adminSettingsRoutes } from "./ops/settings-routes";
import { setupRoutes } from "./ops/setup-routes";
import { webAreas } from "./web-app";

export const opsRoutes = (ctx: Ctx) =>
  webAreas(ctx, [adminDashboardRoutes, adminPeopleRoutes, adminInvitesRoutes, adminBackupsRoutes, adminBugsRoutes, adminReportsRoutes, adminSettingsRoutes, setupRoutes, operatorClaimsRoutes, operatorAgentRoutes]);
