// The web pages of the directories (/c, /users, /orgs/<slug>), one's own content (edit, delete, report), /bookmarks and collections.
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";

export const directoryWebRoutes = (_ctx: Ctx) => new Elysia();
