// The web pages of finding things and of one's own content: the colonies (/c), the people (/users)
// and organisations (/orgs/<slug>), bookmarks and collections, one module per area (web/directory/),
// all in one plugin with the sessions plugin (web-app.ts).
import type { Ctx } from "../core/context";
import { bookmarkRoutes } from "./directory/bookmark-routes";
import { collectionRoutes } from "./directory/collection-routes";
import { coloniesRoutes } from "./directory/colonies-routes";
import { ownContentRoutes } from "./directory/own-content-routes";
import { peopleRoutes } from "./directory/people-routes";
import { webAreas } from "./web-app";

export const directoryWebRoutes = (ctx: Ctx) => webAreas(ctx, [coloniesRoutes, peopleRoutes, ownContentRoutes, bookmarkRoutes, collectionRoutes]);
