// The moderation pages (docs/decisions.md §161, §162): /mod (the colonies the signed-in person
// moderates, and invitations to moderate) and /c/<colony>/mod/… (the unified queue, reports,
// bans, strikes, appeals, automod rules, mod invites, colony settings), one plugin per section
// (web/mod/). Each handler calls the same moderation service as the API, as the signed-in person;
// a refusal shows the section again with the service's message and status; a success answers 303
// back to the section. A colony the person does not moderate (or cannot see) is the 404 page, as
// is any unknown colony.
import type { Ctx } from "../core/context";
import { modAppealsRoutes } from "./mod/appeals-routes";
import { modAutomodRoutes } from "./mod/automod-routes";
import { modBansRoutes } from "./mod/bans-routes";
import { modHomeRoutes } from "./mod/home-routes";
import { modInvitesRoutes } from "./mod/invites-routes";
import { modQueueRoutes } from "./mod/queue-routes";
import { modSettingsRoutes } from "./mod/settings-routes";
import { modStrikesRoutes } from "./mod/strikes-routes";
import { webAreas } from "./web-app";

export const modRoutes = (ctx: Ctx) =>
  webAreas(ctx, [modHomeRoutes, modQueueRoutes, modBansRoutes, modStrikesRoutes, modAppealsRoutes, modAutomodRoutes, modInvitesRoutes, modSettingsRoutes]);
