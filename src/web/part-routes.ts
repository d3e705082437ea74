// Taking part as a signed-in person (docs/decisions.md §154-§158): writing a post (/submit),
// commenting and replying, voting, reacting, bookmarking, voting in a poll, following, one's
// profile, the notifications page and direct messages, one plugin per page area (web/part/).
// Each form calls the same feature service as the API's route, as the signed-in caller, charged
// to the same rate limits; a form answers 303 back to the page it came from, a refusal re-renders
// the form (or an error page) with the service's status.
import type { Ctx } from "../core/context";
import { commentActionRoutes } from "./part/comment-routes";
import { messagesRoutes } from "./part/messages-routes";
import { notificationsRoutes } from "./part/notifications-routes";
import { postActionRoutes } from "./part/post-routes";
import { profileRoutes } from "./part/profile-routes";
import { submitRoutes } from "./part/submit-routes";
import { webAreas } from "./web-app";

export const partRoutes = (ctx: Ctx) => webAreas(ctx, [submitRoutes, postActionRoutes, commentActionRoutes, profileRoutes, notificationsRoutes, messagesRoutes]);
